"""Shape ops against NumPy over random shapes and dtypes: reshape, transpose, expand_dims,
squeeze, tile, pad, shape/size/rank, zeros_like/ones_like, identity, stop_gradient."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fn

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_, np.float16, np.uint8]


@st.composite
def arrays(draw, min_rank=0, max_rank=4, max_dim=4, dtypes=DTYPES, min_dim=0):
    shape = draw(st.lists(st.integers(min_dim, max_dim), min_size=min_rank, max_size=max_rank))
    dtype = draw(st.sampled_from(dtypes))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    return (rng.standard_normal(shape) * 10).astype(dtype)


def same(t, want):
    got = t.numpy()
    want = np.asarray(want)
    assert t.shape.as_list() == list(want.shape)
    assert t.dtype == fn.as_dtype(want.dtype)
    np.testing.assert_array_equal(got, want)


@given(arrays(min_dim=1), st.data())
def test_reshape(x, data):
    n = x.size
    # a random factorisation of n, with one dimension maybe left to -1
    dims, rest = [], n
    for _ in range(data.draw(st.integers(0, 3))):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        d = data.draw(st.sampled_from(divisors))
        dims.append(d)
        rest //= d
    dims.append(rest)
    if data.draw(st.booleans()):
        dims[data.draw(st.integers(0, len(dims) - 1))] = -1
    same(fn.reshape(x, dims), x.reshape(dims))
    same(fn.reshape(fn.constant(x), fn.constant(np.array(dims, np.int64))), x.reshape(dims))


def test_reshape_strings_and_scalars():
    s = np.array([b"a", b"b", b"c", b"d"], dtype=object)
    assert fn.reshape(s, [2, 2]).numpy().tolist() == [[b"a", b"b"], [b"c", b"d"]]
    same(fn.reshape(np.float32(3), [1, 1]), np.full([1, 1], 3, np.float32))
    same(fn.reshape(np.ones([1, 1], np.int32), []), np.int32(1))
    same(fn.reshape(np.zeros([0, 3]), [3, 0, 7]), np.zeros([3, 0, 7]))
    with pytest.raises(fn.errors.InvalidArgumentError, match="cannot infer the missing input size for an empty"):
        fn.reshape(np.zeros([0, 3]), [3, 0, -1])


@given(arrays(), st.data())
def test_transpose(x, data):
    perm = data.draw(st.permutations(range(x.ndim)))
    same(fn.transpose(x, perm), np.transpose(x, perm))
    same(fn.transpose(x), x.T)


@given(arrays(max_rank=3), st.data())
def test_expand_dims_and_squeeze(x, data):
    axis = data.draw(st.integers(-x.ndim - 1, x.ndim))
    e = fn.expand_dims(x, axis)
    same(e, np.expand_dims(x, axis))
    same(fn.squeeze(e, [axis]), x)
    same(fn.squeeze(e), np.squeeze(np.expand_dims(x, axis)))


@given(arrays(max_rank=3, max_dim=3), st.data())
def test_tile(x, data):
    mult = data.draw(st.lists(st.integers(0, 3), min_size=x.ndim, max_size=x.ndim))
    same(fn.tile(x, mult), np.tile(x, mult) if x.ndim else x)


@given(arrays(max_rank=3, dtypes=[np.float32, np.int64, np.float64]), st.data())
def test_pad(x, data):
    pads = [data.draw(st.tuples(st.integers(0, 2), st.integers(0, 2))) for _ in range(x.ndim)]
    same(fn.pad(x, pads), np.pad(x, pads) if x.ndim else x)
    same(fn.pad(x, pads, constant_values=7), np.pad(x, pads, constant_values=7) if x.ndim else x)


@given(arrays())
def test_shape_size_rank_likes(x):
    same(fn.shape(x), np.array(x.shape, np.int32))
    same(fn.shape(x, out_type=fn.int64), np.array(x.shape, np.int64))
    same(fn.size(x), np.int32(x.size))
    same(fn.rank(x), np.int32(x.ndim))
    same(fn.zeros_like(x), np.zeros_like(x))
    same(fn.ones_like(x), np.ones_like(x))
    same(fn.zeros_like(x, dtype=fn.float64), np.zeros(x.shape))
    same(fn.identity(x), x)
    same(fn.stop_gradient(x), x)


def test_shape_ops_inside_functions_keep_static_shapes():
    @fn.function
    def f(x):
        y = fn.reshape(x, [-1, 2])
        return y, fn.shape(x), fn.transpose(y), fn.expand_dims(x, 1), fn.squeeze(fn.expand_dims(x, 0)), \
            fn.tile(x, [2]), fn.pad(x, [[1, 2]])

    c = f.get_concrete_function(fn.TensorSpec([None]))
    shapes = [o.shape.dims for o in c.structured_outputs]
    # squeeze() of an unknown dim may or may not drop it: unknown rank, as in TensorFlow
    assert shapes == [[None, 2], [1], [2, None], [None, 1], None, [None], [None]]
    ops = {op.name: op.type for op in c.graph.get_operations()}
    assert ops["Reshape"] == "Reshape" and ops["transpose"] == "Transpose" and ops["Shape"] == "Shape"
    assert ops["ExpandDims"] == "ExpandDims" and ops["Tile"] == "Tile" and ops["Pad"] == "Pad"
    out = f(fn.constant([1.0, 2.0, 3.0, 4.0]))
    assert out[0].numpy().tolist() == [[1, 2], [3, 4]] and out[1].numpy().tolist() == [4]
    assert out[6].numpy().tolist() == [0, 1, 2, 3, 4, 0, 0]

    @fn.function
    def g(x):
        return fn.shape(x), fn.size(x), fn.rank(x), fn.zeros_like(x)

    c = g.get_concrete_function(fn.TensorSpec([2, 3]))
    ops = {op.name: op.type for op in c.graph.get_operations()}
    # Static shapes fold to constants named like TensorFlow's.
    assert ops["Shape"] == "Const" and ops["Size"] == "Const" and ops["Rank"] == "Const"
    assert ops["zeros_like"] == "Fill" or ops["zeros_like"] == "Const"
    assert [t.numpy().tolist() for t in g(fn.ones([2, 3]))[:3]] == [[2, 3], 6, 2]


def test_reshape_with_a_shape_computed_in_the_graph():
    @fn.function
    def f(x, y):
        return fn.reshape(x, fn.shape(y)), fn.reshape(x, [fn.shape(y)[0], -1])

    c = f.get_concrete_function(fn.TensorSpec([6]), fn.TensorSpec([3, 2]))
    assert [o.shape.as_list() for o in c.structured_outputs] == [[3, 2], [3, 2]]
    c = f.get_concrete_function(fn.TensorSpec([6]), fn.TensorSpec([None, 2]))
    assert [o.shape.as_list() for o in c.structured_outputs] == [[None, 2], [None, None]]
    r = f(fn.range(6), fn.zeros([2, 3]))
    assert r[0].numpy().tolist() == [[0, 1, 2], [3, 4, 5]] == r[1].numpy().tolist()


@pytest.mark.parametrize("dtype", [fn.float32, fn.int32, fn.string, fn.bool])
def test_fill_likes_for_dtypes(dtype):
    x = fn.zeros([2, 2], dtype)
    assert fn.zeros_like(x).dtype == dtype
