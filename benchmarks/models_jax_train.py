"""Issue 24's workloads in JAX (jax.jit), same inputs and maths as models_tf_train.py. Training
steps return the new parameters from the jitted step (JAX's functional form of the update)."""
from typing import Any, Callable, Dict

import numpy as np

import random_graphs
from models_tf_train import TT_PARAMS


def _stateful(step: Callable[..., Any], params: Any, *args: Any) -> Callable[[], Any]:
    state = {"p": params}

    def run():
        state["p"], loss = step(state["p"], *args)
        return loss
    return run


def build(name: str, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    import jax
    import jax.numpy as jnp
    a = {k: jnp.asarray(v) for k, v in d.items()}

    def conv(x, k, stride=1):
        return jax.lax.conv_general_dilated(x, k, (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def pool(x):
        return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    if name in ("resnet_train", "resnet_train_keras_bn"):
        names = ["rs_k0", "rs_wd", "rs_bd"] + [f"rs_{p}{b}{h}" for b in "12" for h in "ab" for p in "kgb"]

        def bn(h, g, b):   # tf.nn.moments + tf.nn.batch_normalization
            mean = h.mean((0, 1, 2))
            var = jnp.mean(jnp.square(h - jax.lax.stop_gradient(mean)), (0, 1, 2))
            inv = jax.lax.rsqrt(var + 1e-3) * g
            return h * inv + (b - mean * inv)

        def loss_fn(p, x, y):
            h = jax.nn.relu(conv(x, p["rs_k0"]))
            for blk in "12":
                r = jax.nn.relu(bn(conv(h, p[f"rs_k{blk}a"]), p[f"rs_g{blk}a"], p[f"rs_b{blk}a"]))
                r = bn(conv(r, p[f"rs_k{blk}b"]), p[f"rs_g{blk}b"], p[f"rs_b{blk}b"])
                h = jax.nn.relu(h + r)
            logits = h.mean((1, 2)) @ p["rs_wd"] + p["rs_bd"]
            return jnp.mean(-jnp.sum(y * jax.nn.log_softmax(logits), axis=1))

        @jax.jit
        def step(p, x, y):
            loss, g = jax.value_and_grad(loss_fn)(p, x, y)
            return {k: p[k] - 0.01 * g[k] for k in p}, loss
        return _stateful(step, {k: a[k] for k in names}, a["rs_x"], a["rs_y"])

    if name in ("lstm_train", "gru_train"):
        lstm = name == "lstm_train"
        pre = "lstm" if lstm else "gru"

        def cell(p, carry, xt):
            if lstm:
                h, c = carry
                z = xt @ p[0] + h @ p[1] + p[2]
                i, f, g, o = jnp.split(z, 4, axis=1)
                c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
                return (jax.nn.sigmoid(o) * jnp.tanh(c), c)
            h = carry
            xr, xz, xn = jnp.split(xt @ p[0] + p[2], 3, axis=1)
            hr, hz, hn = jnp.split(h @ p[1], 3, axis=1)
            r, u = jax.nn.sigmoid(xr + hr), jax.nn.sigmoid(xz + hz)
            return u * h + (1.0 - u) * jnp.tanh(xn + r * hn)

        def loss_fn(p, xs, y):
            h0 = jnp.zeros((32, 128), jnp.float32)
            carry = jax.lax.fori_loop(0, 50, lambda t, c: cell(p, c, xs[t]), (h0, h0) if lstm else h0)
            h = carry[0] if lstm else carry
            return jnp.mean(jnp.square(h - y))

        @jax.jit
        def step(p, xs, y):
            loss, g = jax.value_and_grad(loss_fn)(p, xs, y)
            return [w - 0.1 * gw for w, gw in zip(p, g)], loss
        return _stateful(step, [a[f"{pre}_wx"], a[f"{pre}_wh"], a[f"{pre}_b"]], a["lstm_x"], a["lstm_y"])

    if name == "transformer_train":
        b, s, m, nh = 8, 64, 128, 4

        def ln(x, g, beta):
            mean = x.mean(-1, keepdims=True)
            var = jnp.square(x - mean).mean(-1, keepdims=True)
            return (x - mean) * jax.lax.rsqrt(var + 1e-5) * g + beta

        def heads(t):
            return t.reshape(b, s, nh, m // nh).transpose(0, 2, 1, 3)

        def block(x, p):
            wq, wk, wv, wo, g1, n1, w1, b1, w2, b2, g2, n2 = p
            x2 = x.reshape(b * s, m)
            q, k, v = (heads(x2 @ w) for w in (wq, wk, wv))
            att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) * (1.0 / np.sqrt(m // nh)), axis=-1)
            o = (att @ v).transpose(0, 2, 1, 3).reshape(b * s, m)
            x2 = ln(x2 + o @ wo, g1, n1)
            f = jax.nn.gelu(x2 @ w1 + b1, approximate=True) @ w2 + b2
            return ln(x2 + f, g2, n2).reshape(b, s, m)

        def loss_fn(p, x, y):
            return jnp.mean(jnp.square(block(x, p) - y))

        @jax.jit
        def step(state, x, y):
            p, ms, vs, t = state
            loss, g = jax.value_and_grad(loss_fn)(p, x, y)
            t = t + 1.0
            lr_t = 1e-3 * jnp.sqrt(1.0 - 0.999 ** t) / (1.0 - 0.9 ** t)
            ms = [0.9 * m_ + 0.1 * g_ for m_, g_ in zip(ms, g)]
            vs = [0.999 * v_ + 0.001 * jnp.square(g_) for v_, g_ in zip(vs, g)]
            p = [w - lr_t * m_ / (jnp.sqrt(v_) + 1e-7) for w, m_, v_ in zip(p, ms, vs)]
            return (p, ms, vs, t), loss
        p = [a[k] for k in TT_PARAMS]
        zeros = [jnp.zeros_like(w) for w in p]
        return _stateful(step, (p, zeros, list(zeros), jnp.float32(0.0)), a["tt_x"], a["tt_y"])

    if name == "cnn_nobias_infer":
        @jax.jit
        def net(x, p):
            h = pool(jax.nn.relu(conv(x, p["cnn_k1"])))
            h = pool(jax.nn.relu(conv(h, p["cnn_k2"])))
            h = jax.nn.relu(h.reshape(-1, 7 * 7 * 64) @ p["cnn_w1"] + p["cnn_b1"])
            return h @ p["cnn_w2"] + p["cnn_b2"]
        p = {k: v for k, v in a.items() if k.startswith("cnn_")}
        return lambda: net(a["cnn_x"], p)

    if name == "conv1d_infer":
        def conv1d(x, k, stride):
            return jax.lax.conv_general_dilated(x, k, (stride,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"))

        @jax.jit
        def net(x, p):
            h = jax.nn.relu(conv1d(x, p["c1_k1"], 1) + p["c1_b1"])
            h = jax.nn.gelu(conv1d(h, p["c1_k2"], 2), approximate=True)
            return h.mean(1) @ p["c1_w"]
        p = {k: v for k, v in a.items() if k.startswith("c1_")}
        return lambda: net(a["c1_x"], p)

    if name == "mlp_big_infer":
        @jax.jit
        def net(x, p):
            h = jax.nn.relu(x @ p["big_w1"] + p["big_b1"])
            h = jax.nn.relu(h @ p["big_w2"] + p["big_b2"])
            return h @ p["big_w3"] + p["big_b3"]
        p = {k: v for k, v in a.items() if k.startswith("big_")}
        return lambda: net(a["big_x"], p)

    if name in ("random_graphs_infer", "random_graphs_train"):
        graphs, ops = random_graphs.specs(), random_graphs.jax_ops()
        ws = [a[k] for k in random_graphs.weight_names()]
        xs = [a[k] for k in random_graphs.input_names()]

        def total(ws, xs):
            return sum(jnp.mean(random_graphs.evaluate(g, x, ws, ops)) for g, x in zip(graphs, xs))

        if name == "random_graphs_infer":
            f = jax.jit(total)
            return lambda: f(ws, xs)

        @jax.jit
        def step(ws, xs):
            loss, g = jax.value_and_grad(total)(ws, xs)
            return [w - 0.01 * gw for w, gw in zip(ws, g)], loss
        return _stateful(step, ws, xs)

    raise KeyError(name)
