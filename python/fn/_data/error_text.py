"""TF's text for an op error raised while a dataset is iterated eagerly (``IteratorGetNext``).

An error in a user function reads as TF 2.21's: ``Error in user-defined function passed to
MapDataset:7 transformation with iterator: Iterator::Root::Prefetch::FiniteTake::ParallelMapV2:
<message>``, naming the transformation (its op and creation number) and the path of iterators
from the root down to it as TF's default graph rewrites leave it (a stateless ``map``
parallelised, ``map`` + ``batch`` fused, no-op take/skip/repeat/shard removed, ``shuffle`` +
``repeat`` fused, a ``Prefetch`` injected above a synchronous root). Every op error then gets the
``IteratorGetNext`` wrapper of TF's eager op errors.
"""

from __future__ import annotations

import itertools
from typing import Any, Dict, Iterator as PyIterator, List, Optional, Tuple

from fn import _core, errors

_IDS = itertools.count()  # TF numbers dataset ops in creation order
_DEVICE = "_device_/job:localhost/replica:0/task:0/device:CPU:0"
_ASYNC = ("ParallelMapV2", "Prefetch", "ParallelInterleaveV4")  # no Prefetch injected above these

# TF's iterator names where they differ from the class name without "Dataset", by fn class name.
_ITERATORS = {
    "FilterDataset": "Filter",
    "FlatMapDataset": "FlatMap",
    "ShuffleDataset": "Shuffle",
    "BatchDataset": "BatchV2",
    "PaddedBatchDataset": "PaddedBatchV2",
    "PrefetchDataset": "Prefetch",
    "CacheDataset": "MemoryCacheImpl",
    "ZipDataset": "Zip",
    "ConcatenateDataset": "Concatenate",
}


def next_id() -> int:
    """The next dataset's creation number (TF's ``MapDataset:N``)."""
    return next(_IDS)


def tag(e: errors.OpError, func: Any) -> None:
    """Marks ``e`` as raised by the user function ``func`` (the innermost one keeps it)."""
    if getattr(e, "_fn_data_func", None) is None:
        e._fn_data_func = func  # type: ignore[attr-defined]
        e._fn_data_where = {}  # type: ignore[attr-defined]


def note(e: errors.OpError, ds: Any, index: int, inner: Any = None) -> None:
    """An enclosing dataset's part of ``e``'s path: the repetition or element ``index`` it was at,
    and the ``inner`` dataset a flat_map/interleave function made for that element."""
    where = getattr(e, "_fn_data_where", None)
    if where is not None and id(ds) not in where:
        where[id(ds)] = (index, inner)


def inner_elements(owner: Any, index: int, inner: Any) -> PyIterator[Any]:
    """``inner``'s elements (made by ``owner``'s function for its element ``index``)."""
    try:
        yield from inner._elements()
    except errors.OpError as e:
        note(e, owner, index, inner)
        raise


def iterator_error(e: errors.OpError, root: Any) -> errors.OpError:
    """``e`` raised by an eager ``IteratorGetNext`` over ``root``: TF's text and class."""
    n = len(_flat(root.element_spec))
    message = user_function_message(e, root)
    text = f"{{{{function_node __wrapped__IteratorGetNext_output_types_{n}{_DEVICE}}}}} {message} [Op:IteratorGetNext] name: "
    return type(e)(None, None, text)


def user_function_error(e: errors.OpError, root: Any, loop: bool = False) -> errors.OpError:
    """``e`` raised while a graph op iterates ``root``: the failing user function named.
    ``loop``: a Function's ``for`` over the dataset, which TF runs as ``scan`` + ``reduce``."""
    message = user_function_message(e, root, loop)
    return e if message is e.message else type(e)(None, None, message)


def user_function_message(e: errors.OpError, root: Any, loop: bool = False) -> str:
    """``e``'s message, prefixed as TF's when a user function of ``root``'s pipeline raised it."""
    message = e.message
    func = getattr(e, "_fn_data_func", None)
    if func is not None:
        found = _find(root, func, e._fn_data_where, True)  # type: ignore[attr-defined]
        if found is not None and found[1] is not None:
            path, owner = found
            if loop:
                path[:0] = ["Prefetch", "Scan"]
            elif not path or path[0] not in _ASYNC:
                path.insert(0, "Prefetch")
            op = type(owner).__name__  # fn's dataset classes carry TF's op names
            if op == "MapDataset" and getattr(owner, "_parallel", None) is not None:
                op = "ParallelMapDatasetV2"
            if op == "InterleaveDataset" and getattr(owner, "_parallel", None) is not None:
                op = "ParallelInterleaveDatasetV4"
            message = (
                f"Error in user-defined function passed to {op}:{owner._fn_id} transformation with "
                f"iterator: {'::'.join([('Reduce' if loop else '') + 'Iterator::Root'] + path)}: {message}"
            )
    return message


