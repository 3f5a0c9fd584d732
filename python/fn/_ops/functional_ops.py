"""``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr``: a ``while_loop`` over
TensorArrays holding the elements unstacked along axis 0, as TensorFlow builds them (eagerly the
loop runs in Python; in a function it is one While node whatever the number of elements)."""
from typing import Any, Callable, List, Optional

from fn import nest
from fn._ops.control_flow_ops import while_loop
from fn._ops.tensor_array_ops import TensorArray
from fn._tensor.tensor_spec import TensorSpec
from fn.dtypes import as_dtype

__all__ = ["map_fn", "scan", "foldl", "foldr"]


def _int(i: Any) -> Any:
    from fn import constant
    return constant(i) if isinstance(i, int) else i


def _tensor(x: Any) -> Any:
    from fn import convert_to_tensor   # reads a Variable's value
    return convert_to_tensor(x)


def _static_length(flat: List[Any], mapping: bool = True) -> Optional[int]:
    """The number of elements along axis 0 when the shapes say it, after TF's checks: no scalars
    (map_fn says so; scan and the folds index the empty shape), and equal static lengths."""
    first = flat[0].shape
    if first.rank is not None and first.rank < 1:
        if not mapping:
            raise IndexError("tuple index out of range")
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    n_static = first[0] if first.rank is not None else None
    for t in flat[1:]:
        if t.shape.rank is not None and t.shape.rank < 1:
            raise ValueError(f"Shape {t.shape} must have rank at least 1")
        m = t.shape[0] if t.shape.rank is not None else None
        if n_static is not None and m is not None and m != n_static:
            raise ValueError(f"Dimensions {n_static} and {m} are not compatible")
        n_static = n_static if n_static is not None else m
    return n_static


def _length(flat: List[Any], mapping: bool = True) -> Any:
    """The number of elements along axis 0: a Python int when the shapes say it, else a tensor."""
    n_static = _static_length(flat, mapping)
    if n_static is not None:
        return n_static
    from fn import shape
    return shape(flat[0])[0]


