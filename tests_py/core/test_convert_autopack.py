"""A list holding tensors converts as TF's autopacking does, eagerly as inside a Function: the
first tensor's dtype wins over what the Python numbers would give ([int64 tensor, 2] is int64,
[float64 tensor, 2] float64), other tensors of another dtype are Pack's InvalidArgumentError, and
a requested dtype other than the tensors' converts the values."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


@pytest.mark.parametrize("make, dtype, values", [
    (lambda: [tf.constant(0, tf.int64)], "int64", [0]),
    (lambda: [tf.constant(0, tf.int64), 2], "int64", [0, 2]),
    (lambda: [2, tf.constant(1.5, tf.float64)], "float64", [2.0, 1.5]),
    (lambda: [[tf.constant(1.0, tf.float16)], [3.0]], "float16", [[1.0], [3.0]]),
    (lambda: [tf.constant([1, 2], tf.int64), np.array([3, 4])], "int64", [[1, 2], [3, 4]]),
    (lambda: [[1, 2], [tf.constant(3, tf.int64), 4]], "int64", [[1, 2], [3, 4]]),
    (lambda: (tf.constant(True), False), "bool", [True, False]),
    (lambda: [tf.constant("a"), "b"], "string", [b"a", b"b"]),
])
def test_the_first_tensor_gives_the_dtype(make, dtype, values):
    t = tf.convert_to_tensor(make())
    assert t.dtype.name == dtype and t.numpy().tolist() == values
    # inside a Function the same list (its tensors now graph values) packs the same way
    g = tf.function(lambda: tf.convert_to_tensor(make()))()
    assert g.dtype.name == dtype and g.numpy().tolist() == values


def test_a_requested_dtype_converts_the_values():
    t = tf.convert_to_tensor([tf.constant(1, tf.int64)], dtype=tf.int32)
    assert t.dtype == tf.int32 and t.numpy().tolist() == [1]
    t = tf.convert_to_tensor([tf.constant(1.0, tf.float64), np.float32(2)], dtype=tf.float64)
    assert t.dtype == tf.float64 and t.numpy().tolist() == [1.0, 2.0]


def test_tensors_of_different_dtypes_are_packs_error():
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a int32 tensor but is a int64 tensor"):
        tf.convert_to_tensor([tf.constant(1, tf.int32), tf.constant(2, tf.int64)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float tensor but is a double tensor"):
        tf.convert_to_tensor([tf.constant(1.0), tf.constant(2.0, tf.float64)])
    with pytest.raises(TypeError, match="Cannot convert 2.5 to EagerTensor of dtype int64"):
        tf.convert_to_tensor([tf.constant(1, tf.int64), 2.5])


def test_scan_with_a_list_state_of_int64_tensors():
    # Dataset.scan's initial state as a list of tensors kept int64 (it became int32 before)
    ds = tf.data.Dataset.range(4).scan([tf.constant(0, tf.int64)], lambda s, x: ([s[0] + x], s[0] + x))
    assert list(ds.as_numpy_iterator()) == [0, 1, 3, 6]
