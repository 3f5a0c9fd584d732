"""tf.sets: intersection / union / difference / size over the last dimension of dense tensors
and SparseTensors (TF's set kernels: sorted sets, the last dimension as long as the largest set),
in a tf.function too, and the type and shape errors."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

S = tf.sparse.SparseTensor


def _st(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


def _doc_pair():
    """The sparse example of TF's tf.sets docstrings."""
    a = {(0, 0, 0): 1, (0, 0, 1): 2, (0, 1, 0): 3, (1, 0, 0): 4, (1, 1, 0): 5, (1, 1, 1): 6}
    b = {(0, 0, 0): 1, (0, 0, 1): 3, (0, 1, 0): 2, (1, 0, 0): 4, (1, 0, 1): 5, (1, 1, 0): 5, (1, 1, 1): 6,
         (1, 1, 2): 7, (1, 1, 3): 8}
    return S(list(a), list(a.values()), [2, 2, 2]), S(list(b), list(b.values()), [2, 2, 4])


def _python_sets(dense_rows):
    return [sorted(set(r)) for r in dense_rows]


def test_sparse_sparse_docstring_examples():
    a, b = _doc_pair()
    assert _st(tf.sets.intersection(a, b)) == ([[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], [1, 4, 5, 6], [2, 2, 2])
    assert _st(tf.sets.union(a, b)) == (
        [[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1],
         [1, 1, 2], [1, 1, 3]], [1, 2, 3, 2, 3, 4, 5, 5, 6, 7, 8], [2, 2, 4])
    assert _st(tf.sets.difference(a, b)) == ([[0, 0, 0], [0, 1, 0]], [2, 3], [2, 2, 1])
    assert _st(tf.sets.difference(a, b, aminusb=False)) == (
        [[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], [3, 2, 5, 7, 8], [2, 2, 2])
    assert tf.sets.size(a).numpy().tolist() == [[2, 1], [1, 2]]
    assert tf.sets.size(b).numpy().tolist() == [[2, 1], [2, 4]]
    assert tf.sets.size(a).dtype == tf.int32


def test_dense_sets_match_python_sets():
    rng = np.random.RandomState(3)
    x = rng.randint(0, 6, size=(4, 7)).astype(np.int64)
    y = rng.randint(0, 6, size=(4, 5)).astype(np.int64)
    for op, py in [(tf.sets.union, set.union), (tf.sets.intersection, set.intersection),
                   (tf.sets.difference, set.difference)]:
        r = op(tf.constant(x), tf.constant(y))
        dense = tf.sparse.to_dense(r, default_value=-1).numpy()
        want = [sorted(py(set(a), set(b))) for a, b in zip(x.tolist(), y.tolist())]
        width = max(len(w) for w in want)
        assert r.dense_shape.numpy().tolist() == [4, width]
        assert [[v for v in row if v != -1] for row in dense.tolist()] == want
        assert r.values.dtype == tf.int64


def test_dense_duplicates_and_empty_result():
    d = tf.constant([[3, 1, 3, 0], [5, 5, 5, 5]])
    assert _st(tf.sets.union(d, d)) == ([[0, 0], [0, 1], [0, 2], [1, 0]], [0, 1, 3, 5], [2, 3])
    r = tf.sets.intersection(d, tf.constant([[7, 7, 7, 7], [8, 8, 8, 8]]))
    assert _st(r) == ([], [], [2, 0])


def test_sparse_dense_order_is_flipped():
    _, b = _doc_pair()
    dense = tf.constant([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    # (sparse, dense) runs as (dense, sparse) with the difference reversed, as TF does.
    assert _st(tf.sets.difference(b, dense)) == (
        [[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], [3, 2, 4, 5, 6], [2, 2, 2])
    assert _st(tf.sets.intersection(b, dense)) == _st(tf.sets.intersection(dense, b))


def test_string_sets_sorted_by_bytes():
    s = tf.constant([[b"b", b"a", b"c"], [b"x", b"", b"x"]])
    r = tf.sets.union(s, tf.constant([[b"z", b"a", b"a"], [b"y", b"y", b"y"]]))
    assert _st(r) == ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2]],
                      [b"a", b"b", b"c", b"z", b"", b"x", b"y"], [2, 4])


def test_sets_in_a_function():
    a, b = _doc_pair()

    @tf.function
    def f(x, y):
        r = tf.sets.intersection(x, y)
        return r.indices, r.values, r.dense_shape, tf.sets.size(r)

    out = [t.numpy().tolist() for t in f(a, b)]
    assert out == [[[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], [1, 4, 5, 6], [2, 2, 2], [[1, 0], [1, 2]]]


def test_bad_inputs():
    with pytest.raises(TypeError, match="'a' has invalid dtype"):
        tf.sets.union(tf.constant([[1.0]]), tf.constant([[1.0]]))
    with pytest.raises(TypeError, match="Types don't match"):
        tf.sets.union(tf.constant([[1]]), tf.constant([[1]], tf.int64))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Mismatched shapes \[1\] vs \[2\]"):
        tf.sets.union(tf.constant([[1, 2]]), tf.constant([[1], [2]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape \[2\] has rank 1 < 2"):
        tf.sets.union(tf.constant([1, 2]), tf.constant([1, 2]))
    with pytest.raises(TypeError, match="Expected `SparseTensor`"):
        tf.sets.size(tf.constant([[1]]))
