"""``fn.autodiff.ForwardAccumulator`` (``tf.autodiff.ForwardAccumulator``): forward-mode
Jacobian-vector products.

The accumulator records the ops run inside its context on a tape watching the primals. A JVP
is then the transpose of a transpose: with a dummy cotangent ``u``, the backward pass gives
``g(u) = J^T u`` (built from ops, so an outer tape records it), and differentiating
``<g(u), tangent>`` with respect to ``u`` gives ``J @ tangent``. The values are TensorFlow's;
the cost is two backward passes per ``jvp`` call instead of one forward pass.
"""

from __future__ import annotations

from typing import Any, List

from fn import _core, nest
from fn._autodiff.tape import GradientTape
from fn._autodiff.unconnected_gradients import UnconnectedGradients, zero_if_unconnected
from fn._ops.math_ops import zeros_like


class ForwardAccumulator:
    """Computes Jacobian-vector products of the ops run inside its context
    (``tf.autodiff.ForwardAccumulator(primals, tangents)``)."""

    def __init__(self, primals: Any, tangents: Any) -> None:
        nest.assert_same_structure(primals, tangents)
        self._primals: List[Any] = list(nest.flatten(primals))
        self._tangents: List[Any] = []
        for p, t in zip(self._primals, nest.flatten(tangents)):
            t = _core.convert_to_tensor(t, p.dtype, None)
            if not t.shape.is_compatible_with(p.shape):
                raise ValueError(f"Tangent {t} has incompatible shape {t.shape} with primal {p} of shape {p.shape}")
            self._tangents.append(t)
        self._tape = GradientTape(persistent=True, watch_accessed_variables=False)
        self._tape.watch(self._primals)

    def __enter__(self) -> "ForwardAccumulator":
        self._tape.__enter__()
        return self

    def __exit__(self, typ: Any, value: Any, traceback: Any) -> None:
        self._tape.__exit__(typ, value, traceback)

    def jvp(self, primals: Any, unconnected_gradients: Any = "none") -> Any:
        """The JVP of each tensor in ``primals`` (computed inside the context) with the tangents;
        None for tensors that do not depend on the watched primals (or zeros)."""
        zero = zero_if_unconnected(unconnected_gradients)
        out = [self._jvp_one(t, zero) for t in nest.flatten(primals)]
        return nest.pack_sequence_as(primals, out)

    def _jvp_one(self, target: Any, zero: bool) -> Any:

        for p, t in zip(self._primals, self._tangents):
            if p is target:
                return t
        if _core.is_tensor(getattr(target, "_fn_handle", None)):
            target = target.read_value()
        target = _core.convert_to_tensor(target, None, None)
        if not (target.dtype.is_floating or target.dtype.is_complex):
            return zeros_like(target) if zero else None
        core_tape = self._tape._tape
        assert core_tape is not None  # persistent: an accumulator's tape is never released
        paused = self._tape._recording
        if paused:
            _core.pop_tape(core_tape)
        try:
            u = zeros_like(target)
            with GradientTape(watch_accessed_variables=False) as outer:
                outer.watch(u)
                sources = [self._tape._as_source(p) for p in self._primals]
                grads = core_tape.gradient([target], sources, [u], False)
            pairs = [(g, t) for g, t in zip(grads, self._tangents) if g is not None]
            if not pairs:
                return zeros_like(target) if zero else None
            jvp = outer.gradient(
                [g for g, _ in pairs],
                u,
                output_gradients=[t for _, t in pairs],
                unconnected_gradients=UnconnectedGradients.ZERO,
            )
        finally:
            if paused:
                _core.push_tape(self._tape._tape)
        return jvp
