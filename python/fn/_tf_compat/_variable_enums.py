"""``tf.VariableAggregation`` and ``tf.VariableSynchronization`` (TF's enums, same values)."""

from __future__ import annotations

import enum


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (``tf.VariableSynchronization``)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How updates to a distributed variable are aggregated (``tf.VariableAggregation``)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3

    def __hash__(self) -> int:
        return self.value
