"""Issue 24's workloads in TensorFlow's API (run by fn as `import fn as tf` and by TensorFlow):
training written the ordinary way (a `tf.function` step, `GradientTape`, variables updated in the
step) and the inference forms a user writes without tuning (no `bias_add`, big dense layers).

Each builder takes the library and the NumPy `data` dict of `make_train_data` and returns a
zero-argument callable that runs one step and returns something to block on (the loss).
"""
from typing import Any, Callable, Dict, List

import numpy as np

import random_graphs


def make_train_data(r: np.random.Generator) -> Dict[str, np.ndarray]:
    """Seeded float32 inputs for the workloads below (drawn after bench_models' older ones)."""
    def n(*shape: int, scale: float = 1.0) -> np.ndarray:
        return (r.standard_normal(shape) * scale).astype(np.float32)

    d = {"rs_x": n(16, 32, 32, 3), "rs_y": np.eye(10, dtype=np.float32)[r.integers(0, 10, 16)],
         "rs_k0": n(3, 3, 3, 16, scale=0.3), "rs_wd": n(16, 10, scale=0.2), "rs_bd": n(10, scale=0.1)}
    for blk in ("1", "2"):
        for half in ("a", "b"):
            d[f"rs_k{blk}{half}"] = n(3, 3, 16, 16, scale=0.1)
            d[f"rs_g{blk}{half}"] = 1 + n(16, scale=0.1)
            d[f"rs_b{blk}{half}"] = n(16, scale=0.1)
    # LSTM / GRU: 50 steps, batch 32, input 32, hidden 128
    d.update({"lstm_x": n(50, 32, 32), "lstm_wx": n(32, 512, scale=0.15), "lstm_wh": n(128, 512, scale=0.08),
              "lstm_b": n(512, scale=0.1), "lstm_y": n(32, 128, scale=0.5),
              "gru_wx": n(32, 384, scale=0.15), "gru_wh": n(128, 384, scale=0.08), "gru_b": n(384, scale=0.1)})
    # transformer block training: batch 8, seq 64, d 128, 4 heads, MLP 512
    m = 128
    d.update({"tt_x": n(8, 64, m), "tt_y": n(8, 64, m, scale=0.5)})
    for k in ("wq", "wk", "wv", "wo"):
        d["tt_" + k] = n(m, m, scale=m ** -0.5)
    d.update({"tt_w1": n(m, 4 * m, scale=m ** -0.5), "tt_b1": n(4 * m, scale=0.1),
              "tt_w2": n(4 * m, m, scale=(4 * m) ** -0.5), "tt_b2": n(m, scale=0.1),
              "tt_g1": 1 + n(m, scale=0.1), "tt_n1": n(m, scale=0.1),
              "tt_g2": 1 + n(m, scale=0.1), "tt_n2": n(m, scale=0.1)})
    # 1-D conv net: 32 sequences of 256 steps, 16 channels
    d.update({"c1_x": n(32, 256, 16), "c1_k1": n(5, 16, 32, scale=0.1), "c1_b1": n(32, scale=0.1),
              "c1_k2": n(5, 32, 64, scale=0.08), "c1_w": n(64, 10, scale=0.1)})
    # big MLP inference: 4096x1024 -> 1024 -> 1024 -> 10
    d.update({"big_x": n(4096, 1024), "big_w1": n(1024, 1024, scale=0.03), "big_b1": n(1024, scale=0.1),
              "big_w2": n(1024, 1024, scale=0.03), "big_b2": n(1024, scale=0.1),
              "big_w3": n(1024, 10, scale=0.03), "big_b3": n(10, scale=0.1)})
    d.update(random_graphs.make_data(r))
    return d


# ---- ResNet-style training step (conv backward, batch norm from moments) ----

