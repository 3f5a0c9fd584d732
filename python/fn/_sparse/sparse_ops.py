"""``tf.sparse`` ops as compositions of fn ops (so they trace, and differentiate w.r.t. values),
with TF's eager validation of indices and shapes (its kernels' messages) done on the host."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from fn import _core
from fn._ops import array_ops as A
from fn._ops import math_ops as M
from fn._ops.manip_ops import (
    boolean_mask,
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_update,
    unique,
)
from fn._ops.complex_ops import conj
from fn._ops.linalg_ops import segment_sum
from fn._ops.sort_ops import argsort, cumprod, cumsum
from fn._ops.op_errors import op_error, type_text
from fn._sparse.sparse_tensor import SparseTensor
from fn.dtypes import as_dtype, bool_, int32, int64
from fn.errors import InvalidArgumentError
from fn._tensor.tensor_shape import known_rank
from fn._ops.manip_ops import broadcast_to

# Unary ops TF's sparse_ops registers for SparseTensor (applied to the values).
_UNARY = {"Abs", "Neg", "Asinh", "Sin", "Tan", "Atan", "Asin", "Atanh", "Sign", "Square", "Sqrt", "Erf", "Tanh"}


def _eager(*ts: Any) -> bool:
    return _core.executing_eagerly() and all(hasattr(t, "numpy") for t in ts)


def _np(t: Any) -> np.ndarray:
    return np.asarray(t.numpy())


def _idx_text(row: np.ndarray) -> str:
    return "[" + ",".join(str(int(x)) for x in row) + "]"


def _check_sp(sp: Any) -> SparseTensor:
    if not isinstance(sp, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp


def _strides(dense_shape: Any) -> Any:
    return cumprod(dense_shape, exclusive=True, reverse=True)


def _linear(indices: Any, dense_shape: Any) -> Any:
    return M.reduce_sum(indices * _strides(dense_shape)[None, :], axis=1)


def _unlinear(lin: Any, dense_shape: Any) -> Any:
    return (lin[:, None] // _strides(dense_shape)[None, :]) % dense_shape[None, :]


def _new(indices: Any, values: Any, dense_shape: Any, static: Any = None) -> SparseTensor:
    out = SparseTensor(indices, values, dense_shape)
    if static is not None and out.shape.rank is not None:
        out._shape = out._shape.merge_with(static) if not out._shape.is_fully_defined() else out._shape
    return out


def from_dense(tensor: Any, name: Optional[str] = None) -> SparseTensor:
    """``tf.sparse.from_dense``: the non-zero elements of ``tensor``, in row-major order."""
    t = A.convert_to_tensor(tensor)
    if t.shape.rank == 0:
        raise op_error(InvalidArgumentError, "Where", "WhereOp : Unhandled input dimensions: 0")
    indices = A.where(M.not_equal(t, A.zeros([], t.dtype)))
    out = SparseTensor(indices, A.gather_nd(t, indices), A.shape(t, out_type=int64))
    out._shape = t.shape
    return out


def _validate_order(sp: SparseTensor, op: str) -> None:
    """SparseToDense's checks: in bounds, strictly increasing (row-major), no repeats."""
    idx, shape = _np(sp.indices), _np(sp.dense_shape)
    shape_text = _idx_text(shape)
    prev = None
    for n in range(idx.shape[0]):
        row = idx[n]
        if np.any(row < 0) or np.any(row >= shape):
            raise op_error(
                InvalidArgumentError,
                op,
                f"indices[{n}] = {_idx_text(row)} is out of bounds: need 0 <= index < {shape_text}",
            )
        key = tuple(int(x) for x in row)
        if prev is not None:
            if key < prev:
                raise op_error(
                    InvalidArgumentError,
                    op,
                    f"indices[{n}] = {_idx_text(row)} is out of order. Many "
                    "sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a "
                    "correctly ordered copy.\n\n",
                )
            if key == prev:
                raise op_error(InvalidArgumentError, op, f"indices[{n}] = {_idx_text(row)} is repeated")
        prev = key


