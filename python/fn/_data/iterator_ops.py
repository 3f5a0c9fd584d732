"""Iterators over datasets (``tf.data.Iterator``) and how a dataset is iterated inside a graph.

Eagerly, a dataset is a Python pipeline of eager tensors. Inside a Function, the dataset (or
iterator) is a scalar ``variant`` tensor holding the Python object, and iterating is done by
``PyCall`` ops that run Python on every execution of the graph:

* ``MakeIterator`` makes a fresh iterator from the dataset handle (each call iterates afresh);
* ``IteratorGetNext`` returns the next element, or fails with ``OutOfRangeError`` at the end;
* a ``for`` loop over a dataset is one ``fn.while_loop`` whose condition advances the
  iterator (``IteratorAdvance``, False at the end) and whose body reads the element it
  fetched, so the graph's size does not depend on the data.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator as PyIterator, List, Optional, Sequence

from fn import _core, errors
from fn.dtypes import bool_, variant
from fn._tensor.tensor_shape import TensorShape
from fn._data import error_text, structure
from fn._ops.control_flow_ops import while_loop
from fn._data.philox import PhiloxSamples
from fn._data.structure import IteratorSpec
from fn._data.optional import Optional as _Optional

_END_OF_SEQUENCE = "End of sequence"


def _end_of_sequence() -> errors.OutOfRangeError:
    return errors.OutOfRangeError(None, None, _END_OF_SEQUENCE)


class Iterator:
    """An iterator over a dataset's elements (``tf.data.Iterator``; TF's ``OwnedIterator``).

    ``next(it)`` returns the next element and raises ``StopIteration`` at the end;
    ``it.get_next()`` raises ``fn.errors.OutOfRangeError`` instead. Passed to a Function,
    ``next(it)`` becomes a graph op that advances this iterator on every call.
    """

    _fn_trackable = True  # a checkpoint dependency: tf.train.Checkpoint(iterator=it)

    def __init__(self, dataset: Any) -> None:
        self._element_spec = dataset.element_spec
        self._dataset = dataset
        self._seed_state = _seed_state(dataset)  # the shuffles' seed generators at creation
        self._produced = 0
        self._elements: PyIterator[Any] = self._counting(dataset._elements())
        self._current: Any = None  # the element fetched by a graph loop's IteratorAdvance

    def _counting(self, elements: PyIterator[Any]) -> PyIterator[Any]:
        for e in elements:
            self._produced += 1
            yield e

    def _fn_trackable_children(self) -> list:
        return []

    def _fn_checkpoint_state(self) -> Any:
        """The position: how many elements were produced, and the random-seed generators'
        counts when this iterator was made (fn restores by replaying the pipeline)."""
        import numpy as np

        return np.asarray([self._produced] + self._seed_state, dtype=np.int64)

    def _fn_restore_state(self, state: Any) -> None:
        """Moves to the saved position: a fresh iteration of the dataset (with the seed
        generators as they were) advanced by the saved number of elements."""
        values = [int(v) for v in state.reshape(-1)]
        _set_seed_state(self._dataset, values[1:])
        self._seed_state = values[1:]
        self._produced = 0
        self._elements = self._counting(self._dataset._elements())
        for _ in range(values[0]):
            if next(self._elements, _END) is _END:
                break

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    def __iter__(self) -> "Iterator":
        return self

    def __next__(self) -> Any:
        if not _core.executing_eagerly():
            return get_next_op(_core.make_variant(self), self._element_spec)
        return self._next_eager()

    def _next_eager(self) -> Any:
        try:
            return next(self._elements)
        except errors.OpError as e:
            raise error_text.iterator_error(e, self._dataset) from None

    def next(self) -> Any:
        return self.__next__()

    def get_next(self) -> Any:
        """The next element; ``OutOfRangeError`` ("End of sequence") at the end."""
        if not _core.executing_eagerly():
            return get_next_op(_core.make_variant(self), self._element_spec)
        try:
            return self._next_eager()
        except StopIteration:
            raise _end_of_sequence() from None

    def get_next_as_optional(self) -> Any:
        """``Iterator.get_next_as_optional``: a ``tf.experimental.Optional`` holding the next
        element, or empty at the end (no ``OutOfRangeError``)."""

        if not _core.executing_eagerly():
            return get_next_as_optional_op(_core.make_variant(self), self._element_spec)
        try:
            return _Optional.from_value(next(self._elements))
        except StopIteration:
            return _Optional.empty(self._element_spec)

    # fn.function: an iterator argument is keyed by its element spec and enters the graph as a
    # variant handle; the graph's ops advance this very iterator.
    def __fn_composite__(self) -> tuple:
        return IteratorSpec(self._element_spec), [_core.make_variant(self)]

    def _fn_dataset_loop(self, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None) -> tuple:
        """AutoGraph's ``for x in iterator`` (``body(element, state) -> state``)."""
        if _core.executing_eagerly():
            return eager_loop(self._elements, body, init_state, extra_test)
        return graph_loop(_core.make_variant(self), self._element_spec, body, init_state, extra_test)

    # called by the PyCall kernels
    def _advance(self) -> bool:
        try:
            self._current = next(self._elements)
            return True
        except StopIteration:
            self._current = None
            return False
        except errors.OpError as e:
            raise error_text.user_function_error(e, self._dataset, loop=True) from None

    def _next_flat(self) -> List[Any]:
        try:
            return structure.flatten_components(next(self._elements))
        except StopIteration:
            raise _end_of_sequence() from None
        except errors.OpError as e:
            raise error_text.user_function_error(e, self._dataset) from None

    def __repr__(self) -> str:
        return f"<fn.data.Iterator object at 0x{id(self):x}>"