def _resnet(tf: Any, d: Dict[str, np.ndarray], keras_bn: bool) -> Callable[[], Any]:
    names = ["rs_k0", "rs_wd", "rs_bd"] + [f"rs_{p}{b}{h}" for b in "12" for h in "ab" for p in "kgb"]
    if keras_bn:   # the layers own gamma/beta (and moving statistics)
        names = [k for k in names if not k.startswith(("rs_g", "rs_b1", "rs_b2"))]
    v = {k: tf.Variable(d[k]) for k in names}
    bns = {}
    if keras_bn:
        for b in "12":
            for h in "ab":
                layer = tf.keras.layers.BatchNormalization(
                    gamma_initializer=tf.keras.initializers.Constant(d[f"rs_g{b}{h}"]),
                    beta_initializer=tf.keras.initializers.Constant(d[f"rs_b{b}{h}"]))
                layer.build((None, 32, 32, 16))
                bns[b + h] = layer
    x, y = tf.constant(d["rs_x"]), tf.constant(d["rs_y"])

    def bn(h: Any, key: str) -> Any:
        if keras_bn:
            return bns[key](h, training=True)
        mean, var = tf.nn.moments(h, axes=[0, 1, 2])
        return tf.nn.batch_normalization(h, mean, var, v["rs_b" + key], v["rs_g" + key], 1e-3)

    def conv(h: Any, k: str) -> Any:
        return tf.nn.conv2d(h, v[k], 1, "SAME")

    train_vars = list(v.values()) + [w for layer in bns.values() for w in (layer.gamma, layer.beta)]

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(conv(x, "rs_k0"))
            for b in "12":
                r = tf.nn.relu(bn(conv(h, f"rs_k{b}a"), b + "a"))
                r = bn(conv(r, f"rs_k{b}b"), b + "b")
                h = tf.nn.relu(h + r)
            logits = tf.matmul(tf.reduce_mean(h, axis=[1, 2]), v["rs_wd"]) + v["rs_bd"]
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, train_vars)
        for var, g in zip(train_vars, grads):
            var.assign_sub(0.01 * g)
        return loss

    return lambda: step(x, y)


