"""Gradients of the new ops taken inside a Function (the ops' gradient rules while tracing)
equal the eager ones; unknown batch dims in the signature."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

R = np.random.default_rng(11)
X = R.uniform(-1, 1, (3, 4)).astype(np.float32)
SQ = (R.uniform(-1, 1, (2, 3, 3)) + 3 * np.eye(3)).astype(np.float32)

CASES = [
    ("cumsum", lambda x: tf.cumsum(x, axis=1, exclusive=True), X),
    ("cumprod", lambda x: tf.math.cumprod(x, axis=1, reverse=True), X),
    ("top_k", lambda x: tf.math.top_k(x, 2).values, X),
    ("sort", lambda x: tf.sort(x, axis=-1), X),
    ("reverse", lambda x: tf.reverse(x, [1]), X),
    ("roll", lambda x: tf.roll(x, 1, 1), X),
    ("broadcast_to", lambda x: tf.broadcast_to(x[:1], tf.shape(x)), X),
    ("einsum", lambda x: tf.einsum("ij,kj->ik", x, x), X),
    ("sparse_xent", lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(tf.zeros(tf.shape(x)[:1], tf.int32), x), X),
    ("xent", lambda x: tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(x * 2.0), x), X),
    ("gelu", tf.nn.gelu, X),
    ("l2_normalize", lambda x: tf.nn.l2_normalize(x, 1), X),
    ("clip_by_norm", lambda x: tf.clip_by_norm(x, 0.5, axes=[1]), X),
    ("boolean_mask", lambda x: tf.boolean_mask(x, x > 0), X),
    ("scatter_update", lambda x: tf.tensor_scatter_nd_update(x, [[0]], x[1:2] * 3.0), X),
    ("inv", tf.linalg.inv, SQ),
    ("det", tf.linalg.det, SQ),
    ("erf", tf.math.erf, X),
    ("atan2", lambda x: tf.math.atan2(x, x + 2.0), X),
]


@pytest.mark.parametrize("name,f,x", CASES, ids=[c[0] for c in CASES])
def test_gradient_in_function_matches_eager(name, f, x):
    def grad(v):
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = f(v)
        return tape.gradient(y, v)

    spec = tf.TensorSpec([None] + list(x.shape[1:]), tf.float32)
    traced = tf.function(grad, input_signature=[spec])
    eager = grad(tf.constant(x))
    np.testing.assert_allclose(traced(tf.constant(x)).numpy(), eager.numpy(), rtol=2e-5, atol=1e-6)