_END = object()


def _shuffles(dataset: Any) -> List[Any]:
    """The datasets of a pipeline whose iterators draw seeds from a shared generator."""
    out, stack, seen = [], [dataset], set()
    while stack:
        d = stack.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        if getattr(d, "_seed_generator", None) is not None:
            out.append(d)
        stack.extend(getattr(d, "_inputs", ()))
    return out


def _seed_state(dataset: Any) -> List[int]:
    return [d._seed_generator[0].count for d in _shuffles(dataset)]


def _set_seed_state(dataset: Any, counts: List[int]) -> None:
    for d, n in zip(_shuffles(dataset), counts):
        g = PhiloxSamples(*d._seeds)
        for _ in range(n):
            g()
        d._seed_generator[0] = g


class SymbolicIterator:
    """An iterator inside a graph being traced: a variant tensor (an argument's placeholder or
    a ``MakeIterator`` output) plus the element spec. ``next()`` adds ``IteratorGetNext``."""

    def __init__(self, handle: Any, element_spec: Any) -> None:
        self._handle = handle
        self._element_spec = element_spec

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    def __iter__(self) -> "SymbolicIterator":
        raise errors.OperatorNotAllowedInGraphError(
            "Iterating over a symbolic fn.data.Iterator with a Python loop is not allowed in a "
            "Function: use next(iterator), or a for loop that AutoGraph converts."
        )

    def __next__(self) -> Any:
        return get_next_op(self._handle, self._element_spec)

    def next(self) -> Any:
        return self.__next__()

    def get_next(self) -> Any:
        return self.__next__()

    def get_next_as_optional(self) -> Any:
        return get_next_as_optional_op(self._handle, self._element_spec)

    def __fn_composite__(self) -> tuple:
        return IteratorSpec(self._element_spec), [self._handle]

    def _fn_dataset_loop(self, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None) -> tuple:
        return graph_loop(self._handle, self._element_spec, body, init_state, extra_test)

    def __repr__(self) -> str:
        return f"<fn.data.Iterator (symbolic) element_spec={structure.spec_text(self._element_spec)}>"


# ---------------------------------------------------------------- graph ops (PyCall)


