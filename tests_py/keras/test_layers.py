"""tf.keras.layers (the real Keras 3 on fn): shapes, weights made on first call (or build), their
names and order, and the variable rules inside Functions. Run under TF 2.21 too (--against-tf)."""
from __future__ import annotations

import numpy as np
import pytest

from tfbackend import tf as fn

pytestmark = pytest.mark.tf_oracle

L = fn.keras.layers


def test_dense_creates_weights_on_first_call():
    d = L.Dense(3)
    assert not d.built and d.trainable_variables == []
    with pytest.raises(AttributeError, match="build the layer"):
        d.kernel
    y = d(np.ones((2, 4), np.float32))
    assert y.shape == (2, 3) and y.dtype == fn.float32
    assert d.built and [v.shape for v in d.trainable_variables] == [(4, 3), (3,)]
    assert [v.path for v in d.trainable_variables] == [f"{d.name}/kernel", f"{d.name}/bias"]
    np.testing.assert_array_equal(d.bias.numpy(), np.zeros(3))
    limit = np.sqrt(6 / (4 + 3))
    assert np.all(np.abs(d.kernel.numpy()) <= limit + 1e-6)      # float32 rounding of the bound
    np.testing.assert_allclose(y.numpy(), np.ones((2, 4)) @ d.kernel.numpy(), rtol=1e-5, atol=1e-6)
    assert d.count_params() == 15


def test_dense_options_and_rank3_inputs():
    d = L.Dense(2, activation="relu", use_bias=False, kernel_initializer="ones")
    y = d(fn.constant([[[1.0, -2.0], [3.0, 4.0]]]))
    assert y.shape == (1, 2, 2) and len(d.trainable_variables) == 1
    np.testing.assert_array_equal(y.numpy(), [[[0.0, 0.0], [7.0, 7.0]]])
    d = L.Dense(1, activation=fn.keras.activations.sigmoid, kernel_initializer=fn.keras.initializers.Zeros())
    assert float(d(fn.ones([1, 3]))[0, 0]) == 0.5
    assert L.Dense(1)(np.ones((1, 2), np.float64)).dtype == fn.float32     # inputs cast to the layer dtype
    with pytest.raises(ValueError, match="units"):
        L.Dense(0)


def test_layer_names_are_unique():
    a, b = L.Dense(1), L.Dense(1)
    assert a.name != b.name and a.name.startswith("dense") and b.name.startswith("dense")
    assert L.Dense(1, name="head").name == "head"
    assert L.Conv2D(2, 3).name.startswith("conv2d")


def test_conv2d_shapes_and_values():
    conv = L.Conv2D(4, 3)
    y = conv(fn.zeros([1, 10, 12, 2]))
    assert y.shape == (1, 8, 10, 4)
    assert [v.shape for v in conv.trainable_variables] == [(3, 3, 2, 4), (4,)]
    conv = L.Conv2D(2, (3, 1), strides=2, padding="same", kernel_initializer="ones", bias_initializer="ones")
    x = np.arange(2 * 5 * 5 * 1, dtype=np.float32).reshape(2, 5, 5, 1)
    y = conv(x)
    assert y.shape == (2, 3, 3, 2)
    # 'same' padding, stride 2, a 3x1 window of ones over column j: rows i-1..i+1 (zero padded), plus 1.
    xp = np.pad(x[..., 0], ((0, 0), (1, 1), (0, 0)))
    expected = np.stack([xp[:, r:r + 3, :].sum(axis=1) for r in range(0, 5, 2)], axis=1)[:, :, ::2] + 1
    np.testing.assert_allclose(y.numpy()[..., 0], expected)
    np.testing.assert_allclose(y.numpy()[..., 1], expected)
    with pytest.raises(ValueError, match="expected min_ndim=4, found ndim=2"):
        L.Conv2D(1, 3)(fn.zeros([3, 3]))


def test_guide_1_4_conv_layer_in_a_function():
    conv_layer = L.Conv2D(100, 3)

    @fn.function
    def conv_fn(image):
        return conv_layer(image)
    image = fn.zeros([1, 20, 20, 100])
    eager = conv_layer(image)
    traced = conv_fn(image)
    assert eager.shape == traced.shape == (1, 18, 18, 100)
    np.testing.assert_allclose(eager.numpy(), traced.numpy())
    assert conv_fn.experimental_get_tracing_count() == 1


