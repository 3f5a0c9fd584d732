"""tf.linalg.inv/det/solve, tf.math.erf/atan2/segment_sum, tf.einsum."""
import math

import numpy as np
import pytest

from _grad import check_grad, traced_shapes
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

R = np.random.default_rng(3)
A = R.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)
BATCH = R.uniform(-1, 1, (2, 3, 3)) + 3 * np.eye(3)
RHS = R.uniform(-1, 1, (3, 2))


def test_inv_det_solve_values():
    np.testing.assert_allclose(tf.linalg.inv(tf.constant(A)).numpy(), np.linalg.inv(A), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.inv(tf.constant(BATCH)).numpy(), np.linalg.inv(BATCH), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.inv(tf.constant(A), adjoint=True).numpy(), np.linalg.inv(A.T), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.det(tf.constant(BATCH)).numpy(), np.linalg.det(BATCH), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.solve(tf.constant(A), tf.constant(RHS)).numpy(), np.linalg.solve(A, RHS),
                               rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.solve(tf.constant(A), tf.constant(RHS), adjoint=True).numpy(),
                               np.linalg.solve(A.T, RHS), rtol=1e-10)
    d = tf.linalg.det([[1., 2], [3, 4]])
    assert d.dtype == tf.float32 and d.shape == () and d.numpy() == pytest.approx(-2.0)
    assert tf.linalg.det([[1., 2], [2, 4]]).numpy() == 0.0
    np.testing.assert_allclose(tf.linalg.solve([[1., 2], [3, 4]], [[1.], [2]]).numpy(), [[0.], [0.5]], atol=1e-6)


def test_linalg_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible."):
        tf.linalg.inv([[1., 2], [2, 4]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square."):
        tf.linalg.inv([[1., 2, 3], [2, 4, 5]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input tensor 0 must have rank >= 2, got 1"):
        tf.linalg.inv([1., 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.linalg.inv([[1, 2], [3, 4]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square."):
        tf.linalg.det([[1., 2, 3], [2, 4, 5]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix is not invertible."):
        tf.linalg.solve([[1., 2], [2, 4]], [[1.], [2]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix and rhs are incompatible."):
        tf.linalg.solve([[1., 2], [2, 3]], [[1.], [2], [3]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="All input tensors must have the same rank."):
        tf.linalg.solve([[1., 2], [2, 3]], [1., 2])
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        traced_shapes(tf.linalg.inv, tf.TensorSpec([None, 2, 3], tf.float32))


def test_linalg_gradients():
    check_grad(tf.linalg.inv, A)
    check_grad(lambda a: tf.linalg.inv(a, adjoint=True), A)
    check_grad(tf.linalg.det, BATCH)
    check_grad(tf.linalg.solve, A, RHS)
    check_grad(lambda a, b: tf.linalg.solve(a, b, adjoint=True), A, RHS)


def test_linalg_shape_rules():
    spec = tf.TensorSpec([None, 3, 3], tf.float32)
    assert traced_shapes(tf.linalg.inv, spec) == [[None, 3, 3]]
    assert traced_shapes(tf.linalg.det, spec) == [[None]]
    rhs = tf.TensorSpec([None, 3, 5], tf.float32)
    assert traced_shapes(tf.linalg.solve, spec, rhs) == [[None, 3, 5]]


def test_erf_atan2():
    x = np.array([-1.5, -0.2, 0.0, 0.5, 2.0])
    np.testing.assert_allclose(tf.math.erf(tf.constant(x)).numpy(), [math.erf(v) for v in x], rtol=1e-12)
    np.testing.assert_allclose(tf.math.erf([0.5]).numpy(), [0.5204999], rtol=1e-6)
    y = np.array([1.0, -1.0, 0.5, -2.0, 0.0])
    np.testing.assert_allclose(tf.math.atan2(tf.constant(y), tf.constant(x)).numpy(), np.arctan2(y, x))
    assert tf.atan2([1.], [2.]).numpy() == pytest.approx([0.4636476])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.math.erf([1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.math.atan2([1], [2])
    check_grad(tf.math.erf, x)
    check_grad(tf.math.atan2, y[:4].reshape(2, 2), np.array([0.7, -1.3]))


def test_segment_sum():
    r = tf.math.segment_sum([1, 2, 3], [0, 0, 2])
    assert r.dtype == tf.int32 and r.numpy().tolist() == [3, 0, 3]
    m = tf.math.segment_sum(tf.constant([[1., 2], [3, 4], [5, 6]]), [0, 1, 1])
    assert m.numpy().tolist() == [[1., 2.], [8., 10.]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment ids are not increasing"):
        tf.math.segment_sum([1, 2, 3], [1, 0, 2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="segment_ids should be the same size as dimension 0 of input."):
        tf.math.segment_sum([1, 2, 3], [0, 0])
    check_grad(lambda d: tf.math.segment_sum(d, [0, 0, 2]), R.uniform(-1, 1, (3, 2)))
    assert traced_shapes(lambda d: tf.math.segment_sum(d, [0, 0, 1]), tf.TensorSpec([3, 4], tf.float32)) == \
        [[None, 4]]


EINSUMS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("i,i", [(3,), (3,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ij,ij->i", [(2, 3), (2, 3)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
def test_einsum_against_numpy(eq, shapes):
    xs = [R.uniform(-1, 1, s) for s in shapes]
    got = tf.einsum(eq, *[tf.constant(x) for x in xs])
    np.testing.assert_allclose(got.numpy(), np.einsum(eq, *xs), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("eq,shapes", EINSUMS[:4] + EINSUMS[6:7] + EINSUMS[10:13])
def test_einsum_gradients(eq, shapes):
    xs = [R.uniform(-1, 1, s) for s in shapes]
    check_grad(lambda *a: tf.einsum(eq, *a), *xs)


def test_einsum_shape_rules_and_errors():
    a = tf.TensorSpec([None, 3, 4], tf.float32)
    b = tf.TensorSpec([None, 4, 5], tf.float32)
    assert traced_shapes(lambda x, y: tf.einsum("bij,bjk->bik", x, y), a, b) == [[None, 3, 5]]
    with pytest.raises(ValueError):
        tf.einsum("ij,jk->ik", tf.ones([2, 3]))
