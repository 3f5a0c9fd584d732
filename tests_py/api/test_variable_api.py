"""Variables as TF 2 has them: == and != elementwise, assign* returning the variable (printed as
``UnreadVariable``), the ResourceVariable class, TF's messages."""
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle
P = "tf" if IS_TF else "fn"


def test_equality_is_elementwise():
    a = tf.Variable([1.0, 2.0])
    b = tf.Variable([1.0, 3.0])
    assert (a == b).numpy().tolist() == [True, False]
    assert (a != b).numpy().tolist() == [False, True]
    assert (a == a).numpy().tolist() == [True, True]
    assert (a != a).numpy().tolist() == [False, False]
    assert (a == [1.0, 5.0]).numpy().tolist() == [True, False]
    assert [a] == [a]           # list equality checks identity first
    m1 = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="Mark")
    m2 = tf.Variable([[1.0, 2.0], [3.0, 4.0]] * 1, name="Mark")
    assert m1.name == m2.name == "Mark:0"
    assert (m1 == m2).numpy().all()


def test_assign_returns_the_unread_variable():
    v = tf.Variable([0.0, 0.0, 0.0])
    r = v.assign([1, 2, 3])
    assert repr(r) == (f"<{P}.Variable 'UnreadVariable' shape=(3,) dtype=float32, "
                       "numpy=array([1., 2., 3.], dtype=float32)>")
    assert r.name == "UnreadVariable" and r.shape == (3,) and r.dtype == tf.float32
    assert repr(v.assign_add([1, 1, 1])).endswith("numpy=array([2., 3., 4.], dtype=float32)>")
    s = v.assign_sub([1, 1, 1])
    assert s.numpy().tolist() == [1.0, 2.0, 3.0]
    assert (s + 1).numpy().tolist() == [2.0, 3.0, 4.0]
    assert float(tf.reduce_sum(s)) == 6.0
    s.assign_add([1.0, 1.0, 1.0])          # the same variable
    assert v.numpy().tolist() == [2.0, 3.0, 4.0]
    assert v.assign([0.0, 0.0, 0.0], read_value=False) is None


def test_assign_inside_function_returns_tensor():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f():
        r = v.assign_add([1.0, 1.0])
        return r
    assert repr(f()) == f"<{P}.Tensor: shape=(2,), dtype=float32, numpy=array([2., 3.], dtype=float32)>"


def test_class_name_is_resource_variable():
    v = tf.Variable(2.0)
    assert type(v).__name__ == "ResourceVariable"
    assert isinstance(v, tf.Variable)


def test_messages():
    a = tf.Variable([2.0, 3.0])
    with pytest.raises(ValueError) as e:
        a.assign([1.0, 2.0, 3.0])
    assert str(e.value) == ("Cannot assign value to variable ' Variable:0': Shape mismatch.The variable "
                            "shape (2,), and the assigned value shape (3,) are incompatible.")
    with pytest.raises(TypeError) as e:
        hash(a)
    assert str(e.value) == ("Variable is unhashable. Instead, use variable.ref() as the key. (Variable: "
                            f"<{P}.Variable 'Variable:0' shape=(2,) dtype=float32, "
                            "numpy=array([2., 3.], dtype=float32)>)")


def test_unconnected_zero_for_a_variable_source():
    x = tf.Variable([2.0, 2.0])
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y ** 2
    g = tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert g.numpy().tolist() == [0.0, 0.0]


def test_assign_conversion_messages():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32 for Tensor with dtype int32"):
        v.assign(tf.constant([1, 2]))
    with pytest.raises(TypeError) as e:
        v.assign("a")
    assert str(e.value) == "Cannot convert 'a' to EagerTensor of dtype float"
    with pytest.raises(TypeError) as e:
        tf.Variable([1, 2]).assign([1.5, 2.0])
    assert str(e.value) == "Cannot convert [1.5, 2.0] to EagerTensor of dtype int32"
    assert v.assign([3, 4]).numpy().tolist() == [3.0, 4.0]     # Python ints convert


def test_assign_add_does_not_broadcast():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Cannot update variable with shape \[2\] using a Tensor with shape \[1\], "
                             r"shapes must be equal."):
        v.assign_add([1.0])
    assert v.numpy().tolist() == [1.0, 2.0]


def test_other_variable_messages():
    with pytest.raises(ValueError) as e:
        tf.Variable(None)
    assert str(e.value) == ("The `initial_value` arg to `tf.Variable` must be specified except when you "
                            "are not providing a `variable_def`. You provided neither.")
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError) as e:
        tf.convert_to_tensor(v, dtype=tf.int32)
    assert str(e.value) == (f"Incompatible type conversion requested to type int32 for `{P}.Variable of "
                            f"type float32. (Variable: <{P}.Variable 'Variable:0' shape=(2,) dtype=float32, "
                            "numpy=array([1., 2.], dtype=float32)>)")
    with pytest.raises(TypeError, match="object of type 'ResourceVariable' has no len()"):
        len(tf.Variable(1.0))
    with pytest.raises(TypeError, match="object of type 'ResourceVariable' has no len()"):
        len(v)
