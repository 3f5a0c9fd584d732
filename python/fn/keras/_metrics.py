"""``fn.keras.metrics`` (``keras.metrics``): stateful metrics whose state is ``fn.Variable``s,
so ``update_state`` runs inside a traced train step."""
from __future__ import annotations

from typing import Any, Callable, List, Optional

import numpy as np

from fn import _core
from fn._ops import array_ops
from fn._ops import math_ops
from fn._state.module import Module
from fn._state.variables import Variable, init_scope
from fn.dtypes import float32
from fn.keras import losses as losses_mod
from fn.keras.layers import _snake


class Metric(Module):
    """``keras.metrics.Metric``: ``update_state`` accumulates, ``result`` reads, ``reset_state`` zeroes."""

    def __init__(self, name: Optional[str] = None, dtype: Any = None) -> None:
        super().__init__(name=name or _snake(type(self).__name__))
        self._metric_variables: List[Variable] = []

    @property
    def name(self) -> str:
        return self._name

    def add_variable(self, shape: Any = (), initializer: Any = "zeros", dtype: Any = None, name: Optional[str] = None
                     ) -> Variable:
        with init_scope():
            v = Variable(np.zeros(shape, np.float32), trainable=False, name=f"{self._name}/{name or 'var'}")
        self._metric_variables.append(v)
        return v

    @property
    def variables(self) -> List[Variable]:
        return list(self._metric_variables)

    def reset_state(self) -> None:
        for v in self._metric_variables:
            v.assign(np.zeros(v.shape.as_list(), v.dtype.as_numpy_dtype), read_value=False)

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError

    def result(self) -> Any:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.update_state(*args, **kwargs)
        return self.result()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self._name}>"


class Mean(Metric):
    """``keras.metrics.Mean``: the (weighted) mean of the values seen."""

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")
        self.count = self.add_variable(name="count")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        values = _core.convert_to_tensor(values, None, float32)
        if values.dtype != float32:
            values = array_ops.cast(values, float32)
        if sample_weight is None:
            self.total.assign_add(math_ops.reduce_sum(values), read_value=False)
            n = array_ops.size(values) if not values.shape.is_fully_defined() else values.shape.num_elements()
            self.count.assign_add(array_ops.cast(n, float32) if _core.is_tensor(n) else float(n), read_value=False)
            return
        w = _core.convert_to_tensor(sample_weight, None, float32)
        if w.dtype != float32:
            w = array_ops.cast(w, float32)
        if values.shape.rank is not None and values.shape.rank > 0 and w.shape.rank == 0:
            w = w * math_ops.ones_like(values)
        elif values.shape.rank == 0 and w.shape.rank is not None and w.shape.rank == 0:
            pass
        self.total.assign_add(math_ops.reduce_sum(values * w), read_value=False)
        self.count.assign_add(math_ops.reduce_sum(w * math_ops.ones_like(values)), read_value=False)

    def result(self) -> Any:
        return math_ops.divide_no_nan(self.total.read_value(), self.count.read_value())


class Sum(Metric):
    """``keras.metrics.Sum``."""

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        values = array_ops.cast(_core.convert_to_tensor(values), float32)
        if sample_weight is not None:
            values = values * array_ops.cast(_core.convert_to_tensor(sample_weight), float32)
        self.total.assign_add(math_ops.reduce_sum(values), read_value=False)

    def result(self) -> Any:
        return self.total.read_value()