def resnet_train(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    return _resnet(tf, d, keras_bn=False)


def resnet_train_keras_bn(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    return _resnet(tf, d, keras_bn=True)


# ---- recurrent cells from matmuls, While gradient ----

def lstm_train(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    xs, y = tf.constant(d["lstm_x"]), tf.constant(d["lstm_y"])
    wx, wh, b = (tf.Variable(d[k]) for k in ("lstm_wx", "lstm_wh", "lstm_b"))
    h0 = tf.zeros([32, 128])

    @tf.function
    def step(xs, y):
        with tf.GradientTape() as tape:
            h, c = h0, h0
            for t in tf.range(50):
                z = tf.matmul(xs[t], wx) + tf.matmul(h, wh) + b
                i, f, g, o = tf.split(z, 4, axis=1)
                c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
                h = tf.sigmoid(o) * tf.tanh(c)
            loss = tf.reduce_mean(tf.square(h - y))
        for var, g in zip((wx, wh, b), tape.gradient(loss, [wx, wh, b])):
            var.assign_sub(0.1 * g)
        return loss

    return lambda: step(xs, y)


def gru_train(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    xs, y = tf.constant(d["lstm_x"]), tf.constant(d["lstm_y"])
    wx, wh, b = (tf.Variable(d[k]) for k in ("gru_wx", "gru_wh", "gru_b"))
    h0 = tf.zeros([32, 128])

    @tf.function
    def step(xs, y):
        with tf.GradientTape() as tape:
            h = h0
            for t in tf.range(50):
                xr, xz, xn = tf.split(tf.matmul(xs[t], wx) + b, 3, axis=1)
                hr, hz, hn = tf.split(tf.matmul(h, wh), 3, axis=1)
                r = tf.sigmoid(xr + hr)
                u = tf.sigmoid(xz + hz)
                h = u * h + (1.0 - u) * tf.tanh(xn + r * hn)
            loss = tf.reduce_mean(tf.square(h - y))
        for var, g in zip((wx, wh, b), tape.gradient(loss, [wx, wh, b])):
            var.assign_sub(0.1 * g)
        return loss

    return lambda: step(xs, y)


# ---- transformer block training with hand-written Adam ----

TT_PARAMS = ["tt_wq", "tt_wk", "tt_wv", "tt_wo", "tt_g1", "tt_n1", "tt_w1", "tt_b1", "tt_w2", "tt_b2",
             "tt_g2", "tt_n2"]


def transformer_block(tf: Any, x: Any, p: List[Any], b: int, s: int, m: int, nh: int) -> Any:
    """One encoder block (4-head attention, hand-written layer norms, gelu-tanh MLP) on ``x``
    (b, s, m) with the 12 parameters ``p`` in TT_PARAMS order; shared with bench_distribute.py."""

    def layer_norm(h: Any, g: Any, beta: Any) -> Any:
        mean = tf.reduce_mean(h, axis=-1, keepdims=True)
        var = tf.reduce_mean(tf.square(h - mean), axis=-1, keepdims=True)
        return (h - mean) * tf.math.rsqrt(var + 1e-5) * g + beta

    def heads(a: Any) -> Any:   # (b*s, m) -> (b, h, s, m/h)
        return tf.transpose(tf.reshape(a, [b, s, nh, m // nh]), [0, 2, 1, 3])

    wq, wk, wv, wo, g1, n1, w1, b1, w2, b2, g2, n2 = p
    x2 = tf.reshape(x, [b * s, m])
    q, k, v = (heads(tf.matmul(x2, w)) for w in (wq, wk, wv))
    a = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) * (1.0 / np.sqrt(m // nh)))
    o = tf.reshape(tf.transpose(tf.matmul(a, v), [0, 2, 1, 3]), [b * s, m])
    x2 = layer_norm(x2 + tf.matmul(o, wo), g1, n1)
    f = tf.matmul(tf.nn.gelu(tf.matmul(x2, w1) + b1, approximate=True), w2) + b2
    return tf.reshape(layer_norm(x2 + f, g2, n2), [b, s, m])


def transformer_train(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    b, s, m, nh = 8, 64, 128, 4
    ps = [tf.Variable(d[k]) for k in TT_PARAMS]
    ms = [tf.Variable(tf.zeros_like(p)) for p in ps]
    vs = [tf.Variable(tf.zeros_like(p)) for p in ps]
    t = tf.Variable(0.0)
    x, y = tf.constant(d["tt_x"]), tf.constant(d["tt_y"])
    lr, b1, b2, eps = 1e-3, 0.9, 0.999, 1e-7

    def block(x, p):
        return transformer_block(tf, x, p, b, s, m, nh)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(block(x, ps) - y))
        grads = tape.gradient(loss, ps)
        t.assign_add(1.0)
        lr_t = lr * tf.sqrt(1.0 - tf.pow(b2, t)) / (1.0 - tf.pow(b1, t))
        for p, g, m_, v_ in zip(ps, grads, ms, vs):
            m_.assign(b1 * m_ + (1.0 - b1) * g)
            v_.assign(b2 * v_ + (1.0 - b2) * tf.square(g))
            p.assign_sub(lr_t * m_ / (tf.sqrt(v_) + eps))
        return loss

    return lambda: step(x, y)


# ---- inference a user writes without tuning ----

def cnn_nobias_infer(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    """bench_models' CNN with `relu(conv2d(x, k))`: no bias_add on the convolutions."""
    p = {k: tf.constant(v) for k, v in d.items() if k.startswith("cnn_")}

    @tf.function
    def net(x):
        h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, p["cnn_k1"], 1, "SAME")), 2, 2, "VALID")
        h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(h, p["cnn_k2"], 1, "SAME")), 2, 2, "VALID")
        h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 7 * 7 * 64]), p["cnn_w1"]) + p["cnn_b1"])
        return tf.matmul(h, p["cnn_w2"]) + p["cnn_b2"]

    x = p["cnn_x"]
    return lambda: net(x)


