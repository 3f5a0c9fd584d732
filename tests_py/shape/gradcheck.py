"""Gradient checks: an op's registered gradient rule against central finite differences.

``check_op_gradient`` runs the rule directly (``fn._core._op_gradient``: one op, eagerly), so each
rule is tested on its own, in float64, for a random upstream gradient ``g``: the rule's result
for input i must equal d<g, op(x)>/dx_i.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

import fn


def _objective(op: str, inputs: list, attrs: Optional[dict], upstream: list) -> float:
    outs = fn._core.execute(op, inputs, attrs)
    return float(sum((o.numpy() * g).sum() for o, g in zip(outs, upstream) if g is not None))


def numeric_vjp(op: str, inputs: list, attrs: Optional[dict], upstream: list, i: int, eps: float = 1e-6) -> np.ndarray:
    x = np.array(inputs[i].numpy(), dtype=np.float64)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        vals = []
        for sign in (1, -1):
            xp = x.copy()
            xp[idx] += sign * eps
            args = list(inputs)
            args[i] = fn.constant(xp)
            vals.append(_objective(op, args, attrs, upstream))
        grad[idx] = (vals[0] - vals[1]) / (2 * eps)
    return grad


def check_op_gradient(op: str, inputs: Sequence[Any], attrs: Optional[dict] = None, wrt: Sequence[int] = (0,),
                      none: Sequence[int] = (), seed: int = 0, rtol: float = 1e-5, atol: float = 1e-6) -> list:
    """Asserts the gradient of `op` w.r.t. inputs `wrt` matches finite differences, and that the
    inputs in `none` get no gradient. Returns the rule's gradients."""
    inputs = [x if fn.is_tensor(x) else fn.constant(x) for x in inputs]
    outs = fn._core.execute(op, inputs, attrs)
    rng = np.random.default_rng(seed)
    upstream = [rng.standard_normal(o.shape.as_list()) if o.dtype == fn.float64 else None for o in outs]
    grads = fn._core._op_gradient(op, inputs, attrs, outs,
                                  [None if g is None else fn.constant(g) for g in upstream])
    assert len(grads) == len(inputs)
    for i in wrt:
        assert grads[i] is not None, f"no gradient for input {i} of {op}"
        assert grads[i].shape == inputs[i].shape, (grads[i].shape, inputs[i].shape)
        np.testing.assert_allclose(grads[i].numpy(), numeric_vjp(op, inputs, attrs, upstream, i),
                                   rtol=rtol, atol=atol, err_msg=f"gradient of {op} w.r.t. input {i}")
    for i in none:
        assert grads[i] is None, f"{op} input {i} should get no gradient"
    return grads


def check_tape_gradient(f: Any, inputs: Sequence[np.ndarray], seed: int = 0, rtol: float = 1e-5,
                        atol: float = 1e-6, eps: float = 1e-6) -> None:
    """fn.GradientTape's gradient of <g, f(*inputs)> (random g) equals central differences."""
    xs = [fn.constant(np.asarray(x, np.float64)) for x in inputs]
    with fn.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
        g = fn.constant(np.random.default_rng(seed).standard_normal(y.shape.as_list()))
        loss = fn.reduce_sum(y * g)
    grads = tape.gradient(loss, xs)
    for i, x in enumerate(inputs):
        x = np.asarray(x, np.float64)
        num = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            vals = []
            for sign in (1, -1):
                xp = x.copy()
                xp[idx] += sign * eps
                args = [fn.constant(np.asarray(v, np.float64)) for v in inputs]
                args[i] = fn.constant(xp)
                vals.append(float(np.sum(f(*args).numpy() * g.numpy())))
            num[idx] = (vals[0] - vals[1]) / (2 * eps)
        assert grads[i] is not None, f"no gradient for input {i}"
        np.testing.assert_allclose(grads[i].numpy(), num, rtol=rtol, atol=atol, err_msg=f"input {i}")