def _py_call(
    func: Callable, inputs: Sequence[Any], dtypes: List[Any], shapes: List[TensorShape], name: str
) -> List[Any]:
    attrs: dict = {"callable": func}
    if dtypes:
        attrs["Tout"] = list(dtypes)
        attrs["Tout_shapes"] = list(shapes)
    return list(_core.execute("PyCall", list(inputs), attrs, name))


def _py_get_next(handle: Any) -> List[Any]:
    return _core.variant_value(handle)._next_flat()


def _py_advance(handle: Any, go: Any = None) -> List[bool]:
    if go is not None and not bool(go):
        return [False]
    return [_core.variant_value(handle)._advance()]


def _py_current(handle: Any) -> List[Any]:
    return structure.flatten_components(_core.variant_value(handle)._current)


def get_next_op(handle: Any, element_spec: Any) -> Any:
    """``IteratorGetNext``: the next element of the iterator behind ``handle``."""
    specs = structure.flatten_components(element_spec)
    out = _py_call(_py_get_next, [handle], [s.dtype for s in specs], [s.shape for s in specs], "IteratorGetNext")
    return structure.pack_components(element_spec, out)


def get_next_as_optional_op(handle: Any, element_spec: Any) -> Any:
    """``IteratorGetNextAsOptional``: an Optional of the next element (empty at the end; its
    values are then zeros of the element's shapes, unknown dimensions 0)."""
    import numpy as np

    specs = structure.flatten(element_spec)

    def next_or_empty(h: Any) -> List[Any]:
        it = _core.variant_value(h)
        if it._advance():
            return [True] + structure.flatten(it._current)
        return [False] + [np.zeros([d or 0 for d in s.shape.as_list()], s.dtype.as_numpy_dtype) for s in specs]

    out = _py_call(
        next_or_empty,
        [handle],
        [bool_] + structure.flat_dtypes(element_spec),
        [TensorShape([])] + structure.flat_shapes(element_spec),
        "IteratorGetNextAsOptional",
    )
    return _Optional(out[0], structure.pack(element_spec, out[1:]), element_spec)


def _single(elements: PyIterator[Any]) -> Any:
    """The one element of ``elements``; TF's InvalidArgumentError when there are none or more."""
    try:
        first = next(elements)
    except StopIteration:
        raise errors.InvalidArgumentError(None, None, "Dataset was empty.") from None
    for _ in elements:
        raise errors.InvalidArgumentError(None, None, "Dataset had more than one element.")
    return first


def single_element_op(dataset: Any) -> Any:
    """``DatasetToSingleElement``: the dataset's only element (``Dataset.get_single_element``);
    inside a graph it is read when the graph runs, from the dataset rebuilt from its inputs."""
    if _core.executing_eagerly():
        return _single(dataset._elements())
    spec = dataset.element_spec
    specs = structure.flatten_components(spec)
    rebuild, inputs = dataset._graph_inputs()

    def run(*handles: Any) -> List[Any]:
        return structure.flatten_components(_single(rebuild(*handles)._elements()))

    out = _py_call(run, inputs, [s.dtype for s in specs], [s.shape for s in specs], "DatasetToSingleElement")
    return structure.pack_components(spec, out)


def make_iterator_op(dataset: Any) -> Any:
    """``MakeIterator``: a variant tensor holding a fresh iterator over ``dataset`` each time the
    graph runs (the dataset itself comes from its handle, or is captured)."""
    rebuild, inputs = dataset._graph_inputs()

    def make(*handles: Any) -> List[Any]:
        return [_core.make_variant(Iterator(rebuild(*handles)))]

    return _py_call(make, inputs, [variant], [TensorShape([])], "MakeIterator")[0]


def dataset_handle_op(dataset: Any) -> Any:
    """A variant tensor holding ``dataset`` (rebuilt per execution from its graph inputs)."""
    rebuild, inputs = dataset._graph_inputs()
    if len(inputs) == 1 and getattr(dataset, "_variant", None) is inputs[0]:
        return inputs[0]

    def make(*handles: Any) -> List[Any]:
        return [_core.make_variant(rebuild(*handles))]

    return _py_call(make, inputs, [variant], [TensorShape([])], "DatasetHandle")[0]


