"""tf.nn losses, activations, normalisation, conv1d / conv2d_transpose / depthwise_conv2d,
embedding_lookup and dropout: values (NumPy or TF-checked literals), errors, gradients against
finite differences, shape rules on partial shapes."""
import math

import numpy as np
import pytest

from _grad import check_grad, traced_shapes
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

R = np.random.default_rng(7)
LOGITS = R.uniform(-2, 2, (3, 4))
PROBS = R.uniform(0.1, 1, (3, 4))
PROBS /= PROBS.sum(1, keepdims=True)


def np_log_softmax(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def test_sparse_softmax_cross_entropy():
    labels = np.array([3, 0, 1])
    got = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, tf.constant(LOGITS))
    assert got.dtype == tf.float64 and got.shape == (3,)
    np.testing.assert_allclose(got.numpy(), -np_log_softmax(LOGITS)[np.arange(3), labels])
    r = tf.nn.sparse_softmax_cross_entropy_with_logits([1, 0], [[1., 2, 3], [1, 2, 3]])
    np.testing.assert_allclose(r.numpy(), [1.4076059, 2.407606], rtol=1e-6)
    # Higher rank: flattened through the 2-D op and reshaped back.
    r3 = tf.nn.sparse_softmax_cross_entropy_with_logits([[1]], [[[1., 2, 3]]])
    assert r3.shape == (1, 1)
    np.testing.assert_allclose(r3.numpy(), [[1.4076059]], rtol=1e-6)


def test_sparse_softmax_cross_entropy_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Received a label value of 3 which is outside the valid range of \[0, 3\)"):
        tf.nn.sparse_softmax_cross_entropy_with_logits([3, 0], [[1., 2, 3], [1, 2, 3]])
    with pytest.raises(ValueError, match="`labels.shape` must equal `logits.shape` except for the last dimension"):
        tf.nn.sparse_softmax_cross_entropy_with_logits([1, 2], [[1., 2, 3]])
    with pytest.raises(ValueError, match=r"`labels.shape.rank` must equal `logits.shape.rank - 1`"):
        tf.nn.sparse_softmax_cross_entropy_with_logits([[1]], [[1., 2, 3]])


def test_softmax_cross_entropy():
    got = tf.nn.softmax_cross_entropy_with_logits(tf.constant(PROBS), tf.constant(LOGITS))
    np.testing.assert_allclose(got.numpy(), -(PROBS * np_log_softmax(LOGITS)).sum(-1))
    r = tf.nn.softmax_cross_entropy_with_logits([0., 1, 0], [1., 2, 3])
    assert r.shape == ()
    np.testing.assert_allclose(r.numpy(), 1.4076059, rtol=1e-6)
    a = tf.nn.softmax_cross_entropy_with_logits(tf.constant(PROBS), tf.constant(LOGITS), axis=0)
    np.testing.assert_allclose(a.numpy(), -(PROBS * np_log_softmax(LOGITS, 0)).sum(0))


def test_cross_entropy_gradients():
    labels = tf.constant([3, 0, 1])
    check_grad(lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x), LOGITS)
    check_grad(lambda p, x: tf.nn.softmax_cross_entropy_with_logits(p, x), PROBS, LOGITS)
    check_grad(lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), PROBS, LOGITS)


def test_cross_entropy_second_order():
    x = tf.constant(LOGITS)
    labels = tf.constant([3, 0, 1])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x))
        g = inner.gradient(loss, x)
        s = tf.reduce_sum(g * g)
    h = outer.gradient(s, x)
    sm = np.exp(np_log_softmax(LOGITS))
    gn = sm - np.eye(4)[[3, 0, 1]]
    # d/dx sum(g^2) = 2 * J^T g with J = diag(sm) - sm sm^T per row.
    want = np.stack([2 * (np.diag(sm[i]) - np.outer(sm[i], sm[i])) @ gn[i] for i in range(3)])
    np.testing.assert_allclose(h.numpy(), want, rtol=1e-6, atol=1e-9)


def test_sigmoid_cross_entropy():
    r = tf.nn.sigmoid_cross_entropy_with_logits(labels=[1., 0], logits=[0.5, -2.])
    want = [math.log1p(math.exp(-0.5)), math.log1p(math.exp(-2.0))]
    np.testing.assert_allclose(r.numpy(), want, rtol=1e-6)
    with pytest.raises(ValueError, match="must have the same shape"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=[1., 0, 1], logits=[0.5, -2.])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute Mul"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=[1, 0], logits=[0.5, -2.])


