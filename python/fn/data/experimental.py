"""``fn.data.experimental`` (``tf.data.experimental``): the constants code commonly imports."""
from __future__ import annotations

from typing import Any

from fn.data._options import (AutoShardPolicy, DistributeOptions, ExternalStatePolicy,  # noqa: F401
                              OptimizationOptions, ThreadingOptions)

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


def cardinality(dataset: Any) -> Any:
    """``tf.data.experimental.cardinality``."""
    return dataset.cardinality()

from fn._public import export as _export  # noqa: E402
_export(globals())
