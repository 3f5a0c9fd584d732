"""fn.onnx.export: the exported model, run by ONNX Runtime, gives fn's own results for the
benchmark models (MLP, CNN, RNN, transformer block), control flow and the common ops."""
from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import fn as tf  # noqa: E402
import fn.onnx  # noqa: E402,F401

keras = tf.keras
rng = np.random.default_rng(0)


def run_both(f, tmp_path, *inputs, atol=1e-5):
    concrete = f.get_concrete_function()
    path = str(tmp_path / "model.onnx")
    model = tf.onnx.export(concrete, path)
    assert model.opset_import[0].version >= 17
    options = ort.SessionOptions()
    options.log_severity_level = 3
    sess = ort.InferenceSession(path, options)
    feeds = {i.name: x for i, x in zip(sess.get_inputs(), inputs)}
    got = sess.run(None, feeds)
    want = concrete(*[tf.constant(x) for x in inputs])
    want = want if isinstance(want, (list, tuple)) else [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), atol=atol, rtol=1e-5)
    return model


def test_mlp(tmp_path):
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(4, activation="softmax")])
    f = tf.function(lambda x: model(x), input_signature=[tf.TensorSpec([None, 8], tf.float32, name="x")])
    onnx_model = run_both(f, tmp_path, rng.normal(size=(5, 8)).astype(np.float32))
    assert onnx_model.graph.input[0].name == "x"
    assert {i.name for i in onnx_model.graph.initializer} >= {"dense/kernel", "dense/bias"} or \
        len(onnx_model.graph.initializer) == 4


def test_cnn(tmp_path):
    model = keras.Sequential([keras.Input((9, 9, 3)), keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
                              keras.layers.MaxPooling2D(), keras.layers.Conv2D(5, 2, strides=2),
                              keras.layers.AveragePooling2D(pool_size=2, padding="same"),
                              keras.layers.Flatten(), keras.layers.Dense(3)])
    f = tf.function(lambda x: model(x), input_signature=[tf.TensorSpec([None, 9, 9, 3])])
    run_both(f, tmp_path, rng.normal(size=(2, 9, 9, 3)).astype(np.float32))


W = tf.Variable(rng.normal(size=(4, 8)).astype(np.float32) * 0.3)
U = tf.Variable(rng.normal(size=(8, 8)).astype(np.float32) * 0.3)


@tf.function(input_signature=[tf.TensorSpec([None, 6, 4], tf.float32)])
def rnn(x):
    h = tf.zeros([tf.shape(x)[0], 8])
    for t in tf.range(tf.shape(x)[1]):
        h = tf.tanh(tf.matmul(x[:, t, :], W) + tf.matmul(h, U))
    return h


def test_rnn_while_loop(tmp_path):
    model = run_both(rnn, tmp_path, rng.normal(size=(3, 6, 4)).astype(np.float32))
    assert any(n.op_type == "Loop" for n in model.graph.node)


MHA = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
LN1, LN2 = keras.layers.LayerNormalization(), keras.layers.LayerNormalization()
FF1, FF2 = keras.layers.Dense(16, activation="relu"), keras.layers.Dense(8)


@tf.function(input_signature=[tf.TensorSpec([None, 6, 8], tf.float32)])
def transformer_block(x):
    x = LN1(x + MHA(x, x))
    return LN2(x + FF2(FF1(x)))


def test_transformer_block(tmp_path):
    run_both(transformer_block, tmp_path, rng.normal(size=(2, 6, 8)).astype(np.float32), atol=2e-5)


@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([2], tf.int32)])
def many_ops(x, i):
    y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)
    return (tf.reduce_sum(x, axis=1, keepdims=True), tf.reduce_max(x), tf.reduce_mean(x, 0),
            tf.argmax(x, axis=1), tf.concat([x, y], axis=1), tf.gather(x, i), tf.one_hot(i, 3),
            tf.cast(x > 0, tf.int32), tf.where(x > 0, x, -x), tf.transpose(x), x[:, ::-1], x[1],
            tf.nn.log_softmax(x), tf.sigmoid(x), tf.exp(x) / tf.sqrt(x * x + 1.0), tf.tile(x, [2, 1]),
            tf.expand_dims(x, 0), tf.reshape(x, [-1]), tf.nn.relu6(x * 4.0), tf.abs(x), tf.math.log(x * x + 1.0),
            tf.maximum(x, 0.1), tf.squeeze(tf.expand_dims(x, 2), [2]))


def test_common_ops_and_cond(tmp_path):
    x = rng.normal(size=(4, 3)).astype(np.float32)
    run_both(many_ops, tmp_path, x, np.array([2, 0], np.int32))
    run_both(many_ops, tmp_path, -np.abs(x), np.array([1, 3], np.int32))


def test_unsupported_op_is_named(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def noisy(x):
        return x + tf.random.uniform([3])
    with pytest.raises(NotImplementedError, match=r"op 'RandomUniform' \(node '.*'\) cannot be exported to ONNX"):
        tf.onnx.export(noisy.get_concrete_function(), str(tmp_path / "m.onnx"))


def test_rejects_non_functions():
    with pytest.raises(TypeError, match="expects a concrete function"):
        tf.onnx.export(lambda x: x, None)


def test_functional_keras_model_with_embedding_norms_and_pooling(tmp_path):
    tokens = keras.Input((5,), dtype="int32")
    image = keras.Input((6, 6, 2))
    e = keras.layers.Embedding(20, 4)(tokens)
    e = keras.layers.Lambda(lambda t: tf.reduce_mean(t, axis=1))(e)
    bn = keras.layers.BatchNormalization()
    p = keras.layers.GlobalAveragePooling2D()(bn(image))
    h = keras.layers.Concatenate()([e, p])
    out = keras.layers.Dense(3)(keras.layers.Add()([keras.layers.Dense(6)(h), h]))
    model = keras.Model([tokens, image], out)
    bn.moving_variance.assign(np.full(2, 2.0, np.float32))   # not the identity
    f = tf.function(lambda a, b: model([a, b], training=False),
                    input_signature=[tf.TensorSpec([None, 5], tf.int32), tf.TensorSpec([None, 6, 6, 2])])
    run_both(f, tmp_path, rng.integers(0, 20, (3, 5)).astype(np.int32),
             rng.normal(size=(3, 6, 6, 2)).astype(np.float32))


def test_keras_model_directly(tmp_path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation="tanh")])
    path = str(tmp_path / "k.onnx")
    tf.onnx.export(model, path)
    sess = ort.InferenceSession(path)
    x = rng.normal(size=(4, 3)).astype(np.float32)
    (out,) = sess.run(None, {sess.get_inputs()[0].name: x})
    np.testing.assert_allclose(out, model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_bias_add_follows_its_data_format(tmp_path, data_format):
    b = tf.constant(rng.normal(size=(3,)).astype(np.float32))
    f = tf.function(lambda x: tf.nn.bias_add(x, b, data_format=data_format),
                    input_signature=[tf.TensorSpec([2, 3, 4, 3] if data_format == "NCHW" else [2, 4, 4, 3])])
    shape = (2, 3, 4, 3) if data_format == "NCHW" else (2, 4, 4, 3)
    run_both(f, tmp_path, rng.normal(size=shape).astype(np.float32))
