"""``tf.debugging.assert_shapes``: shapes and the relations of their dimensions (TF 2.21's rules,
messages and order of checks).

One walk over the constraints (``_walk``) serves both times: while tracing it sees the static
shapes, raises TF's ValueError for a violation it can decide and reports whether anything is left
for the run; at run time (a host op over the tensors, inside a Function) it sees the actual
shapes and returns the graph message of the first violated check, as TF's Assert ops report it
(rank checks run before the size checks, which depend on them).
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from fn import _core
from fn._ops.check_ops import _graph_check, _graph_text, _tensor


class _Spec(NamedTuple):
    x: Any
    name: str  # what TF calls the tensor in size messages
    rank_name: str  # ... and in rank messages (nothing, eagerly)
    innermost: bool  # the shape began with ... or '*'
    symbols: Tuple[Any, ...]


def _known(v: Any) -> bool:
    """TF's ``_has_known_value``: an int, or something ``int()`` parses."""
    if v is None:
        return False
    try:
        int(v)
    except (ValueError, TypeError):
        return False
    return True


def _parse(shapes: Any, message_prefix: str, eager: bool) -> List[_Spec]:
    if isinstance(shapes, dict):
        shapes = shapes.items()
    specs = []
    for x, s in [(x, s) for x, s in shapes if s is not None]:
        x = _tensor(x)
        name = f"shape={x.shape} dtype={x.dtype.name}" if eager else x.name
        if not (hasattr(s, "__iter__") or hasattr(s, "__getitem__")):
            raise ValueError(
                f"{message_prefix}Tensor {name}.  Specified shape must be an iterable.  An iterable has the "
                f"attribute `__iter__` or `__getitem__`.  Received specified shape: {s}"
            )
        symbols = tuple(s)
        innermost = False
        for i, sym in enumerate(symbols):
            if not (sym is Ellipsis or (isinstance(sym, str) and sym == "*")):
                continue
            if i != 0:
                raise ValueError(
                    f"{message_prefix}Tensor {name} specified shape index {i}.  Symbol `...` or `*` for a "
                    "variable number of unspecified dimensions is only allowed as the first entry"
                )
            innermost = True
        symbols = symbols[1:] if innermost else symbols
        specs.append(_Spec(x, name, "" if eager else x.name, innermost, symbols or (1,)))
    return specs


def _walk(
    specs: List[_Spec],
    shapes: Sequence[Optional[Tuple[Optional[int], ...]]],
    message: Optional[str],
    data: Any,
    run: bool,
) -> Tuple[bool, Optional[List[Any]]]:
    """Checks ``specs`` against ``shapes`` (None: rank unknown; None dims: size unknown). While
    tracing (run False) raises TF's ValueError for a decided violation and returns (something left
    for the run, None); at run time returns (False, the first failed check's data) or (False, None)."""
    prefix = f"{message}.  " if message else ""
    pending = False
    for spec, shape in zip(specs, shapes):
        want = len(spec.symbols)
        if spec.innermost and want <= 1:
            continue
        who = spec.rank_name
        if spec.innermost:  # TF's assert_rank_at_least
            kind, shown, ok = "rank at least", [want], shape is not None and len(shape) >= want
            static_kind = f"rank at least {want}"
        elif want <= 1:  # assert_rank_in(x, [0, 1]): a scalar passes for rank 1, size 1
            kind, shown, ok = "rank in", [0, 1], shape is not None and len(shape) in (0, 1)
            static_kind = "rank in (0, 1)"
        else:  # assert_rank
            kind, shown, ok = "rank", [want], shape is not None and len(shape) == want
            static_kind = f"rank {want}"
        if ok:
            continue
        if shape is None:
            pending = True
        elif run:
            if data is not None:
                return False, data
            return False, [prefix, f"Tensor {who} must have {kind}", *shown, "Received shape: ", _shape_tensor(shape)]
        else:
            raise ValueError(
                f"{prefix}Tensor {who} must have {static_kind}.  Received rank {len(shape)}, shape {spec.x.shape}"
            )
    known: Dict[Any, Tuple[Optional[int], _Spec, int]] = {}
    for spec, shape in zip(specs, shapes):
        sizes: Optional[Sequence[Optional[int]]] = None if shape is None else ((1,) if len(shape) == 0 else shape)
        for i, sym in enumerate(spec.symbols):
            if sym is None or (isinstance(sym, str) and sym == "."):
                continue
            dim = i - len(spec.symbols) if spec.innermost else i
            actual = None if sizes is None else sizes[dim]
            if sym in known or _known(sym):
                size: Optional[int]
                if _known(sym):
                    size, how = int(sym), "Specified explicitly"
                else:
                    size, by, at = known[sym]
                    how = f"Specified by tensor {by.name} dimension {at}"
                if actual is None or size is None:
                    pending = True
                    continue
                if int(actual) == int(size):
                    continue
                if run:
                    items = data
                    if data is None:
                        items = [prefix, how, f"Tensor {spec.name} dimension", dim, "must have size", int(size)]
                        items += ["Received shape: ", _shape_tensor(shape or ())]
                    return False, items
                raise ValueError(
                    f"{prefix}{how}.  Tensor {spec.name} dimension {dim} must have size {int(size)}.  "
                    f"Received size {int(actual)}, shape {spec.x.shape}"
                )
            else:
                known[sym] = (actual, spec, dim)
    return pending, None


def _shape_tensor(shape: Sequence[Optional[int]]) -> Any:
    return _core.convert_to_tensor(np.asarray(list(shape), np.int32), None, None)


def _static(x: Any) -> Optional[Tuple[Optional[int], ...]]:
    return None if x.shape.rank is None else tuple(x.shape.as_list())


def assert_shapes(
    shapes: Any,
    data: Any = None,
    summarize: Optional[int] = None,
    message: Optional[str] = None,
    name: Optional[str] = None,
) -> None:
    """``tf.debugging.assert_shapes``: ``shapes`` is a list of (tensor, shape) pairs (or a dict);
    a shape's entries are sizes (ints), symbols that must agree across tensors, None or '.' for any
    size, and a leading ``...`` or '*' for any outer dimensions. Returns None, as TF's v2 does."""
    eager = _core.executing_eagerly()
    specs = _parse(shapes, f"{message}.  " if message else "", eager)
    pending, _ = _walk(specs, [_static(s.x) for s in specs], message, data, run=False)
    if not pending or eager:
        return None
    tensors = [s.x for s in specs]
    data_tensors = [d for d in (data or []) if _core.is_tensor(d)]

    def check(*values: Any) -> Optional[str]:
        actual = [tuple(np.shape(v.numpy())) for v in values[: len(tensors)]]
        it = iter(values[len(tensors) :])
        items = None if data is None else [next(it) if _core.is_tensor(d) else d for d in data]
        _, failed = _walk(specs, actual, message, items, run=True)
        return None if failed is None else _graph_text(failed, summarize)

    _graph_check(check, tensors + data_tensors, f"{name or 'assert_shapes'}/Assert")
    return None
