"""``fn.custom_gradient`` (``tf.custom_gradient``): a function that returns ``(y, grad_fn)``
gets ``grad_fn`` as its gradient. Its results pass through one ``CustomGradient`` op (TF's
``IdentityN``) whose inputs are the results and the tensor arguments; the op's gradient calls
``grad_fn(*dys)`` and hands what it returns to the arguments, so the ops that computed ``y`` are
not differentiated. Works eagerly and inside Functions (the rule runs while the gradient graph is
built)."""

from __future__ import annotations

import functools
from typing import Any, Callable, List, Optional

from fn import _core, nest
from fn._ops.math_ops import zeros_like


def _flatten(x: Any) -> List[Any]:
    return list(nest.flatten(x))


def custom_gradient(f: Optional[Callable] = None) -> Any:
    """``tf.custom_gradient``: decorates ``f(*x) -> (y, grad_fn)``; ``grad_fn(*dy)`` returns one
    gradient per tensor argument (a single tensor when there is one)."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise ValueError(
                "The custom_gradient decorator currently supports keywords arguments "
                "only when eager execution is enabled."
            )
        result, grad_fn = f(*args)
        flat_args = [a if _core.is_tensor(a) else _core.convert_to_tensor(a, None, None) for a in _flatten(args)]
        flat_result = [r if _core.is_tensor(r) else _core.convert_to_tensor(r, None, None) for r in _flatten(result)]
        n = len(flat_result)

        def grad(dys: List[Any], ys: List[Any]) -> List[Any]:
            dys = [zeros_like(y) if d is None else d for d, y in zip(dys, ys)]
            grads = grad_fn(*dys)
            flat = list(grads) if isinstance(grads, (list, tuple)) else [grads]
            if len(flat) != len(flat_args):
                raise ValueError(
                    f"custom_gradient function expected to return {len(flat_args)} "
                    f"gradients, but returned {len(flat)} instead."
                )
            return [None if g is None else _core.convert_to_tensor(g, None, None) for g in flat]

        outs = _core.execute("CustomGradient", flat_result + flat_args, {"num_outputs": n, "grad_fn": grad}, f.__name__)
        return nest.pack_sequence_as(result, list(outs[:n]))

    return decorated
