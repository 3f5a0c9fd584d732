"""``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr``: a ``while_loop`` over
TensorArrays holding the elements unstacked along axis 0, as TensorFlow builds them (eagerly the
loop runs in Python; in a function it is one While node whatever the number of elements)."""

from typing import Any, Callable, List, Optional

from fn import _core, nest
from fn._ops.array_ops import concat, constant, convert_to_tensor, shape, stack, zeros
from fn._ops.math_ops import zeros_like
from fn._ops.control_flow_ops import while_loop
from fn._ragged._public_ops import stack as ragged_stack
from fn._ragged._ragged_tensor import RaggedTensor
from fn._ragged._spec import RaggedTensorSpec
from fn._ops.tensor_array_ops import TensorArray
from fn._sparse.sparse_ops import reshape as sparse_reshape
from fn._sparse.sparse_ops import slice as sparse_slice
from fn._sparse.sparse_tensor import SparseTensor
from fn._tensor.tensor_spec import TensorSpec
from fn.dtypes import as_dtype, int64
from fn.types.experimental import TraceType
from fn._extension_type._spec import ExtensionTypeSpec
from fn._function.function import function

__all__ = ["map_fn", "scan", "foldl", "foldr"]


def _int(i: Any) -> Any:
    return constant(i) if isinstance(i, int) else i


def _tensor(x: Any) -> Any:
    return convert_to_tensor(x)  # reads a Variable's value


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
    return shape(flat[0])[0]


def _unstacked(flat: List[Any], n: Any) -> List[TensorArray]:
    return [TensorArray(dtype=t.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(t) for t in flat]


class _Batched:
    """A BatchableExtensionType in map_fn: its unbatched spec and its (batched) component tensors,
    a custom nest node so the loop slices the tensors; ``value`` rebuilds one element."""

    def __init__(self, spec: Any, components: tuple) -> None:
        self.spec, self.components = spec, tuple(components)

    def __tf_flatten__(self) -> tuple:
        return self.spec, self.components

    @classmethod
    def __tf_unflatten__(cls, spec: Any, components: tuple) -> "_Batched":
        return cls(spec, components)


def _is_ext(x: Any) -> bool:
    return getattr(type(x), "_fn_value_composite", False)


def _has_extension(x: Any) -> bool:
    return any(_is_ext(v) for v in nest.flatten(x))


def _has_extension_spec(x: Any) -> bool:
    return x is not None and any(isinstance(v, ExtensionTypeSpec) for v in nest.flatten(x))


def _map_extension_types(fn: Callable[[Any], Any], elems: Any, signature: Any, infer_shape: bool) -> Any:
    """map_fn with BatchableExtensionType elements or results: each crosses the loop as its
    component tensors (unbatched spec to rebuild an element, batched spec for the result)."""

    def batch_parts(x: Any) -> Any:
        if not _is_ext(x):
            return x
        spec, comps = x.__fn_composite__()
        if not hasattr(spec, "_unbatch"):
            raise ValueError(f"{type(x).__name__} is not batchable: map_fn needs a BatchableExtensionType")
        return _Batched(spec._unbatch(), comps)

    def rebuild(x: Any) -> Any:
        return x.spec._fn_from_components(list(x.components)) if isinstance(x, _Batched) else x

    def unwrap(structure: Any) -> Any:
        return (
            nest.map_structure(rebuild, structure, expand_composites=False)
            if nest.is_nested(structure)
            else rebuild(structure)
        )

    def out_parts(v: Any) -> Any:
        if _is_ext(v):
            spec, comps = v.__fn_composite__()
            return _Batched(spec, comps)
        return v

    def spec_parts(sig: Any) -> Any:
        if isinstance(sig, ExtensionTypeSpec):
            return _Batched(sig, tuple(sig._component_specs()))
        return sig

    parts = _map_nodes(batch_parts, elems)
    out_sig = (
        _map_nodes(spec_parts, signature)
        if signature is not None
        else _map_nodes(
            lambda b: (
                _Batched(b.spec, tuple(TensorSpec(None, c.dtype) for c in b.components))
                if isinstance(b, _Batched)
                else b
            ),
            parts,
        )
    )
    result = map_fn(
        lambda p: _map_nodes(out_parts, fn(_map_nodes(rebuild, p, into=True))),
        parts,
        fn_output_signature=out_sig,
        infer_shape=infer_shape,
    )
    n = nest.flatten(parts)[0].shape[0]
    return _map_nodes(
        lambda b: b.spec._batch(n)._fn_from_components(list(b.components)) if isinstance(b, _Batched) else b,
        result,
        into=True,
    )


def _map_nodes(f: Callable[[Any], Any], x: Any, into: bool = False) -> Any:
    """``f`` applied to ExtensionType values/specs (or, with ``into``, to _Batched nodes) in a
    nested list/tuple/dict structure."""
    if isinstance(x, _Batched) or _is_ext(x) or not isinstance(x, (list, tuple, dict)):
        return f(x)
    if isinstance(x, dict):
        return {k: _map_nodes(f, v, into) for k, v in x.items()}
    items = [_map_nodes(f, v, into) for v in x]
    return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)