def _validate_bounds(sp: SparseTensor, op: str) -> None:
    idx, shape = _np(sp.indices), _np(sp.dense_shape)
    for n in range(idx.shape[0]):
        if np.any(idx[n] < 0) or np.any(idx[n] >= shape):
            raise op_error(
                InvalidArgumentError,
                op,
                f"indices[{n}] = {_idx_text(idx[n])} is out of bounds: need 0 <= index < {_idx_text(shape)}",
            )


def to_dense(
    sp_input: Any, default_value: Any = None, validate_indices: bool = True, name: Optional[str] = None
) -> Any:
    """``tf.sparse.to_dense``: the dense tensor, ``default_value`` (0) where no value is given."""
    sp = _check_sp(sp_input)
    if _eager(sp.indices, sp.dense_shape):
        (_validate_order if validate_indices else _validate_bounds)(sp, "SparseToDense")
    dtype = sp.dtype
    if default_value is None:
        base = A.zeros(sp.dense_shape, dtype)
    else:
        base = A.fill(sp.dense_shape, A.convert_to_tensor(default_value, dtype))
    out = tensor_scatter_nd_update(base, sp.indices, sp.values)
    return out


def sparse_dense_matmul(
    sp_a: Any, b: Any, adjoint_a: bool = False, adjoint_b: bool = False, name: Optional[str] = None
) -> Any:
    """``tf.sparse.sparse_dense_matmul``: ``sp_a @ b`` (TF's SparseTensorDenseMatMul: for each
    value in order, ``out[row] += value * b[col]``). A dense ``sp_a`` with a sparse ``b`` is the
    transposed product."""
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):
        a = A.convert_to_tensor(sp_a)
        return A.transpose(sparse_dense_matmul(b, a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a))
    sp = _check_sp(sp_a)
    b = A.convert_to_tensor(b, sp.dtype) if not _core.is_tensor(b) else b
    tracing = not _core.executing_eagerly()  # TF's op_def_library/shape function classes, else the kernel's
    if b.dtype != sp.dtype:
        if tracing:
            raise TypeError(
                f"Input 'b' of 'SparseTensorDenseMatMul' Op has type {b.dtype.name} that does not "
                f"match type {sp.dtype.name} of argument 'a_values'."
            )
        raise InvalidArgumentError(
            None,
            None,
            "cannot compute SparseTensorDenseMatMul as input #3(zero-based) was "
            f"expected to be a {type_text(sp.dtype)} tensor but is a {type_text(b.dtype)} tensor "
            "[Op:SparseTensorDenseMatMul] name: ",
        )
    for bad, msg, rank in (
        (sp.shape.rank not in (None, 2), "Tensor 'a_shape' must have 2 elements", sp.shape.rank),
        (b.shape.rank not in (None, 2), "Tensor 'b' is not a matrix", b.shape.rank),
    ):
        if bad and tracing:
            raise ValueError(
                f"Shape must be rank 2 but is rank {rank} for '{{{{node SparseTensorDenseMatMul}}}} = "
                f"SparseTensorDenseMatMul[]' with input shapes: {sp.indices.shape}, {b.shape}."
            )
        if bad:
            raise op_error(InvalidArgumentError, "SparseTensorDenseMatMul", msg)
    if adjoint_b:
        b = A.transpose(b)
    rows, cols = (sp.indices[:, 1], sp.indices[:, 0]) if adjoint_a else (sp.indices[:, 0], sp.indices[:, 1])
    m = sp.dense_shape[1] if adjoint_a else sp.dense_shape[0]
    if _eager(sp.indices, sp.dense_shape, b):
        shape = _np(sp.dense_shape)
        k = int(shape[0] if adjoint_a else shape[1])
        bk = b.shape[0]
        if k != bk:
            bdims = b.shape.as_list()
            raise op_error(
                InvalidArgumentError,
                "SparseTensorDenseMatMul",
                f"Cannot multiply A and B because inner dimension does not match: {k} vs. {bk}.  "
                f"Did you forget a transpose?  Dimensions of A: [{shape[0]}, {shape[1]}).  "
                f"Dimensions of B: [{bdims[0]},{bdims[1]}]",
            )
        idx = _np(sp.indices)
        for n in range(idx.shape[0]):
            r, c = (idx[n, 1], idx[n, 0]) if adjoint_a else (idx[n, 0], idx[n, 1])
            mm = int(shape[1] if adjoint_a else shape[0])
            if not 0 <= c < k:
                raise op_error(
                    InvalidArgumentError,
                    "SparseTensorDenseMatMul",
                    f"k ({c}) from index[{n},{0 if adjoint_a else 1}] out of bounds (>={k})",
                )
            if not 0 <= r < mm:
                raise op_error(
                    InvalidArgumentError,
                    "SparseTensorDenseMatMul",
                    f"m ({r}) from index[{n},{1 if adjoint_a else 0}] out of bounds (>={mm})",
                )
    values = sp.values
    if adjoint_a and values.dtype.is_complex:
        values = conj(values)
    prod = values[:, None] * A.gather(b, cols)
    out_shape = A.stack([A.cast(m, int32), A.shape(b, out_type=int32)[1]])
    return A.scatter_nd(A.cast(rows, int64)[:, None], prod, A.cast(out_shape, int64))


