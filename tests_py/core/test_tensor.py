"""Eager tensors: dtypes, shapes, constant's inference, printing, NumPy interop, errors."""
import numpy as np
import pytest

import fn


def test_dtypes():
    assert fn.int32.name == "int32"
    assert fn.float32.is_floating and not fn.int32.is_floating
    assert fn.float16.as_numpy_dtype is np.float16
    assert fn.as_dtype("float32") is fn.float32
    assert fn.as_dtype(np.int64) is fn.int64
    assert fn.float32 == np.float32 and fn.float32 != fn.float64
    assert len({fn.int32, fn.as_dtype("int32"), fn.float32}) == 2
    assert repr(fn.string) == "fn.string"


def test_tensor_shape():
    s = fn.TensorShape([None, 3])
    assert str(s) == "(None, 3)" and s.rank == 2 and s.as_list() == [None, 3]
    assert not s.is_fully_defined() and fn.TensorShape([2, 3]).is_fully_defined()
    assert fn.TensorShape([2, 3]).is_compatible_with(s)
    assert not fn.TensorShape([2, 4]).is_compatible_with(s)
    assert str(fn.TensorShape(None)) == "<unknown>" and fn.TensorShape(None).rank is None
    assert str(fn.TensorShape([4])) == "(4,)" and str(fn.TensorShape([])) == "()"
    assert s[1] == 3 and s[0] is None and s[1:] == fn.TensorShape([3])
    with pytest.raises(ValueError):
        fn.TensorShape(None).as_list()


@pytest.mark.parametrize("value,dtype", [
    (1, fn.int32), (2 ** 31, fn.int64), (1.5, fn.float32), (True, fn.bool), ("a", fn.string),
    (b"a", fn.string), ([1, 2], fn.int32), ([1, 2.5], fn.float32), ([[True]], fn.bool),
    (np.float64(2.5), fn.float64), (np.arange(3, dtype=np.int16), fn.int16), ([], fn.float32),
])
def test_constant_inference(value, dtype):
    assert fn.constant(value).dtype == dtype


def test_constant_conversion_errors():
    with pytest.raises(ValueError, match="non-rectangular"):
        fn.constant([[1, 2], [3]])
    with pytest.raises(ValueError, match="out-of-range"):
        fn.constant(2 ** 70)
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        fn.constant(1.5, dtype=fn.int32)
    with pytest.raises(TypeError, match="unsupported shape"):
        fn.constant([1, 2], shape=[2, 2])
    with pytest.raises(ValueError):
        fn.constant(None)
    with pytest.raises(ValueError):
        fn.constant(object())
    assert fn.constant(-1, dtype=fn.uint8).numpy() == 255
    assert fn.constant(3, shape=[2, 2]).numpy().tolist() == [[3, 3], [3, 3]]


def test_printing_matches_tensorflow_layout():
    assert str(fn.constant([[1, 2], [3, 4]])) == "fn.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    assert str(fn.constant(2)) == "fn.Tensor(2, shape=(), dtype=int32)"
    assert str(fn.constant("a") + "a") == "fn.Tensor(b'aa', shape=(), dtype=string)"
    assert repr(fn.ones([2, 2]) + fn.ones([2, 2])) == (
        "<fn.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[2., 2.],\n       [2., 2.]], dtype=float32)>")
    assert repr(fn.constant(1.5)) == "<fn.Tensor: shape=(), dtype=float32, numpy=1.5>"
    assert repr(fn.constant([1.0, 2.0])) == "<fn.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert str(fn.constant(1.1)) == "fn.Tensor(1.1, shape=(), dtype=float32)"
    assert "..." in repr(fn.constant(np.arange(2000.0)))


def test_numpy_interop_zero_copy():
    t = fn.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    a = t.numpy()
    assert a.dtype == np.float32 and a.shape == (2, 3)
    assert np.shares_memory(a, t.numpy())          # numpy() views the tensor's buffer
    assert np.asarray(t).tolist() == a.tolist()
    m = memoryview(t)
    assert m.shape == (2, 3) and m.format == "f" and m.readonly
    src = np.arange(4, dtype=np.int64)
    v = fn._core.from_numpy_view(src)
    assert np.shares_memory(v.numpy(), src)       # and tensors can view NumPy arrays
    assert isinstance(fn.constant(1.0).numpy(), np.float32)
    assert fn.constant("x").numpy() == b"x"
    assert fn.constant(["a", "b"]).numpy().tolist() == [b"a", b"b"]
    assert fn.constant(1, dtype=fn.bfloat16).numpy() == 1.0


