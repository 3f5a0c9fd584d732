"""``fn.GradientTape``: records the ops run on watched tensors and differentiates them.

Recording happens in C++ beside dispatch (``cpp/trace/tape.h``); the backward pass is
``cpp/autodiff/backward.cpp``. This class is TensorFlow's Python surface over both: context
management, nested sources and targets, ``stop_recording``, ``reset``, persistence.

Variables: an object with a ``_fn_handle`` tensor attribute (a variable) is watched through its
handle, and a variable's read op calls ``_core.notify_variable_accessed(handle)`` so tapes with
``watch_accessed_variables`` watch it automatically.
TODO(variables issue): fn.Variable must (1) expose ``_fn_handle``, (2) call
``_core.notify_variable_accessed(handle)`` when read, (3) register itself with
``fn._autodiff.tape._register_variable(self)`` so ``watched_variables()`` can map handles back to it, and
(4) give its read op (ReadVariableOp) a gradient passing the output gradient to the handle.
"""

from __future__ import annotations

import contextlib
import logging
import weakref
from typing import Any, Iterator, List, Optional

from fn import _core, nest
from fn._autodiff.jacobian import batch_jacobian, jacobian
from fn._autodiff.unconnected_gradients import UnconnectedGradients, zero_if_unconnected
from fn._ops.array_ops import ones, zeros

_log = logging.getLogger("fn")


# handle tensor id -> variable, filled by fn.Variable (see the module docstring).
_VARIABLES_BY_HANDLE: "weakref.WeakValueDictionary[int, Any]" = weakref.WeakValueDictionary()


def _register_variable(variable: Any) -> None:
    """Lets tapes map a watched handle back to its variable (``watched_variables``)."""
    _VARIABLES_BY_HANDLE[variable._fn_handle._id] = variable


# ---- nested structures ----------------------------------------------------------------------


def _flatten(structure: Any) -> List[Any]:
    return list(nest.flatten(structure))


def _is_variable(x: Any) -> bool:
    return _core.is_tensor(getattr(x, "_fn_handle", None))


def _ones_of(v: Any) -> Any:
    return ones(v.shape, v.dtype)


def _zeros_of(v: Any) -> Any:
    return zeros(v.shape, v.dtype)


# ---- the tape -------------------------------------------------------------------------------


