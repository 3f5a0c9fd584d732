"""Python operators on fn.Tensor: TensorFlow's conversion rules, reflected forms, elementwise
== / !=, the bool/bitwise operators, and the error classes and messages."""
import numpy as np
import pytest

import fn


def test_arithmetic_operators_and_reflected():
    x, i = fn.constant([1.0, 2.0]), fn.constant(7)
    assert (x + 1).numpy().tolist() == [2, 3] and (1 + x).numpy().tolist() == [2, 3]
    assert (x - 1).numpy().tolist() == [0, 1] and (1 - x).numpy().tolist() == [0, -1]
    assert (x * 2).numpy().tolist() == [2, 4] and (2 * x).numpy().tolist() == [2, 4]
    assert (x / 2).numpy().tolist() == [0.5, 1] and (2 / x).numpy().tolist() == [2, 1]
    assert (i // 2).numpy() == 3 and (7 // fn.constant(2)).numpy() == 3
    assert (i % -2).numpy() == -1 and (7 % fn.constant(-2)).numpy() == -1
    assert (x ** 2).numpy().tolist() == [1, 4] and (2 ** x).numpy().tolist() == [2, 4]
    assert (-x).numpy().tolist() == [-1, -2] and abs(-x).numpy().tolist() == [1, 2]
    assert (1 / fn.constant(4)).dtype == fn.float64
    m = fn.constant([[1, 2], [3, 4]])
    assert (m @ m).numpy().tolist() == [[7, 10], [15, 22]]
    assert ([[1, 0], [0, 1]] @ m).numpy().tolist() == [[1, 2], [3, 4]]


def test_python_values_convert_to_the_tensor_dtype():
    x, i = fn.constant(1.0), fn.constant(1)
    assert (x + 1).dtype == fn.float32 and (x * True).numpy() == 1.0 and (i * True).numpy() == 1
    assert ([1, 2] + fn.constant([1, 2])).numpy().tolist() == [2, 4]
    assert (fn.constant([1.0, 2.0]) - [1, 2]).numpy().tolist() == [0, 0]
    assert (np.float64(1.5) + x).dtype == fn.float32
    assert (x * np.array([1.5])).dtype == fn.float32
    assert (i * np.array([1.5])).numpy().tolist() == [1]        # arrays are cast, like TF
    assert (x ** np.float32(2)).numpy() == 1.0
    # + only hints the dtype, so the op reports the mismatch; the others refuse to convert
    with pytest.raises(fn.errors.InvalidArgumentError,
                       match=r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor \[Op:AddV2\]"):
        i + 1.5
    for op in (lambda: i * 1.5, lambda: 1.5 * i, lambda: i - 1.5, lambda: i ** 1.5, lambda: i < 1.5,
               lambda: fn.multiply(i, 1.5), lambda: fn.maximum(i, 1.5), lambda: fn.equal(i, 1.5)):
        with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
            op()
    with pytest.raises(fn.errors.InvalidArgumentError,
                       match=r"cannot compute Mul as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor \[Op:Mul\]"):
        i * x
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"\[Op:Less\]"):
        i < x
    with pytest.raises(TypeError, match="Cannot convert 2 to EagerTensor of dtype string"):
        fn.constant("a") * 2
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"(?s)Value for attr 'T' of string.*\[Op:Sub\]"):
        fn.constant("a") - fn.constant("b")
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs. \[4\] \[Op:Mul\]"):
        fn.ones([2, 3]) * fn.ones([4])


def test_comparison_operators():
    x = fn.constant([1, 2, 3])
    assert (x < 2).numpy().tolist() == [True, False, False]
    assert (2 > x).numpy().tolist() == [True, False, False]
    assert (x <= 2).numpy().tolist() == [True, True, False]
    assert (x >= 2).numpy().tolist() == [False, True, True]
    assert (x == 2).numpy().tolist() == [False, True, False]
    assert (x != 2).numpy().tolist() == [True, False, True]
    assert (x == [1, 0, 3]).numpy().tolist() == [True, False, True]
    assert (fn.constant([[1, 2]]) == fn.constant([[1], [2]])).numpy().tolist() == [[True, False], [False, True]]
    assert (fn.constant("a") == "a").numpy()


def test_equality_with_none_unconvertible_and_incompatible_shapes():
    x = fn.constant([1, 2])
    assert (x == None) is False and (x != None) is True   # noqa: E711
    r = x == fn.constant([1, 2, 3])
    assert r.shape == fn.TensorShape([]) and not r.numpy()
    assert (x != fn.constant([1, 2, 3])).numpy()
    with pytest.raises(ValueError, match=r"Attempt to convert a value \(<object object"):
        x == object()
    with pytest.raises(TypeError, match="Cannot convert 'a' to EagerTensor of dtype int32"):
        x == "a"
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        x == 1.5
    with pytest.raises(TypeError, match="unhashable"):
        {x: 1}


def test_bool_and_bitwise_operators():
    b, c = fn.constant([True, False]), fn.constant([True, True])
    assert (b & c).numpy().tolist() == [True, False]
    assert (b | c).numpy().tolist() == [True, True]
    assert (b ^ c).numpy().tolist() == [False, True]
    assert (~b).numpy().tolist() == [False, True]
    assert (True & b).numpy().tolist() == [True, False]
    assert (b | False).numpy().tolist() == [True, False]
    assert (fn.constant(6) & fn.constant(3)).numpy() == 2 and (~fn.constant(3)).numpy() == -4
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype bool"):
        fn.constant(True) & 1


class Reflector:
    """An object TF cannot convert but which knows how to combine with tensors."""

    def __radd__(self, other):
        return "radd"

    def __rmul__(self, other):
        return NotImplemented


def test_unconvertible_operand_gets_its_reflected_method():
    assert fn.constant(1.0) + Reflector() == "radd"
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        fn.constant(1.0) * Reflector()
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        fn.constant(1.0) - Reflector()
