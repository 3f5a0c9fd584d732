"""Keras 3 ``compile(steps_per_execution=N)``: fit/evaluate/predict run N steps per call of one
Function (a ``while_loop`` over ``get_next_as_optional``) and give what N=1 gives, run under fn and
under TensorFlow's Keras 3."""
from __future__ import annotations

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle
keras = tf.keras

rng = np.random.default_rng(3)
X = rng.normal(size=(100, 4)).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32) + 0.3).astype(np.float32)
W0 = [rng.normal(size=(4, 8)).astype(np.float32) * 0.5, np.zeros(8, np.float32),
      rng.normal(size=(8, 1)).astype(np.float32) * 0.5, np.zeros(1, np.float32)]


def _model(steps_per_execution):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
    model.set_weights(W0)
    model.compile(keras.optimizers.Adam(0.01), "mse", metrics=["mae"], steps_per_execution=steps_per_execution)
    return model


def _run(steps_per_execution, data):
    model = _model(steps_per_execution)
    history = model.fit(data() if callable(data) else X, None if callable(data) else Y, batch_size=8, epochs=2,
                        shuffle=False, verbose=0)
    evaluation = model.evaluate(X, Y, batch_size=8, verbose=0, return_dict=True)
    prediction = model.predict(X, batch_size=8, verbose=0)
    return model, history.history, evaluation, prediction


@pytest.mark.parametrize("steps_per_execution", [2, 5, 13, 40])
@pytest.mark.parametrize("source", ["arrays", "dataset"])
def test_n_steps_per_execution_train_as_one(steps_per_execution, source):
    # 100 samples in batches of 8: 13 steps per epoch, the last batch partial; 5 leaves a partial
    # execution (5 + 5 + 3), 40 runs the whole epoch in one execution.
    data = (lambda: tf.data.Dataset.from_tensor_slices((X, Y)).batch(8)) if source == "dataset" else None
    m1, h1, e1, p1 = _run(1, data)
    mn, hn, en, pn = _run(steps_per_execution, data)
    assert int(mn.optimizer.iterations.numpy()) == int(m1.optimizer.iterations.numpy()) == 26
    for a, b in zip(mn.get_weights(), m1.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for key in ("loss", "mae"):
        np.testing.assert_allclose(hn[key], h1[key], rtol=1e-5)
        np.testing.assert_allclose(en[key], e1[key], rtol=1e-5)
    assert pn.shape == p1.shape == (100, 1)
    np.testing.assert_allclose(pn, p1, rtol=1e-5, atol=1e-6)

