"""The model workloads in TensorFlow's API: run by fn (`import fn as tf`) and by TensorFlow.

Each builder takes the library and a NumPy `data` dict (same inputs for every system) and
returns a zero-argument callable that runs one step and returns something to block on.
"""
from typing import Any, Callable, Dict

import numpy as np


def mlp_train(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    ws = [tf.Variable(d[k]) for k in ("mlp_w1", "mlp_w2", "mlp_w3")]
    bs = [tf.Variable(d[k]) for k in ("mlp_b1", "mlp_b2", "mlp_b3")]
    x, y = tf.constant(d["mlp_x"]), tf.constant(d["mlp_y"])

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, ws[0]) + bs[0])
            h = tf.nn.relu(tf.matmul(h, ws[1]) + bs[1])
            logits = tf.matmul(h, ws[2]) + bs[2]
            loss = -tf.reduce_mean(tf.reduce_sum(y * tf.nn.log_softmax(logits), axis=1))
        grads = tape.gradient(loss, ws + bs)
        for v, g in zip(ws + bs, grads):
            v.assign_sub(0.01 * g)
        return loss

    return lambda: step(x, y)


def cnn_infer(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    p = {k: tf.constant(v) for k, v in d.items() if k.startswith("cnn_")}

    @tf.function
    def net(x):
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, p["cnn_k1"], 1, "SAME"), p["cnn_c1"]))
        h = tf.nn.max_pool2d(h, 2, 2, "VALID")
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, p["cnn_k2"], 1, "SAME"), p["cnn_c2"]))
        h = tf.nn.max_pool2d(h, 2, 2, "VALID")
        h = tf.reshape(h, [-1, 7 * 7 * 64])
        h = tf.nn.relu(tf.matmul(h, p["cnn_w1"]) + p["cnn_b1"])
        return tf.matmul(h, p["cnn_w2"]) + p["cnn_b2"]

    x = p["cnn_x"]
    return lambda: net(x)


def rnn_infer(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    xs, w, s0 = tf.constant(d["rnn_x"]), tf.constant(d["rnn_w"]), tf.constant(d["rnn_s0"])

    @tf.function
    def rnn(xs, s):
        for t in tf.range(100):
            s = tf.tanh(xs[t] + tf.matmul(s, w))
        return s

    return lambda: rnn(xs, s0)


def rnn_train(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    xs, s0 = tf.constant(d["rnn_x"]), tf.constant(d["rnn_s0"])
    w = tf.Variable(d["rnn_w"])

    @tf.function
    def step(xs, s):
        with tf.GradientTape() as tape:
            for t in tf.range(100):   # a While loop; its gradient is a backward While
                s = tf.tanh(xs[t] + tf.matmul(s, w))
            loss = tf.reduce_mean(s * s)
        w.assign_sub(0.01 * tape.gradient(loss, w))
        return loss

    return lambda: step(xs, s0)


def tanh_chain(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    x = tf.constant(d["chain_x"])

    @tf.function
    def chain(t):
        for _ in range(50):
            t = tf.tanh(t * 1.01 + 0.01)
        return t

    return lambda: chain(x)


def _varargs(tf: Any, d: Dict[str, np.ndarray], n: int) -> Callable[[], Any]:
    args = [tf.constant(d["chain_x"][:4]) for _ in range(n)]

    @tf.function
    def f(*args):
        return args[0] + args[-1]

    return lambda: f(*args)


def varargs_1(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    return _varargs(tf, d, 1)


def varargs_100(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    return _varargs(tf, d, 100)


def transformer(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    p = {k: tf.constant(v) for k, v in d.items() if k.startswith("tr_")}
    b, s, m, h = 8, 128, 256, 4

    def layer_norm(x, g, beta):
        mean = tf.reduce_mean(x, axis=-1, keepdims=True)
        var = tf.reduce_mean(tf.square(x - mean), axis=-1, keepdims=True)
        return (x - mean) * tf.math.rsqrt(var + 1e-5) * g + beta

    def heads(t):   # (b*s, m) -> (b, h, s, m/h)
        return tf.transpose(tf.reshape(t, [b, s, h, m // h]), [0, 2, 1, 3])

    @tf.function
    def block(x):
        x2 = tf.reshape(x, [b * s, m])
        q, k, v = (heads(tf.matmul(x2, p[n])) for n in ("tr_wq", "tr_wk", "tr_wv"))
        a = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) * (1.0 / 8.0))
        o = tf.reshape(tf.transpose(tf.matmul(a, v), [0, 2, 1, 3]), [b * s, m])
        x2 = layer_norm(x2 + tf.matmul(o, p["tr_wo"]), p["tr_g1"], p["tr_n1"])
        f = tf.matmul(tf.nn.relu(tf.matmul(x2, p["tr_w1"]) + p["tr_b1"]), p["tr_w2"]) + p["tr_b2"]
        return tf.reshape(layer_norm(x2 + f, p["tr_g2"], p["tr_n2"]), [b, s, m])

    x = p["tr_x"]
    return lambda: block(x)


WORKLOADS = {
    "mlp_train": mlp_train, "cnn_infer": cnn_infer, "rnn_infer": rnn_infer, "rnn_train": rnn_train,
    "tanh_chain": tanh_chain, "varargs_1": varargs_1, "varargs_100": varargs_100,
    "transformer": transformer,
}
