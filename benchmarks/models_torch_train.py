"""Issue 24's workloads in PyTorch (eager, or torch.compile with compile=True), same inputs and maths
as models_tf_train.py. Training steps differentiate a (compiled) loss with torch.autograd.grad and
update the parameters in place with a (compiled) update, as a PyTorch user writes a step. Data is
NHWC / NWC and kernels HWIO / WIO as in TF; they are permuted once at set-up to PyTorch's layouts."""
from typing import Any, Callable, Dict, List

import numpy as np

import random_graphs
from models_tf_train import TT_PARAMS


TRAINING = {"resnet_train", "resnet_train_keras_bn", "lstm_train", "gru_train", "transformer_train",
            "random_graphs_train"}


def _trainer(loss_fn: Callable[..., Any], params: List[Any], update: Callable[..., None], args: tuple,
             wrap: Callable[..., Any]) -> Callable[[], Any]:
    import torch
    loss_fn, update = wrap(loss_fn), wrap(update)

    def run() -> Any:
        loss = loss_fn(*args)
        grads = torch.autograd.grad(loss, params, allow_unused=True)   # None: a weight off the loss's path
        with torch.no_grad():
            update(params, grads)
        return loss.detach()
    return run


def _sgd(lr: float) -> Callable[[List[Any], List[Any]], None]:
    def update(params: List[Any], grads: List[Any]) -> None:
        for p, g in zip(params, grads):
            if g is not None:
                p.sub_(lr * g)
    return update


