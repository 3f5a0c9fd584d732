"""MatMul/Conv2D + bias (+ residual) + Relu/Relu6 inside a function: TensorFlow 2.21 fuses these
chains (grappler's remapper, oneDNN post-ops) and its fused Relu/Relu6 map NaN to 0, while the
standalone ops (and eager code) keep NaN. fn fuses the same chains (passes/fuse_contraction.cpp),
so the NaN/inf results below are TF's. Chains TF leaves unfused keep NaN in both."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

NAN, INF = np.float32("nan"), np.float32("inf")
VALS = np.array([NAN, INF, -INF, 1.0, -1.0, -0.0], np.float32)
X = VALS.reshape(6, 1)
W = np.array([[1.0]], np.float32)
B = np.array([0.5], np.float32)
XC = VALS.reshape(1, 6, 1, 1)
K = np.ones((1, 1, 1, 1), np.float32)
R = np.ones((1, 6, 1, 1), np.float32)


def run(f, *args):
    return np.asarray(tf.function(f)(*[tf.constant(a) for a in args])).ravel()


def same(got, want):
    np.testing.assert_array_equal(got, np.array(want, np.float32))


@pytest.mark.tf_onednn  # TF's oneDNN post-op Relu maps NaN to 0; its Eigen fused Relu keeps NaN
@pytest.mark.parametrize("add", ["bias_add", "add", "radd"])
def test_matmul_bias_relu_maps_nan_to_zero(add):
    def f(x, b):
        y = tf.matmul(x, W)
        y = {"bias_add": lambda: tf.nn.bias_add(y, b), "add": lambda: y + b, "radd": lambda: b + y}[add]()
        return tf.nn.relu(y)
    same(run(f, X, B), [0, INF, 0, 1.5, 0, 0.5])


@pytest.mark.tf_onednn  # TF's oneDNN post-op Relu maps NaN to 0; its Eigen fused Relu keeps NaN
def test_matmul_2d_bias_relu():
    same(run(lambda x: tf.nn.relu(tf.matmul(x, W) + W), X), [0, INF, 0, 2, 0, 1])


@pytest.mark.tf_onednn  # TF's oneDNN post-op Relu maps NaN to 0; its Eigen fused Relu keeps NaN
def test_matmul_bias_relu6_and_transpose_b():
    same(run(lambda x, b: tf.nn.relu6(tf.matmul(x, W, transpose_b=True) + b), X, B), [0, 6, 0, 1.5, 0, 0.5])


@pytest.mark.tf_onednn  # TF's oneDNN post-op Relu maps NaN to 0; its Eigen fused Relu keeps NaN
@pytest.mark.parametrize("act", ["relu", "relu6"])
def test_matmul_bias_relu_under_a_tape(act):
    w, b = tf.Variable(W), tf.Variable(B)
    a = getattr(tf.nn, act)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            h = a(tf.matmul(x, w) + b)
            loss = tf.reduce_sum(h)
        return h, tape.gradient(loss, b)

    h, db = f(tf.constant(X))
    same(np.asarray(h).ravel(), [0, INF if act == "relu" else 6, 0, 1.5, 0, 0.5])
    same(np.asarray(db), [3.0 if act == "relu" else 2.0])


def test_unfused_chains_keep_nan():
    # no bias; a bias of the output's shape; the bias sum also returned; transpose_a; float64: TF does not fuse.
    same(run(lambda x: tf.nn.relu(tf.matmul(x, W)), X), [NAN, INF, 0, 1, 0, 0])
    same(run(lambda x: tf.nn.relu(tf.matmul(x, W) + tf.ones([6, 1])), X), [NAN, INF, 0, 2, 0, 1])
    w = tf.constant(W)
    f = tf.function(lambda x, b: (tf.nn.relu(tf.matmul(x, w) + b), tf.matmul(x, w) + b))
    same(np.asarray(f(tf.constant(X), tf.constant(B))[0]).ravel(), [NAN, INF, 0, 1.5, 0, 0.5])
    same(run(lambda x: tf.nn.relu(tf.matmul(x, X.T, transpose_a=True)[:, :1] + B), X.T), [NAN, NAN, NAN, NAN, NAN, NAN])
    got = tf.function(lambda x: tf.nn.relu(tf.matmul(x, W.astype(np.float64)) + B.astype(np.float64)))(
        tf.constant(X.astype(np.float64)))
    np.testing.assert_array_equal(np.asarray(got).ravel(), [NAN, INF, 0, 1.5, 0, 0.5])


def test_eager_relu_keeps_nan():
    np.testing.assert_array_equal(np.asarray(tf.nn.relu(tf.matmul(X, W) + B)).ravel(), [NAN, INF, 0, 1.5, 0, 0.5])


@pytest.mark.tf_onednn  # TF's oneDNN post-op Relu maps NaN to 0; its Eigen fused Relu keeps NaN
def test_conv_bias_relu_and_residual():
    conv = lambda x: tf.nn.conv2d(x, K, 1, "SAME")
    same(run(lambda x, b: tf.nn.relu(tf.nn.bias_add(conv(x), b)), XC, B), [0, INF, 0, 1.5, 0, 0.5])
    same(run(lambda x, b: tf.nn.relu6(conv(x) + b), XC, B), [0, 6, 0, 1.5, 0, 0.5])
    same(run(lambda x, b, r: tf.nn.relu(r + tf.nn.bias_add(conv(x), b)), XC, B, R), [0, INF, 0, 2.5, 0.5, 1.5])
    # the residual added after the Relu: Relu fused (NaN -> 0), the add not
    same(run(lambda x, b, r: tf.nn.relu(tf.nn.bias_add(conv(x), b)) + r, XC, B, R), [1, INF, 1, 2.5, 1, 1.5])
    same(run(lambda x, b, r: tf.nn.bias_add(conv(x), b) + r, XC, B, R), [NAN, INF, -INF, 2.5, 0.5, 1.5])
    same(run(lambda x: tf.nn.relu(conv(x)), XC), [NAN, INF, 0, 1, 0, 0])


def test_fused_values_match_unfused_on_finite_data():
    r = np.random.default_rng(3)
    x, w, b = r.standard_normal((64, 48), np.float32), r.standard_normal((48, 80), np.float32), r.standard_normal(80, np.float32)
    want = np.maximum(x.astype(np.float64) @ w + b, 0)
    np.testing.assert_allclose(run(lambda x: tf.nn.relu(tf.matmul(x, w) + b), x), want.ravel(), rtol=1e-5, atol=1e-5)
    xc, k = r.standard_normal((2, 9, 9, 4), np.float32), r.standard_normal((3, 3, 4, 8), np.float32)
    got = run(lambda x: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k, 1, "VALID"), b[:8])), xc)
    ref = np.maximum(np.asarray(tf.nn.conv2d(xc, k, 1, "VALID")) + b[:8], 0).ravel()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
