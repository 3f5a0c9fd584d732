"""The model workloads in PyTorch (eager, or torch.compile with compile=True), same inputs and
maths as models_tf.py. Tensors are NHWC in the data; the CNN permutes once at set-up (NCHW)."""
from typing import Any, Callable, Dict

import numpy as np


def build(name: str, d: Dict[str, np.ndarray], compile: bool = False) -> Callable[[], Any]:  # noqa: A002
    import torch
    import torch.nn.functional as F
    torch.set_grad_enabled(name in ("mlp_train", "rnn_train"))
    a = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in d.items()}
    wrap = torch.compile if compile else (lambda f, **kw: f)

    if name == "mlp_train":
        ps = [a[k].clone().requires_grad_() for k in ("mlp_w1", "mlp_w2", "mlp_w3", "mlp_b1", "mlp_b2", "mlp_b3")]

        def loss_fn(x, y):
            w1, w2, w3, b1, b2, b3 = ps
            h = F.relu(x @ w1 + b1)
            h = F.relu(h @ w2 + b2)
            return -(y * F.log_softmax(h @ w3 + b3, dim=1)).sum(1).mean()

        loss_fn = wrap(loss_fn)

        def run():
            loss = loss_fn(a["mlp_x"], a["mlp_y"])
            gs = torch.autograd.grad(loss, ps)
            with torch.no_grad():
                for p, g in zip(ps, gs):
                    p.sub_(0.01 * g)
            return loss.detach()
        return run

    if name == "cnn_infer":
        k1, k2 = (a[k].permute(3, 2, 0, 1).contiguous() for k in ("cnn_k1", "cnn_k2"))
        x = a["cnn_x"].permute(0, 3, 1, 2).contiguous()

        def net(x):
            h = F.max_pool2d(F.relu(F.conv2d(x, k1, a["cnn_c1"], padding=1)), 2)
            h = F.max_pool2d(F.relu(F.conv2d(h, k2, a["cnn_c2"], padding=1)), 2)
            h = h.permute(0, 2, 3, 1).reshape(-1, 7 * 7 * 64)   # NHWC flatten, as the others
            h = F.relu(h @ a["cnn_w1"] + a["cnn_b1"])
            return h @ a["cnn_w2"] + a["cnn_b2"]
        net = wrap(net)
        return lambda: net(x)

    if name == "rnn_infer":
        def rnn(xs, s, w):
            for t in range(100):
                s = torch.tanh(xs[t] + s @ w)
            return s
        rnn = wrap(rnn)
        return lambda: rnn(a["rnn_x"], a["rnn_s0"], a["rnn_w"])

    if name == "rnn_train":
        w = a["rnn_w"].clone().requires_grad_()

        def rnn_loss(xs, s):
            for t in range(100):
                s = torch.tanh(xs[t] + s @ w)
            return (s * s).mean()
        rnn_loss = wrap(rnn_loss)

        def rnn_run():
            loss = rnn_loss(a["rnn_x"], a["rnn_s0"])
            (g,) = torch.autograd.grad(loss, [w])
            with torch.no_grad():
                w.sub_(0.01 * g)
            return loss.detach()
        return rnn_run

    if name == "tanh_chain":
        def chain(t):
            for _ in range(50):
                t = torch.tanh(t * 1.01 + 0.01)
            return t
        chain = wrap(chain)
        return lambda: chain(a["chain_x"])

    if name in ("varargs_1", "varargs_100"):
        n = 1 if name == "varargs_1" else 100
        args = [a["chain_x"][:4].clone() for _ in range(n)]

        def f(*args):
            return args[0] + args[-1]
        f = wrap(f)
        return lambda: f(*args)

    if name == "transformer":
        b, s, m, h = 8, 128, 256, 4

        def ln(x, g, beta):
            mean = x.mean(-1, keepdim=True)
            var = ((x - mean) ** 2).mean(-1, keepdim=True)
            return (x - mean) * torch.rsqrt(var + 1e-5) * g + beta

        def heads(t):
            return t.reshape(b, s, h, m // h).permute(0, 2, 1, 3)

        def block(x):
            x2 = x.reshape(b * s, m)
            q, k, v = (heads(x2 @ a[n]) for n in ("tr_wq", "tr_wk", "tr_wv"))
            att = torch.softmax(q @ k.transpose(-1, -2) * (1.0 / 8.0), dim=-1)
            o = (att @ v).permute(0, 2, 1, 3).reshape(b * s, m)
            x2 = ln(x2 + o @ a["tr_wo"], a["tr_g1"], a["tr_n1"])
            f = F.relu(x2 @ a["tr_w1"] + a["tr_b1"]) @ a["tr_w2"] + a["tr_b2"]
            return ln(x2 + f, a["tr_g2"], a["tr_n2"]).reshape(b, s, m)
        block = wrap(block)
        return lambda: block(a["tr_x"])

    raise KeyError(name)
