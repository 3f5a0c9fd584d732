"""Gradient checks shared by the op-family tests, written against the test backend (``tfbackend.tf``)
so they run under fn and under TensorFlow: the tape's gradient of sum(w * f(x)) against central
finite differences in float64 (the method of tests_py/math/test_gradients.py)."""
import numpy as np

from tfbackend import tf


def numeric_grad(f, xs, w, i, eps=1e-6):
    def loss(args):
        return float(np.sum(w * np.asarray(f(*[tf.constant(a) for a in args]).numpy())))
    x = xs[i]
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        plus = [a.copy() for a in xs]
        minus = [a.copy() for a in xs]
        plus[i][idx] += eps
        minus[i][idx] -= eps
        g[idx] = (loss(plus) - loss(minus)) / (2 * eps)
    return g


def check_grad(f, *xs, wrt=None, seed=0, rtol=1e-5, atol=1e-7):
    """Asserts the tape's gradients of f at xs (float64 arrays) match finite differences for the
    arguments in ``wrt`` (default: all)."""
    rng = np.random.default_rng(seed)
    xs = [np.asarray(x, np.float64) for x in xs]
    wrt = range(len(xs)) if wrt is None else wrt
    y = np.asarray(f(*[tf.constant(x) for x in xs]).numpy())
    w = rng.uniform(0.5, 1.5, size=y.shape)
    ts = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        for t in ts:
            tape.watch(t)
        out = f(*ts)
    got = tape.gradient(out, ts, output_gradients=tf.constant(w))
    for i in wrt:
        assert got[i] is not None, f"no gradient for input {i}"
        got[i] = tf.convert_to_tensor(got[i])   # TF's gather gradient is IndexedSlices
        assert tuple(got[i].shape) == xs[i].shape
        np.testing.assert_allclose(got[i].numpy(), numeric_grad(f, xs, w, i), rtol=rtol, atol=atol)


def traced_shapes(f, *specs):
    """The static shapes (as lists) of f's outputs when traced with the given TensorSpecs."""
    seen = []

    @tf.function(input_signature=list(specs))
    def g(*args):
        out = f(*args)
        outs = out if isinstance(out, (list, tuple)) else [out]
        seen.extend(o.shape.as_list() if o.shape.rank is not None else None for o in outs)
        return out

    g.get_concrete_function()
    return seen
