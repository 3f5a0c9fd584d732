"""``GradientTape.gradient`` with variables among the targets: TensorFlow differentiates a
variable target through its resource handle, so d v / d v is the target's seed (ones, or its
output gradient) and no other source receives anything from it."""
from __future__ import annotations

from typing import Any, List, Tuple


def add_variable_target_grads(grads: List[Any], sources: List[Any],
                              var_seeds: List[Tuple[Any, Any]]) -> List[Any]:
    from fn._math_ops import add, ones_like
    out = list(grads)
    for k, s in enumerate(sources):
        for var, seed in var_seeds:
            if s is var or (hasattr(s, "_fn_handle") and s._fn_handle is var._fn_handle):
                g = ones_like(var.read_value()) if seed is None else seed
                out[k] = g if out[k] is None else add(out[k], g)
    return out