def _unstacked(flat: List[Any], n: Any) -> List[TensorArray]:
    return [TensorArray(dtype=t.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(t) for t in flat]


def _spec_of(d: Any) -> Any:
    from fn._ragged._spec import RaggedTensorSpec
    if isinstance(d, (TensorSpec, RaggedTensorSpec)):
        return d
    from fn.types.experimental import TraceType
    if isinstance(d, TraceType):   # SparseTensorSpec and other composite specs
        raise TypeError(f"map_fn can not generate {d} outputs")
    return TensorSpec(None, as_dtype(d))


def _map_composite(fn: Callable[[Any], Any], elems: Any, elems_flat: List[Any], out_specs: List[Any],
                   out_structure: Any) -> Any:
    """map_fn over RaggedTensors, or into RaggedTensorSpec results: element by element (eagerly,
    or unrolled in a function when the number of elements is static), the results stacked by
    ``tf.stack`` / ``tf.ragged.stack`` as the signature says."""
    from fn import executing_eagerly
    from fn._ops.array_ops import stack
    from fn._ragged._spec import RaggedTensorSpec
    from fn.ragged import stack as ragged_stack
    n = _static_length(elems_flat)
    if n is None and executing_eagerly():
        n = int(elems_flat[0].nrows()) if hasattr(elems_flat[0], "nrows") else int(elems_flat[0].shape[0])
    if n is None:
        raise TypeError("fn's map_fn over RaggedTensors in a function needs a static number of elements "
                        "(give the function an input_signature with a known first dimension)")
    rows: List[List[Any]] = [[] for _ in out_specs]
    for i in range(n):
        result = fn(nest.pack_sequence_as(elems, [t[i] for t in elems_flat]))
        nest.assert_same_structure(out_structure, result)
        for acc, r in zip(rows, nest.flatten(result)):
            acc.append(r)
    out = []
    for spec, acc in zip(out_specs, rows):
        if isinstance(spec, RaggedTensorSpec):
            out.append(ragged_stack(acc) if acc else _empty_ragged(spec))
        else:
            out.append(stack(acc) if acc else _empty(spec))
    return nest.pack_sequence_as(out_structure, out)


def _empty_ragged(spec: Any) -> Any:
    from fn import zeros
    from fn._ragged._ragged_tensor import RaggedTensor
    from fn.dtypes import int64
    return RaggedTensor.from_row_lengths(zeros([0], spec.dtype), zeros([0], int64))


def _empty(spec: TensorSpec) -> Any:
    from fn import zeros
    dims = [0] + [d if d is not None else 0 for d in (spec.shape.as_list() if spec.shape.rank is not None else [])]
    return zeros(dims, spec.dtype)


def map_fn(fn: Callable[[Any], Any], elems: Any, dtype: Any = None, parallel_iterations: Optional[int] = None,
           back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True, name: Optional[str] = None,
           fn_output_signature: Any = None) -> Any:
    """``tf.map_fn``: stacks ``fn(x)`` for each ``x`` unstacked from ``elems`` along axis 0.
    ``fn_output_signature`` (or the deprecated ``dtype``) describes ``fn``'s result when it
    differs from an element of ``elems`` (dtypes, ``tf.TensorSpec``, nested structures)."""
    if fn_output_signature is None:
        fn_output_signature = dtype
    if not callable(fn):
        raise TypeError(f"The provided function {fn.__name__} is not callable.fn must be callable.")
    elems_flat = nest.flatten(elems)
    if len(elems_flat) == 0:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors. "
                         f"Got {elems}, which does not contain any Tensors.")
    from fn._ragged._ragged_tensor import RaggedTensor
    from fn._ragged._spec import RaggedTensorSpec
    elems_flat = [t if isinstance(t, RaggedTensor) else _tensor(t) for t in elems_flat]
    if fn_output_signature is None:   # an element of each input, ragged ones ragged
        out_specs = [RaggedTensorSpec([None, None], t.dtype) if isinstance(t, RaggedTensor) else
                     TensorSpec(None, t.dtype) for t in elems_flat]
        out_structure = elems
    else:
        out_specs = [_spec_of(d) for d in nest.flatten(fn_output_signature)]
        out_structure = fn_output_signature
    if any(isinstance(t, RaggedTensor) for t in elems_flat) or any(isinstance(s, RaggedTensorSpec) for s in out_specs):
        return _map_composite(fn, elems, elems_flat, out_specs, out_structure)
    n = _length(elems_flat)
    elems_ta = _unstacked(elems_flat, n)
    result_ta = [TensorArray(dtype=s.dtype, size=n, dynamic_size=False, infer_shape=infer_shape,
                             element_shape=s.shape) for s in out_specs]

    def compute(i: Any, tas: List[TensorArray]) -> Any:
        value = nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_ta])
        result = fn(value)
        nest.assert_same_structure(out_structure, result)
        return i + 1, [ta.write(i, r) for ta, r in zip(tas, nest.flatten(result))]

    _, tas = while_loop(lambda i, _: i < n, compute, (_int(0), result_ta), maximum_iterations=n)
    return nest.pack_sequence_as(out_structure, [ta.stack() for ta in tas])


def foldl(fn: Callable[[Any, Any], Any], elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None) -> Any:
    """``tf.foldl``: ``fn(...fn(fn(initializer, e0), e1)..., e_{n-1})`` over ``elems`` unstacked
    along axis 0 (without an initializer the first element starts the fold)."""
    return _fold(fn, elems, initializer, reverse=False)


def foldr(fn: Callable[[Any, Any], Any], elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None) -> Any:
    """``tf.foldr``: ``foldl`` from the last element to the first."""
    return _fold(fn, elems, initializer, reverse=True)


