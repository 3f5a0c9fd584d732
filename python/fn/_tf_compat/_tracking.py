"""``tf.__internal__.tracking``: ``Trackable``, ``AutoTrackable`` and
``no_automatic_dependency_tracking``, the base classes Keras' layers, optimizers and variables
derive from. An object's tracked children are what ``fn.train.Checkpoint`` and
``fn.saved_model.save`` walk (through ``_fn_trackable_children``)."""

from __future__ import annotations

import collections
import functools
from typing import Any, Callable, Dict, List, Tuple
from fn._state.variables import Variable
from fn._state import trackable as _trackable

_DEPS = "_self_unconditional_dependency_names"


class Trackable:
    """TF's ``Trackable``: an object with named dependencies on other trackables."""

    _fn_trackable = True

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if "_fn_deferred_restores" in self.__dict__:  # a checkpoint read before this attribute existed
            _trackable.on_setattr(self, name, value)

    def _track_trackable(self, trackable: Any, name: str, overwrite: bool = False) -> Any:
        deps = self.__dict__.get(_DEPS)
        if deps is None:
            deps = {}
            object.__setattr__(self, _DEPS, deps)
        if name in deps and deps[name] is not trackable and not overwrite:
            raise ValueError(
                f"Called Trackable._track_trackable() with name='{name}', but a Trackable "
                "with this name is already declared as a dependency. Names must be unique "
                "(or overwrite=True)."
            )
        deps[name] = trackable
        return trackable

    def _trackable_children(self, save_type: str = "checkpoint", **kwargs: Any) -> Dict[str, Any]:
        return dict(self.__dict__.get(_DEPS, {}))

    def _fn_trackable_children(self) -> List[Tuple[str, Any]]:
        # fn's checkpoints and SavedModels walk these (fn._trackable.children).
        return list(self._trackable_children().items())


class AutoTrackable(Trackable):
    """TF's ``AutoTrackable``: assigning a trackable (or a variable) to an attribute tracks it
    under the attribute's name; assigning something else to that name stops tracking it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_self_setattr_tracking", True) and not name.startswith("_self_"):
            deps = self.__dict__.get(_DEPS)
            if _is_trackable_value(value):
                self._track_trackable(value, name, overwrite=True)
            elif deps is not None and name in deps:
                del deps[name]
        super().__setattr__(name, value)  # on along the MRO (Keras' optimizer tracks here too)

    def __delattr__(self, name: str) -> None:
        deps = self.__dict__.get(_DEPS)
        if deps is not None:
            deps.pop(name, None)
        super().__delattr__(name)


def _is_trackable_value(value: Any) -> bool:
    # Lists and dicts are tracked by reference, even empty (TF wraps them to see later appends;
    # here the same object is walked when saving, so later appends are seen too). As TF's
    # wrap_or_unwrap, only the exact types: subclasses (Keras' TrackedList holding a Sequential's
    # layers) are not dependencies, so checkpoint paths are TF's.
    if type(value) in (list, dict, collections.OrderedDict):
        return True
    if isinstance(value, tuple):
        return any(_is_trackable_value(v) for v in value)
    return isinstance(value, (Trackable, Variable))


def no_automatic_dependency_tracking(method: Callable) -> Callable:
    """Runs ``method`` with attribute assignments on ``self`` not tracked (TF's decorator)."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        previous = getattr(self, "_self_setattr_tracking", True)
        object.__setattr__(self, "_self_setattr_tracking", False)
        try:
            return method(self, *args, **kwargs)
        finally:
            object.__setattr__(self, "_self_setattr_tracking", previous)

    return wrapper
