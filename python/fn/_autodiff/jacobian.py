"""``GradientTape.jacobian`` and ``batch_jacobian``: one backward pass per target element (or
per element of a batch row), each seeded with a one-hot output gradient, stacked into the full
Jacobian. TensorFlow vectorizes these passes with pfor; the values are the same."""

from __future__ import annotations

from typing import Any, List

import numpy as np

from fn import _core, nest
from fn._autodiff.unconnected_gradients import zero_if_unconnected
from fn._ops import array_ops as A
from fn._ops.array_ops import reshape, stack, zeros
from fn._ops.control_flow_ops import while_loop
from fn._ops.math_ops import equal, ones_like
from fn._ops.tensor_array_ops import TensorArray


def _start(tape: Any) -> None:
    """The checks and the pause that ``gradient`` does before a backward pass."""
    if tape._tape is None:
        raise RuntimeError(
            "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
        )
    if tape._recording and not tape._persistent:
        tape._pop_tape()


def _finish(tape: Any) -> None:
    if not tape._persistent:
        tape._watched_variables = tape.watched_variables()
        tape._tape = None


def _seeds(n: int, rows: int, dtype: Any) -> np.ndarray:
    eye = np.eye(n, dtype=dtype.as_numpy_dtype)
    return np.broadcast_to(eye[:, None, :], (n, rows, n)) if rows else eye


def _stack(parts: List[Any], shape: List[int], zero: bool, source: Any, dtype: Any) -> Any:
    """Stacks per-seed gradients (None where unconnected) into a tensor of ``shape``."""
    if all(p is None for p in parts):
        return zeros(shape, dtype=source.dtype) if zero else None
    filled = [zeros(source.shape, dtype=source.dtype) if p is None else p for p in parts]
    if not filled:
        return zeros(shape, dtype=source.dtype)
    return reshape(stack(filled), shape)


def jacobian(tape: Any, target: Any, sources: Any, unconnected_gradients: Any = "none") -> Any:
    """``tf.GradientTape.jacobian``: d target[i...] / d source[j...] for each source, shaped
    ``target.shape + source.shape``; None for an unconnected source (or zeros)."""
    zero = zero_if_unconnected(unconnected_gradients)
    _start(tape)
    target = tape._as_target(target)
    flat_sources = list(nest.flatten(sources))
    core_sources = [tape._as_source(s) for s in flat_sources]
    tshape = target.shape
    if not tshape.is_fully_defined():
        if _core.executing_eagerly() or tshape.rank is None:
            raise ValueError(f"GradientTape.jacobian needs a target of known shape, got {tshape}")
        out = _staged_jacobian(tape, target, flat_sources, core_sources, zero)
        _finish(tape)
        return nest.pack_sequence_as(sources, out)
    n = tshape.num_elements()
    seeds = _seeds(n, 0, target.dtype).reshape([n] + tshape.as_list())
    per_seed = [
        tape._tape.gradient([target], core_sources, [_core.convert_to_tensor(s, None, None)], False) for s in seeds
    ]
    out = []
    for k, src in enumerate(core_sources):
        sshape = src.shape if not _is_handle(src) else flat_sources[k].shape
        out.append(
            _stack(
                [g[k] for g in per_seed],
                tshape.as_list() + sshape.as_list(),
                zero,
                _source_spec(flat_sources[k], src),
                target.dtype,
            )
        )
    _finish(tape)
    return nest.pack_sequence_as(sources, out)


def _staged_jacobian(tape: Any, target: Any, flat_sources: List[Any], core_sources: List[Any], zero: bool) -> List[Any]:
    """A target whose shape is known only when the Function runs: a graph loop over its elements
    (TF's pfor gives the same values), each backward pass seeded with a one-hot gradient."""
    n = A.size(target)
    tshape = A.shape(target)
    specs = [_source_spec(f, s) for f, s in zip(flat_sources, core_sources)]
    connected = tape._tape.gradient([target], core_sources, [ones_like(target)], False)

    def source_shape(k: int) -> Any:
        if _is_handle(core_sources[k]):
            return A.constant(flat_sources[k].shape.as_list(), dtype=tshape.dtype)
        return A.shape(core_sources[k], out_type=tshape.dtype)

    def body(i: Any, *arrays: Any) -> Any:
        seed = A.reshape(A.cast(equal(A.range(n), i), target.dtype), tshape)
        grads = tape._tape.gradient([target], core_sources, [seed], False)
        out = []
        for k, (ta, g) in enumerate(zip(arrays, grads)):
            out.append(ta.write(i, A.zeros(source_shape(k), dtype=specs[k].dtype) if g is None else g))
        return (i + 1,) + tuple(out)

    arrays = tuple(TensorArray(spec.dtype, size=n, element_shape=spec.shape) for spec in specs)
    results = while_loop(lambda i, *_: i < n, body, (A.constant(0),) + arrays)[1:]
    out: List[Any] = []
    for k, (ta, g) in enumerate(zip(results, connected)):
        if g is None and not zero:
            out.append(None)
            continue
        out.append(A.reshape(ta.stack(), A.concat([tshape, source_shape(k)], 0)))
    return out


def batch_jacobian(tape: Any, target: Any, source: Any, unconnected_gradients: Any = "none") -> Any:
    """``tf.GradientTape.batch_jacobian``: per batch row b, d target[b, i...] / d source[b, j...],
    shaped ``[batch] + target.shape[1:] + source.shape[1:]`` (rows assumed independent, as TF)."""
    zero = zero_if_unconnected(unconnected_gradients)
    _start(tape)
    target = tape._as_target(target)
    core_source = tape._as_source(source)
    tshape, sshape = target.shape, source.shape
    if tshape.rank is None or tshape.rank < 1 or not tshape.is_fully_defined():
        raise ValueError(f"Need first dimension of target shape ({tshape}) and source shape ({sshape}) to match.")
    if sshape.rank is None or sshape.rank < 1 or tshape[0] != sshape[0]:
        raise ValueError(f"Need first dimension of target shape ({tshape}) and source shape ({sshape}) to match.")
    b = tshape[0]
    m = int(np.prod(tshape.as_list()[1:], dtype=np.int64))
    seeds = _seeds(m, b, target.dtype)  # [m, b, m]
    parts = [
        tape._tape.gradient(
            [target], [core_source], [_core.convert_to_tensor(s.reshape(tshape.as_list()), None, None)], False
        )[0]
        for s in seeds
    ]
    shape = [b] + tshape.as_list()[1:] + sshape.as_list()[1:]
    _finish(tape)
    if all(p is None for p in parts):
        return zeros(shape, dtype=source.dtype) if zero else None
    filled = [zeros(sshape, dtype=source.dtype) if p is None else p for p in parts]
    if not filled:
        return zeros(shape, dtype=source.dtype)
    return reshape(stack(filled, axis=1), shape)


def _is_handle(src: Any) -> bool:
    return src.dtype.name == "resource"


class _Spec:
    def __init__(self, shape: Any, dtype: Any) -> None:
        self.shape, self.dtype = shape, dtype


def _source_spec(source: Any, core_source: Any) -> Any:
    return _Spec(source.shape, source.dtype) if _is_handle(core_source) else core_source