def _fold(fn: Callable[[Any, Any], Any], elems: Any, initializer: Any, reverse: bool) -> Any:
    if not callable(fn):
        raise TypeError(f"{fn.__name__} is not callable. Please provide a callable function.")
    elems_flat = [_tensor(t) for t in nest.flatten(elems)]
    n = _length(elems_flat, mapping=False)
    tas = _unstacked(elems_flat, n)

    def element(i: Any) -> Any:
        return nest.pack_sequence_as(elems, [ta.read(i) for ta in tas])

    if reverse:
        if initializer is None:
            i = n - 1
            a = element(i)
        else:
            i, a = n, initializer

        def compute(i: Any, a: Any) -> Any:
            i = i - 1
            return [i, fn(a, element(i))]

        _, a = while_loop(lambda i, a: i > 0, compute, [_int(i), a],
                          maximum_iterations=n)
        return a
    if initializer is None:
        a, i = element(0), 1
    else:
        a, i = initializer, 0

    def compute_l(i: Any, a: Any) -> Any:
        return [i + 1, fn(a, element(i))]

    _, a = while_loop(lambda i, a: i < n, compute_l, [_int(i), a], maximum_iterations=n)
    return a


def scan(fn: Callable[[Any, Any], Any], elems: Any, initializer: Any = None, parallel_iterations: int = 10,
         back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True, reverse: bool = False,
         name: Optional[str] = None) -> Any:
    """``tf.scan``: the stacked accumulators of a fold, ``a_i = fn(a_{i-1}, e_i)`` for every
    ``i`` (from the last element with ``reverse=True``)."""
    if not callable(fn):
        raise TypeError(f"{fn.__name__} is not callable. Please provide a callable function.")
    in_nested = nest.is_nested(elems)
    out_structure = elems if initializer is None else initializer
    out_nested = nest.is_nested(out_structure)

    def pack_in(flat: List[Any]) -> Any:
        return nest.pack_sequence_as(elems, flat) if in_nested else flat[0]

    def pack_out(flat: List[Any]) -> Any:
        return nest.pack_sequence_as(out_structure, flat) if out_nested else flat[0]

    def flat_out(x: Any) -> List[Any]:
        return nest.flatten(x) if out_nested else [x]

    elems_flat = [_tensor(t) for t in (nest.flatten(elems) if in_nested else [elems])]
    n = _length(elems_flat, mapping=False)
    elems_ta = [TensorArray(dtype=t.dtype, size=n, dynamic_size=False, element_shape=t.shape[1:],
                            infer_shape=True).unstack(t) for t in elems_flat]
    first = (n - 1) if reverse else 0
    if initializer is None:
        a_flat = [ta.read(first) for ta in elems_ta]
        start = 1
    else:
        a_flat = [_tensor(t) for t in flat_out(initializer)]
        start = 0
    accs = [TensorArray(dtype=a.dtype, size=n, element_shape=a.shape if infer_shape else None,
                        dynamic_size=False, infer_shape=infer_shape) for a in a_flat]
    if initializer is None:
        accs = [ta.write(first, a) for ta, a in zip(accs, a_flat)]

    def compute(i: Any, a_flat: List[Any], tas: List[TensorArray]) -> Any:
        a_out = fn(pack_out(a_flat), pack_in([ta.read(i) for ta in elems_ta]))
        nest.assert_same_structure(out_structure, a_out)
        out = flat_out(a_out)
        return (i - 1 if reverse else i + 1), out, [ta.write(i, v) for ta, v in zip(tas, out)]

    if reverse:
        i0 = n - 1 - start
        cond = lambda i, _a, _t: i >= 0  # noqa: E731
    else:
        i0 = start
        cond = lambda i, _a, _t: i < n  # noqa: E731
    i0 = _int(i0)
    _, _, tas = while_loop(cond, compute, (i0, a_flat, accs), maximum_iterations=n)
    return pack_out([ta.stack() for ta in tas])
