"""tf.map_fn, tf.scan, tf.foldl, tf.foldr: eagerly and in functions (static and unknown lengths),
nested elements and results, output signatures, gradients, and TensorFlow's errors."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def np_of(r):
    return tf.nest.map_structure(lambda t: t.numpy(), r)


def test_map_fn_docstring_examples():
    r = tf.map_fn(lambda x: x * x, np.array([1, 2, 3, 4, 5, 6]))
    assert r.dtype == tf.int64 and r.numpy().tolist() == [1, 4, 9, 16, 25, 36]
    r = tf.map_fn(lambda x: x[0] * x[1], (np.array([1, 2, 3]), np.array([-1, 1, -1])), fn_output_signature=tf.int64)
    assert r.numpy().tolist() == [-1, 2, -3]
    a, b = tf.map_fn(lambda x: (x, -x), np.array([1, 2, 3]), fn_output_signature=(tf.int64, tf.int64))
    assert a.numpy().tolist() == [1, 2, 3] and b.numpy().tolist() == [-1, -2, -3]


def test_map_fn_structures_signatures_and_shapes():
    r = tf.map_fn(lambda x: tf.reduce_sum(x), tf.ones([3, 4]))
    assert r.shape == (3,) and r.numpy().tolist() == [4.0, 4.0, 4.0]
    r = tf.map_fn(lambda x: tf.cast(x, tf.float32) * 0.5, tf.constant([1, 2]),
                  fn_output_signature=tf.TensorSpec([], tf.float32))
    assert r.dtype == tf.float32 and r.numpy().tolist() == [0.5, 1.0]
    r = tf.map_fn(lambda x: {"a": x["a"] + 1, "b": x["b"] * 2},
                  {"a": tf.constant([1, 2]), "b": tf.constant([[1.0], [2.0]])})
    assert r["a"].numpy().tolist() == [2, 3] and r["b"].numpy().tolist() == [[2.0], [4.0]]
    assert tf.map_fn(lambda x: x, tf.zeros([0, 3])).shape == (0,)   # TF: an empty stack of unknown elements
    assert tf.map_fn(lambda x: x * 2, tf.Variable([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]


def test_map_fn_in_functions_of_known_and_unknown_length():
    f = tf.function(lambda e: tf.map_fn(lambda x: x * 2.0, e))
    assert f(tf.constant([[1.0, 2.0], [3.0, 4.0]])).numpy().tolist() == [[2.0, 4.0], [6.0, 8.0]]
    g = tf.function(lambda e: tf.map_fn(lambda x: tf.reduce_sum(x), e), input_signature=[tf.TensorSpec([None, 2])])
    assert g(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).numpy().tolist() == [3.0, 7.0, 11.0]
    assert g(tf.zeros([0, 2])).shape == (0,)


def test_map_fn_gradients_eagerly_and_in_a_function():
    v = tf.Variable([1.0, 2.0, 3.0])

    def grad():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.map_fn(lambda x: x * x * v[0], v))
        return tape.gradient(y, v)

    want = [2 * 1.0 * 1.0 + 14.0, 2 * 2.0 * 1.0, 2 * 3.0 * 1.0]   # d/dv of v0 * sum(v^2)
    np.testing.assert_allclose(grad().numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(tf.function(grad)().numpy(), want, rtol=1e-6)


def test_folds():
    assert tf.foldl(lambda a, x: a + x, tf.constant([1, 2, 3, 4, 5, 6])).numpy() == 21
    assert tf.foldl(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]), initializer=tf.constant(7)).numpy() == 7123
    assert tf.foldr(lambda a, x: a * 10 + x, tf.constant([1, 2, 3])).numpy() == 321
    assert tf.foldr(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]), initializer=tf.constant(7)).numpy() == 7321
    s, p = tf.foldl(lambda a, x: (a[0] + x[0], a[1] * x[1]), (tf.constant([1, 2, 3]), tf.constant([2.0, 3.0, 4.0])))
    assert s.numpy() == 6 and p.numpy() == 24.0
    assert tf.function(lambda e: tf.foldr(lambda a, x: a - x, e))(tf.constant([1.0, 2.0, 3.0])).numpy() == 0.0
    g = tf.function(lambda e: tf.foldl(lambda a, x: a + x, e, initializer=0.0), input_signature=[tf.TensorSpec([None])])
    assert g(tf.constant([1.0, 2.0, 3.0])).numpy() == 6.0


def test_scans():
    assert tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4, 5, 6])).numpy().tolist() == [1, 3, 6, 10, 15, 21]
    assert tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4, 5, 6]), reverse=True).numpy().tolist() == \
        [21, 20, 18, 15, 11, 6]
    fib = tf.scan(lambda a, x: (a[1], a[0] + a[1]), tf.constant([1, 2, 3, 4, 5, 6]),
                  initializer=(tf.constant(0), tf.constant(1)))
    assert fib[0].numpy().tolist() == [1, 1, 2, 3, 5, 8] and fib[1].numpy().tolist() == [1, 2, 3, 5, 8, 13]
    r = tf.scan(lambda a, x: a * 2 + x, tf.constant([[1.0, 2.0], [3.0, 4.0]]), initializer=tf.zeros([2]))
    assert r.numpy().tolist() == [[1.0, 2.0], [5.0, 8.0]]
    f = tf.function(lambda e: tf.scan(lambda a, x: a + x, e, reverse=True))
    assert f(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [6.0, 5.0, 3.0]
    g = tf.function(lambda e: tf.scan(lambda a, x: a * x, e), input_signature=[tf.TensorSpec([None])])
    assert g(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [1.0, 2.0, 6.0]
    a, b = tf.scan(lambda a, x: (a[0] + x[0], a[1] + x[1]), (tf.constant([1, 2]), tf.constant([3.0, 4.0])))
    assert a.numpy().tolist() == [1, 3] and b.numpy().tolist() == [3.0, 7.0]


def test_errors():
    with pytest.raises(ValueError, match="Elements in elems must be 1\\+ dimensional Tensors, not scalars"):
        tf.map_fn(lambda x: x, tf.constant(3.0))
    with pytest.raises(ValueError, match="which does not contain any Tensors"):
        tf.map_fn(lambda x: x, [])
    with pytest.raises(ValueError, match="Dimensions 3 and 4 are not compatible"):
        tf.map_fn(lambda x: x[0], (tf.ones([3]), tf.ones([4])))
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure"):
        tf.map_fn(lambda x: (x, x), tf.constant([1, 2]))
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure"):
        tf.map_fn(lambda x: (x, x), tf.constant([1, 2]), fn_output_signature=tf.int32)
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure"):
        tf.scan(lambda a, x: (a, a), tf.constant([1, 2]))
    with pytest.raises(IndexError):
        tf.scan(lambda a, x: a + x, tf.constant(1))
    with pytest.raises(IndexError):
        tf.foldl(lambda a, x: a + x, tf.constant(1))
    with pytest.raises(AttributeError):   # TF's message reads fn.__name__ of a non-callable
        tf.map_fn(3, tf.constant([1]))


def test_map_fn_over_and_into_ragged_tensors():
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    assert tf.map_fn(tf.reduce_sum, rt, fn_output_signature=tf.int32).numpy().tolist() == [3, 3, 15]
    r = tf.map_fn(lambda x: x * 2, rt)
    assert isinstance(r, tf.RaggedTensor) and r.to_list() == [[2, 4], [6], [8, 10, 12]]
    r = tf.map_fn(lambda x: tf.range(x), tf.constant([1, 2]), fn_output_signature=tf.RaggedTensorSpec([None], tf.int32))
    assert r.to_list() == [[0], [0, 1]]
    rt2 = tf.ragged.constant([[[1], [2, 3]], [[4]]])
    assert tf.map_fn(lambda x: x + 1, rt2).to_list() == [[[2], [3, 4]], [[5]]]
    assert tf.map_fn(lambda x: tf.reduce_sum(x), rt2, fn_output_signature=tf.int32).numpy().tolist() == [6, 4]
    f = tf.function(lambda: tf.map_fn(lambda x: tf.reduce_max(x), rt, fn_output_signature=tf.int32))
    assert f().numpy().tolist() == [2, 3, 6]
    r = tf.map_fn(lambda x: x[0] * x[1], (rt, tf.constant([1, 2, 3])),
                  fn_output_signature=tf.RaggedTensorSpec([None], tf.int32))
    assert r.to_list() == [[1, 2], [6], [12, 15, 18]]
    with pytest.raises(ValueError, match="don't have the same nested structure"):   # no signature: a pair
        tf.map_fn(lambda x: x[0] * x[1], (rt, tf.constant([1, 2, 3])))
    assert tf.map_fn(lambda x: x * 2, tf.ragged.constant([[1]])[:0]).to_list() == []


@pytest.mark.parametrize("values,axis,want", [
    ([[0], [0, 1]], 0, [[0], [0, 1]]),            # vectors of different lengths: ragged rows
    ([[1, 2], [3, 4]], 0, [[1, 2], [3, 4]]),
    ([[[1], [2]], [[3]]], 0, [[[1], [2]], [[3]]]),
    ([[1, 2], [3, 4]], 1, [[1, 3], [2, 4]]),      # dense inputs on the last axis: a dense tf.stack
    ([[1, 2], [3, 4]], -1, [[1, 3], [2, 4]]),
])
def test_ragged_stack_of_dense_tensors(values, axis, want):
    r = tf.ragged.stack([tf.constant(v) for v in values], axis=axis)
    assert isinstance(r, tf.RaggedTensor) == (axis == 0)
    assert (r.to_list() if axis == 0 else r.numpy().tolist()) == want
