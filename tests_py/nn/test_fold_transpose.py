"""Transposes around matmuls inside a function: fn folds them into the matmul (transpose flags, or
oneDNN reading/writing through permuted strides: passes/fold_transpose.cpp), TF's grappler folds
some too; either way the results are the plain composition's, checked here against NumPy (float
tolerance where oneDNN blocks the sums differently, exact for integers)."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

RNG = np.random.default_rng(7)


def rand(*shape, dtype=np.float32):
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-5, 6, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def close(got, want, dtype=np.float32):
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-4)


@pytest.mark.parametrize("s", [4, 64])   # a small problem and a oneDNN-sized one
def test_attention_head_transposes(s):
    b, h, d = 2, 4, 16
    x = [rand(b * s, h * d) for _ in range(3)]

    def heads(t):
        return tf.transpose(tf.reshape(t, [b, s, h, d]), [0, 2, 1, 3])

    @tf.function
    def f(q, k, v):
        a = tf.matmul(heads(q), heads(k), transpose_b=True) * 0.25
        return tf.reshape(tf.transpose(tf.matmul(a, heads(v)), [0, 2, 1, 3]), [b * s, h * d])

    def np_heads(t):
        return t.reshape(b, s, h, d).transpose(0, 2, 1, 3)
    a = np_heads(x[0]) @ np_heads(x[1]).transpose(0, 1, 3, 2) * np.float32(0.25)
    want = (a @ np_heads(x[2])).transpose(0, 2, 1, 3).reshape(b * s, h * d)
    close(f(*[tf.constant(t) for t in x]), want)


def test_attention_head_transposes_bfloat16():
    b, s, h, d = 2, 64, 4, 16
    x = [rand(b * s, h * d) for _ in range(3)]

    def heads(t):
        return tf.transpose(tf.reshape(tf.cast(t, tf.bfloat16), [b, s, h, d]), [0, 2, 1, 3])

    @tf.function
    def f(q, k, v):
        a = tf.matmul(heads(q), heads(k), transpose_b=True)
        return tf.cast(tf.reshape(tf.transpose(tf.matmul(a, heads(v)), [0, 2, 1, 3]), [b * s, h * d]), tf.float32)

    def np_heads(t):
        return t.reshape(b, s, h, d).transpose(0, 2, 1, 3)
    want = ((np_heads(x[0]) @ np_heads(x[1]).transpose(0, 1, 3, 2)) @ np_heads(x[2])).transpose(0, 2, 1, 3)
    want = want.reshape(b * s, h * d)
    got = np.asarray(f(*[tf.constant(t) for t in x]))
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= 0.02 * np.abs(want).max()   # bfloat16 inputs and products


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("adj", [False, True])
def test_swapped_operands_compose_with_transpose_flags(dtype, adj):
    x, y = rand(3, 40, 24, dtype=dtype), rand(3, 50, 40, dtype=dtype)   # op(x^T) @ y^T

    @tf.function
    def f(x, y):
        xt = tf.transpose(x, [0, 2, 1])
        if adj:
            xt = tf.transpose(xt, [0, 2, 1])   # back: op(x) with adjoint_a
        return tf.matmul(xt, tf.transpose(y, [0, 2, 1]), adjoint_a=adj)

    xw = x.transpose(0, 2, 1)
    want = (xw.transpose(0, 2, 1) if adj else xw)
    want = np.matmul(want.transpose(0, 2, 1) if adj else want, y.transpose(0, 2, 1))
    close(f(tf.constant(x), tf.constant(y)), want, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_matmul_of_transposed_matrices(dtype):
    x, y = rand(70, 60, dtype=dtype), rand(70, 80, dtype=dtype)
    f = tf.function(lambda x, y: tf.matmul(tf.transpose(x), tf.transpose(y), transpose_b=True))
    close(f(tf.constant(x), tf.constant(y)), x.T @ y, dtype)


def test_transpose_also_returned_and_broadcast_weights():
    x, w = rand(2, 48, 3, 32), rand(40, 32)

    @tf.function
    def f(x, w):
        t = tf.transpose(x, [0, 2, 1, 3])
        return t, tf.transpose(tf.matmul(tf.transpose(x, [0, 2, 1, 3]), w, transpose_b=True), [0, 2, 1, 3])

    t, y = f(tf.constant(x), tf.constant(w))
    close(t, x.transpose(0, 2, 1, 3))
    close(y, (x.transpose(0, 2, 1, 3) @ w.T).transpose(0, 2, 1, 3))


def test_perm_known_only_at_run_time():
    x, y = rand(2, 30, 3, 20), rand(2, 3, 20, 25)
    f = tf.function(lambda x, p, y: tf.matmul(tf.transpose(x, p), y))
    close(f(tf.constant(x), tf.constant([0, 2, 1, 3]), tf.constant(y)), x.transpose(0, 2, 1, 3) @ y)


NAN = np.float32("nan")


@pytest.mark.tf_onednn  # TF's oneDNN post-op Relu maps NaN to 0; its Eigen fused Relu keeps NaN
@pytest.mark.parametrize("which", ["a", "b"])
def test_transposed_matmul_operand_and_relu_fusion(which):
    # TF folds the transpose into transpose_a/transpose_b before fusing: transpose_a is never
    # fused (the NaN row stays NaN), transpose_b is (its fused Relu maps NaN to 0).
    x = np.array([[NAN, 1.0], [2.0, -3.0]], np.float32)
    w, b = np.eye(2, dtype=np.float32), np.array([0.5, 0.5], np.float32)
    if which == "a":
        f = tf.function(lambda x: tf.nn.relu(tf.matmul(tf.transpose(x), w) + b))
        want = [[NAN, NAN], [1.5, 0.0]]
    else:
        f = tf.function(lambda x: tf.nn.relu(tf.matmul(x, tf.transpose(w)) + b))
        want = [[0.0, 0.0], [2.5, 0.0]]
    np.testing.assert_array_equal(np.asarray(f(tf.constant(x))), np.array(want, np.float32))