class MeanMetricWrapper(Mean):
    """``keras.metrics.MeanMetricWrapper``: the mean of ``fn(y_true, y_pred)`` per sample."""

    def __init__(self, fn: Callable, name: Optional[str] = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(name=name or getattr(fn, "__name__", "mean_metric_wrapper"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        super().update_state(self._fn(y_true, y_pred, **self._fn_kwargs), sample_weight)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    y_pred = _core.convert_to_tensor(y_pred)
    y_true = _core.convert_to_tensor(y_true)
    if y_true.shape.rank is not None and y_pred.shape.rank is not None and y_true.shape.rank == y_pred.shape.rank:
        y_true = array_ops.squeeze(y_true, [-1])
    pred = math_ops.argmax(y_pred, axis=-1)
    return array_ops.cast(math_ops.equal(array_ops.cast(y_true, pred.dtype), pred), float32)


def categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    return array_ops.cast(math_ops.equal(math_ops.argmax(y_true, axis=-1), math_ops.argmax(y_pred, axis=-1)), float32)


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Any:
    y_pred = _core.convert_to_tensor(y_pred)
    y_true = array_ops.cast(_core.convert_to_tensor(y_true), y_pred.dtype)
    pred = array_ops.cast(math_ops.greater(y_pred, threshold), y_pred.dtype)
    return math_ops.reduce_mean(array_ops.cast(math_ops.equal(y_true, pred), float32), axis=-1)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """``keras.metrics.SparseCategoricalAccuracy``."""

    def __init__(self, name: str = "sparse_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class CategoricalAccuracy(MeanMetricWrapper):
    """``keras.metrics.CategoricalAccuracy``."""

    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """``keras.metrics.BinaryAccuracy``."""

    def __init__(self, name: str = "binary_accuracy", dtype: Any = None, threshold: float = 0.5) -> None:
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)


class MeanSquaredError(MeanMetricWrapper):
    """``keras.metrics.MeanSquaredError``."""

    def __init__(self, name: str = "mean_squared_error", dtype: Any = None) -> None:
        super().__init__(losses_mod.mean_squared_error, name=name, dtype=dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    """``keras.metrics.MeanAbsoluteError``."""

    def __init__(self, name: str = "mean_absolute_error", dtype: Any = None) -> None:
        super().__init__(losses_mod.mean_absolute_error, name=name, dtype=dtype)


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """``keras.metrics.SparseCategoricalCrossentropy``."""

    def __init__(self, name: str = "sparse_categorical_crossentropy", dtype: Any = None, from_logits: bool = False
                 ) -> None:
        super().__init__(losses_mod.sparse_categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits)


class CategoricalCrossentropy(MeanMetricWrapper):
    """``keras.metrics.CategoricalCrossentropy``."""

    def __init__(self, name: str = "categorical_crossentropy", dtype: Any = None, from_logits: bool = False) -> None:
        super().__init__(losses_mod.categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits)


_FUNCTIONS = {"mse": MeanSquaredError, "mean_squared_error": MeanSquaredError, "mae": MeanAbsoluteError,
              "mean_absolute_error": MeanAbsoluteError,
              "sparse_categorical_accuracy": SparseCategoricalAccuracy,
              "categorical_accuracy": CategoricalAccuracy, "binary_accuracy": BinaryAccuracy}


def get(identifier: Any, loss: Any = None) -> Metric:
    """A metric from a name (``'accuracy'`` picks the accuracy matching ``loss``, as Keras does),
    a function, or an instance."""
    if isinstance(identifier, Metric):
        return identifier
    if identifier in ("accuracy", "acc"):
        loss_name = getattr(loss, "__name__", type(loss).__name__ if loss is not None else "")
        loss_name = loss if isinstance(loss, str) else loss_name
        if "sparse_categorical" in loss_name or "SparseCategorical" in loss_name:
            m: Metric = SparseCategoricalAccuracy(name=identifier)
        elif "binary" in loss_name or "Binary" in loss_name:
            m = BinaryAccuracy(name=identifier)
        else:
            m = CategoricalAccuracy(name=identifier)
        return m
    if isinstance(identifier, str) and identifier in _FUNCTIONS:
        return _FUNCTIONS[identifier](name=identifier)
    if callable(identifier):
        return MeanMetricWrapper(identifier, name=getattr(identifier, "__name__", None))
    raise ValueError(f"Could not interpret metric identifier: {identifier}")