def build(name: str, d: Dict[str, np.ndarray], compile: bool = False) -> Callable[[], Any]:
    import torch
    import torch.nn.functional as F
    # Grad mode is global: an inference row built before in the same process turned it off.
    torch.set_grad_enabled(name in TRAINING)
    a = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in d.items()}
    wrap = torch.compile if compile else (lambda f, **kw: f)

    def trainable(*names: str) -> List[Any]:
        return [a[k].clone().requires_grad_() for k in names]

    def hwio(k: Any) -> Any:   # HWIO (or WIO) kernel -> OIHW (OIW)
        return k.permute(*range(k.dim() - 1, k.dim() - 3, -1), *range(k.dim() - 2)).contiguous()

    if name in ("resnet_train", "resnet_train_keras_bn"):
        names = ["rs_k0", "rs_wd", "rs_bd"] + [f"rs_{p}{b}{h}" for b in "12" for h in "ab" for p in "kgb"]
        for k in names:
            if k.startswith("rs_k"):
                a[k] = hwio(a[k])
        ps = trainable(*names)
        p = dict(zip(names, ps))

        def bn(h, g, b):   # tf.nn.moments + tf.nn.batch_normalization, channels on dim 1
            mean = h.mean((0, 2, 3), keepdim=True)
            var = (h - mean.detach()).square().mean((0, 2, 3), keepdim=True)
            inv = torch.rsqrt(var + 1e-3) * g.view(1, -1, 1, 1)
            return h * inv + (b.view(1, -1, 1, 1) - mean * inv)

        def loss_fn(x, y):
            h = F.relu(F.conv2d(x, p["rs_k0"], padding=1))
            for blk in "12":
                r = F.relu(bn(F.conv2d(h, p[f"rs_k{blk}a"], padding=1), p[f"rs_g{blk}a"], p[f"rs_b{blk}a"]))
                r = bn(F.conv2d(r, p[f"rs_k{blk}b"], padding=1), p[f"rs_g{blk}b"], p[f"rs_b{blk}b"])
                h = F.relu(h + r)
            logits = h.mean((2, 3)) @ p["rs_wd"] + p["rs_bd"]
            return -(y * F.log_softmax(logits, dim=1)).sum(1).mean()
        x = a["rs_x"].permute(0, 3, 1, 2).contiguous()
        return _trainer(loss_fn, ps, _sgd(0.01), (x, a["rs_y"]), wrap)

    if name in ("lstm_train", "gru_train"):
        lstm = name == "lstm_train"
        pre = "lstm" if lstm else "gru"
        ps = trainable(f"{pre}_wx", f"{pre}_wh", f"{pre}_b")

        def loss_fn(xs, y):
            wx, wh, b = ps
            h = c = torch.zeros(32, 128)
            for t in range(50):
                if lstm:
                    i, f, g, o = torch.split(xs[t] @ wx + h @ wh + b, 128, dim=1)
                    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
                    h = torch.sigmoid(o) * torch.tanh(c)
                else:
                    xr, xz, xn = torch.split(xs[t] @ wx + b, 128, dim=1)
                    hr, hz, hn = torch.split(h @ wh, 128, dim=1)
                    r, u = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
                    h = u * h + (1.0 - u) * torch.tanh(xn + r * hn)
            return (h - y).square().mean()
        return _trainer(loss_fn, ps, _sgd(0.1), (a["lstm_x"], a["lstm_y"]), wrap)

    if name == "transformer_train":
        b, s, m, nh = 8, 64, 128, 4
        ps = trainable(*TT_PARAMS)
        ms = [torch.zeros_like(w) for w in ps]
        vs = [torch.zeros_like(w) for w in ps]
        step = torch.zeros(())

        def ln(x, g, beta):
            mean = x.mean(-1, keepdim=True)
            var = (x - mean).square().mean(-1, keepdim=True)
            return (x - mean) * torch.rsqrt(var + 1e-5) * g + beta

        def heads(t):
            return t.reshape(b, s, nh, m // nh).permute(0, 2, 1, 3)

        def loss_fn(x, y):
            wq, wk, wv, wo, g1, n1, w1, b1, w2, b2, g2, n2 = ps
            x2 = x.reshape(b * s, m)
            q, k, v = (heads(x2 @ w) for w in (wq, wk, wv))
            att = torch.softmax(q @ k.transpose(-1, -2) * (1.0 / np.sqrt(m // nh)), dim=-1)
            o = (att @ v).permute(0, 2, 1, 3).reshape(b * s, m)
            x2 = ln(x2 + o @ wo, g1, n1)
            f = F.gelu(x2 @ w1 + b1, approximate="tanh") @ w2 + b2
            return (ln(x2 + f, g2, n2).reshape(b, s, m) - y).square().mean()

        def adam(params, grads):   # the same hand-written Adam as the TF and JAX steps
            step.add_(1.0)
            lr_t = 1e-3 * torch.sqrt(1.0 - 0.999 ** step) / (1.0 - 0.9 ** step)
            for w, g, m_, v_ in zip(params, grads, ms, vs):
                m_.mul_(0.9).add_(0.1 * g)
                v_.mul_(0.999).add_(0.001 * g.square())
                w.sub_(lr_t * m_ / (v_.sqrt() + 1e-7))
        return _trainer(loss_fn, ps, adam, (a["tt_x"], a["tt_y"]), wrap)

    if name == "cnn_nobias_infer":
        k1, k2 = hwio(a["cnn_k1"]), hwio(a["cnn_k2"])

        def net(x):
            h = F.max_pool2d(F.relu(F.conv2d(x, k1, padding=1)), 2)
            h = F.max_pool2d(F.relu(F.conv2d(h, k2, padding=1)), 2)
            h = F.relu(h.permute(0, 2, 3, 1).reshape(-1, 7 * 7 * 64) @ a["cnn_w1"] + a["cnn_b1"])
            return h @ a["cnn_w2"] + a["cnn_b2"]
        net, x = wrap(net), a["cnn_x"].permute(0, 3, 1, 2).contiguous()
        return lambda: net(x)

    if name == "conv1d_infer":
        k1, k2 = hwio(a["c1_k1"]), hwio(a["c1_k2"])

        def net(x):
            h = F.relu(F.conv1d(x, k1, padding=2) + a["c1_b1"].view(1, -1, 1))
            h = F.gelu(F.conv1d(F.pad(h, (1, 2)), k2, stride=2), approximate="tanh")   # TF's SAME at stride 2
            return h.mean(2) @ a["c1_w"]
        net, x = wrap(net), a["c1_x"].permute(0, 2, 1).contiguous()
        return lambda: net(x)

    if name == "mlp_big_infer":
        def net(x):
            h = F.relu(x @ a["big_w1"] + a["big_b1"])
            h = F.relu(h @ a["big_w2"] + a["big_b2"])
            return h @ a["big_w3"] + a["big_b3"]
        net = wrap(net)
        return lambda: net(a["big_x"])

    if name in ("random_graphs_infer", "random_graphs_train"):
        graphs, ops = random_graphs.specs(), random_graphs.torch_ops()
        xs = [a[k] for k in random_graphs.input_names()]
        train = name == "random_graphs_train"
        ws = trainable(*random_graphs.weight_names()) if train else [a[k] for k in random_graphs.weight_names()]

        def total(*xs):
            return sum(random_graphs.evaluate(g, x, ws, ops).mean() for g, x in zip(graphs, xs))
        if train:
            return _trainer(total, ws, _sgd(0.01), tuple(xs), wrap)
        total = wrap(total)
        return lambda: total(*xs)

    raise KeyError(name)