matmul = sparse_dense_matmul


def reorder(sp_input: Any, name: Optional[str] = None) -> SparseTensor:
    """``tf.sparse.reorder``: the same tensor with indices in row-major order."""
    sp = _check_sp(sp_input)
    perm = argsort(_linear(sp.indices, sp.dense_shape), stable=True)
    return _new(A.gather(sp.indices, perm), A.gather(sp.values, perm), sp.dense_shape, sp.shape)


def _check_same_shape(a: SparseTensor, b_shape: np.ndarray, op: str, dense: bool) -> None:
    sa = _np(a.dense_shape)
    if dense:
        for d in range(len(sa)):
            if d >= len(b_shape) or sa[d] != b_shape[d]:
                other = b_shape[d] if d < len(b_shape) else None
                raise op_error(
                    InvalidArgumentError,
                    op,
                    f"Dimension {d} does not equal (no broadcasting is "
                    f"supported): sparse side {sa[d]} vs dense side {other}",
                )
        if len(b_shape) != len(sa):
            raise op_error(
                InvalidArgumentError,
                op,
                f"Dimension {len(sa)} does not equal (no broadcasting is "
                f"supported): sparse side None vs dense side {b_shape[-1]}",
            )
        return
    if len(sa) != len(b_shape):
        raise op_error(
            InvalidArgumentError, op, f"Operands do not have the same ranks; got ranks: {len(sa)} and {len(b_shape)}"
        )
    for d in range(len(sa)):
        if sa[d] != b_shape[d]:
            raise op_error(
                InvalidArgumentError,
                op,
                f"Operands' shapes do not match: got {sa[d]} and {b_shape[d]} for dimension {d}",
            )


def add(a: Any, b: Any, threshold: Any = 0, name: Optional[str] = None) -> Any:
    """``tf.sparse.add``: sparse + sparse (sums coinciding indices, dropping sums whose magnitude
    is below ``threshold``) is sparse; sparse + dense is dense."""
    if not isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        if a.dtype != b.dtype:
            if not _core.executing_eagerly():  # op_def_library while tracing
                raise TypeError(
                    f"Input 'b_values' of 'SparseAdd' Op has type {b.dtype.name} that does not match "
                    f"type {a.dtype.name} of argument 'a_values'."
                )
            raise InvalidArgumentError(
                None,
                None,
                f"cannot compute SparseAdd as input #4(zero-based) was expected "
                f"to be a {type_text(a.dtype)} tensor but is a {type_text(b.dtype)} tensor "
                "[Op:SparseAdd] name: ",
            )
        if _eager(a.dense_shape, b.dense_shape):
            _check_same_shape(a, _np(b.dense_shape), "SparseAdd", dense=False)
        indices = A.concat([a.indices, b.indices], 0)
        values = A.concat([a.values, b.values], 0)
        lin = _linear(indices, a.dense_shape)
        order = argsort(lin, stable=True)
        lin, values = A.gather(lin, order), A.gather(values, order)
        uniq = unique(lin, out_idx=int64)
        sums = segment_sum(values, uniq.idx)
        counts = segment_sum(M.ones_like(uniq.idx, int32), uniq.idx)
        thresh = A.convert_to_tensor(threshold, sums.dtype if not sums.dtype.is_complex else None)
        keep = M.logical_or(M.equal(counts, 1), M.greater_equal(M.abs(sums), thresh))
        lin_out = boolean_mask(uniq.y, keep)
        return _new(_unlinear(lin_out, a.dense_shape), boolean_mask(sums, keep), a.dense_shape, a.shape)
    sp, dense = (a, b) if isinstance(a, SparseTensor) else (b, a)
    dense = A.convert_to_tensor(dense, sp.dtype)
    if _eager(sp.dense_shape, dense):
        _check_same_shape(sp, np.asarray(dense.shape.as_list()), "SparseTensorDenseAdd", dense=True)
    return tensor_scatter_nd_add(dense, sp.indices, sp.values)