def test_activations():
    x = np.array([-2.0, -0.5, 0.0, 1.5])
    np.testing.assert_allclose(tf.nn.leaky_relu(tf.constant(x)).numpy(), np.where(x > 0, x, 0.2 * x))
    np.testing.assert_allclose(tf.nn.leaky_relu(tf.constant(x), alpha=0.1).numpy(), np.where(x > 0, x, 0.1 * x))
    r = tf.nn.leaky_relu([1, -2])
    assert r.dtype == tf.float32 and r.numpy().tolist() == pytest.approx([1.0, -0.4])
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(tf.nn.gelu(tf.constant(x)).numpy(), 0.5 * x * (1 + erf(x / math.sqrt(2))))
    approx = 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(tf.nn.gelu(tf.constant(x), approximate=True).numpy(), approx)
    np.testing.assert_allclose(tf.nn.silu(tf.constant(x)).numpy(), x / (1 + np.exp(-x)))
    np.testing.assert_allclose(tf.nn.swish(tf.constant(x)).numpy(), x / (1 + np.exp(-x)))
    with pytest.raises(ValueError, match="`features.dtype` must be a floating point tensor"):
        tf.nn.gelu([1, 2])


def test_activation_gradients():
    x = np.array([[-2.0, -0.5, 0.3], [1.5, 0.7, -1.1]])
    check_grad(tf.nn.leaky_relu, x)
    check_grad(tf.nn.gelu, x)
    check_grad(lambda v: tf.nn.gelu(v, approximate=True), x)
    check_grad(tf.nn.silu, x)
    check_grad(tf.nn.l2_loss, x)
    check_grad(lambda v: tf.nn.l2_normalize(v, axis=1), x)


def test_l2_loss_and_normalize():
    r = tf.nn.l2_loss([1., 2, 3])
    assert r.shape == () and r.numpy() == 7.0
    assert tf.nn.l2_normalize([3., 4]).numpy().tolist() == pytest.approx([0.6, 0.8])
    np.testing.assert_allclose(tf.math.l2_normalize(tf.constant(LOGITS), axis=1).numpy(),
                               LOGITS / np.linalg.norm(LOGITS, axis=1, keepdims=True))


def test_moments_and_batch_normalization():
    mean, var = tf.nn.moments(tf.constant(LOGITS), [0])
    np.testing.assert_allclose(mean.numpy(), LOGITS.mean(0))
    np.testing.assert_allclose(var.numpy(), LOGITS.var(0))
    m, v = tf.nn.moments(tf.constant([[1., 2], [3, 5]]), [0, 1], keepdims=True)
    assert m.shape == (1, 1) and m.numpy()[0, 0] == 2.75 and v.numpy()[0, 0] == pytest.approx(2.1875)
    y = tf.nn.batch_normalization(tf.constant(LOGITS), mean, var, 0.5, 2.0, 1e-3)
    np.testing.assert_allclose(y.numpy(), (LOGITS - LOGITS.mean(0)) * 2.0 / np.sqrt(LOGITS.var(0) + 1e-3) + 0.5)
    check_grad(lambda x: tf.nn.moments(x, [0])[1], LOGITS)
    c = lambda v: tf.constant(v, tf.float64)  # noqa: E731
    check_grad(lambda x, s: tf.nn.batch_normalization(x, c(0.2), c(1.5), c(0.1), s, 1e-3), LOGITS,
               np.array([1.0, 2, 3, 4]))


def np_conv1d(x, w, stride):
    n, width, _ = x.shape
    k = w.shape[0]
    out = (width - k) // stride + 1
    return np.stack([np.einsum("nkc,kco->no", x[:, i * stride:i * stride + k], w) for i in range(out)], 1)


def test_conv1d():
    x = R.uniform(-1, 1, (2, 7, 3))
    w = R.uniform(-1, 1, (3, 3, 4))
    got = tf.nn.conv1d(tf.constant(x), tf.constant(w), 2, "VALID")
    np.testing.assert_allclose(got.numpy(), np_conv1d(x, w, 2), rtol=1e-6)
    same = tf.nn.conv1d(tf.reshape(tf.range(12.), [1, 6, 2]), tf.ones([3, 2, 1]), 2, "SAME")
    assert same.numpy().ravel().tolist() == [15.0, 39.0, 38.0]
    check_grad(lambda a, b: tf.nn.conv1d(a, b, 1, "SAME"), x[:1, :4, :2], w[:, :2, :2])


