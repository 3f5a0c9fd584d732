"""Indexing: Tensor.__getitem__ against NumPy over many index expressions (eagerly and in
functions), gather, gather_nd, scatter_nd, slice, strided_slice, where, one_hot."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fn
from test_shape_ops import DTYPES, arrays, same


@st.composite
def index_exprs(draw, shape):
    """A NumPy-compatible basic index for `shape`: ints, slices with steps, ..., None."""
    items, dim = [], 0
    ellipsis_used = False
    n = draw(st.integers(0, len(shape) + 2))
    for _ in range(n):
        kind = draw(st.sampled_from(["int", "slice", "slice", "none", "ellipsis"]))
        if kind == "ellipsis" and not ellipsis_used:
            ellipsis_used = True
            items.append(Ellipsis)
            dim = len(shape) - sum(1 for i in items if i is not None and i is not Ellipsis) + 0
            continue
        if kind == "none":
            items.append(None)
            continue
        real = sum(1 for i in items if i is not None and i is not Ellipsis)
        if real >= len(shape):
            continue
        size = shape[real] if not ellipsis_used else shape[min(len(shape) - 1, real)]
        if kind == "int" and size > 0:
            items.append(draw(st.integers(-size, size - 1)))
        else:
            bound = st.one_of(st.none(), st.integers(-size - 2, size + 2))
            step = draw(st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0)))
            items.append(slice(draw(bound), draw(bound), step))
    return tuple(items)


@settings(max_examples=1000)
@given(arrays(min_rank=0, max_rank=4, max_dim=5), st.data())
def test_getitem_matches_numpy(x, data):
    idx = data.draw(index_exprs(x.shape))
    try:
        want = x[idx]
    except IndexError:
        return
    got = fn.constant(x)[idx]
    same(got, want)


@pytest.mark.parametrize("idx", [
    0, -1, (1, 2), slice(None, None, -1), (Ellipsis, 0), (None, 1, Ellipsis, None), (slice(1, None, 2), None),
    (Ellipsis,), (), (slice(-100, 100),), (0, slice(None), None, -2), (Ellipsis, slice(None, None, -2), 1),
])
def test_getitem_examples_eager_and_traced(idx):
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    same(fn.constant(x)[idx], x[idx])
    f = fn.function(lambda t: t[idx])
    same(f(fn.constant(x)), x[idx])
    out = f.get_concrete_function(fn.TensorSpec([2, 3, 4])).structured_outputs
    assert out.shape.as_list() == list(x[idx].shape)


def test_getitem_with_tensor_indices_and_static_shapes():
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    t = fn.constant(x)
    assert t[fn.constant(2)].numpy().tolist() == x[2].tolist()
    assert t[fn.constant(-1, fn.int64)].numpy().tolist() == x[-1].tolist()
    assert t[1:fn.constant(3), fn.constant(2)].numpy().tolist() == x[1:3, 2].tolist()

    @fn.function
    def f(a, i):
        return a[i], a[:, i], a[i, 2:], a[..., 1:3]

    c = f.get_concrete_function(fn.TensorSpec([None, 6], fn.int32), fn.TensorSpec([], fn.int32))
    assert [o.shape.as_list() for o in c.structured_outputs] == [[6], [None], [None], [None, 2]]
    ops = {op.name: op.type for op in c.graph.get_operations()}
    assert ops["strided_slice"] == "StridedSlice"
    r = f(t, fn.constant(3))
    assert r[0].numpy().tolist() == x[3].tolist() and r[1].numpy().tolist() == x[:, 3].tolist()
    assert r[3].numpy().tolist() == x[..., 1:3].tolist()


def test_iteration_and_len_use_slicing():
    t = fn.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    assert [r.numpy().tolist() for r in t] == [[1, 2], [3, 4], [5, 6]]
    a, b = fn.constant([7, 8])
    assert int(a) == 7 and int(b) == 8


def test_bad_indices():
    t = fn.constant([[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="Only integers, slices"):
        t[1.5]
    with pytest.raises(TypeError, match="Only integers, slices"):
        t["a"]
    with pytest.raises(TypeError, match="Only integers, slices"):
        t[fn.constant(1.0)]
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"slice index 5 of dimension 0 out of bounds. \[Op:StridedSlice\]"):
        t[5]
    with pytest.raises(fn.errors.InvalidArgumentError, match="Index out of range using input dim 2; input has only 2 dims"):
        t[:, :, 1]
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"strides\[0\] must be non-zero"):
        t[::fn.constant(0)]
    with pytest.raises(ValueError, match="slice index 5 of dimension 0 out of bounds. for '{{node strided_slice}}"):
        fn.function(lambda a: a[5]).get_concrete_function(fn.TensorSpec([2, 3]))


@given(arrays(min_rank=1, max_rank=3), st.data())
def test_gather(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    if n == 0:
        return
    ishape = data.draw(st.lists(st.integers(0, 3), max_size=2))
    idx = np.random.default_rng(1).integers(0, n, ishape)
    same(fn.gather(x, idx, axis=axis), np.take(x, idx, axis=axis))
    same(fn.gather(x, fn.constant(idx.astype(np.int64)), axis=fn.constant(axis, fn.int64)), np.take(x, idx, axis=axis))


def test_gather_batch_dims():
    x = np.arange(2 * 3 * 4).reshape(2, 3, 4)
    idx = np.array([[0, 2], [1, 1]])
    want = np.stack([np.take(x[b], idx[b], axis=1) for b in range(2)])
    same(fn.gather(x, idx, axis=2, batch_dims=1), want)


@given(arrays(min_rank=1, max_rank=3, min_dim=1), st.data())
def test_gather_nd_and_scatter_nd(x, data):
    k = data.draw(st.integers(1, x.ndim))
    rng = np.random.default_rng(2)
    n = data.draw(st.integers(0, 4))
    idx = np.stack([rng.integers(0, x.shape[d], n) for d in range(k)], axis=-1).reshape(n, k)
    same(fn.gather_nd(x, idx), x[tuple(idx.T)] if n else np.zeros((0,) + x.shape[k:], x.dtype))
    if x.dtype in (np.float32, np.float64, np.int32, np.int64):
        upd = x[tuple(idx.T)] if n else np.zeros((0,) + x.shape[k:], x.dtype)
        want = np.zeros_like(x)
        np.add.at(want, tuple(idx.T), upd)
        same(fn.scatter_nd(idx, upd, x.shape), want)


@given(arrays(min_rank=1, max_rank=4), st.data())
def test_slice(x, data):
    begin = [data.draw(st.integers(0, d)) for d in x.shape]
    size = [data.draw(st.sampled_from([-1, data.draw(st.integers(0, d - b))])) for d, b in zip(x.shape, begin)]
    want = x[tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))]
    same(fn.slice(x, begin, size), want)


def test_strided_slice_function_with_masks():
    x = np.arange(60).reshape(3, 4, 5)
    same(fn.strided_slice(x, [0, 1], [0, -1], [1, 2], begin_mask=1, end_mask=1), x[:, 1:-1:2])
    same(fn.strided_slice(x, [1, 0], [2, 0], [1, 1], shrink_axis_mask=1, new_axis_mask=2), x[1, None])
    same(fn.strided_slice(x, [0, 2], [0, 3], [1, 1], ellipsis_mask=1, shrink_axis_mask=2), x[..., 2])


@given(arrays(max_rank=3, dtypes=[np.float32, np.int64, np.bool_, np.float64]))
def test_where_one_arg(x):
    same(fn.where(x), np.argwhere(x).astype(np.int64))


@given(st.lists(st.integers(1, 3), min_size=0, max_size=3), st.data())
def test_where_three_args_broadcasts(shape, data):
    rng = np.random.default_rng(3)
    def sub(s):   # a broadcast-compatible shape
        return [d if data.draw(st.booleans()) else 1 for d in s][data.draw(st.integers(0, len(s))):]
    c = rng.random(sub(shape)) > 0.5
    a = rng.standard_normal(sub(shape)).astype(np.float32)
    b = rng.standard_normal(sub(shape)).astype(np.float32)
    same(fn.where(c, a, b), np.where(c, a, b))
    same(fn.where(c, a, 0.0), np.where(c, a, np.float32(0)))


@given(st.lists(st.integers(0, 3), max_size=2), st.integers(0, 4), st.data())
def test_one_hot(shape, depth, data):
    idx = np.random.default_rng(4).integers(-1, depth + 2, shape)
    axis = data.draw(st.integers(-1, len(shape)))
    want = (idx[..., None] == np.arange(depth)).astype(np.float32)
    if axis != -1:
        want = np.moveaxis(want, -1, axis)
    same(fn.one_hot(idx, depth, axis=axis), want)
    same(fn.one_hot(idx, depth, on_value=5, off_value=-1, axis=axis), np.where(want > 0, 5, -1).astype(np.int32))
