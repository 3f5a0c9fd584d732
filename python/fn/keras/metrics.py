"""``fn.keras.metrics`` (``keras.metrics``)."""
from fn.keras._metrics import (BinaryAccuracy, CategoricalAccuracy, CategoricalCrossentropy, Mean,  # noqa: F401
                               MeanAbsoluteError, MeanMetricWrapper, MeanSquaredError, Metric,
                               SparseCategoricalAccuracy, SparseCategoricalCrossentropy, Sum, binary_accuracy,
                               categorical_accuracy, get, sparse_categorical_accuracy)

__all__ = ["BinaryAccuracy", "CategoricalAccuracy", "CategoricalCrossentropy", "Mean", "MeanAbsoluteError",
           "MeanMetricWrapper", "MeanSquaredError", "Metric", "SparseCategoricalAccuracy",
           "SparseCategoricalCrossentropy", "Sum", "binary_accuracy", "categorical_accuracy", "get",
           "sparse_categorical_accuracy"]