# ---------------------------------------------------------------- loops


def eager_loop(
    elements: PyIterator[Any], body: Callable, init_state: tuple, extra_test: Optional[Callable] = None
) -> tuple:
    state = tuple(init_state)
    while True:
        if extra_test is not None and not extra_test(state):
            break
        try:
            element = next(elements)
        except StopIteration:
            break
        state = tuple(body(element, state))
    return state


def graph_loop(
    handle: Any, element_spec: Any, body: Callable, init_state: tuple, extra_test: Optional[Callable] = None
) -> tuple:
    """A ``fn.while_loop`` over the iterator behind ``handle``: the condition advances it
    (``IteratorAdvance``), the body reads the fetched element (``IteratorGetNext``) and runs
    ``body(element, state)``. ``extra_test(state)`` (break/return flags) is checked first."""
    specs = structure.flatten_components(element_spec)
    dtypes = [s.dtype for s in specs]
    shapes = [s.shape for s in specs]
    state = tuple(init_state)
    dummy = not state
    if dummy:
        state = (_core.convert_to_tensor(0),)

    def cond(*s: Any) -> Any:
        inputs = [handle]
        if extra_test is not None:
            go = extra_test(() if dummy else tuple(s))
            inputs.append(_core.convert_to_tensor(go, bool_) if not _core.is_tensor(go) else go)
        return _py_call(_py_advance, inputs, [bool_], [TensorShape([])], "IteratorAdvance")[0]

    def loop_body(*s: Any) -> Any:
        flat = _py_call(_py_current, [handle], dtypes, shapes, "IteratorGetNext")
        out = tuple(body(structure.pack_components(element_spec, flat), () if dummy else tuple(s)))
        return s if dummy else out

    out = relaxing_while_loop(cond, loop_body, state)
    return () if dummy else out


def relaxing_while_loop(cond: Callable, body: Callable, loop_vars: tuple, leading: int = 0) -> tuple:
    """``fn.while_loop(cond, body, loop_vars)`` as TF's ``Dataset.reduce`` runs its loop: a loop
    variable whose shape the body changes (e.g. a sum of elements of unknown shape) gets its shape
    invariant relaxed to cover both, and the loop is traced again. The first ``leading`` loop
    variables (flags) keep their shapes. Returns the loop's outputs as a tuple."""
    body_shapes: List[Any] = []

    def recording_body(*s: Any) -> Any:
        out = body(*s)
        flat = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        body_shapes[:] = [getattr(t, "shape", None) for t in flat[leading:]]
        return out

    invariants = [getattr(t, "shape", None) for t in loop_vars[leading:]]
    while True:
        shapes = _as_invariants(invariants)
        try:
            out = while_loop(
                cond, recording_body, loop_vars, shape_invariants=None if shapes is None else [None] * leading + shapes
            )
            break
        except ValueError:
            relaxed = _relax(invariants, body_shapes)
            if relaxed is None:
                raise
            invariants = relaxed
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _as_invariants(shapes: List[Any]) -> Any:
    return None if any(s is None for s in shapes) else list(shapes)


def _relax(invariants: List[Any], body_shapes: List[Any]) -> Optional[List[Any]]:
    """The invariants widened to cover the body's output shapes, or None if nothing changes."""
    if len(body_shapes) != len(invariants) or any(s is None for s in invariants + body_shapes):
        return None
    out, changed = [], False
    for inv, got in zip(invariants, body_shapes):
        if got.is_subtype_of(inv):
            out.append(inv)
            continue
        if inv.rank is None or got.rank is None or inv.rank != got.rank:
            new = TensorShape(None)
        else:
            new = TensorShape([a if a == b else None for a, b in zip(inv.as_list(), got.as_list())])
        changed = changed or new != inv
        out.append(new)
    return out if changed else None


structure.IteratorSpec._symbolic_iterator = SymbolicIterator
