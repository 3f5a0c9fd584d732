"""Node names as TF gives them (implicit constants `mul/y`, tf.name_scope) and tf.gradients
inside a Function. Expectations checked under TensorFlow 2.21."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _names(f, *args):
    return [n.name for n in f.get_concrete_function(*args).graph.as_graph_def().node]


def test_implicit_constants_are_named_in_their_op_scope():
    @tf.function
    def f(x):
        return x * 2, 2 * x, x / 2.0, x < 2.0, x + 1, 1 - x, x * 3
    names = _names(f, tf.constant(1.0))
    assert names[:15] == ["x", "mul/y", "mul", "mul_1/x", "mul_1", "truediv/y", "truediv", "Less/y", "Less",
                          "add/y", "add", "sub/x", "sub", "mul_2/y", "mul_2"]


def test_name_scope_prefixes_and_uniquifies():
    @tf.function
    def f(x):
        with tf.name_scope("layer") as s:
            y = x * 2
            with tf.name_scope("inner"):
                z = y + 1
        with tf.name_scope("layer") as s2:
            w = z * 3
        return w, s, s2
    names = _names(f, tf.constant(1.0))
    assert names[:7] == ["x", "layer/mul/y", "layer/mul", "layer/inner/add/y", "layer/inner/add",
                         "layer_1/mul/y", "layer_1/mul"]
    _, s, s2 = f(tf.constant(1.0))
    assert s.numpy() == b"layer/" and s2.numpy() == b"layer_1/"
    with tf.name_scope("eager") as s:
        assert s == "eager/"


def test_tf_gradients_inside_a_function():
    @tf.function
    def f(x, y):
        z = x * x * y + tf.sin(x)
        gx, gy = tf.gradients(z, [x, y])
        summed = tf.gradients([z, x * 3.0], x)
        seeded = tf.gradients(z, x, grad_ys=tf.constant(2.0))
        zero = tf.gradients(y * 2.0, [x], unconnected_gradients="zero")
        none = tf.gradients(y * 2.0, [x])
        return gx, gy, summed[0], seeded[0], zero[0], none[0] is None
    gx, gy, summed, seeded, zero, none = f(tf.constant(1.0), tf.constant(2.0))
    assert gx.numpy() == pytest.approx(4.540302)
    assert gy.numpy() == 1.0
    assert summed.numpy() == pytest.approx(7.540302)
    assert seeded.numpy() == pytest.approx(9.080605)
    assert zero.numpy() == 0.0 and bool(none.numpy())


def test_tf_gradients_eagerly_is_an_error():
    with pytest.raises(RuntimeError, match="tf.gradients is not supported when eager execution is enabled"):
        tf.gradients(tf.constant(1.0), tf.constant(1.0))
