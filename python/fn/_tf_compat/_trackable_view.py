"""``tf.train.TrackableView`` and ``tf.saved_model.experimental.TrackableResource``: the object
graph as Keras' export walks it (``children`` of one object, ``descendants`` of the root)."""

from __future__ import annotations

from typing import Any, Dict, List

from fn._tf_compat._tracking import AutoTrackable
from fn._state import trackable as _trackable


class TrackableView:
    """``tf.train.TrackableView(root)``: read-only view of the objects ``root`` depends on."""

    def __init__(self, root: Any) -> None:
        self._root = root

    @classmethod
    def children(cls, obj: Any, save_type: str = "checkpoint", **kwargs: Any) -> Dict[str, Any]:
        """The named dependencies of ``obj`` (fn's object graph: attributes, list and dict items)."""

        own = getattr(obj, "_trackable_children", None)
        if own is not None:
            try:
                return dict(own(save_type, **kwargs))
            except TypeError:
                return dict(own(save_type))
        return dict(_trackable.children(obj))

    def descendants(self) -> List[Any]:
        """Every object reachable from the root, breadth first (the root first)."""
        seen, order, queue = {id(self._root)}, [self._root], [self._root]
        while queue:
            obj = queue.pop(0)
            for child in self.children(obj).values():
                if id(child) not in seen:
                    seen.add(id(child))
                    order.append(child)
                    queue.append(child)
        return order


class TrackableResource(AutoTrackable):
    """``tf.saved_model.experimental.TrackableResource``: a resource (lookup table, ...) a
    SavedModel keeps; fn has no resource kernels of this kind, so only the type exists to test
    against (Keras' export collects instances it finds)."""