def _spec_of(d: Any) -> Any:
    if isinstance(d, (TensorSpec, RaggedTensorSpec)):
        return d
    if isinstance(d, TraceType):  # SparseTensorSpec and other composite specs
        raise TypeError(f"map_fn can not generate {d} outputs")
    return TensorSpec(None, as_dtype(d))


def _map_composite(
    fn: Callable[[Any], Any], elems: Any, elems_flat: List[Any], out_specs: List[Any], out_structure: Any
) -> Any:
    """map_fn over RaggedTensors, or into RaggedTensorSpec results: element by element (eagerly,
    or unrolled in a function when the number of elements is static), the results stacked by
    ``tf.stack`` / ``tf.ragged.stack`` as the signature says."""
    n = _static_length(elems_flat)
    if n is None and _core.executing_eagerly():
        n = int(elems_flat[0].nrows()) if hasattr(elems_flat[0], "nrows") else int(elems_flat[0].shape[0])
    if n is None:
        raise TypeError(
            "fn's map_fn over RaggedTensors in a function needs a static number of elements "
            "(give the function an input_signature with a known first dimension)"
        )
    rows: List[List[Any]] = [[] for _ in out_specs]
    for i in range(n):
        result = fn(nest.pack_sequence_as(elems, [_row(t, i) for t in elems_flat]))
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


def _row(t: Any, i: int) -> Any:
    """Element ``i`` along axis 0; a SparseTensor's is the SparseTensor of that slice (TF's map_fn
    unstacks SparseTensors so)."""
    if isinstance(t, SparseTensor):
        rest = t.dense_shape[1:]
        start = concat([constant([i], int64), zeros_like(rest)], 0)
        part = sparse_slice(t, start, concat([constant([1], int64), rest], 0))
        out = sparse_reshape(part, rest)
        out.set_shape(t.shape[1:])
        return out
    return t[i]


def _empty_ragged(spec: Any) -> Any:
    return RaggedTensor.from_row_lengths(zeros([0], spec.dtype), zeros([0], int64))


def _empty(spec: TensorSpec) -> Any:
    dims = [0] + [d if d is not None else 0 for d in (spec.shape.as_list() if spec.shape.rank is not None else [])]
    return zeros(dims, spec.dtype)


def _elem_tensor(value: Any) -> Any:
    """An element of map_fn's ``elems`` as a tensor; TF's ``type_spec_from_value`` turns a value
    that does not convert into its TypeError."""
    try:
        return _tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value} of unsupported type {type(value)}.") from None


