"""The model workloads in JAX (jax.jit), same inputs and maths as models_tf.py."""
from typing import Any, Callable, Dict

import numpy as np


def build(name: str, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
    import jax
    import jax.numpy as jnp
    a = {k: jnp.asarray(v) for k, v in d.items()}

    if name == "mlp_train":
        params = [a[k] for k in ("mlp_w1", "mlp_w2", "mlp_w3", "mlp_b1", "mlp_b2", "mlp_b3")]

        def loss_fn(ps, x, y):
            w1, w2, w3, b1, b2, b3 = ps
            h = jax.nn.relu(x @ w1 + b1)
            h = jax.nn.relu(h @ w2 + b2)
            return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(h @ w3 + b3), axis=1))

        @jax.jit
        def step(ps, x, y):
            loss, gs = jax.value_and_grad(loss_fn)(ps, x, y)
            return [p - 0.01 * g for p, g in zip(ps, gs)], loss

        state = {"ps": params}

        def run():
            state["ps"], loss = step(state["ps"], a["mlp_x"], a["mlp_y"])
            return loss
        return run

    if name == "cnn_infer":
        def conv(x, k):
            return jax.lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

        def pool(x):
            return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

        @jax.jit
        def net(x, p):
            h = pool(jax.nn.relu(conv(x, p["cnn_k1"]) + p["cnn_c1"]))
            h = pool(jax.nn.relu(conv(h, p["cnn_k2"]) + p["cnn_c2"]))
            h = jax.nn.relu(h.reshape(-1, 7 * 7 * 64) @ p["cnn_w1"] + p["cnn_b1"])
            return h @ p["cnn_w2"] + p["cnn_b2"]
        p = {k: v for k, v in a.items() if k.startswith("cnn_")}
        return lambda: net(a["cnn_x"], p)

    if name == "rnn_infer":
        @jax.jit
        def rnn(xs, s, w):
            return jax.lax.fori_loop(0, 100, lambda t, s: jnp.tanh(xs[t] + s @ w), s)
        return lambda: rnn(a["rnn_x"], a["rnn_s0"], a["rnn_w"])

    if name == "rnn_train":
        def rnn_loss(w, xs, s):
            s = jax.lax.fori_loop(0, 100, lambda t, s: jnp.tanh(xs[t] + s @ w), s)
            return jnp.mean(s * s)

        @jax.jit
        def rnn_step(w, xs, s):
            loss, g = jax.value_and_grad(rnn_loss)(w, xs, s)
            return w - 0.01 * g, loss

        rnn_state = {"w": a["rnn_w"]}

        def rnn_run():
            rnn_state["w"], loss = rnn_step(rnn_state["w"], a["rnn_x"], a["rnn_s0"])
            return loss
        return rnn_run

    if name == "tanh_chain":
        @jax.jit
        def chain(t):
            for _ in range(50):
                t = jnp.tanh(t * 1.01 + 0.01)
            return t
        return lambda: chain(a["chain_x"])

    if name in ("varargs_1", "varargs_100"):
        n = 1 if name == "varargs_1" else 100
        args = [jnp.asarray(d["chain_x"][:4]) for _ in range(n)]

        @jax.jit
        def f(*args):
            return args[0] + args[-1]
        return lambda: f(*args)

    if name == "transformer":
        b, s, m, h = 8, 128, 256, 4

        def ln(x, g, beta):
            mean = x.mean(-1, keepdims=True)
            var = ((x - mean) ** 2).mean(-1, keepdims=True)
            return (x - mean) * jax.lax.rsqrt(var + 1e-5) * g + beta

        def heads(t):
            return t.reshape(b, s, h, m // h).transpose(0, 2, 1, 3)

        @jax.jit
        def block(x, p):
            x2 = x.reshape(b * s, m)
            q, k, v = (heads(x2 @ p[n]) for n in ("tr_wq", "tr_wk", "tr_wv"))
            att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) * (1.0 / 8.0), axis=-1)
            o = (att @ v).transpose(0, 2, 1, 3).reshape(b * s, m)
            x2 = ln(x2 + o @ p["tr_wo"], p["tr_g1"], p["tr_n1"])
            f = jax.nn.relu(x2 @ p["tr_w1"] + p["tr_b1"]) @ p["tr_w2"] + p["tr_b2"]
            return ln(x2 + f, p["tr_g2"], p["tr_n2"]).reshape(b, s, m)
        p = {k: v for k, v in a.items() if k.startswith("tr_")}
        return lambda: block(a["tr_x"], p)

    raise KeyError(name)


def block_on(r: Any) -> Any:
    return r.block_until_ready()
