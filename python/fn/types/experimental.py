"""``fn.types.experimental``: the tracing protocol, like ``tf.types.experimental``."""

from __future__ import annotations

import abc
from typing import Any, Optional, Sequence


class TraceType(abc.ABC):
    """The type of a value as the Function cache sees it (``tf.types.experimental.TraceType``).

    Return one from ``__tf_tracing_type__(self, context)`` to control when a Function retraces.
    """

    @abc.abstractmethod
    def is_subtype_of(self, other: "TraceType") -> bool:
        """True when every value of this type is also a value of ``other``."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others: Sequence["TraceType"]) -> Optional["TraceType"]:
        """The most specific type that this and all ``others`` are subtypes of, or None."""

    def placeholder_value(self, placeholder_context: Any = None) -> Any:
        """The value used in place of the argument while tracing (default: the argument itself)."""
        raise NotImplementedError

    @abc.abstractmethod
    def __eq__(self, other: Any) -> bool: ...

    @abc.abstractmethod
    def __hash__(self) -> int: ...


class TracingContext:
    """Passed to ``__tf_tracing_type__``; fn keeps no state in it."""


from fn._public import export as _export

_export(globals(), hide=["TracingContext"])
