"""Keras 3 training API (compile/fit/evaluate/predict, callbacks, History, weights files,
summary), run under fn and under TensorFlow's Keras 3."""
from __future__ import annotations

import io
import re
import contextlib
import os

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle
keras = tf.keras

rng = np.random.default_rng(0)
X = rng.normal(size=(96, 4)).astype(np.float32)
Y_CLASS = (X.sum(1) > 0).astype(np.int64)
Y_REG = (X @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32) + 0.3).astype(np.float32)
W0 = [rng.normal(size=(4, 8)).astype(np.float32) * 0.5, np.zeros(8, np.float32),
      rng.normal(size=(8, 2)).astype(np.float32) * 0.5, np.zeros(2, np.float32)]


def classifier(optimizer=None):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(2)])
    model.set_weights(W0)
    model.compile(optimizer or keras.optimizers.SGD(0.1),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def test_fit_reaches_keras_loss_with_the_same_weights_and_data():
    model = classifier()
    history = model.fit(X, Y_CLASS, batch_size=16, epochs=3, shuffle=False, verbose=0)
    assert sorted(history.history) == ["accuracy", "loss"]
    assert history.epoch == [0, 1, 2]
    np.testing.assert_allclose(history.history["loss"], [0.992548, 0.502712, 0.356003], rtol=2e-4)
    np.testing.assert_allclose(history.history["accuracy"], [0.302083, 0.8125, 0.916667], rtol=1e-4)
    loss, acc = model.evaluate(X, Y_CLASS, verbose=0)
    np.testing.assert_allclose([loss, acc], [0.304149, 0.9375], rtol=2e-4)


def test_adam_regression_matches_keras():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.set_weights([W0[0][:, :1], np.zeros(1, np.float32)])
    model.compile(keras.optimizers.Adam(0.05), "mse", metrics=["mae"])
    history = model.fit(X, Y_REG, batch_size=32, epochs=4, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [4.555413, 3.613844, 2.83685, 2.193242], rtol=2e-4)
    assert sorted(history.history) == ["loss", "mae"]


def test_validation_data_adds_val_logs():
    model = classifier()
    history = model.fit(X, Y_CLASS, batch_size=32, epochs=2, shuffle=False, verbose=0,
                        validation_data=(X[:40], Y_CLASS[:40]))
    assert sorted(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    ev = model.evaluate(X[:40], Y_CLASS[:40], verbose=0, return_dict=True)
    np.testing.assert_allclose(history.history["val_loss"][-1], ev["loss"], rtol=1e-5)
    assert sorted(ev) == ["accuracy", "loss"]


def test_predict_and_evaluate_shapes():
    model = classifier()
    out = model.predict(X[:37], batch_size=8, verbose=0)
    assert isinstance(out, np.ndarray) and out.shape == (37, 2)
    np.testing.assert_allclose(out, model(X[:37]).numpy(), rtol=1e-5, atol=1e-6)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    assert isinstance(model.evaluate(X, Y_REG, verbose=0), float)


def test_progress_bar_lines():
    model = classifier()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.fit(X, Y_CLASS, batch_size=32, epochs=2, shuffle=False, verbose=2)
    lines = buf.getvalue().splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    assert lines[1].startswith("3/3 - ") and "/step - accuracy: " in lines[1] and " - loss: " in lines[1]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.fit(X, Y_CLASS, batch_size=32, epochs=1, verbose=1)
    text = re.sub(r"\x1b\[[0-9;]*m", "", buf.getvalue())
    assert "Epoch" not in text and "3/3 " in text and "━" in text and "- loss:" in text
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.fit(X, Y_CLASS, batch_size=32, epochs=1, verbose=0)
    assert buf.getvalue() == ""


def test_early_stopping_and_lambda_callback():
    model = classifier(keras.optimizers.SGD(0.0))   # never improves
    seen = []
    cb = keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append((epoch, sorted(logs))))
    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=2)
    history = model.fit(X, Y_CLASS, epochs=10, verbose=0, callbacks=[stop, cb], shuffle=False)
    assert len(history.epoch) == 3 and stop.stopped_epoch == 2
    assert seen == [(i, ["accuracy", "loss"]) for i in range(3)]
    assert model.stop_training


def test_model_checkpoint_best_only(tmp_path):
    model = classifier()
    path = str(tmp_path / "best.weights.h5")
    cb = keras.callbacks.ModelCheckpoint(path, monitor="loss", save_best_only=True, save_weights_only=True)
    model.fit(X, Y_CLASS, epochs=2, verbose=0, callbacks=[cb])
    assert os.path.exists(path)
    fresh = classifier()
    fresh.load_weights(path)
    for a, b in zip(fresh.get_weights(), model.get_weights()):
        np.testing.assert_allclose(a, b)
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "x.h5"), save_weights_only=True)