class GradientTape:
    """Records operations for automatic differentiation (``tf.GradientTape``).

    Tensors are recorded once watched (``watch``); trainable variables are watched when read
    if ``watch_accessed_variables``. ``gradient`` computes d(target)/d(sources) by running each
    recorded op's gradient rule in reverse. A non-persistent tape computes one gradient.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._tape: Optional[Any] = None
        self._recording = False
        self._variables: List[Any] = []  # variables watched explicitly, in order
        self._watched_variables: tuple = ()  # kept after a non-persistent tape is used

    # context
    def __enter__(self) -> "GradientTape":
        self._push_tape()
        return self

    def __exit__(self, typ: Any, value: Any, traceback: Any) -> None:
        if self._recording:
            self._pop_tape()

    def _push_tape(self) -> None:
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active tape.")
        if self._tape is None:
            self._tape = _core.Tape(self._persistent, self._watch_accessed_variables)
        _core.push_tape(self._tape)
        self._recording = True

    def _pop_tape(self) -> None:
        if not self._recording:
            raise ValueError("Tape is not recording.")
        _core.pop_tape(self._tape)
        self._recording = False

    # recording control
    def watch(self, tensor: Any) -> None:
        """Ensures ``tensor`` (a tensor, variable, or nested structure of them) is traced."""
        if self._tape is None:
            self._tape = _core.Tape(self._persistent, self._watch_accessed_variables)
        for t in _flatten(tensor):
            if _is_variable(t):
                self._tape.watch(t._fn_handle)
                if not any(v is t for v in self._variables):
                    self._variables.append(t)
                continue
            if not _core.is_tensor(t):
                raise ValueError(
                    f"Passed in object {t!r} of type {type(t).__name__!r}, not fn.Tensor "
                    "or fn.Variable or ExtensionType."
                )
            if not (t.dtype.is_floating or t.dtype.is_complex):
                _log.warning("The dtype of the watched tensor must be floating (e.g. fn.float32), got %r", t.dtype)
            self._tape.watch(t)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stops recording: ops inside the block are not differentiated."""
        if not self._recording:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop_tape()
        try:
            yield
        finally:
            self._push_tape()

    def reset(self) -> None:
        """Clears everything recorded so far (inside the tape's context only)."""
        self._pop_tape()
        self._tape = None
        self._variables = []
        self._push_tape()

    def watched_variables(self) -> tuple:
        """The variables this tape watches, in the order they were first watched."""
        if self._tape is None:
            return self._watched_variables
        out = list(self._variables)
        for h in self._tape.watched_tensors():  # explicit watches and variable accesses
            v = _VARIABLES_BY_HANDLE.get(h._id)
            if v is not None and not any(v is o for o in out):
                out.append(v)
        return tuple(out)

    # differentiation
    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
    ) -> Any:
        """d(sum of target)/d(each source), with ``sources``' structure. Non-scalar targets are
        seeded with ones (or ``output_gradients``); unconnected sources give None (or zeros with
        ``unconnected_gradients=fn.UnconnectedGradients.ZERO``)."""
        if self._tape is None:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
            )
        if self._recording:
            if not self._persistent:
                self._pop_tape()
            else:
                _log.warning(
                    "Calling GradientTape.gradient on a persistent tape inside its context is "
                    "significantly less efficient than calling it outside the context (it causes "
                    "the gradient ops to be recorded on the tape, leading to increased CPU and "
                    "memory usage). Only call GradientTape.gradient inside the context if you "
                    "actually want to trace the gradient in order to compute higher order "
                    "derivatives."
                )
        if target is None:
            raise TypeError(
                "Argument `target` should be a list or nested structure of Tensors, Variables "
                "or CompositeTensors to be differentiated, but received None."
            )
        zero = zero_if_unconnected(unconnected_gradients)

        target_leaves = _flatten(target)
        flat_targets = [self._as_target(t) for t in target_leaves]
        source_leaves = _flatten(sources)
        flat_sources = [self._as_source(s) for s in source_leaves]
        flat_grads: List[Any] = []
        if output_gradients is not None:
            flat_grads = [None if g is None else _core.convert_to_tensor(g, None) for g in _flatten(output_gradients)]
            if len(flat_grads) != len(flat_targets):
                raise ValueError(
                    f"Expected {len(flat_targets)} output_gradients (one per target), got {len(flat_grads)}."
                )
        if any(_is_variable(t) for t in target_leaves):
            # A Variable target is its handle, as in TF (d v / d v = ones of the variable's shape).
            flat_grads = flat_grads or [None] * len(flat_targets)
            flat_grads = [
                _ones_of(t) if g is None and _is_variable(t) else g for t, g in zip(target_leaves, flat_grads)
            ]
        grads = self._tape.gradient(flat_targets, flat_sources, flat_grads, zero)
        if zero:
            grads = [_zeros_of(s) if g is None and _is_variable(s) else g for s, g in zip(source_leaves, grads)]
        if not self._persistent:
            self._watched_variables = self.watched_variables()
            self._tape = None
        return nest.pack_sequence_as(sources, grads)

    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: Any = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """``tf.GradientTape.jacobian`` (see ``fn._autodiff.jacobian``)."""
        return jacobian(self, target, sources, unconnected_gradients)

    def batch_jacobian(
        self,
        target: Any,
        source: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: Any = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """``tf.GradientTape.batch_jacobian`` (see ``fn._autodiff.jacobian``)."""
        return batch_jacobian(self, target, source, unconnected_gradients)

    @staticmethod
    def _as_target(t: Any) -> Any:
        if _is_variable(t):
            return t._fn_handle
        if _core.is_tensor(t):
            return t
        return _core.convert_to_tensor(t, None)

    @staticmethod
    def _as_source(s: Any) -> Any:
        if _is_variable(s):
            return s._fn_handle
        if _core.is_tensor(s):
            return s
        if s is None:  # TF's message (it reads a dtype off each source)
            raise TypeError("Cannot convert the argument `type_value`: None to a TensorFlow DType.")
        # TF 2.21's wording (measured): an int source fails on its dtype, others on their id.
        raise AttributeError(
            f"{type(s).__name__!r} object has no attribute {'dtype' if isinstance(s, int) else '_id'!r}"
        )


def gradients(
    ys: Any,
    xs: Any,
    grad_ys: Any = None,
    name: str = "gradients",
    gate_gradients: bool = False,
    aggregation_method: Any = None,
    stop_gradients: Any = None,
    unconnected_gradients: Any = UnconnectedGradients.NONE,
) -> List[Any]:
    """``tf.gradients``: symbolic d(sum of ys)/d(x) for each x, inside a Function being traced
    (eagerly it raises RuntimeError, as TF: use GradientTape). Returns a list, one per x."""
    flat_ys = [_core.convert_to_tensor(y, None) if not _core.is_tensor(y) else y for y in _flatten(ys)]
    flat_xs = [x._fn_handle if _is_variable(x) else x for x in _flatten(xs)]
    seeds: List[Any] = []
    if grad_ys is not None:
        seeds = [None if g is None else _core.convert_to_tensor(g, None) for g in _flatten(grad_ys)]
        if len(seeds) != len(flat_ys):
            raise ValueError(f"Passed {len(seeds)} grad_ys for {len(flat_ys)} ys")
    zero = UnconnectedGradients(unconnected_gradients) is UnconnectedGradients.ZERO
    return list(_core.symbolic_gradients(flat_ys, flat_xs, seeds, zero))
