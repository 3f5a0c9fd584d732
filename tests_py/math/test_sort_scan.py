"""tf.cumsum / tf.math.cumprod, tf.math.top_k, tf.sort / tf.argsort: values, dtypes, errors,
gradients and shape rules (each expectation checked under TensorFlow 2.21)."""
import numpy as np
import pytest

from _grad import check_grad, traced_shapes
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

X = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum_matches_numpy(exclusive, reverse, axis):
    got = tf.cumsum(tf.constant(X), axis=axis, exclusive=exclusive, reverse=reverse).numpy()
    x = np.flip(X, axis) if reverse else X
    want = np.cumsum(x, axis=axis)
    if exclusive:
        want = want - x
    if reverse:
        want = np.flip(want, axis)
    np.testing.assert_allclose(got, want)


def test_cumsum_literals_and_dtypes():
    r = tf.cumsum([1, 2, 3], exclusive=True, reverse=True)
    assert r.dtype == tf.int32
    assert r.numpy().tolist() == [5, 3, 0]
    assert tf.math.cumprod([1, 2, 3]).numpy().tolist() == [1, 2, 6]
    assert tf.math.cumprod([1., 2, 3], exclusive=True).numpy().tolist() == [1., 1., 2.]
    assert tf.math.cumsum(tf.constant([1, 2], tf.int64)).dtype == tf.int64


def test_cumsum_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected scan axis in the range \[-2, 2\), but got 2"):
        tf.cumsum([[1., 2], [3, 4]], axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of bool"):
        tf.cumsum([True])


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_gradients(exclusive, reverse):
    check_grad(lambda x: tf.cumsum(x, axis=1, exclusive=exclusive, reverse=reverse), X)
    check_grad(lambda x: tf.math.cumprod(x, axis=1, exclusive=exclusive, reverse=reverse), X)


def test_top_k_values_indices_and_ties():
    r = tf.math.top_k([1, 3, 2, 3], k=2)
    assert r.values.numpy().tolist() == [3, 3]
    assert r.indices.numpy().tolist() == [1, 3]
    assert r.indices.dtype == tf.int32
    values, indices = tf.math.top_k(tf.constant(X), k=2)
    np.testing.assert_allclose(values.numpy(), [[3.0, 1.5], [4.0, 0.5]])
    assert indices.numpy().tolist() == [[2, 0], [1, 0]]
    assert tf.nn.top_k([1., 3.]).values.numpy().tolist() == [3.]


def test_top_k_nan_is_largest():
    r = tf.math.top_k([[1., float("nan"), 3]], 2)
    assert np.isnan(r.values.numpy()[0, 0]) and r.values.numpy()[0, 1] == 3.0
    assert r.indices.numpy().tolist() == [[1, 2]]


def test_top_k_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="input must have at least k columns. Had 4, needed 5"):
        tf.math.top_k([1, 3, 2, 3], k=5)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input must be >= 1-D, got shape \[\]"):
        tf.math.top_k(3., k=1)


def test_top_k_gradient():
    check_grad(lambda x: tf.math.top_k(x, k=2).values, X)


def test_sort_and_argsort():
    assert tf.sort([3, 1, 2]).numpy().tolist() == [1, 2, 3]
    assert tf.sort([3, 1, 2], direction="DESCENDING").numpy().tolist() == [3, 2, 1]
    assert tf.argsort([3., 1, 2], direction="DESCENDING").numpy().tolist() == [0, 2, 1]
    # Stable: ties keep their order in both directions.
    assert tf.argsort([2, 1, 2, 1]).numpy().tolist() == [1, 3, 0, 2]
    assert tf.argsort([2, 1, 2, 1], direction="DESCENDING").numpy().tolist() == [0, 2, 1, 3]
    # The most negative int32 survives the ascending sort's negation.
    lo = np.iinfo(np.int32).min
    assert tf.sort(tf.constant([0, lo, 5])).numpy().tolist() == [lo, 0, 5]
    np.testing.assert_allclose(tf.sort(tf.constant(X), axis=0).numpy(), np.sort(X, axis=0))
    assert tf.argsort(tf.constant(X), axis=0).numpy().tolist() == np.argsort(X, axis=0, kind="stable").tolist()
    assert tf.argsort([3, 1]).dtype == tf.int32


def test_sort_bad_direction():
    with pytest.raises(ValueError, match="ASCENDING, DESCENDING"):
        tf.sort([1, 2], direction="UP")


def test_sort_gradient():
    check_grad(lambda x: tf.sort(x, axis=0), X)
    check_grad(lambda x: tf.sort(x, direction="DESCENDING"), X)


def test_shape_rules_on_partial_shapes():
    spec = tf.TensorSpec([None, 3], tf.float32)
    assert traced_shapes(lambda x: tf.cumsum(x, axis=1), spec) == [[None, 3]]
    assert traced_shapes(lambda x: tf.math.top_k(x, k=2), spec) == [[None, 2], [None, 2]]
    assert traced_shapes(lambda x: tf.sort(x), spec) == [[None, 3]]
    assert traced_shapes(lambda x: tf.argsort(x, axis=0), spec) == [[None, 3]]


def test_shape_rule_errors_in_functions():
    with pytest.raises(ValueError, match="must have last dimension >= k = 4"):
        traced_shapes(lambda x: tf.math.top_k(x, k=4), tf.TensorSpec([None, 3], tf.float32))


def test_traced_results():
    @tf.function
    def f(x):
        return tf.cumsum(x, reverse=True), tf.sort(x, direction="DESCENDING")

    a, b = f(tf.constant([1., 3., 2.]))
    assert a.numpy().tolist() == [6., 5., 2.]
    assert b.numpy().tolist() == [3., 2., 1.]
