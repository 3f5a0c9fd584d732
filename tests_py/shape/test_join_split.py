"""concat, stack, unstack, split against NumPy over random shapes, axes and dtypes."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import fn
from test_shape_ops import DTYPES, same


@st.composite
def pieces(draw, min_rank=1, max_rank=4):
    """Arrays of one dtype with equal shapes except along `axis`."""
    rank = draw(st.integers(min_rank, max_rank))
    base = draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank))
    axis = draw(st.integers(-rank, rank - 1))
    dtype = draw(st.sampled_from(DTYPES))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    out = []
    for _ in range(draw(st.integers(1, 4))):
        s = list(base)
        s[axis] = draw(st.integers(0, 3))
        out.append((rng.standard_normal(s) * 10).astype(dtype))
    return out, axis


@given(pieces())
def test_concat(args):
    xs, axis = args
    same(fn.concat(xs, axis), np.concatenate(xs, axis))
    same(fn.concat([fn.constant(x) for x in xs], fn.constant(axis, fn.int64)), np.concatenate(xs, axis))


@given(st.lists(st.integers(0, 3), max_size=3), st.integers(1, 4), st.data())
def test_stack_unstack(shape, n, data):
    rng = np.random.default_rng(len(shape) * 7 + n)
    xs = [rng.integers(-5, 5, shape).astype(np.int64) for _ in range(n)]
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    stacked = fn.stack(xs, axis)
    same(stacked, np.stack(xs, axis))
    parts = fn.unstack(stacked, axis=axis)
    assert len(parts) == n
    for p, x in zip(parts, xs):
        same(p, x)


@given(pieces(), st.data())
def test_split(args, data):
    xs, axis = args
    x = np.concatenate(xs, axis)
    sizes = [p.shape[axis] for p in xs]
    got = fn.split(x, sizes, axis=axis)
    assert len(got) == len(xs)
    for g, want in zip(got, xs):
        same(g, want)
    if data.draw(st.booleans()) and len(sizes) > 1:   # one size left to -1
        sizes[data.draw(st.integers(0, len(sizes) - 1))] = -1
        for g, want in zip(fn.split(x, sizes, axis=axis), xs):
            same(g, want)
    n = data.draw(st.integers(1, 3))
    if x.shape[axis] % n == 0:
        for g, want in zip(fn.split(x, n, axis=axis), np.split(x, n, axis=axis)):
            same(g, want)


def test_stack_of_python_values_and_mixed_lists():
    same(fn.stack([1, 2, 3]), np.array([1, 2, 3], np.int32))
    same(fn.stack([[1, 2], [3, 4]], axis=1), np.array([[1, 3], [2, 4]], np.int32))
    same(fn.stack([fn.constant(1.5), 2]), np.array([1.5, 2], np.float32))
    same(fn.concat([[1, 2], fn.constant([3], fn.int64)], 0), np.array([1, 2, 3], np.int64))
    s = fn.stack([fn.constant(["a", "b"]), fn.constant(["c", "d"])], axis=1)
    assert s.numpy().tolist() == [[b"a", b"c"], [b"b", b"d"]]
    assert [t.numpy().tolist() for t in fn.unstack(s)] == [[b"a", b"c"], [b"b", b"d"]]


def test_join_split_in_functions():
    @fn.function
    def f(x, y):
        c = fn.concat([x, y], 0)
        a, b = fn.split(c, [2, -1])
        return c, fn.stack([x, x], axis=1), a, b, fn.unstack(fn.reshape(c, [-1, 1]), num=None if False else 5)[4]

    c = f.get_concrete_function(fn.TensorSpec([2]), fn.TensorSpec([3]))
    ops = [op.type for op in c.graph.get_operations()]
    assert "ConcatV2" in ops and "Pack" in ops and "SplitV" in ops and "Unpack" in ops
    names = [op.name for op in c.graph.get_operations()]
    assert "concat" in names and "stack" in names and "split" in names and "unstack" in names
    assert [o.shape.as_list() for o in c.structured_outputs] == [[5], [2, 2], [2], [3], [1]]
    out = f(fn.constant([1.0, 2.0]), fn.constant([3.0, 4.0, 5.0]))
    assert out[0].numpy().tolist() == [1, 2, 3, 4, 5] and out[3].numpy().tolist() == [3, 4, 5]
    assert out[4].numpy().tolist() == [5]


def test_unstack_and_split_views_share_memory_but_stay_correct():
    x = fn.constant(np.arange(12.0).reshape(3, 4))
    rows = fn.unstack(x)
    assert [r.numpy().tolist() for r in rows] == np.arange(12.0).reshape(3, 4).tolist()
    cols = fn.unstack(x, axis=1)
    assert cols[1].numpy().tolist() == [1, 5, 9]