def _flat(spec: Any) -> List[Any]:
    from fn._data import structure

    return structure.flatten(spec)


def _owns(ds: Any, func: Any) -> bool:
    return any(v is func for v in vars(ds).values())


def _find(ds: Any, func: Any, where: Dict[int, Tuple[int, Any]], top: bool) -> Optional[Tuple[List[str], Any]]:
    """The iterator names from ``ds`` down to the dataset owning ``func``, and that dataset
    (``None`` in its place: a fused ``map`` + ``batch``, whose errors TF leaves unprefixed).
    ``top``: the pipeline being iterated, which TF rewrites (datasets made inside functions are
    not)."""
    if _owns(ds, func):
        return [_name(ds, None, where, top)], ds
    children: List[Tuple[Any, bool, Optional[int]]] = [(c, top, i) for i, c in enumerate(ds._inputs)]
    index, inner = where.get(id(ds), (None, None))
    if inner is not None:
        children.insert(0, (inner, False, None))
    for child, child_top, i in children:
        found = _find(child, func, where, child_top)
        if found is None:
            continue
        path, owner = found
        kind = type(ds).__name__
        if top and kind == "BatchDataset" and type(child).__name__ == "MapDataset" and path and owner is child:
            return path, None  # TF's map_and_batch_fusion: MapAndBatch reports the bare error
        if top and kind == "RepeatDataset" and type(child).__name__ == "ShuffleDataset" and path[0] == "Shuffle":
            return ["ShuffleAndRepeat"] + path[1:], owner  # TF's shuffle_and_repeat_fusion
        name = _name(ds, inner if child is inner else i, where, top)
        return ([name] if name else []) + path, owner
    return None


def _name(ds: Any, child: Any, where: Dict[int, Tuple[int, Any]], top: bool) -> str:
    """``ds``'s iterator name in TF's path ("" where TF's rewrites remove it); ``child``: the
    index of the input the path goes on to, or the inner dataset it descends into."""
    kind = type(ds).__name__
    index = where.get(id(ds), (0, None))[0]
    count = getattr(ds, "_count", None)
    if kind == "MapDataset":
        stateless = getattr(ds, "_parallel", None) is not None or (top and not _stateful(ds))
        return "ParallelMapV2" if stateless else "Map"
    if kind == "InterleaveDataset":
        name = "Interleave" if getattr(ds, "_parallel", None) is None else "ParallelInterleaveV4"
        return name if child is None or isinstance(child, int) else f"{name}[{index}]"
    if kind == "FlatMapDataset":
        return "FlatMap" if child is None or isinstance(child, int) else f"FlatMap[{index}]"
    if kind == "TakeDataset":
        return "" if top and count is not None and count < 0 else ("EmptyTake" if count == 0 else "FiniteTake")
    if kind == "SkipDataset":
        return "" if top and count == 0 else ("EmptySkip" if count is not None and count < 0 else "FiniteSkip")
    if kind == "RepeatDataset":
        if top and count == 1:
            return ""
        return f"ForeverRepeat[{index}]" if count is not None and count < 0 else f"FiniteRepeat[{index}]"
    if kind == "ShardDataset" and top and getattr(ds, "_n", None) == 1:
        return ""
    if kind == "OptionsDataset":
        return ""
    name = _ITERATORS.get(kind) or (kind[: -len("Dataset")] if kind.endswith("Dataset") else kind)
    if kind in ("ZipDataset", "ConcatenateDataset") and isinstance(child, int):
        name = f"{name}[{child}]"
    return name.lstrip("_")


def _stateful(ds: Any) -> bool:
    """Whether ``ds``'s function has a stateful op (TF parallelises only stateless maps)."""
    concrete = getattr(getattr(ds, "_func", None), "_concrete", None)
    if concrete is None:
        return True
    return any(_core.op_def(op.type)["stateful"] for op in concrete.graph.get_operations())
