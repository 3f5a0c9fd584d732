"""Keras 3 models in ``tf.train.Checkpoint`` (the distributed custom-training tutorial's
pattern): the checkpoint's paths are TensorFlow's, and a model that is not built yet when the
checkpoint is restored gets its values when it builds (deferred restoration), also when it
builds inside a ``tf.function``. Run under fn and under TensorFlow's Keras 3."""
from __future__ import annotations

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle
keras = tf.keras


def convnet():
    # No input shape: the Sequential builds on its first call and puts an InputLayer first.
    return keras.Sequential([keras.layers.Conv2D(4, 3, activation="relu"), keras.layers.MaxPooling2D(),
                             keras.layers.Flatten(), keras.layers.Dense(5, activation="relu"),
                             keras.layers.Dense(3)])


X = np.random.default_rng(0).normal(size=(2, 8, 8, 1)).astype(np.float32)


def saved(tmp_path):
    model = convnet()
    want = model(X).numpy()
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "ck"))
    return path, want


def test_checkpoint_paths_of_a_sequential_are_tensorflows(tmp_path):
    path, _ = saved(tmp_path)
    got = sorted((k, tuple(s)) for k, s in tf.train.list_variables(path) if k.startswith("model/"))
    # TF tracks the model's functional graph; Keras' own list of layers is not a dependency.
    assert got == [
        ("model/_functional/_operations/1/_kernel/.ATTRIBUTES/VARIABLE_VALUE", (3, 3, 1, 4)),
        ("model/_functional/_operations/1/bias/.ATTRIBUTES/VARIABLE_VALUE", (4,)),
        ("model/_functional/_operations/4/_kernel/.ATTRIBUTES/VARIABLE_VALUE", (36, 5)),
        ("model/_functional/_operations/4/bias/.ATTRIBUTES/VARIABLE_VALUE", (5,)),
        ("model/_functional/_operations/5/_kernel/.ATTRIBUTES/VARIABLE_VALUE", (5, 3)),
        ("model/_functional/_operations/5/bias/.ATTRIBUTES/VARIABLE_VALUE", (3,)),
    ]


def test_an_unbuilt_model_restores_when_it_builds_eagerly(tmp_path):
    path, want = saved(tmp_path)
    fresh = convnet()
    tf.train.Checkpoint(model=fresh).restore(path)
    np.testing.assert_allclose(fresh(X).numpy(), want, rtol=1e-6)


def test_an_unbuilt_model_restores_when_it_builds_inside_a_function(tmp_path):
    path, want = saved(tmp_path)
    fresh = convnet()
    tf.train.Checkpoint(model=fresh, optimizer=keras.optimizers.Adam()).restore(path)

    @tf.function
    def predict(x):
        return fresh(x, training=False)

    np.testing.assert_allclose(predict(X).numpy(), want, rtol=1e-6)


def test_a_plain_list_attribute_is_still_a_dependency(tmp_path):
    # Plain lists and dicts assigned to a tf.Module / AutoTrackable stay tracked (TF wraps them).
    module = tf.Module()
    module.layers = [tf.Variable([1.0, 2.0])]
    module.table = {"w": tf.Variable(3.0)}
    path = tf.train.Checkpoint(m=module).save(str(tmp_path / "ck"))
    keys = sorted(k for k, _ in tf.train.list_variables(path) if k.startswith("m/"))
    assert keys == ["m/layers/0/.ATTRIBUTES/VARIABLE_VALUE", "m/table/w/.ATTRIBUTES/VARIABLE_VALUE"]
