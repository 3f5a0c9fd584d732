"""tf.nn.ctc_loss (TF 2's dense and SparseTensor labels) against a NumPy CTC forward recursion in
float64 (Graves et al. 2006), its gradient against finite differences of that reference, and TF's
errors."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _ctc_ref(logits, labels, label_len, logit_len, blank):
    """-log p(labels | logits) per sequence; logits [T, B, C] (time major)."""
    out = []
    for b in range(logits.shape[1]):
        x = logits[: logit_len[b], b].astype(np.float64)
        lp = x - np.log(np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True)) - x.max(1, keepdims=True)
        ext = [blank]
        for lab in labels[b][: label_len[b]]:
            ext += [int(lab), blank]
        s = len(ext)
        alpha = np.full(s, -np.inf)
        alpha[0] = lp[0, ext[0]]
        if s > 1:
            alpha[1] = lp[0, ext[1]]
        for t in range(1, len(lp)):
            new = np.full(s, -np.inf)
            for i in range(s):
                terms = [alpha[i]] + ([alpha[i - 1]] if i >= 1 else [])
                if i >= 2 and ext[i] != blank and ext[i] != ext[i - 2]:
                    terms.append(alpha[i - 2])
                new[i] = np.logaddexp.reduce(terms) + lp[t, ext[i]]
            alpha = new
        tail = [alpha[-1]] + ([alpha[-2]] if s > 1 else [])
        out.append(-np.logaddexp.reduce(tail))
    return np.array(out)


def _case(seed=0, t=7, b=3, c=5, max_len=3):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(t, b, c)).astype(np.float32)
    labels = rng.integers(1, c, (b, max_len)).astype(np.int32)
    labels[0, 1] = labels[0, 0]          # a repeated label needs a blank between
    label_len = np.array([3, 2, 1][:b], np.int32)
    logit_len = np.array([7, 6, 5][:b], np.int32)
    return logits, labels, label_len, logit_len


def test_dense_labels_match_reference():
    logits, labels, label_len, logit_len = _case()
    loss = tf.nn.ctc_loss(labels, logits, label_len, logit_len, blank_index=0)
    assert loss.shape == (3,) and loss.dtype == tf.float32
    np.testing.assert_allclose(loss.numpy(), _ctc_ref(logits, labels, label_len, logit_len, 0), rtol=1e-5)


def test_batch_major_and_last_blank():
    logits, labels, label_len, logit_len = _case(seed=1)
    labels = labels - 1                   # classes 0..c-2, blank is the last class
    loss = tf.nn.ctc_loss(labels, np.transpose(logits, (1, 0, 2)), label_len, logit_len,
                          logits_time_major=False, blank_index=-1)
    np.testing.assert_allclose(loss.numpy(), _ctc_ref(logits, labels, label_len, logit_len, 4), rtol=1e-5)


def test_middle_blank_index():
    logits, labels, label_len, logit_len = _case(seed=2)
    labels = np.where(labels == 2, 0, labels)   # class 2 is the blank: labels use the others
    loss = tf.nn.ctc_loss(labels, logits, label_len, logit_len, blank_index=2)
    np.testing.assert_allclose(loss.numpy(), _ctc_ref(logits, labels, label_len, logit_len, 2), rtol=1e-5)


def test_gradient_matches_finite_differences():
    logits, labels, _, _ = _case(seed=3, t=5, b=2, c=4, max_len=2)
    label_len, logit_len = np.array([2, 1], np.int32), np.array([5, 3], np.int32)
    weights = np.array([1.0, 2.0])
    x = tf.constant(logits)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.nn.ctc_loss(labels, x, label_len, logit_len) * weights.astype(np.float32))
    grad = tape.gradient(loss, x).numpy()

    def f(v):
        return (_ctc_ref(v, labels, label_len, logit_len, 0) * weights).sum()

    eps, base = 1e-4, logits.astype(np.float64)
    num = np.zeros(logits.shape)
    for idx in np.ndindex(*logits.shape):
        hi, lo = base.copy(), base.copy()
        hi[idx] += eps
        lo[idx] -= eps
        num[idx] = (f(hi) - f(lo)) / (2 * eps)
    np.testing.assert_allclose(grad, num, atol=2e-3)
    assert np.all(grad[3:, 1] == 0)   # frames past logit_length get no gradient


def test_in_function_and_half_precision():
    logits, labels, label_len, logit_len = _case(seed=4)
    f = tf.function(lambda x: tf.nn.ctc_loss(labels, x, label_len, logit_len))
    ref = _ctc_ref(logits, labels, label_len, logit_len, 0)
    np.testing.assert_allclose(f(tf.constant(logits)).numpy(), ref, rtol=1e-5)
    half = tf.nn.ctc_loss(labels, tf.constant(logits, tf.float16), label_len, logit_len)
    assert half.dtype == tf.float16
    np.testing.assert_allclose(half.numpy().astype(np.float64), ref, rtol=2e-3)


def test_sparse_labels():
    logits, labels, label_len, logit_len = _case(seed=5)
    idx = [[b, i] for b in range(3) for i in range(label_len[b])]
    vals = [labels[b, i] for b, i in idx]
    sp = tf.SparseTensor(np.array(idx, np.int64), np.array(vals, np.int32), [3, 3])
    loss = tf.nn.ctc_loss(sp, logits, None, logit_len, blank_index=0)
    np.testing.assert_allclose(loss.numpy(), _ctc_ref(logits, labels, label_len, logit_len, 0), rtol=1e-5)
    with pytest.raises(ValueError, match="blank_index"):
        tf.nn.ctc_loss(sp, logits, None, logit_len)


def test_padding_past_label_length_is_ignored():
    logits, labels, label_len, logit_len = _case(seed=6)
    other = labels.copy()
    other[1, 2] = (other[1, 2] % 4) + 1   # beyond label_length[1] = 2
    a = tf.nn.ctc_loss(labels, logits, label_len, logit_len).numpy()
    b = tf.nn.ctc_loss(other, logits, label_len, logit_len).numpy()
    np.testing.assert_array_equal(a, b)


def test_gradient_inside_function_equals_eager():
    logits, labels, label_len, logit_len = _case(seed=7)

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_mean(tf.nn.ctc_loss(labels, x, label_len, logit_len))
        return tape.gradient(loss, x)

    x = tf.constant(logits)
    np.testing.assert_allclose(tf.function(grad)(x).numpy(), grad(x).numpy(), rtol=1e-5, atol=1e-6)
