"""tf.Tensor.set_shape (eager: a compatibility check; in a function: the static shape refined,
TF's errors), TensorShape + tuple/list, and tf.bitwise.left_shift/right_shift (clamped shifts,
uint8)."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_eager_set_shape_checks_only():
    t = tf.constant([[1.0, 2.0, 3.0]])
    t.set_shape([1, None])
    t.set_shape(tf.TensorShape(None))
    assert t.shape == (1, 3)
    with pytest.raises(ValueError, match=r"Tensor's shape \(1, 3\) is not compatible with supplied shape \(1, 4\)"):
        t.set_shape([1, 4])


def test_graph_set_shape_refines_and_checks():
    seen = {}

    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def f(x):
        with pytest.raises(ValueError, match=r"Dimension 1 in both shapes must be equal, but are 3 and 4. "
                                             r"Shapes are \[\?,3\] and \[2,4\]"):
            x.set_shape([2, 4])
        with pytest.raises(ValueError, match="Shapes must be equal rank, but are 2 and 3"):
            x.set_shape([2, 4, 5])
        x.set_shape([5, None])
        seen["x"] = x.shape
        y = x * 2.0
        seen["y"] = y.shape
        return y

    out = f(tf.zeros([5, 3]))
    assert seen == {"x": (5, 3), "y": (5, 3)}
    assert out.shape == (5, 3)


def test_set_shape_on_unknown_rank_in_graph():
    seen = {}

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def f(x):
        x.set_shape([None, 2])
        seen["rank"] = x.shape.rank
        return tf.reduce_sum(x, axis=1)

    assert f(tf.ones([3, 2])).numpy().tolist() == [2.0, 2.0, 2.0]
    assert seen["rank"] == 2


def test_tensor_shape_plus_tuple():
    assert tf.TensorShape([1, 2]) + (3,) == tf.TensorShape([1, 2, 3])
    assert (3,) + tf.TensorShape([1]) == tf.TensorShape([3, 1])
    assert ([None] + tf.TensorShape([1])).as_list() == [None, 1]
    assert (tf.TensorShape(None) + (1,)).rank is None
    assert (tf.TensorShape([1]) + tf.TensorShape(None)).rank is None


def test_shifts_clamp_like_tf():
    ls = tf.bitwise.left_shift(tf.constant([1, 1, 1, -1, 64], tf.int8), tf.constant([9, -1, 7, 3, 1], tf.int8))
    assert ls.numpy().tolist() == [-128, 1, -128, -8, -128]
    rs = tf.bitwise.right_shift(tf.constant([-128, -128, 100, 7], tf.int8), tf.constant([10, -1, 2, 1], tf.int8))
    assert rs.numpy().tolist() == [-1, -128, 25, 3]
    u = tf.bitwise.right_shift(tf.constant([200, 255], tf.uint8), tf.constant([3, 9], tf.uint8))
    assert u.dtype == tf.uint8 and u.numpy().tolist() == [25, 1]
    assert tf.bitwise.left_shift(tf.constant([200, 255], tf.uint8), tf.constant([1, 9], tf.uint8)).numpy().tolist() \
        == [144, 128]
    big = tf.bitwise.left_shift(tf.constant([3], tf.int64), tf.constant([40], tf.int64))
    assert big.numpy().tolist() == [3 << 40]


def test_shift_in_a_function_and_bad_dtype():
    f = tf.function(lambda x, y: tf.bitwise.right_shift(x, y))
    assert f(tf.constant([17, -17], tf.int32), tf.constant([2, 2], tf.int32)).numpy().tolist() == [4, -5]
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
        tf.bitwise.left_shift(tf.constant([1.0]), tf.constant([1.0]))