def retain(sp_input: Any, to_retain: Any) -> SparseTensor:
    """``tf.sparse.retain``: the values where the bool vector ``to_retain`` is True."""
    sp = _check_sp(sp_input)
    keep = A.convert_to_tensor(to_retain, bool_)
    keep.shape.with_rank(1)
    n, k = sp.values.shape.as_list()[0], keep.shape.as_list()[0]
    if n is not None and k is not None and n != k:
        raise ValueError(f"Dimensions {n} and {k} are not compatible")
    return _new(boolean_mask(sp.indices, keep), boolean_mask(sp.values, keep), sp.dense_shape, sp.shape)


def slice(sp_input: Any, start: Any, size: Any, name: Optional[str] = None) -> SparseTensor:
    """``tf.sparse.slice``: the values inside ``[start, start + size)``, shifted to the origin;
    the result's shape is clipped to the input's bounds."""
    sp = _check_sp(sp_input)
    start = A.convert_to_tensor(start, int64)
    size = A.convert_to_tensor(size, int64)
    end = M.minimum(start + size, sp.dense_shape)
    inside = M.reduce_all(
        M.logical_and(M.greater_equal(sp.indices, start[None, :]), M.less(sp.indices, end[None, :])), axis=1
    )
    shape = M.maximum(end - start, M.zeros_like(start))
    return _new(boolean_mask(sp.indices, inside) - start[None, :], boolean_mask(sp.values, inside), shape)


def transpose(sp_input: Any, perm: Any = None, name: Optional[str] = None) -> SparseTensor:
    """``tf.sparse.transpose``: indices permuted by ``perm`` (reversed by default), reordered."""
    sp = _check_sp(sp_input)
    rank = sp.shape.rank
    if perm is None:
        if rank is None:
            raise ValueError("tf.sparse.transpose needs a known rank without perm")
        perm = list(range(rank - 1, -1, -1))
    perm_t = A.convert_to_tensor(perm, int32)
    indices = A.transpose(A.gather(A.transpose(sp.indices), perm_t))
    shape = A.gather(sp.dense_shape, perm_t)
    static = None
    if sp.shape.rank is not None and not _core.is_tensor(perm):
        dims = sp.shape.as_list()
        static = [dims[p] for p in perm]
    return reorder(_new(indices, sp.values, shape, static))