def test_layer_built_inside_a_function_then_reused():
    d = L.Dense(2)

    @fn.function
    def f(x):
        return d(x)
    y = f(fn.ones([1, 3]))                      # weights made on the first trace
    assert y.shape == (1, 2) and len(d.trainable_variables) == 2
    np.testing.assert_allclose(y.numpy(), d(fn.ones([1, 3])).numpy(), rtol=1e-6)
    other = L.Dense(2)

    @fn.function
    def g(layer, x):
        return layer(x)
    g(d, fn.ones([1, 3]))
    with pytest.raises(ValueError, match="Creating variables on a non-first call"):
        g(other, fn.ones([1, 3]))               # the guide: build models before the Function
    third = L.Dense(2)
    third.build([None, 3])
    assert g(third, fn.ones([1, 3])).shape == (1, 2)


def test_build_and_sequential():
    d = L.Dense(5)
    d.build((None, 7))
    assert d.built and d.kernel.shape == (7, 5)
    model = fn.keras.Sequential([L.Conv2D(3, 3, activation="relu"), L.MaxPooling2D(), L.Flatten(), L.Dense(2)])
    y = model(fn.ones([4, 8, 8, 1]))
    assert y.shape == (4, 2)
    assert [tuple(v.shape) for v in model.trainable_variables] == [(3, 3, 1, 3), (3,), (27, 2), (2,)]
    model.set_weights([np.zeros(v.shape, np.float32) for v in model.weights])
    np.testing.assert_array_equal(model(fn.ones([1, 8, 8, 1])).numpy(), [[0.0, 0.0]])


def test_custom_layer_tracks_sublayers_in_order():
    class Block(L.Layer):
        def __init__(self):
            super().__init__()
            self.second = L.Dense(2, name="b")
            self.first = L.Dense(3, name="a")
            self.scale = self.add_weight(name="scale", shape=[], initializer="ones")

        def call(self, x):
            return self.second(self.first(x)) * self.scale

    block = Block()
    assert block(fn.ones([1, 4])).shape == (1, 2)
    assert [v.path for v in block.trainable_variables] == [
        f"{block.name}/scale", f"{block.name}/b/kernel", f"{block.name}/b/bias", f"{block.name}/a/kernel",
        f"{block.name}/a/bias"]
    block.first.trainable = False
    assert len(block.trainable_variables) == 3 and len(block.non_trainable_variables) == 2
    with pytest.raises(ValueError, match="name.*keyword"):
        block.add_weight("other", [])       # Keras 3: weights are named by keyword


def test_activations_and_initializers():
    x = fn.constant([-1.0, 0.0, 2.0])
    A = fn.keras.activations
    np.testing.assert_allclose(A.get("relu")(x).numpy(), [0, 0, 2])
    np.testing.assert_allclose(A.get(None)(x).numpy(), [-1, 0, 2])
    np.testing.assert_allclose(A.sigmoid(x).numpy(), 1 / (1 + np.exp([1.0, 0.0, -2.0])), rtol=1e-6)
    np.testing.assert_allclose(A.softmax(fn.constant([[1.0, 1.0]])).numpy(), [[0.5, 0.5]])
    with pytest.raises(ValueError):
        A.get("nope")
    I = fn.keras.initializers
    a = I.GlorotUniform(seed=1)((100, 50))
    assert np.abs(a).max() <= np.sqrt(6 / 150) and a.dtype == np.float32
    np.testing.assert_array_equal(a, I.GlorotUniform(seed=1)((100, 50)))
    assert I.get("zeros")((2,)).numpy().tolist() == [0, 0]
    assert abs(np.std(I.HeNormal(seed=0)((400, 400))) - np.sqrt(2 / 400)) < 0.005
    fn.keras.utils.set_random_seed(5)
    k1 = L.Dense(3)(fn.ones([1, 2]))
    fn.keras.utils.set_random_seed(5)
    k2 = L.Dense(3)(fn.ones([1, 2]))
    fn.random.set_seed(None)
    np.testing.assert_array_equal(k1.numpy(), k2.numpy())