def test_save_and_load_weights(tmp_path):
    model = classifier()
    model.fit(X, Y_CLASS, epochs=1, verbose=0)
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    fresh = classifier()
    fresh.load_weights(path)
    np.testing.assert_allclose(fresh.predict(X, verbose=0), model.predict(X, verbose=0), rtol=1e-6)
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`"):
        model.save_weights(str(tmp_path / "m.h5"))


def test_subclassed_model_with_dropout_and_training_flag():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(8, activation="relu")
            self.drop = keras.layers.Dropout(0.5)
            self.out = keras.layers.Dense(2)

        def call(self, x, training=False):
            return self.out(self.drop(self.hidden(x), training=training))

    keras.utils.set_random_seed(0)  # dropout masks: the loss curve must not depend on test order
    net = Net()
    y1 = net(X[:5]).numpy()
    np.testing.assert_allclose(net(X[:5], training=False).numpy(), y1)
    assert len(net.trainable_weights) == 4
    net.compile(keras.optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = net.fit(X, Y_CLASS, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_functional_model_with_merges():
    a = keras.Input((4,), name="a")
    b = keras.Input((4,), name="b")
    h = keras.layers.Dense(6)(a)
    k = keras.layers.Dense(6)(b)
    s = keras.layers.Add()([h, k])
    c = keras.layers.Concatenate()([s, a])
    out = keras.layers.Dense(1)(keras.layers.LayerNormalization()(c))
    model = keras.Model(inputs=[a, b], outputs=out)
    assert tuple(out.shape) == (None, 1)
    assert model.count_params() == 30 + 30 + 20 + 11
    assert model([X[:3], X[3:6]]).shape == (3, 1)
    model.compile("adam", "mse")
    model.fit([X, X[::-1]], Y_REG, epochs=1, verbose=0)
    assert model.predict([X, X], verbose=0).shape == (96, 1)


def test_layer_numerics():
    x = np.array([[1.0, 2.0, 4.0], [0.0, -1.0, 1.0]], np.float32)
    ln = keras.layers.LayerNormalization()
    np.testing.assert_allclose(ln(x).numpy(), [[-1.068701, -0.267175, 1.335877], [0.0, -1.223827, 1.223827]],
                               atol=1e-5)
    bn = keras.layers.BatchNormalization()
    np.testing.assert_allclose(bn(x, training=True).numpy(), [[0.998006, 0.999778, 0.999778],
                                                               [-0.998006, -0.999778, -0.999778]], atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.005, 0.005, 0.025], atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), [0.9925, 1.0125, 1.0125], atol=1e-6)
    np.testing.assert_allclose(bn(x).numpy(), [[0.99825, 1.981668, 3.948437], [-0.005016, -0.998284, 0.968485]],
                               atol=1e-5)
    np.testing.assert_allclose(keras.layers.Dropout(0.5)(x).numpy(), x)
    emb = keras.layers.Embedding(10, 3)
    assert emb(np.array([[1, 2], [3, 4]])).shape == (2, 2, 3)
    gap = keras.layers.GlobalAveragePooling2D()
    np.testing.assert_allclose(gap(np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)).numpy(),
                               [[10.0, 11.0, 12.0, 13.0]])
    lam = keras.layers.Lambda(lambda t: t * 2.0)
    np.testing.assert_allclose(lam(x).numpy(), 2 * x)


def test_multi_head_attention_shapes_and_params():
    mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    q = rng.normal(size=(3, 5, 8)).astype(np.float32)
    v = rng.normal(size=(3, 7, 8)).astype(np.float32)
    out, scores = mha(q, v, return_attention_scores=True)
    assert out.shape == (3, 5, 8) and scores.shape == (3, 2, 5, 7)
    np.testing.assert_allclose(np.asarray(scores).sum(-1), np.ones((3, 2, 5)), rtol=1e-5)
    assert mha.count_params() == 3 * (8 * 8 + 8) + (8 * 8 + 8)


def test_summary_table():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, name="hidden"),
                              keras.layers.Dense(2, name="logits")], name="net")
    lines = []
    model.summary(print_fn=lambda line, *a, **k: lines.extend(line.splitlines()))
    text = "\n".join(lines)
    assert 'Model: "net"' in text
    assert "│ hidden (Dense)                  │ (None, 8)              │            40 │" in text
    assert "│ logits (Dense)                  │ (None, 2)              │            18 │" in text
    assert " Total params: 58 (232.00 B)" in text
    assert " Trainable params: 58 (232.00 B)" in text


def test_metric_classes():
    m = keras.metrics.Mean()
    m.update_state([1.0, 2.0, 3.0])
    m.update_state(5.0, sample_weight=3.0)
    np.testing.assert_allclose(float(m.result()), (6 + 15) / 6)
    m.reset_state()
    assert float(m.result()) == 0.0
    acc = keras.metrics.SparseCategoricalAccuracy()
    acc.update_state([1, 0, 1], [[0.1, 0.9], [0.8, 0.2], [0.7, 0.3]])
    np.testing.assert_allclose(float(acc.result()), 2 / 3, rtol=1e-6)
    cce = keras.losses.CategoricalCrossentropy()
    np.testing.assert_allclose(float(cce([[0.0, 1.0]], [[0.2, 0.8]])), -np.log(0.8), rtol=1e-5)
    mse = keras.losses.MeanSquaredError()
    np.testing.assert_allclose(float(mse([[1.0, 2.0]], [[2.0, 4.0]])), 2.5)


def test_multi_head_attention_takes_keras_weights():
    mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)
    q = rng.normal(size=(2, 4, 5)).astype(np.float32)
    v = rng.normal(size=(2, 6, 5)).astype(np.float32)
    mha(q, v)
    shapes = [tuple(w.shape) for w in mha.weights]
    assert shapes == [(5, 2, 3), (2, 3), (5, 2, 3), (2, 3), (5, 2, 3), (2, 3), (2, 3, 5), (5,)]
    wrng = np.random.default_rng(7)
    weights = [wrng.normal(size=s).astype(np.float32) for s in shapes]
    mha.set_weights(weights)
    qk, qb, kk, kb, vk, vb, ok, ob = weights
    Q = np.einsum("btd,dhk->bthk", q, qk) + qb
    K = np.einsum("btd,dhk->bthk", v, kk) + kb
    V = np.einsum("btd,dhk->bthk", v, vk) + vb
    s = np.einsum("bqhk,bthk->bhqt", Q / np.sqrt(3.0), K)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    want = np.einsum("bhqt,bthk,hkd->bqd", p, V, ok) + ob
    np.testing.assert_allclose(np.asarray(mha(q, v)), want, rtol=1e-4, atol=1e-5)


def test_fit_on_a_dataset_and_validation_split():
    model = classifier()
    ds = tf.data.Dataset.from_tensor_slices((X, Y_CLASS)).batch(16)
    history = model.fit(ds, epochs=3, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [0.992548, 0.502712, 0.356003], rtol=2e-4)
    np.testing.assert_allclose(model.evaluate(ds, verbose=0, return_dict=True)["accuracy"], 0.9375, rtol=1e-5)
    model = classifier()
    history = model.fit(X, Y_CLASS, epochs=1, batch_size=16, validation_split=0.25, shuffle=False, verbose=0)
    assert sorted(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    ev = model.evaluate(X[72:], Y_CLASS[72:], verbose=0, return_dict=True)
    np.testing.assert_allclose(history.history["val_loss"][0], ev["loss"], rtol=1e-5)


def test_class_weight_scales_the_loss():
    plain, weighted = classifier(), classifier()
    h1 = plain.fit(X, Y_CLASS, batch_size=96, epochs=1, shuffle=False, verbose=0)
    h2 = weighted.fit(X, Y_CLASS, batch_size=96, epochs=1, shuffle=False, verbose=0, class_weight={0: 3.0, 1: 1.0})
    logits = classifier().predict(X, verbose=0)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    per = -logp[np.arange(len(X)), Y_CLASS]
    w = np.where(Y_CLASS == 0, 3.0, 1.0)
    np.testing.assert_allclose(h1.history["loss"][0], per.mean(), rtol=1e-5)
    np.testing.assert_allclose(h2.history["loss"][0], (per * w).mean(), rtol=1e-5)


def test_model_save_and_load_model(tmp_path):
    model = classifier(keras.optimizers.Adam(0.01))
    model.fit(X, Y_CLASS, epochs=1, batch_size=32, shuffle=False, verbose=0)
    path = str(tmp_path / "clf.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(X, verbose=0), model.predict(X, verbose=0), rtol=1e-6)
    assert [type(x).__name__ for x in loaded.layers] == ["Dense", "Dense"]
    ev = loaded.evaluate(X, Y_CLASS, verbose=0, return_dict=True)   # compiled again from the file
    np.testing.assert_allclose(ev["loss"], model.evaluate(X, Y_CLASS, verbose=0, return_dict=True)["loss"],
                               rtol=1e-5)
    with pytest.raises(ValueError, match="Invalid filepath extension for saving"):
        model.save(str(tmp_path / "clf.bin"))


def test_functional_model_round_trips_through_keras_file(tmp_path):
    a = keras.Input((4,))
    b = keras.Input((3,))
    h = keras.layers.Concatenate()([keras.layers.Dense(3, activation="tanh")(a), b])
    out = keras.layers.Dense(1)(keras.layers.LayerNormalization()(keras.layers.Add()([h, h])))
    model = keras.Model([a, b], out)
    path = str(tmp_path / "f.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    feeds = [X[:7], X[:7, :3]]
    np.testing.assert_allclose(loaded.predict(feeds, verbose=0), model.predict(feeds, verbose=0), rtol=1e-5,
                               atol=1e-6)


def test_model_checkpoint_saves_keras_files(tmp_path):
    model = classifier()
    cb = keras.callbacks.ModelCheckpoint(str(tmp_path / "e{epoch}.keras"))
    model.fit(X, Y_CLASS, epochs=2, verbose=0, callbacks=[cb])
    assert sorted(os.listdir(tmp_path)) == ["e1.keras", "e2.keras"]
    loaded = keras.models.load_model(str(tmp_path / "e2.keras"))
    np.testing.assert_allclose(loaded.predict(X, verbose=0), model.predict(X, verbose=0), rtol=1e-6)