def test_python_protocols():
    t = fn.constant([1, 2, 3])
    assert len(t) == 3
    assert int(fn.constant(7)) == 7 and float(fn.constant(2.5)) == 2.5 and bool(fn.constant(True))
    assert [1, 2, 3][fn.constant(1)] == 2
    with pytest.raises(TypeError, match="unhashable"):
        hash(t)
    with pytest.raises(TypeError):
        len(fn.constant(1))
    with pytest.raises(TypeError):
        int(t)
    assert isinstance(t, fn.Tensor) and fn.is_tensor(t) and not fn.is_tensor(1)
    assert t.ref() == t.ref() and t.ref().deref() is t


def test_fill_ones_zeros():
    assert fn.ones([2, 3]).numpy().tolist() == [[1.0] * 3] * 2
    assert fn.zeros([2], fn.int64).dtype == fn.int64
    assert fn.fill([2], 7).numpy().tolist() == [7, 7]
    assert fn.fill([1], "s").numpy().tolist() == [b"s"]
    assert fn.ones([]).shape == fn.TensorShape([])
    with pytest.raises(fn.errors.InvalidArgumentError):
        fn.fill([2, -1], 1)


def test_add_broadcasting_and_dtype_rules():
    x = fn.constant([[1.0], [2.0]])
    y = fn.constant([10.0, 20.0, 30.0])
    assert (x + y).numpy().tolist() == [[11, 21, 31], [12, 22, 32]]
    assert (fn.constant(1.0) + 1).dtype == fn.float32   # Python int converted to float32
    assert (1 + fn.constant(2)).numpy() == 3
    with pytest.raises(fn.errors.InvalidArgumentError,
                       match=r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor \[Op:AddV2\]"):
        fn.constant(1) + fn.constant(1.0)
    with pytest.raises(fn.errors.InvalidArgumentError):
        fn.constant(1) + 1.5
    with pytest.raises(fn.errors.InvalidArgumentError, match="Incompatible shapes"):
        fn.constant([1, 2, 3]) + fn.constant([1, 2])
    with pytest.raises(fn.errors.InvalidArgumentError):
        fn.constant(True) + fn.constant(False)
    big = np.random.default_rng(0).random((300, 300), dtype=np.float32)
    np.testing.assert_allclose((fn.constant(big) + fn.constant(big[0])).numpy(), big + big[0], rtol=1e-6)
    assert (fn.constant(np.float16(1.5)) + np.float16(2)).numpy() == np.float16(3.5)


def test_matmul_matches_numpy():
    rng = np.random.default_rng(0)
    a = rng.random((512, 512), dtype=np.float32)
    b = rng.random((512, 512), dtype=np.float32)
    np.testing.assert_allclose(fn.matmul(a, b).numpy(), a @ b, rtol=1e-4)
    c = rng.random((3, 4, 5)).astype(np.float64)
    d = rng.random((5, 2)).astype(np.float64)
    np.testing.assert_allclose(fn.matmul(c, d).numpy(), c @ d, rtol=1e-12)
    i = fn.constant([[1, 2], [3, 4]])
    assert fn.matmul(i, i, transpose_b=True).numpy().tolist() == [[5, 11], [11, 25]]
    assert (i @ i).numpy().tolist() == [[7, 10], [15, 22]]
    with pytest.raises(fn.errors.InvalidArgumentError, match="Matrix size-incompatible"):
        fn.matmul(fn.ones([2, 3]), fn.ones([2, 3]))
    with pytest.raises(fn.errors.InvalidArgumentError):
        fn.matmul(fn.ones([2, 3]), fn.ones([3, 2], fn.int32))


def test_errors_module():
    e = fn.errors.InvalidArgumentError(None, None, "bad")
    assert isinstance(e, fn.errors.OpError) and e.message == "bad" and str(e) == "bad"
    for name in ["FailedPreconditionError", "NotFoundError", "OutOfRangeError", "UnimplementedError"]:
        assert issubclass(getattr(fn.errors, name), fn.errors.OpError)


def test_fill_needs_a_vector_of_dims():
    with pytest.raises(fn.errors.InvalidArgumentError, match="dims must be a vector"):
        fn.fill(fn.constant([[1]]), 1)