def conv1d_infer(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    """A 1-D conv net: conv1d + bias + relu, conv1d without bias + gelu (tanh form), mean pool, dense."""
    p = {k: tf.constant(v) for k, v in d.items() if k.startswith("c1_")}

    @tf.function
    def net(x):
        h = tf.nn.relu(tf.nn.conv1d(x, p["c1_k1"], 1, "SAME") + p["c1_b1"])
        h = tf.nn.gelu(tf.nn.conv1d(h, p["c1_k2"], 2, "SAME"), approximate=True)
        return tf.matmul(tf.reduce_mean(h, axis=1), p["c1_w"])

    x = p["c1_x"]
    return lambda: net(x)


def mlp_big_infer(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    p = {k: tf.constant(v) for k, v in d.items() if k.startswith("big_")}

    @tf.function
    def net(x):
        h = tf.nn.relu(tf.matmul(x, p["big_w1"]) + p["big_b1"])
        h = tf.nn.relu(tf.matmul(h, p["big_w2"]) + p["big_b2"])
        return tf.matmul(h, p["big_w3"]) + p["big_b3"]

    x = p["big_x"]
    return lambda: net(x)


# ---- property-style: random small graphs of one family ----

def _random_graphs(tf: Any, d: Dict[str, np.ndarray], train: bool) -> Callable[[], Any]:
    graphs = random_graphs.specs()
    ws: List[Any] = [tf.Variable(d[k]) for k in random_graphs.weight_names()]
    xs = [tf.constant(d[k]) for k in random_graphs.input_names()]
    ops = random_graphs.tf_ops(tf)

    def run_all():
        total = tf.constant(0.0)
        for g, x in zip(graphs, xs):
            total = total + tf.reduce_mean(random_graphs.evaluate(g, x, ws, ops))
        return total

    if not train:
        @tf.function
        def fwd():
            return run_all()
        return fwd

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = run_all()
        for w, g in zip(ws, tape.gradient(loss, ws)):
            if g is not None:
                w.assign_sub(0.01 * g)
        return loss

    return step


def random_graphs_infer(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    return _random_graphs(tf, d, train=False)


def random_graphs_train(tf: Any, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    return _random_graphs(tf, d, train=True)


WORKLOADS = {
    "resnet_train": resnet_train, "resnet_train_keras_bn": resnet_train_keras_bn,
    "lstm_train": lstm_train, "gru_train": gru_train, "transformer_train": transformer_train,
    "cnn_nobias_infer": cnn_nobias_infer, "conv1d_infer": conv1d_infer, "mlp_big_infer": mlp_big_infer,
    "random_graphs_infer": random_graphs_infer, "random_graphs_train": random_graphs_train,
}
LABELS = {
    "resnet_train": "ResNet step 16x32x32x3, 2 res blocks, BN from moments, SGD",
    "resnet_train_keras_bn": "the same with tf.keras.layers.BatchNormalization",
    "lstm_train": "LSTM from matmuls, 32x50 steps, 32->128, While gradient, SGD",
    "gru_train": "GRU from matmuls, the same shapes",
    "transformer_train": "transformer block training (8x64x128, gelu-tanh), hand-written Adam",
    "cnn_nobias_infer": "CNN inference, relu(conv2d(x, k)) without bias_add",
    "conv1d_infer": "1-D conv net (32x256x16), bias+relu / no bias+gelu",
    "mlp_big_infer": "MLP inference 4096x1024-1024-1024-10",
    "random_graphs_infer": "24 random small graphs (matmul/elementwise/reduce family)",
    "random_graphs_train": "the same under a tape + SGD",
}
