"""``fn.compat.v1`` (``tf.compat.v1``): graph-building placeholders and the v1 names Keras uses."""

from __future__ import annotations

from typing import Any, Optional

from fn._tf_compat._graph import placeholder, sparse_placeholder


class Dimension:
    """``tf.compat.v1.Dimension``: one dimension of a shape, ``value`` None when unknown."""

    def __init__(self, value: Optional[int]) -> None:
        self.value = None if value is None else int(value)

    def __eq__(self, other: Any) -> Any:
        other = getattr(other, "value", other)
        return None if self.value is None or other is None else self.value == other

    def __int__(self) -> int:
        if self.value is None:
            raise TypeError("Cannot convert an unknown Dimension to an int")
        return self.value

    __index__ = __int__

    def __repr__(self) -> str:
        return f"Dimension({self.value})"


def reset_default_graph() -> None:
    """``tf.compat.v1.reset_default_graph``: fn keeps no global default graph; outside graph
    building there is nothing to reset (TF raises inside a graph, as here)."""
    from fn import _core

    if not _core.executing_eagerly():
        raise AssertionError(
            "Do not use tf.reset_default_graph() to clear nested graphs. If you need "
            "a cleared graph, exit the nesting and create a new graph."
        )


from fn._public import export as _export

_export(globals())
