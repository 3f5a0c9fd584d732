"""x[t] with a tensor index inside tf.function (a loop body's xs[t]): StridedSlice's fast view path
(one shrunk index, stride 1) and its fallbacks (empty inputs, out-of-range indices)."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

X = np.arange(4 * 3 * 2, dtype=np.float32).reshape(4, 3, 2)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("i", [0, 2, 3, -1, -4])
def test_tensor_index_in_function(dtype, i):
    f = tf.function(lambda x, t: x[t])
    y = f(tf.constant(X), tf.constant(i, dtype))
    assert y.shape == (3, 2)
    np.testing.assert_array_equal(y.numpy(), X[i])


def test_index_in_loop_and_of_vector_and_empty_rows():
    @tf.function
    def total(xs):
        s = tf.zeros([3, 2])
        for t in tf.range(4):
            s = s + xs[t]
        return s
    np.testing.assert_array_equal(total(tf.constant(X)).numpy(), X.sum(0))
    f = tf.function(lambda x, t: x[t])
    assert f(tf.constant([5, 6, 7]), tf.constant(1)).numpy() == 6
    empty = f(tf.zeros([2, 0]), tf.constant(1))
    assert empty.shape == (0,)


@pytest.mark.parametrize("i,shown", [(4, 4), (-5, -1), (-9, -5)])
def test_index_out_of_range_raises(i, shown):
    f = tf.function(lambda x, t: x[t])
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"slice index {shown} of dimension 0 out of bounds"):
        f(tf.constant(X), tf.constant(i))


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float64", "complex64", "string", "uint8"])
def test_stack_of_scalars(dtype):
    """x[t]'s begin/end are stacks of scalars: Pack's scalar path, every dtype, axis 0 and -1."""
    vals = {"bool": [True, False, True], "string": [b"a", b"", b"ccc"]}.get(dtype, [1, 0, 7])
    xs = [tf.constant(v, dtype) for v in vals]
    for axis in (0, -1):
        eager = tf.stack(xs, axis=axis)
        traced = tf.function(lambda a, b, c: tf.stack([a, b, c], axis=axis))(*xs)
        for y in (eager, traced):
            assert y.dtype == tf.as_dtype(dtype) and y.shape == (3,)
            assert y.numpy().tolist() == np.array(vals, dtype=object if dtype == "string" else dtype).tolist()
    with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
        tf.stack(xs, axis=1)
