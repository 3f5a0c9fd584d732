"""GradientTape.jacobian / batch_jacobian, tf.custom_gradient, tf.autodiff.ForwardAccumulator,
stop_recording and watch_accessed_variables=False: values as TensorFlow's, checked against
finite differences."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _fd_jacobian(f, x, eps=1e-3):
    """Central differences of f (NumPy float64 in, out) at x: shape f(x).shape + x.shape."""
    x = np.asarray(x, np.float64)
    y = np.asarray(f(x))
    jac = np.zeros(y.shape + x.shape)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        jac[(Ellipsis,) + idx] = (np.asarray(f(x + d)) - np.asarray(f(x - d))) / (2 * eps)
    return jac


def test_jacobian_matches_finite_differences():
    x0 = np.array([[0.3, -1.2], [0.7, 2.0]], np.float64)
    x = tf.constant(x0)

    def f(v):
        return tf.sin(v) * tf.reduce_sum(v * v, axis=1, keepdims=True)

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    j = tape.jacobian(y, x)
    assert j.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(j.numpy(), _fd_jacobian(lambda v: f(tf.constant(v)).numpy(), x0),
                               rtol=1e-5, atol=1e-6)


def test_jacobian_of_a_variable_and_a_list_of_sources():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    b = tf.Variable([0.5, -0.5])
    x = tf.constant([[1.0, -1.0]])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.nn.sigmoid(x @ w + b)
    jw, jb = tape.jacobian(y, [w, b])
    assert jw.shape == (1, 2, 2, 2) and jb.shape == (1, 2, 2)
    s = y.numpy()[0]
    ds = s * (1 - s)
    np.testing.assert_allclose(jb.numpy()[0], np.diag(ds), rtol=1e-6)
    np.testing.assert_allclose(jw.numpy()[0, :, :, :],
                               np.einsum("k,ij,kj->kij", ds, [[1.0] * 2, [-1.0] * 2], np.eye(2)),
                               rtol=1e-6)


def test_jacobian_unconnected_source():
    x = tf.constant([1.0, 2.0])
    z = tf.constant([3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * 2.0
    assert tape.jacobian(y, z) is None
    zero = tape.jacobian(y, z, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert zero.shape == (2, 1) and not zero.numpy().any()


def test_batch_jacobian():
    x0 = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]], np.float32)
    x = tf.constant(x0)
    w = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 10)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tanh(x @ w)
    j = tape.batch_jacobian(y, x)
    assert j.shape == (2, 4, 3)
    s = 1 - np.tanh(x0 @ w.numpy()) ** 2
    np.testing.assert_allclose(j.numpy(), s[:, :, None] * w.numpy().T[None], rtol=1e-3, atol=1e-6)


def test_batch_jacobian_needs_matching_batch():
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.concat([x, x], axis=0)
    with pytest.raises(ValueError, match="Need first dimension of target shape"):
        tape.batch_jacobian(y, x)


def test_hessian_by_nested_jacobian():
    x0 = np.array([0.5, -0.3], np.float64)
    x = tf.constant(x0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.reduce_sum(x ** 3) + x[0] * x[1]
        g = t1.gradient(y, x)
    h = t2.jacobian(g, x)
    np.testing.assert_allclose(h.numpy(), [[6 * x0[0], 1.0], [1.0, 6 * x0[1]]], rtol=1e-6)


def test_custom_gradient_replaces_the_gradient():
    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return tf.clip_by_value(dy, -0.5, 0.5) if hasattr(tf, "clip_by_value") else \
                tf.minimum(tf.maximum(dy, -0.5), 0.5)
        return y, backward

    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        output = clip_gradients(v * v)
    assert float(output) == 4.0
    assert float(tape.gradient(output, v)) == 2.0   # clipped 1.0 -> 0.5, times 2v


def test_custom_gradient_log1pexp_is_stable():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

    x = tf.constant(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(tape.gradient(y, x)) == 1.0


def test_custom_gradient_two_inputs_inside_function():
    @tf.custom_gradient
    def mul(a, b):
        def grad(dy):
            return dy * b * 10.0, dy * a * 100.0
        return a * b, grad

    @tf.function
    def f(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = mul(a, b)
        return tape.gradient(y, [a, b])

    ga, gb = f(tf.constant(2.0), tf.constant(3.0))
    assert (float(ga), float(gb)) == (30.0, 200.0)


def test_forward_accumulator_jvp_matches_finite_differences():
    x0 = np.array([0.4, -1.1, 2.0], np.float64)
    v0 = np.array([1.0, 0.5, -2.0], np.float64)
    x = tf.constant(x0)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(v0)) as acc:
        y = tf.sin(x) * x
        z = tf.reduce_sum(y * y)
    fd = _fd_jacobian(lambda a: np.sin(a) * a, x0) @ v0
    np.testing.assert_allclose(acc.jvp(y).numpy(), fd, rtol=1e-5)
    fdz = _fd_jacobian(lambda a: np.sum((np.sin(a) * a) ** 2), x0) @ v0
    np.testing.assert_allclose(float(acc.jvp(z)), fdz, rtol=1e-5)


def test_forward_accumulator_variable_and_unconnected():
    w = tf.Variable(3.0)
    with tf.autodiff.ForwardAccumulator(w, tf.constant(1.0)) as acc:
        y = w * w
        c = tf.constant(1.0) * 2.0
    assert float(acc.jvp(y)) == 6.0
    assert acc.jvp(c) is None
    assert float(acc.jvp(c, unconnected_gradients=tf.UnconnectedGradients.ZERO)) == 0.0


def test_forward_accumulator_primal_itself_and_structure_check():
    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
        pass
    assert acc.jvp(x).numpy().tolist() == [1.0, 0.0]
    assert acc.jvp(x * 2) is None    # computed outside the accumulator's context
    with pytest.raises(ValueError):
        tf.autodiff.ForwardAccumulator(x, [1.0])


def test_stop_recording_and_watch_accessed_variables_false():
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        z = x * y
        with tape.stop_recording():
            w = x * x
        total = z + w
    gx, gy = tape.gradient(total, [x, y])
    assert float(gx) == 3.0 and gy is None


def test_variable_as_target():
    x = tf.constant(1.0)
    v0 = tf.Variable(2.0)
    v1 = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        result = v0 if x > 0.0 else v1 ** 2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    assert float(dv0) == 1.0 and dv1 is None
    with tf.GradientTape() as t:
        y = v0 * 3.0
    assert float(t.gradient([y, v0], v0)) == 4.0


def test_jvp_and_jacobian_inside_function():
    @tf.function
    def jvp(x, v):
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            y = tf.sin(x) * x
        return acc.jvp(y)

    @tf.function
    def jac(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        return t.jacobian(y, x)

    x0 = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(jvp(tf.constant(x0), tf.constant([1.0, 0.0])).numpy(),
                               [np.sin(1.0) + np.cos(1.0), 0.0], rtol=1e-6)
    assert jac(tf.constant(x0)).numpy().tolist() == [[2.0, 0.0], [0.0, 4.0]]
