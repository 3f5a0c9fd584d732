"""Keras 3 layer weights: ``name`` is the weight's own name, ``path`` the layer path, the repr is
Keras's; function initializers (``kernel_initializer=tf.random.normal``) and Lambda layers save.
Run under fn and under TensorFlow's Keras 3."""
from __future__ import annotations

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle
keras = tf.keras


def test_layer_weight_name_path_and_repr():
    layer = keras.layers.Dense(2, name="dense_w", kernel_initializer="ones")
    layer(tf.constant([[1.0, 2.0, 3.0]]))
    assert [v.name for v in layer.trainable_variables] == ["kernel", "bias"]
    assert [v.path for v in layer.trainable_variables] == ["dense_w/kernel", "dense_w/bias"]
    assert repr(layer.bias) == "<Variable path=dense_w/bias, shape=(2,), dtype=float32, value=[0. 0.]>"
    assert str(layer.bias) == repr(layer.bias)
    assert repr(layer.kernel).startswith("<Variable path=dense_w/kernel, shape=(3, 2), dtype=float32, value=[[1.")
    assert tf.Variable(1.0).name == "Variable:0"     # outside Keras, TF's names


def test_gradients_pair_with_weight_names():
    layer = keras.layers.Dense(2, name="d2")
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape() as tape:
        y = layer(x)
    grads = tape.gradient(y, layer.trainable_variables)
    assert [f"{v.name}, shape: {g.shape}" for v, g in zip(layer.trainable_variables, grads)] == [
        "kernel, shape: (3, 2)", "bias, shape: (2,)"]


def test_function_initializer_and_lambda_layer_fit_and_save(tmp_path):
    x = tf.cast(tf.linspace(-2, 2, 64), tf.float32)
    y = x ** 2 + 2 * x - 5
    model = keras.Sequential([
        keras.layers.Lambda(lambda x: tf.stack([x, x ** 2], axis=1)),
        keras.layers.Dense(units=1, kernel_initializer=tf.random.normal)])
    model.compile(loss=keras.losses.MSE, optimizer=keras.optimizers.SGD(learning_rate=0.01))
    history = model.fit(x, y, epochs=3, batch_size=32, verbose=0)
    assert len(history.history["loss"]) == 3
    path = str(tmp_path / "m.keras")
    model.save(path)
    with pytest.raises(ValueError, match="Requested the deserialization of a `Lambda` layer"):
        keras.models.load_model(path)


def test_lambda_layer_round_trip_with_safe_mode_off(tmp_path):
    x = tf.cast(tf.linspace(-2, 2, 64), tf.float32)
    # Keras loads the lambda's code without the saving module's globals: it uses none here.
    model = keras.Sequential([keras.layers.Lambda(lambda x: x[:, None] * 2.0), keras.layers.Dense(units=1)])
    model.compile(loss=keras.losses.MSE, optimizer=keras.optimizers.SGD(learning_rate=0.01))
    model.fit(x, 2 * x, epochs=1, batch_size=32, verbose=0)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras.models.load_model(path, safe_mode=False)
    np.testing.assert_allclose(loaded(x[:4]).numpy(), model(x[:4]).numpy(), rtol=1e-6)