def reshape(sp_input: Any, shape: Any, name: Optional[str] = None) -> SparseTensor:
    """``tf.sparse.reshape``: the same values in a tensor of another shape (one -1 allowed)."""
    sp = _check_sp(sp_input)
    new = A.convert_to_tensor(shape, int64)
    if _eager(sp.dense_shape, new):
        old_shape, req = _np(sp.dense_shape), _np(new).copy()
        total = int(np.prod(old_shape))
        unknown = [i for i, d in enumerate(req) if d == -1]
        if len(unknown) > 1:
            raise op_error(
                InvalidArgumentError,
                "SparseReshape",
                f"only one output dimension may be -1, not both {unknown[0]} and {unknown[1]}",
            )
        for i, d in enumerate(req):
            if d < -1:
                raise op_error(InvalidArgumentError, "SparseReshape", f"size {i} must be non-negative, not {d}")
        known = int(np.prod([d for d in req if d != -1]))
        if unknown:
            if known == 0 or total % known:
                raise op_error(
                    InvalidArgumentError,
                    "SparseReshape",
                    f"Input to reshape is a SparseTensor with {total} dense values, but the requested "
                    f"shape requires a multiple of {known}. input_shape={_idx_text(old_shape)} "
                    f"output_shape={_idx_text(req)}",
                )
            req[unknown[0]] = total // known
        elif known != total:
            raise op_error(
                InvalidArgumentError,
                "SparseReshape",
                f"Input to reshape is a tensor with {total} dense values, but the requested shape has "
                f"{known}. input_shape={_idx_text(old_shape)} output_shape={_idx_text(req)}",
            )
        new = A.convert_to_tensor(req, int64)
    else:
        total = M.reduce_prod(sp.dense_shape)
        known = M.reduce_prod(
            M.maximum(new, M.ones_like(new)) * A.cast(M.not_equal(new, -1), int64) + A.cast(M.equal(new, -1), int64)
        )
        new = A.where(M.equal(new, -1), A.fill(A.shape(new), total // known), new)
    lin = _linear(sp.indices, sp.dense_shape)
    return _new(_unlinear(lin, new), sp.values, new)


def concat(
    axis: int, sp_inputs: Sequence[Any], expand_nonconcat_dims: bool = False, name: Optional[str] = None
) -> SparseTensor:
    """``tf.sparse.concat``: joins SparseTensors along ``axis`` (result in row-major order);
    ``expand_nonconcat_dims`` grows the other dimensions to the largest input's."""
    sps = [_check_sp(s) for s in sp_inputs]
    if not sps:
        raise ValueError("sp_inputs must not be empty")
    rank = sps[0].shape.rank
    ax = axis + rank if axis < 0 and rank is not None else axis
    shapes = [s.dense_shape for s in sps]
    if expand_nonconcat_dims:
        top = shapes[0]
        for s in shapes[1:]:
            top = M.maximum(top, s)
        shapes = [A.where(M.equal(A.range(A.shape(top)[0]), ax), s, top) for s in shapes]
    elif _eager(*shapes):
        first = _np(shapes[0])
        for pos, s in enumerate(shapes[1:], start=1):
            got = _np(s)
            if len(got) != len(first):
                raise op_error(
                    InvalidArgumentError,
                    "SparseConcat",
                    f"Ranks of all input tensors must match: "
                    f"expected {len(first)} but got {len(got)} at position {pos}",
                    kernel=f"SparseConcat_N_{len(sps)}",
                )
            for d in range(len(first)):
                if d != ax and got[d] != first[d]:
                    raise op_error(
                        InvalidArgumentError,
                        "SparseConcat",
                        f"Input shapes must match: expected "
                        f"{first[d]} for dimension {d} but got {got[d]} at position {pos}",
                        kernel=f"SparseConcat_N_{len(sps)}",
                    )
    sizes = A.stack([s[ax] for s in shapes])
    offsets = cumsum(sizes, exclusive=True)
    onehot = A.cast(M.equal(A.range(A.shape(shapes[0])[0]), ax), int64)
    indices = A.concat([s.indices + offsets[i] * onehot[None, :] for i, s in enumerate(sps)], 0)
    values = A.concat([s.values for s in sps], 0)
    dense_shape = shapes[0] + (M.reduce_sum(sizes) - shapes[0][ax]) * onehot
    return reorder(SparseTensor(indices, values, dense_shape))


def _reduce(sp: SparseTensor, axis: Any, keepdims: Optional[bool], output_is_sparse: bool, kind: str) -> Any:
    rank = sp.shape.rank
    if rank is None:
        raise ValueError("tf.sparse reductions need a known rank")
    if axis is None:
        axes = list(range(rank))
    else:
        axes = sorted({(int(a) + rank) % rank for a in np.atleast_1d(np.asarray(axis)).tolist()})
    kept = [d for d in range(rank) if d not in axes]
    if not kept:
        # Every axis: one group; an empty one gives 0 (TF's SparseReduce zero-fills its output).
        if kind == "sum":
            out = M.reduce_sum(sp.values)
        else:
            out = A.where(M.greater(A.size(sp.values), 0), M.reduce_max(sp.values), A.zeros([], sp.dtype))
        if output_is_sparse:
            shape = [1] * rank if keepdims else []
            return SparseTensor(A.zeros([1, len(shape)], int64), A.reshape(out, [1]), A.convert_to_tensor(shape, int64))
        return A.reshape(out, [1] * rank) if keepdims else out
    kept_t = A.convert_to_tensor(kept, int32)
    idx_kept = A.gather(sp.indices, kept_t, axis=1)
    kshape = A.gather(sp.dense_shape, kept_t)
    counts = A.scatter_nd(idx_kept, M.ones_like(sp.values, int32), kshape)
    if kind == "sum":
        dense = A.scatter_nd(idx_kept, sp.values, kshape)
    else:
        low = A.convert_to_tensor(_lowest(sp.dtype), sp.dtype)
        dense = tensor_scatter_nd_max(A.fill(kshape, low), idx_kept, sp.values)
        dense = A.where(M.greater(counts, 0), dense, M.zeros_like(dense))
    # keepdims: reduced axes stay as size 1 (index 0).
    reduced = A.convert_to_tensor([d in axes for d in range(rank)], bool_)
    kept_shape = A.where(reduced, M.ones_like(sp.dense_shape), sp.dense_shape)
    if output_is_sparse:
        where = A.where(M.greater(counts, 0))
        vals = A.gather_nd(dense, where)
        if not keepdims:
            return SparseTensor(where, vals, kshape)
        cols = [M.zeros_like(where[:, 0]) if d in axes else where[:, kept.index(d)] for d in range(rank)]
        return SparseTensor(A.stack(cols, axis=1), vals, kept_shape)
    return A.reshape(dense, A.cast(kept_shape, int32)) if keepdims else dense


def _lowest(dtype: Any) -> Any:
    npd = np.dtype(dtype.as_numpy_dtype)
    if npd.kind == "f":
        return -np.inf
    return np.iinfo(npd).min


def reduce_sum(
    sp_input: Any,
    axis: Any = None,
    keepdims: Optional[bool] = None,
    output_is_sparse: bool = False,
    name: Optional[str] = None,
) -> Any:
    """``tf.sparse.reduce_sum``: sums the values over ``axis`` (implicit zeros add nothing)."""
    return _reduce(_check_sp(sp_input), axis, keepdims, output_is_sparse, "sum")


def reduce_max(
    sp_input: Any,
    axis: Any = None,
    keepdims: Optional[bool] = None,
    output_is_sparse: bool = False,
    name: Optional[str] = None,
) -> Any:
    """``tf.sparse.reduce_max``: the maximum of the given values over ``axis`` (implicit zeros are
    not values; an empty group gives 0, as TF's SparseReduceMax)."""
    return _reduce(_check_sp(sp_input), axis, keepdims, output_is_sparse, "max")


def map_values(op: Callable, *args: Any, **kwargs: Any) -> SparseTensor:
    """``tf.sparse.map_values``: ``op`` applied to the values of the SparseTensors among the
    arguments (which must share their indices), the other arguments as given."""
    from fn import nest

    found: List[SparseTensor] = []

    def repl(x: Any) -> Any:
        if isinstance(x, SparseTensor):
            found.append(x)
            return x.values
        return x

    new_args = [repl(a) if isinstance(a, SparseTensor) else nest.map_structure(repl, a) for a in args]
    new_kwargs = {k: repl(v) if isinstance(v, SparseTensor) else nest.map_structure(repl, v) for k, v in kwargs.items()}
    if not found:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = found[0]
    for other in found[1:]:
        if _eager(first.indices, other.indices):
            _assert_same_indices(first.indices, other.indices)
    return SparseTensor(first.indices, op(*new_args, **new_kwargs), first.dense_shape)


def _assert_same_indices(x: Any, y: Any) -> None:
    a, b = _np(x), _np(y)
    if a.shape != b.shape or not np.array_equal(a, b):
        if a.shape == b.shape:
            fa, fb = a.reshape(-1), b.reshape(-1)
            bad = np.nonzero(fa != fb)[0]
            coords = np.stack(np.unravel_index(bad, a.shape), axis=1)
            raise InvalidArgumentError(
                None,
                None,
                f"Mismatched indices!\nCondition x == y did not hold.\nIndices "
                f"of first {len(bad)} different values:\n{coords}\nCorresponding x values:\n"
                f"{fa[bad]}\nCorresponding y values:\n{fb[bad]}\nFirst {min(fa.size, 3)} elements "
                f"of x:\n{fa[:3]}\nFirst {min(fb.size, 3)} elements of y:\n{fb[:3]}",
            )
        raise InvalidArgumentError(None, None, "Mismatched indices!")


def unary_on_values(sp: SparseTensor, op: str, func: Callable, name: Optional[str]) -> SparseTensor:
    """A unary elementwise op TF dispatches on SparseTensor (abs, negative, sqrt, ...)."""
    if op not in _UNARY:
        raise ValueError(
            f"Attempt to convert a value ({sp!r}) with an unsupported type (<class 'fn.SparseTensor'>) to a Tensor."
        )
    return sp.with_values(func(sp.values, name=name))


def dense_cwise(sp: SparseTensor, other: Any, op: str) -> SparseTensor:
    """``sp * dense`` / ``sp / dense`` (TF's SparseDenseCwiseMul/Div): the dense operand,
    broadcast to the sparse shape, read at the sparse indices."""
    if isinstance(other, SparseTensor):
        raise TypeError("unsupported operand type(s): SparseTensor and SparseTensor")
    d = A.convert_to_tensor(other, sp.dtype)
    if d.shape.rank == 0:
        picked = d
    else:
        picked = A.gather_nd(broadcast_to(d, sp.dense_shape), sp.indices)
    vals = M.multiply(sp.values, picked) if op == "Mul" else M.truediv(sp.values, picked)
    return sp.with_values(vals)


def expand_dims(sp_input: Any, axis: Any = None, name: Optional[str] = None) -> SparseTensor:
    """``tf.sparse.expand_dims``: a dimension of size 1 inserted at ``axis``."""
    sp = _check_sp(sp_input)
    ax = int(axis if axis is not None else 0)
    if ax < 0:
        ax += known_rank(sp.shape, "the sparse tensor") + 1
    zeros = A.zeros([A.shape(sp.indices)[0], 1], int64)
    indices = A.concat([sp.indices[:, :ax], zeros, sp.indices[:, ax:]], 1)
    shape = A.concat([sp.dense_shape[:ax], A.convert_to_tensor([1], int64), sp.dense_shape[ax:]], 0)
    return SparseTensor(indices, sp.values, shape)


def eye(
    num_rows: int, num_columns: Optional[int] = None, dtype: Any = "float32", name: Optional[str] = None
) -> SparseTensor:
    """``tf.sparse.eye``: a sparse identity matrix."""
    n = int(num_rows)
    m = n if num_columns is None else int(num_columns)
    diag = A.range(min(n, m), dtype=int64)
    return SparseTensor(A.stack([diag, diag], axis=1), M.ones_like(diag, as_dtype(dtype)), [n, m])


def install_operators() -> None:
    """SparseTensor's methods that run sparse ops (set here, where the ops are, so that
    sparse_tensor stays below sparse_ops); called once by fn/__init__.py."""

    def truediv(self: SparseTensor, other: Any) -> SparseTensor:
        return dense_cwise(self, other, "RealDiv")

    methods = {
        "_fn_unary_dispatch": lambda self, op, func, name: unary_on_values(self, op, func, name),
        "__mul__": lambda self, other: dense_cwise(self, other, "Mul"),
        "__truediv__": truediv,
        "__div__": truediv,
    }
    for name, method in methods.items():
        setattr(SparseTensor, name, method)
