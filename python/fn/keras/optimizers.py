"""``fn.keras.optimizers`` (``tf.keras.optimizers``, Keras 3 update rules): ``SGD`` (with
momentum/Nesterov) and ``Adam``. ``iterations`` and ``learning_rate`` are variables made with the
optimizer; the slot variables (momentum, velocity) are made on the first ``apply_gradients``, so
inside a Function that must happen on its first trace (the guide's two-optimizer ValueError)."""
from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from fn import _core
from fn._ops import array_ops
from fn._ops import math_ops
from fn.dtypes import float32, int64
from fn._state.variables import Variable, init_scope

_name_counts: Dict[str, int] = {}


def _unique_name(base: str) -> str:
    n = _name_counts.get(base, 0)
    _name_counts[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


def _var_label(v: Variable, index: int) -> str:
    name = v.name.split(":")[0].replace("/", "_")
    return re.sub(r"\W", "_", name) + (f"_{index}" if name == "Variable" else "")


class Optimizer:
    """The base optimizer (``tf.keras.optimizers.Optimizer``). Subclasses define ``build``
    (slot variables) and ``update_step(gradient, variable, learning_rate)``."""

    _fn_trackable = True  # checkpoints follow its attributes (fn._state.trackable)

    def __init__(self, learning_rate: Any = 0.001, name: Optional[str] = None, clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None, **kwargs: Any) -> None:
        self.name = name or _unique_name(re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower())
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self.built = False
        self._variables: List[Variable] = []
        self._trainable: List[Variable] = []
        self._index: Dict[int, int] = {}
        with init_scope():
            self._iterations = Variable(np.int64(0), trainable=False, name=f"{self.name}/iteration", dtype=int64)
            self._schedule = learning_rate if callable(learning_rate) and not isinstance(learning_rate, Variable) else None
            lr = learning_rate(0) if self._schedule is not None else learning_rate
            if isinstance(lr, Variable):
                lr = lr.numpy()
            self._learning_rate = Variable(np.float32(lr), trainable=False, name=f"{self.name}/learning_rate",
                                           dtype=float32)

    # -- state
    @property
    def iterations(self) -> Variable:
        """How many times ``apply_gradients`` ran (an int64 variable)."""
        return self._iterations

    @property
    def learning_rate(self) -> Variable:
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        self._learning_rate.assign(value)

    @property
    def variables(self) -> List[Variable]:
        return [self._iterations, self._learning_rate] + list(self._variables)

    def add_variable_from_reference(self, reference_variable: Variable, name: str) -> Variable:
        """A zeros variable shaped like ``reference_variable`` (a slot, e.g. ``momentum``)."""
        i = self._index[id(reference_variable)]
        v = Variable(np.zeros(reference_variable.shape.as_list(), reference_variable.dtype.as_numpy_dtype),
                     trainable=False, name=f"{self.name}/{_var_label(reference_variable, i)}_{name}")
        self._variables.append(v)
        return v

    def build(self, var_list: Sequence[Variable]) -> None:
        """Records the variables this optimizer updates; subclasses add their slots."""
        for v in var_list:
            if id(v) not in self._index:
                self._index[id(v)] = len(self._trainable)
                self._trainable.append(v)
        self.built = True

    def _slot_index(self, variable: Variable) -> int:
        try:
            return self._index[id(variable)]
        except KeyError:
            raise ValueError(f"Unknown variable: {variable!r}. This optimizer can only be called for the "
                             "variables it was originally built with. When working with a new set of "
                             "variables, you should recreate a new optimizer instance.") from None

    # -- applying
    def _clip(self, grads: List[Any]) -> List[Any]:
        if self.clipvalue is not None:
            grads = [math_ops.minimum(math_ops.maximum(g, -self.clipvalue), self.clipvalue) for g in grads]
        if self.clipnorm is not None:
            grads = [g * math_ops.minimum(1.0, self.clipnorm / math_ops.maximum(
                math_ops.sqrt(math_ops.reduce_sum(math_ops.square(g))), 1e-12)) for g in grads]
        if self.global_clipnorm is not None:
            norm = math_ops.sqrt(math_ops.add_n([math_ops.reduce_sum(math_ops.square(g)) for g in grads]))
            scale = math_ops.minimum(1.0, self.global_clipnorm / math_ops.maximum(norm, 1e-12))
            grads = [g * scale for g in grads]
        return grads

    def apply_gradients(self, grads_and_vars: Iterable[Tuple[Any, Variable]], name: Optional[str] = None) -> Variable:
        """Applies one update per ``(gradient, variable)`` pair (pairs with a None gradient are
        skipped) and increments ``iterations``; builds the slots on the first call."""
        pairs = [(g, v) for g, v in list(grads_and_vars) if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        grads = [g if _core.is_tensor(g) else _core.convert_to_tensor(g, None, v.dtype) for g, v in pairs]
        variables = [v for _, v in pairs]
        if not self.built:
            self.build(variables)
        for v in variables:
            self._slot_index(v)
        grads = self._clip(grads)
        from fn._distribute import context as distribute_context
        if distribute_context.has_strategy() and distribute_context.get_replica_context() is not None:
            # As Keras 3's TensorFlow optimizer: in a replica context the (clipped) gradients are
            # summed across replicas before the update.
            grads = distribute_context.get_replica_context().all_reduce("SUM", grads)
        if self._schedule is not None:
            self._learning_rate.assign(self._schedule(self._iterations))
        lr = self._learning_rate.read_value()
        for g, v in zip(grads, variables):
            if g.dtype != v.dtype:
                g = array_ops.cast(g, v.dtype)
            self.update_step(g, v, lr if v.dtype == float32 else array_ops.cast(lr, v.dtype))
        self._iterations.assign_add(np.int64(1))
        return self._iterations

    def minimize(self, loss: Any, var_list: Sequence[Variable], tape: Any = None) -> Variable:
        """Computes the gradients of ``loss`` (a callable, or a tensor with its ``tape``) with
        respect to ``var_list`` and applies them."""
        from fn._autodiff.tape import GradientTape
        if callable(loss):
            with GradientTape() as t:
                value = loss()
        else:
            if tape is None:
                raise ValueError("`tape` is required when a `Tensor` loss is passed. Received: loss="
                                 f"{loss}, tape={tape}.")
            t, value = tape, loss
        var_list = list(var_list() if callable(var_list) else var_list)
        grads = t.gradient(value, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {"name": self.name, "learning_rate": float(self._learning_rate.numpy())}

    def __repr__(self) -> str:
        return f"<fn.keras.optimizers.{type(self).__name__} object at 0x{id(self):x}>"


class SGD(Optimizer):
    """``tf.keras.optimizers.SGD``: ``v -= lr * g``; with momentum,
    ``m = momentum * m - lr * g; v += m`` (Nesterov: ``v += momentum * m - lr * g``)."""

    def __init__(self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False,
                 name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        if not isinstance(momentum, (int, float)) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = float(momentum)
        self.nesterov = nesterov
        self.momentums: List[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        new = [v for v in var_list if id(v) not in self._index]
        super().build(var_list)
        if self.momentum != 0:
            for v in new:
                self.momentums.append(self.add_variable_from_reference(v, "momentum"))

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        if self.momentum == 0:
            variable.assign_sub(gradient * learning_rate)
            return
        m = self.momentums[self._slot_index(variable)]
        m.assign(m * self.momentum - gradient * learning_rate)
        if self.nesterov:
            variable.assign_add(m * self.momentum - gradient * learning_rate)
        else:
            variable.assign_add(m)


class Adam(Optimizer):
    """``tf.keras.optimizers.Adam`` (Keras 3's rule):
    ``alpha = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)``, ``m += (g - m) * (1 - beta_1)``,
    ``v += (g^2 - v) * (1 - beta_2)``, ``var -= m * alpha / (sqrt(v) + epsilon)``."""

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False, name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, amsgrad
        self._momentums: List[Variable] = []
        self._velocities: List[Variable] = []
        self._velocity_hats: List[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        new = [v for v in var_list if id(v) not in self._index]
        super().build(var_list)
        for v in new:
            self._momentums.append(self.add_variable_from_reference(v, "momentum"))
            self._velocities.append(self.add_variable_from_reference(v, "velocity"))
            if self.amsgrad:
                self._velocity_hats.append(self.add_variable_from_reference(v, "velocity_hat"))

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        i = self._slot_index(variable)
        m, v = self._momentums[i], self._velocities[i]
        step = array_ops.cast(self._iterations.read_value() + 1, variable.dtype)
        beta_1_power = math_ops.pow(_core.convert_to_tensor(self.beta_1, None, variable.dtype), step)
        beta_2_power = math_ops.pow(_core.convert_to_tensor(self.beta_2, None, variable.dtype), step)
        alpha = learning_rate * math_ops.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m.assign_add((gradient - m) * (1 - self.beta_1))
        v.assign_add((math_ops.square(gradient) - v) * (1 - self.beta_2))
        v_used = v.read_value()
        if self.amsgrad:
            v_hat = self._velocity_hats[i]
            v_hat.assign(math_ops.maximum(v_hat, v_used))
            v_used = v_hat.read_value()
        variable.assign_sub(m * alpha / (math_ops.sqrt(v_used) + self.epsilon))


_BY_NAME = {"sgd": SGD, "adam": Adam}


def get(identifier: Any) -> Optimizer:
    """An optimizer from a name (``'adam'``) or an instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")

from fn._public import export as _export
_export(globals(), hide=["Variable", "float32", "init_scope", "int64"])