def test_conv2d_transpose():
    x = R.uniform(-1, 1, (1, 2, 2, 2))
    w = R.uniform(-1, 1, (2, 2, 3, 2))   # [h, w, out, in]
    got = tf.nn.conv2d_transpose(tf.constant(x), tf.constant(w), [1, 3, 3, 3], 1, "VALID")
    want = np.zeros((1, 3, 3, 3))
    for i in range(2):
        for j in range(2):
            want[0, i:i + 2, j:j + 2] += np.einsum("c,hwoc->hwo", x[0, i, j], w)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    check_grad(lambda a, b: tf.nn.conv2d_transpose(a, b, [1, 4, 4, 3], 2, "SAME"), x, w)


def test_depthwise_conv2d():
    x = R.uniform(-1, 1, (1, 4, 4, 2))
    w = R.uniform(-1, 1, (2, 2, 2, 3))
    got = tf.nn.depthwise_conv2d(tf.constant(x), tf.constant(w), [1, 1, 1, 1], "VALID")
    want = np.zeros((1, 3, 3, 6))
    for i in range(3):
        for j in range(3):
            patch = x[0, i:i + 2, j:j + 2]   # [2, 2, C]
            want[0, i, j] = np.einsum("hwc,hwcm->cm", patch, w).reshape(-1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    check_grad(lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, 2, 2, 1], "SAME"), x, w)


def test_embedding_lookup():
    params = tf.constant([[1., 2], [3, 4], [5, 6]])
    assert tf.nn.embedding_lookup(params, [2, 0]).numpy().tolist() == [[5., 6.], [1., 2.]]
    assert tf.nn.embedding_lookup(params, [[1]]).shape == (1, 1, 2)
    clipped = tf.nn.embedding_lookup(tf.constant([[3., 4], [0, 1]]), [0], max_norm=1.)
    np.testing.assert_allclose(clipped.numpy(), [[0.6, 0.8]], rtol=1e-6)
    check_grad(lambda p: tf.nn.embedding_lookup(p, [2, 0, 2]), LOGITS)


def test_dropout():
    x = tf.ones([1000])
    y = tf.nn.dropout(x, 0.25, seed=1)
    v = y.numpy()
    assert np.all((v == 0) | np.isclose(v, 1 / 0.75))
    assert 600 < int(np.count_nonzero(y.numpy())) < 900
    assert tf.nn.dropout(tf.constant([1., 2]), 0.).numpy().tolist() == [1., 2.]
    with pytest.raises(ValueError, match=r"`rate` must be a scalar tensor or a float in the range \[0, 1\)"):
        tf.nn.dropout([1., 2], 1.0)
    with pytest.raises(ValueError, match="`x.dtype` must be a floating point tensor"):
        tf.nn.dropout([1, 2], 0.5)
    # The gradient is the same mask and scale.
    xv = tf.constant(np.arange(1.0, 51.0))
    with tf.GradientTape() as tape:
        tape.watch(xv)
        out = tf.nn.dropout(xv, 0.5, seed=3)
    g = tape.gradient(out, xv).numpy()
    np.testing.assert_allclose(g, np.where(out.numpy() != 0, 2.0, 0.0))


def test_shape_rules_on_partial_shapes():
    spec = tf.TensorSpec([None, 4], tf.float32)
    ispec = tf.TensorSpec([None], tf.int32)
    assert traced_shapes(lambda l, x: tf.nn.sparse_softmax_cross_entropy_with_logits(l, x), ispec, spec) == [[None]]
    assert traced_shapes(lambda x: tf.nn.softmax_cross_entropy_with_logits(x, x), spec) == [[None]]
    assert traced_shapes(lambda x: tf.nn.gelu(x), spec) == [[None, 4]]
    assert traced_shapes(lambda x: tf.nn.moments(x, [0]), spec) == [[4], [4]]
    img = tf.TensorSpec([None, 5, 5, 2], tf.float32)
    w = tf.TensorSpec([3, 3, 2, 2], tf.float32)
    assert traced_shapes(lambda x, f: tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "VALID"), img, w) == [[None, 3, 3, 4]]
    seq = tf.TensorSpec([None, 8, 3], tf.float32)
    w1 = tf.TensorSpec([3, 3, 5], tf.float32)
    assert traced_shapes(lambda x, f: tf.nn.conv1d(x, f, 2, "SAME"), seq, w1) == [[None, 4, 5]]
