"""tf.broadcast_to, tf.reverse, tf.roll, tf.unique, tf.tensor_scatter_nd_*, tf.eye, tf.meshgrid,
tf.boolean_mask, tf.sequence_mask, tf.repeat: values, dtypes, errors, gradients, shape rules."""
import numpy as np
import pytest

from _grad import check_grad, traced_shapes
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

X = np.arange(6, dtype=np.float64).reshape(2, 3) * 0.5 - 1


def test_broadcast_to():
    r = tf.broadcast_to([1, 2], [3, 2])
    assert r.dtype == tf.int32 and r.numpy().tolist() == [[1, 2]] * 3
    assert tf.broadcast_to(tf.constant([1.]), [2, 0]).shape == (2, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3,3\]"):
        tf.broadcast_to([1, 2], [3, 3])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Rank of input \(2\) must be no greater than rank of output shape \(1\)"):
        tf.broadcast_to([[1, 2]], [2])
    check_grad(lambda x: tf.broadcast_to(x, [4, 2, 3]), X)
    check_grad(lambda x: tf.broadcast_to(x, [2, 3]), X[:1])
    assert traced_shapes(lambda x: tf.broadcast_to(x, [4, 3]), tf.TensorSpec([None], tf.float32)) == [[4, 3]]


def test_reverse():
    assert tf.reverse([[1, 2], [3, 4]], [1]).numpy().tolist() == [[2, 1], [4, 3]]
    assert tf.reverse([[1, 2], [3, 4]], [0, -1]).numpy().tolist() == [[4, 3], [2, 1]]
    assert tf.reverse(["a", "b"], [0]).numpy().tolist() == [b"b", b"a"]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"'axis'\[0\] = 2 is out of valid range \[0, 1"):
        tf.reverse([[1, 2], [3, 4]], [2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis 1 specified more than once."):
        tf.reverse([[1, 2], [3, 4]], [1, -1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="'dims' must be 1-dimension, not 2"):
        tf.reverse([1, 2], [[0]])
    check_grad(lambda x: tf.reverse(x, [1]), X)
    assert traced_shapes(lambda x: tf.reverse(x, [0]), tf.TensorSpec([None, 3], tf.float32)) == [[None, 3]]


def test_roll():
    assert tf.roll([1, 2, 3, 4], 1, 0).numpy().tolist() == [4, 1, 2, 3]
    assert tf.roll([[1, 2], [3, 4]], [1, 1], [0, 0]).numpy().tolist() == [[1, 2], [3, 4]]
    assert tf.roll(tf.reshape(tf.range(6), [2, 3]), [1, -1], [0, 1]).numpy().tolist() == [[4, 5, 3], [1, 2, 0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis 1 is out of range"):
        tf.roll([1, 2, 3, 4], 1, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="shift and axis must have the same size"):
        tf.roll([1, 2], [1, 2], [0])
    check_grad(lambda x: tf.roll(x, [1, 2], [0, 1]), X)
    assert traced_shapes(lambda x: tf.roll(x, 1, 1), tf.TensorSpec([None, 3], tf.float32)) == [[None, 3]]


def test_unique():
    y, idx = tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8])
    assert y.numpy().tolist() == [1, 2, 4, 7, 8]
    assert idx.numpy().tolist() == [0, 0, 1, 2, 2, 2, 3, 4, 4] and idx.dtype == tf.int32
    r = tf.unique([1., 2, 1], out_idx=tf.int64)
    assert r.y.numpy().tolist() == [1., 2.] and r.idx.dtype == tf.int64
    assert tf.unique(["a", "b", "a"]).y.numpy().tolist() == [b"a", b"b"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="unique expects a 1D vector."):
        tf.unique([[1, 2]])
    assert traced_shapes(lambda x: tf.unique(x), tf.TensorSpec([5], tf.int32)) == [[None], [5]]


def test_tensor_scatter_nd():
    assert tf.tensor_scatter_nd_update([1, 2, 3], [[0], [2]], [7, 9]).numpy().tolist() == [7, 2, 9]
    assert tf.tensor_scatter_nd_add([1, 2, 3], [[1], [1]], [9, 1]).numpy().tolist() == [1, 12, 3]
    assert tf.tensor_scatter_nd_sub([[1, 5], [3, 3]], [[0]], [[1, 1]]).numpy().tolist() == [[0, 4], [3, 3]]
    assert tf.tensor_scatter_nd_max([1, 5, 3], [[0], [1]], [4, 2]).numpy().tolist() == [4, 5, 3]
    assert tf.tensor_scatter_nd_min([1, 5, 3], [[0], [1]], [4, 2]).numpy().tolist() == [1, 2, 3]
    assert tf.tensor_scatter_nd_update([[1, 2], [3, 4]], [[1, 0]], [9]).numpy().tolist() == [[1, 2], [9, 4]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = \[5\] does not index into shape \[3\]"):
        tf.tensor_scatter_nd_update([1, 2, 3], [[5]], [9])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Inner dimensions of output shape must match inner dimensions of updates shape"):
        tf.tensor_scatter_nd_update([[1, 2], [3, 4]], [[0]], [9])


@pytest.mark.parametrize("fn_name", ["tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
                                     "tensor_scatter_nd_min", "tensor_scatter_nd_max"])
def test_tensor_scatter_nd_gradients(fn_name):
    op = getattr(tf, fn_name)
    idx = tf.constant([[1], [0]])
    check_grad(lambda t, u: op(t, idx, u), X, np.array([[0.3, 5.0, -2.0], [-9.0, 0.1, 2.5]]))


def test_eye():
    r = tf.eye(2, 3, dtype=tf.int32)
    assert r.dtype == tf.int32 and r.numpy().tolist() == [[1, 0, 0], [0, 1, 0]]
    assert tf.eye(2).dtype == tf.float32
    b = tf.eye(2, batch_shape=[3])
    assert b.shape == (3, 2, 2) and b.numpy()[2].tolist() == [[1., 0.], [0., 1.]]
    assert tf.linalg.eye(1).numpy().tolist() == [[1.]]


def test_meshgrid():
    x, y = tf.meshgrid([1, 2], [3, 4, 5])
    assert x.numpy().tolist() == [[1, 2]] * 3
    assert y.numpy().tolist() == [[3, 3], [4, 4], [5, 5]]
    x, y = tf.meshgrid([1, 2], [3, 4, 5], indexing="ij")
    assert x.shape == (2, 3) and y.numpy().tolist() == [[3, 4, 5]] * 2
    with pytest.raises(ValueError, match="Argument `indexing` parameter must be either 'xy' or 'ij', got 'xx'"):
        tf.meshgrid([1, 2], indexing="xx")


def test_boolean_mask():
    assert tf.boolean_mask([1, 2, 3], [True, False, True]).numpy().tolist() == [1, 3]
    m = tf.reshape(tf.range(6), [2, 3])
    assert tf.boolean_mask(m, [[True, False, True], [False, True, False]]).numpy().tolist() == [0, 2, 4]
    assert tf.boolean_mask(m, [True, False, True], axis=1).numpy().tolist() == [[0, 2], [3, 5]]
    with pytest.raises(ValueError, match="mask cannot be scalar."):
        tf.boolean_mask([1, 2], True)
    with pytest.raises(ValueError, match="incompatible"):
        tf.boolean_mask([1, 2, 3], [True, False])
    check_grad(lambda x: tf.boolean_mask(x, [[True, False, True], [False, True, True]]), X)
    assert traced_shapes(lambda x: tf.boolean_mask(x, x > 0), tf.TensorSpec([None, 3], tf.float32)) == [[None]]


def test_sequence_mask():
    r = tf.sequence_mask([1, 3], 4)
    assert r.dtype == tf.bool and r.numpy().tolist() == [[True, False, False, False], [True, True, True, False]]
    f = tf.sequence_mask([[1, 2]], dtype=tf.float32)
    assert f.dtype == tf.float32 and f.numpy().tolist() == [[[1., 0.], [1., 1.]]]
    with pytest.raises(ValueError, match="Argument `maxlen` must be scalar for sequence_mask"):
        tf.sequence_mask([1, 2], [3])


def test_repeat():
    assert tf.repeat([1, 2], [2, 3]).numpy().tolist() == [1, 1, 2, 2, 2]
    assert tf.repeat([[1, 2]], 2, axis=1).numpy().tolist() == [[1, 1, 2, 2]]
    assert tf.repeat([[1, 2], [3, 4]], [1, 2], axis=0).numpy().tolist() == [[1, 2], [3, 4], [3, 4]]
    assert tf.repeat([[1, 2], [3, 4]], 2).numpy().tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert tf.repeat(3, 2).numpy().tolist() == [3, 3]
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.repeat([[1, 2], [3, 4]], [1, 2, 3], axis=0)
    check_grad(lambda x: tf.repeat(x, [2, 0, 1], axis=1), X)
    check_grad(lambda x: tf.repeat(x, 3, axis=0), X)


def test_in_function():
    @tf.function
    def f(x):
        return tf.reverse(tf.roll(x, 1, 0), [0]), tf.repeat(x, 2), tf.boolean_mask(x, x > 1)

    a, b, c = f(tf.constant([1, 2, 3]))
    assert a.numpy().tolist() == [2, 1, 3]
    assert b.numpy().tolist() == [1, 1, 2, 2, 3, 3]
    assert c.numpy().tolist() == [2, 3]
