"""tf.clip_by_value, tf.clip_by_norm, tf.clip_by_global_norm, tf.linalg.global_norm, tf.norm."""
import numpy as np
import pytest

from _grad import check_grad, traced_shapes
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

M = np.array([[1.0, -2.0], [3.0, 4.0]])


def test_clip_by_value():
    r = tf.clip_by_value([1, 5, 9], 2, 6)
    assert r.dtype == tf.int32 and r.numpy().tolist() == [2, 5, 6]
    assert tf.clip_by_value([1, 5, 9], [2, 2, 2], 6).numpy().tolist() == [2, 5, 6]
    with pytest.raises(ValueError, match="incompatible"):
        tf.clip_by_value([1, 5], [[2, 2], [3, 3]], 6)
    check_grad(lambda x: tf.clip_by_value(x, -1.5, 3.5), M)


def test_clip_by_norm():
    np.testing.assert_allclose(tf.clip_by_norm([3., 4], 1.).numpy(), [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(tf.clip_by_norm([[3., 4], [0, 0]], 1., axes=[1]).numpy(), [[0.6, 0.8], [0, 0]],
                               rtol=1e-6)
    assert tf.clip_by_norm([0., 0], 1.).numpy().tolist() == [0., 0.]
    assert tf.clip_by_norm([0.3, 0.4], 1.).numpy().tolist() == pytest.approx([0.3, 0.4])
    check_grad(lambda x: tf.clip_by_norm(x, 2.0), M)
    check_grad(lambda x: tf.clip_by_norm(x, 2.0, axes=[0]), M)


def test_global_norm_and_clip_by_global_norm():
    g = tf.linalg.global_norm([tf.constant([3., 4]), tf.constant([12.])])
    assert g.numpy() == pytest.approx(13.0)
    clipped, norm = tf.clip_by_global_norm([tf.constant([3., 4]), None], 10.)
    assert clipped[1] is None and norm.numpy() == pytest.approx(5.0)
    assert clipped[0].numpy().tolist() == pytest.approx([3., 4.])
    clipped, norm = tf.clip_by_global_norm([tf.constant([3., 4]), tf.constant([12.])], 1.3)
    np.testing.assert_allclose(clipped[0].numpy(), [0.3, 0.4], rtol=1e-6)
    np.testing.assert_allclose(clipped[1].numpy(), [1.2], rtol=1e-6)
    inf, _ = tf.clip_by_global_norm([tf.constant([np.inf, 1.])], 1.)
    assert np.isnan(inf[0].numpy()).all()
    with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
        tf.clip_by_global_norm(tf.constant([3., 4]), 1.)
    check_grad(lambda a, b: tf.clip_by_global_norm([a, b], 2.0)[0][0], M, np.array([0.5, -1.5]))


def test_norm():
    assert tf.norm([3., 4]).numpy() == pytest.approx(5.0)
    assert tf.norm(tf.constant(M), ord=1).numpy() == pytest.approx(10.0)
    np.testing.assert_allclose(tf.norm(tf.constant(M), ord=np.inf, axis=1).numpy(), [2., 4.])
    assert tf.norm(tf.constant(M), ord=1, axis=[0, 1]).numpy() == pytest.approx(6.0)
    assert tf.norm(tf.constant(M), ord=np.inf, axis=[0, 1]).numpy() == pytest.approx(7.0)
    fro = tf.norm(tf.constant(M), ord="fro", axis=[0, 1], keepdims=True)
    assert fro.shape == (1, 1) and fro.numpy()[0, 0] == pytest.approx(np.sqrt(30))
    np.testing.assert_allclose(tf.norm(tf.constant(M), ord=3, axis=0).numpy(), np.sum(np.abs(M) ** 3, 0) ** (1 / 3))
    assert tf.linalg.norm(tf.constant(M)).numpy() == pytest.approx(np.sqrt(30))
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got fro"):
        tf.norm(tf.constant(M), ord="fro")
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got -1"):
        tf.norm(tf.constant(M), ord=-1)
    with pytest.raises(ValueError, match=r"a tuple of 2 unique integers, got \(0, 0\)"):
        tf.norm(tf.constant(M), axis=[0, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.norm([1, 2])
    check_grad(lambda x: tf.norm(x, axis=1), M)
    check_grad(lambda x: tf.norm(x, ord=1), M)
    check_grad(lambda x: tf.norm(x, ord=3, axis=0), M)


def test_shape_rules():
    spec = tf.TensorSpec([None, 3], tf.float32)
    assert traced_shapes(lambda x: tf.clip_by_value(x, 0., 1.), spec) == [[None, 3]]
    assert traced_shapes(lambda x: tf.clip_by_norm(x, 1.0, axes=[1]), spec) == [[None, 3]]
    assert traced_shapes(lambda x: tf.norm(x, axis=1), spec) == [[None]]
    assert traced_shapes(lambda x: tf.norm(x), spec) == [[]]
