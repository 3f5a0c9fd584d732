"""tf.debugging.assert_*, tf.Assert and check_numerics: TensorFlow's exceptions and messages,
eagerly and inside Functions."""
import numpy as np
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle
P = "tf" if IS_TF else "fn"
WRAPPED = "{{function_node __wrapped__%s_device_/job:localhost/replica:0/task:0/device:CPU:0}} "


def _message(f):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        f()
    return str(e.value)


def test_assert_equal_message():
    assert _message(lambda: tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]))) == (
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[1]]\n"
        "Corresponding x values:\n[2]\nCorresponding y values:\n[3]\nFirst 2 elements of x:\n[1 2]\n"
        "First 2 elements of y:\n[1 3]")
    assert _message(lambda: tf.debugging.assert_equal(
        tf.constant([[1, 2], [3, 4]]), tf.constant([[1, 2], [3, 5]]), summarize=1)) == (
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[1 1]]\n"
        "Corresponding x values:\n[4]\nCorresponding y values:\n[5]\nFirst 1 elements of x:\n[1]\n"
        "First 1 elements of y:\n[1]")
    assert _message(lambda: tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]), message="m")) \
        .startswith("m\nCondition x == y did not hold.")
    assert tf.debugging.assert_equal(1, 1) is None


def test_comparison_asserts():
    assert _message(lambda: tf.debugging.assert_less(tf.constant([1, 5]), 3)) == \
        "Condition x < y did not hold.\nFirst 2 elements of x:\n[1 5]\nFirst 1 elements of y:\n[3]"
    assert _message(lambda: tf.debugging.assert_greater(tf.constant([1.0, 2.0]), 1.5)) == \
        "Condition x > y did not hold.\nFirst 2 elements of x:\n[1. 2.]\nFirst 1 elements of y:\n[1.5]"
    assert _message(lambda: tf.debugging.assert_none_equal(tf.constant([1, 5]), 5)) == \
        "Condition x != y did not hold.\nFirst 2 elements of x:\n[1 5]\nFirst 1 elements of y:\n[5]"
    tf.debugging.assert_less(tf.constant([1, 5]), 30)
    tf.debugging.assert_less_equal(tf.constant([1, 5]), 5)
    tf.debugging.assert_greater_equal(tf.constant([1, 5]), 1)
    assert _message(lambda: tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 2, 3]))) == \
        WRAPPED % "Equal" + "Incompatible shapes: [2] vs. [3] [Op:Equal] name: "


def test_sign_asserts():
    assert _message(lambda: tf.debugging.assert_positive(tf.constant([1, -5]))) == \
        "\nCondition x > 0 did not hold element-wise:\nx (shape=(2,) dtype=int32) = \n['1', '-5']"
    assert _message(lambda: tf.debugging.assert_non_negative(tf.constant([1.0, -5.0]))) == \
        "\nCondition x >= 0 did not hold element-wise:\nx (shape=(2,) dtype=float32) = \n['1.0', '-5.0']"
    tf.debugging.assert_negative(tf.constant([-1]))
    tf.debugging.assert_non_positive(tf.constant([0, -1]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.debugging.assert_negative(tf.constant([0]))


def test_static_asserts():
    with pytest.raises(ValueError, match=r"Tensor  must have rank 2.  Received rank 1, shape \(2,\)"):
        tf.debugging.assert_rank(tf.constant([1, 2]), 2)
    with pytest.raises(ValueError, match=r"Tensor  must have rank at least 1.  Received rank 0, shape \(\)"):
        tf.debugging.assert_rank_at_least(tf.constant(1), 1)
    with pytest.raises(ValueError, match=r"Expected scalar shape, saw shape: \(1,\)."):
        tf.debugging.assert_scalar(tf.constant([1]))
    with pytest.raises(TypeError, match="tensor must be of type tf.float32; got tf.int32"):
        tf.debugging.assert_type(tf.constant(1), tf.float32)
    assert tf.debugging.is_numeric_tensor(tf.constant(1.0))
    assert not tf.debugging.is_numeric_tensor(tf.constant("a"))


def test_assert_op():
    assert _message(lambda: tf.debugging.Assert(False, [tf.constant([1.0, 2.0]), "x"])) == \
        "Expected 'False' to be true. Summarized data: 1.0, 2.0\nb'x'"
    assert _message(lambda: tf.Assert(tf.constant(False), ["bad", tf.constant(3)])) == \
        f"Expected '{P}.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b'bad'\n3"
    assert tf.Assert(True, ["x"]) is None


def test_check_numerics():
    assert _message(lambda: tf.debugging.check_numerics(tf.constant([1.0, np.nan]), "bad")) == \
        WRAPPED % "CheckNumerics" + "bad : Tensor had NaN values [Op:CheckNumerics] name: "
    assert _message(lambda: tf.debugging.assert_all_finite(tf.constant([1.0, np.inf]), "bad")) == \
        WRAPPED % "CheckNumerics" + "bad : Tensor had Inf values [Op:CheckNumerics] name: "
    assert tf.debugging.check_numerics(tf.constant([1.0]), "ok").numpy().tolist() == [1.0]


def test_asserts_inside_function():
    @tf.function
    def f(x):
        tf.debugging.assert_positive(x, message="pos")
        return x + 1

    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant([1.0, -2.0]))

    @tf.function
    def g(x):
        tf.Assert(tf.reduce_all(x > 0), ["x was", x])
        return x + 1

    assert "assertion failed: [x was] [1 -2]" in _message(lambda: g(tf.constant([1.0, -2.0])))
