"""``fn.keras.losses`` (``tf.keras.losses``): mean squared/absolute error and cross-entropies,
averaged over the batch (Keras's default ``"sum_over_batch_size"`` reduction)."""
from __future__ import annotations

from typing import Any, Callable, Optional

from fn import _core, nn
from fn._ops import array_ops
from fn._ops import math_ops
from fn.dtypes import float32


def _prepare(y_true: Any, y_pred: Any) -> tuple:
    y_pred = _core.convert_to_tensor(y_pred, None, float32)
    y_true = _core.convert_to_tensor(y_true, None, y_pred.dtype)
    if y_true.dtype != y_pred.dtype:
        y_true = array_ops.cast(y_true, y_pred.dtype)
    return y_true, y_pred


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    """``mean(square(y_pred - y_true), axis=-1)`` per sample."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return math_ops.reduce_mean(math_ops.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _prepare(y_true, y_pred)
    return math_ops.reduce_mean(math_ops.abs(y_pred - y_true), axis=-1)


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False, axis: int = -1) -> Any:
    y_true, y_pred = _prepare(y_true, y_pred)
    if from_logits:
        log_p = nn.log_softmax(y_pred, axis=axis)
    else:
        p = y_pred / math_ops.reduce_sum(y_pred, axis=axis, keepdims=True)
        log_p = math_ops.log(math_ops.maximum(math_ops.minimum(p, 1.0 - 1e-7), 1e-7))
    return -math_ops.reduce_sum(y_true * log_p, axis=axis)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False, axis: int = -1) -> Any:
    y_pred = _core.convert_to_tensor(y_pred, None, float32)
    labels = array_ops.cast(_core.convert_to_tensor(y_true), "int32")
    depth = y_pred.shape[-1]
    return categorical_crossentropy(array_ops.one_hot(labels, depth, dtype=y_pred.dtype), y_pred,
                                    from_logits=from_logits, axis=axis)


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False) -> Any:
    y_true, y_pred = _prepare(y_true, y_pred)
    if from_logits:
        # max(x, 0) - x * z + log(1 + exp(-|x|))
        per = nn.relu(y_pred) - y_pred * y_true + math_ops.log1p(math_ops.exp(-math_ops.abs(y_pred)))
    else:
        p = math_ops.maximum(math_ops.minimum(y_pred, 1.0 - 1e-7), 1e-7)
        per = -(y_true * math_ops.log(p) + (1.0 - y_true) * math_ops.log(1.0 - p))
    return math_ops.reduce_mean(per, axis=-1)


class Loss:
    """Base class: ``loss(y_true, y_pred, sample_weight=None)`` is the reduced loss."""

    def __init__(self, reduction: Optional[str] = "sum_over_batch_size", name: Optional[str] = None) -> None:
        self.reduction = reduction
        self.name = name or type(self).__name__

    def call(self, y_true: Any, y_pred: Any) -> Any:
        raise NotImplementedError

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        values = self.call(y_true, y_pred)
        if sample_weight is not None:
            values = values * _core.convert_to_tensor(sample_weight, None, values.dtype)
        if self.reduction in (None, "none"):
            return values
        if self.reduction == "sum":
            return math_ops.reduce_sum(values)
        return math_ops.reduce_mean(values)


class _FunctionLoss(Loss):
    _fn: Callable = staticmethod(mean_squared_error)

    def __init__(self, reduction: Optional[str] = "sum_over_batch_size", name: Optional[str] = None,
                 **fn_kwargs: Any) -> None:
        super().__init__(reduction, name)
        self._fn_kwargs = fn_kwargs

    def call(self, y_true: Any, y_pred: Any) -> Any:
        return type(self)._fn(y_true, y_pred, **self._fn_kwargs)


class MeanSquaredError(_FunctionLoss):
    """``tf.keras.losses.MeanSquaredError``."""
    _fn = staticmethod(mean_squared_error)


class MeanAbsoluteError(_FunctionLoss):
    """``tf.keras.losses.MeanAbsoluteError``."""
    _fn = staticmethod(mean_absolute_error)


class CategoricalCrossentropy(_FunctionLoss):
    """``tf.keras.losses.CategoricalCrossentropy`` (``from_logits``)."""
    _fn = staticmethod(categorical_crossentropy)

    def __init__(self, from_logits: bool = False, reduction: Optional[str] = "sum_over_batch_size",
                 name: Optional[str] = None) -> None:
        super().__init__(reduction, name, from_logits=from_logits)


class SparseCategoricalCrossentropy(CategoricalCrossentropy):
    """``tf.keras.losses.SparseCategoricalCrossentropy`` (integer labels)."""
    _fn = staticmethod(sparse_categorical_crossentropy)


class BinaryCrossentropy(CategoricalCrossentropy):
    """``tf.keras.losses.BinaryCrossentropy``."""
    _fn = staticmethod(binary_crossentropy)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error


def get(identifier: Any) -> Callable:
    if callable(identifier):
        return identifier
    table = {"mse": mean_squared_error, "mean_squared_error": mean_squared_error, "mae": mean_absolute_error,
             "mean_absolute_error": mean_absolute_error, "categorical_crossentropy": categorical_crossentropy,
             "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
             "binary_crossentropy": binary_crossentropy}
    try:
        return table[identifier]
    except KeyError:
        raise ValueError(f"Could not interpret loss identifier: {identifier}") from None

from fn._public import export as _export  # noqa: E402
_export(globals(), hide=["float32", "mean_absolute_error", "mean_squared_error"])