def map_fn(
    fn: Callable[[Any], Any],
    elems: Any,
    dtype: Any = None,
    parallel_iterations: Optional[int] = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    name: Optional[str] = None,
    fn_output_signature: Any = None,
) -> Any:
    """``tf.map_fn``: stacks ``fn(x)`` for each ``x`` unstacked from ``elems`` along axis 0.
    ``fn_output_signature`` (or the deprecated ``dtype``) describes ``fn``'s result when it
    differs from an element of ``elems`` (dtypes, ``tf.TensorSpec``, nested structures)."""
    if fn_output_signature is None:
        fn_output_signature = dtype
    if not callable(fn):
        raise TypeError(f"The provided function {fn.__name__} is not callable.fn must be callable.")
    if _has_extension(elems) or _has_extension_spec(fn_output_signature):
        return _map_extension_types(fn, elems, fn_output_signature, infer_shape)
    elems_flat = nest.flatten(elems)
    if len(elems_flat) == 0:
        raise ValueError(
            "elems must be a Tensor or (possibly nested) sequence of Tensors. "
            f"Got {elems}, which does not contain any Tensors."
        )
    elems_flat = [t if isinstance(t, (RaggedTensor, SparseTensor)) else _elem_tensor(t) for t in elems_flat]
    if fn_output_signature is None:  # an element of each input, ragged ones ragged
        out_specs = [
            RaggedTensorSpec([None, None], t.dtype) if isinstance(t, RaggedTensor) else TensorSpec(None, t.dtype)
            for t in elems_flat
        ]
        out_structure = elems
    else:
        out_specs = [_spec_of(d) for d in nest.flatten(fn_output_signature)]
        out_structure = fn_output_signature
    if any(isinstance(t, (RaggedTensor, SparseTensor)) for t in elems_flat) or any(
        isinstance(s, RaggedTensorSpec) for s in out_specs
    ):
        return _map_composite(fn, elems, elems_flat, out_specs, out_structure)
    if parallel_iterations is not None and parallel_iterations < 0:  # reaches TF's while_loop as it is
        raise TypeError("'parallel_iterations' must be a positive integer.")
    n = _length(elems_flat)
    elems_ta = _unstacked(elems_flat, n)
    result_ta = [
        TensorArray(dtype=s.dtype, size=n, dynamic_size=False, infer_shape=infer_shape, element_shape=s.shape)
        for s in out_specs
    ]

    def compute(i: Any, tas: List[TensorArray]) -> Any:
        value = nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_ta])
        result = fn(value)
        nest.assert_same_structure(out_structure, result)
        return i + 1, [ta.write(i, r) for ta, r in zip(tas, nest.flatten(result))]

    _, tas = while_loop(lambda i, _: i < n, compute, (_int(0), result_ta), maximum_iterations=n)
    return nest.pack_sequence_as(out_structure, [ta.stack() for ta in tas])


def foldl(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: Optional[str] = None,
) -> Any:
    """``tf.foldl``: ``fn(...fn(fn(initializer, e0), e1)..., e_{n-1})`` over ``elems`` unstacked
    along axis 0 (without an initializer the first element starts the fold)."""
    return _fold(fn, elems, initializer, reverse=False)


def foldr(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: Optional[str] = None,
) -> Any:
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

        _, a = while_loop(lambda i, a: i > 0, compute, [_int(i), a], maximum_iterations=n)
        return a
    if initializer is None:
        a, i = element(0), 1
    else:
        a, i = initializer, 0

    def compute_l(i: Any, a: Any) -> Any:
        return [i + 1, fn(a, element(i))]

    _, a = while_loop(lambda i, a: i < n, compute_l, [_int(i), a], maximum_iterations=n)
    return a


def scan(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    reverse: bool = False,
    name: Optional[str] = None,
) -> Any:
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
    elems_ta = [
        TensorArray(dtype=t.dtype, size=n, dynamic_size=False, element_shape=t.shape[1:], infer_shape=True).unstack(t)
        for t in elems_flat
    ]
    first = (n - 1) if reverse else 0
    if initializer is None:
        a_flat = [ta.read(first) for ta in elems_ta]
        start = 1
    else:
        a_flat = [_tensor(t) for t in flat_out(initializer)]
        start = 0
    accs = [
        TensorArray(
            dtype=a.dtype,
            size=n,
            element_shape=a.shape if infer_shape else None,
            dynamic_size=False,
            infer_shape=infer_shape,
        )
        for a in a_flat
    ]
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


def vectorized_map(fn: Callable[[Any], Any], elems: Any, fallback_to_while_loop: bool = True, warn: bool = True) -> Any:
    """``tf.vectorized_map``: ``fn`` applied to each slice of ``elems`` along axis 0, the results
    stacked. fn has no pfor converter, so this always takes TF's fallback (a ``map_fn`` while
    loop), with ``fn``'s output structure read from one trace on an element's spec."""
    elems = nest.map_structure(_tensor, elems)
    element_specs = nest.map_structure(lambda t: TensorSpec(t.shape[1:], t.dtype), elems)
    concrete = function(fn, autograph=False).get_concrete_function(element_specs)
    out_signature = nest.map_structure(lambda t: TensorSpec(t.shape, t.dtype), concrete.structured_outputs)
    return map_fn(fn, elems, fn_output_signature=out_signature)
