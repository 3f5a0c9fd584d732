"""complex64 / complex128: constants, printing, arithmetic, abs/real/imag/conj, tf.complex,
data movement (reshape, concat, slicing, transpose) and the TF errors of mixed dtypes."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_constants_and_printing():
    c = tf.constant([1 + 2j, 3 - 1j])
    assert c.dtype == tf.complex128 and c.dtype.is_complex
    assert repr(c).endswith("shape=(2,), dtype=complex128, numpy=array([1.+2.j, 3.-1.j])>")
    assert str(c).endswith("([1.+2.j 3.-1.j], shape=(2,), dtype=complex128)")
    s = tf.constant(1 + 2j)
    assert s.shape == () and s.numpy() == 1 + 2j
    assert repr(s).endswith("shape=(), dtype=complex128, numpy=(1+2j)>")
    c64 = tf.constant([1, 2], dtype=tf.complex64)
    assert c64.dtype == tf.complex64 and c64.numpy().tolist() == [1 + 0j, 2 + 0j]
    assert tf.constant(np.array([1 + 1j], np.complex64)).dtype == tf.complex64
    assert tf.complex64.real_dtype == tf.float32 and tf.complex128.real_dtype == tf.float64


def test_arithmetic():
    c = tf.constant([1 + 2j, 3 - 1j])
    z = c.numpy()
    np.testing.assert_allclose((c + c).numpy(), z + z)
    np.testing.assert_allclose((c * c).numpy(), z * z)
    np.testing.assert_allclose((c - 1).numpy(), z - 1)
    np.testing.assert_allclose((c / c).numpy(), [1, 1])
    np.testing.assert_allclose(tf.add(c, tf.constant([[1j], [2]])).numpy(), z + np.array([[1j], [2]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute AddV2 as input #1"):
        c + tf.constant([1., 2])


def test_abs_real_imag_conj():
    c = tf.constant([1 + 2j, 3 - 1j])
    a = tf.abs(c)
    assert a.dtype == tf.float64
    np.testing.assert_allclose(a.numpy(), [np.sqrt(5), np.sqrt(10)])
    assert tf.math.real(c).numpy().tolist() == [1., 3.]
    assert tf.math.imag(c).numpy().tolist() == [2., -1.]
    assert tf.math.conj(c).numpy().tolist() == [1 - 2j, 3 + 1j]
    assert tf.math.real(tf.constant([1., 2])).numpy().tolist() == [1., 2.]
    assert tf.math.conj(tf.constant([1., 2])).numpy().tolist() == [1., 2.]
    c64 = tf.constant([3 + 4j], tf.complex64)
    assert tf.abs(c64).dtype == tf.float32 and tf.abs(c64).numpy().tolist() == [5.0]


def test_complex_from_parts():
    r = tf.complex(1., 2.)
    assert r.dtype == tf.complex64 and r.numpy() == 1 + 2j
    assert tf.complex([1.], [2.]).numpy().tolist() == [1 + 2j]
    d = tf.complex(tf.constant([1.], tf.float64), tf.constant([0.5], tf.float64))
    assert d.dtype == tf.complex128
    with pytest.raises(TypeError, match="The `real` and `imag` components have incorrect types: float64 float32"):
        tf.complex(tf.constant(1., tf.float64), 2.)


def test_data_movement():
    c = tf.constant([1 + 2j, 3 - 1j])
    assert tf.reshape(c, [2, 1]).numpy().tolist() == [[1 + 2j], [3 - 1j]]
    assert tf.concat([c, c], 0).numpy().tolist() == [1 + 2j, 3 - 1j, 1 + 2j, 3 - 1j]
    assert c[1].numpy() == 3 - 1j
    t = tf.transpose(tf.reshape(tf.concat([c, c], 0), [2, 2]))
    assert t.numpy().tolist() == [[1 + 2j, 1 + 2j], [3 - 1j, 3 - 1j]]
    c64 = tf.constant([[1 + 1j, 2], [3, 4j]], tf.complex64)
    assert tf.transpose(c64).numpy().tolist() == [[1 + 1j, 3], [2, 4j]]


def test_complex_in_function():
    @tf.function
    def f(x):
        return tf.abs(x * tf.math.conj(x)), tf.math.real(x) + tf.math.imag(x)

    a, b = f(tf.constant([3 + 4j]))
    assert a.numpy().tolist() == [25.0] and b.numpy().tolist() == [7.0]


def test_real_imag_gradients():
    x = tf.constant([1.5, -2.0])
    y = tf.constant([0.5, 3.0])
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = tf.complex(x, y)
        loss = tf.reduce_sum(tf.math.real(z) * 2.0 + tf.math.imag(z) * 3.0)
    gx, gy = tape.gradient(loss, [x, y])
    assert gx.numpy().tolist() == [2.0, 2.0] and gy.numpy().tolist() == [3.0, 3.0]


def test_complex_mul_div_gradients_conjugate():
    # d/dx of real(sum(x * y)) with TF's convention: grad(x) = conj(d(out)) ... = conj(y) for ones.
    x = tf.constant([1 + 2j, -0.5 + 1j])
    y = tf.constant([2 - 1j, 0.5 + 3j])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        p = x * y
        q = x / y
    gx, gy = tape.gradient(p, [x, y])
    np.testing.assert_allclose(gx.numpy(), np.conj(y.numpy()))
    np.testing.assert_allclose(gy.numpy(), np.conj(x.numpy()))
    qx, qy = tape.gradient(q, [x, y])
    np.testing.assert_allclose(qx.numpy(), 1 / np.conj(y.numpy()))
    np.testing.assert_allclose(qy.numpy(), -np.conj(x.numpy() / y.numpy() ** 2))
    assert tf.ones_like(x).numpy().tolist() == [1 + 0j, 1 + 0j]
    assert tf.zeros_like(x).dtype == tf.complex128


def test_cast_to_and_from_complex():
    c = tf.cast(tf.constant([1.5, -2.0]), tf.complex64)
    assert c.dtype == tf.complex64 and c.numpy().tolist() == [1.5 + 0j, -2 + 0j]
    assert tf.cast(tf.constant([3, 4]), tf.complex128).numpy().tolist() == [3 + 0j, 4 + 0j]
    z = tf.constant([1.5 + 2j, -3 - 1j])
    assert tf.cast(z, tf.complex64).dtype == tf.complex64
    r = tf.cast(z, tf.float32)
    assert r.dtype == tf.float32 and r.numpy().tolist() == [1.5, -3.0]
    assert tf.cast(z, tf.int32).numpy().tolist() == [1, -3]
