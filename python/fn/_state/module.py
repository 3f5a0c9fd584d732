"""``fn.Module`` (``tf.Module``): named containers of variables and submodules."""

from __future__ import annotations

import re
from typing import Any, Callable, List, Optional, Tuple

from fn._state import trackable
from fn._state.variables import Variable


def _snake(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


class Module:
    """A container whose variables and submodules are found by walking its attributes."""

    _fn_trackable = True  # checkpoints follow its attributes (fn._state.trackable)

    def __init__(self, name: Optional[str] = None) -> None:
        self._name = name if name is not None else _snake(type(self).__name__)

    def __setattr__(self, key: str, value: Any) -> None:
        object.__setattr__(self, key, value)
        if "_fn_deferred_restores" in self.__dict__:  # a checkpoint restored before this existed
            trackable.on_setattr(self, key, value)

    @property
    def name(self) -> str:
        return getattr(self, "_name", None) or _snake(type(self).__name__)

    @property
    def name_scope(self) -> Any:
        import contextlib

        return contextlib.nullcontext(self.name)

    def _walk(self, predicate: Callable[[Any], bool], recurse: bool = True) -> List[Any]:
        seen: set = set()
        found: List[Any] = []

        def visit(obj: Any, depth: int) -> None:
            if id(obj) in seen:
                return
            seen.add(id(obj))
            if predicate(obj):
                found.append(obj)
            if isinstance(obj, Module) and (depth == 0 or recurse):
                for key in sorted(vars(obj)):
                    if key.startswith("_") and key != "_layers":
                        continue
                    visit_child(getattr(obj, key), depth + 1)
            elif isinstance(obj, (list, tuple)):
                for x in obj:
                    visit(x, depth)
            elif isinstance(obj, dict):
                for k in sorted(obj, key=repr):
                    visit(obj[k], depth)

        def visit_child(obj: Any, depth: int) -> None:
            if isinstance(obj, Module) and not recurse and depth > 1:
                return
            visit(obj, depth)

        for key in sorted(vars(self)):
            if key.startswith("_"):
                continue
            visit(getattr(self, key), 1)
        return found

    @property
    def variables(self) -> Tuple[Variable, ...]:
        return tuple(self._walk(lambda o: isinstance(o, Variable)))

    @property
    def trainable_variables(self) -> Tuple[Variable, ...]:
        return tuple(v for v in self.variables if v.trainable)

    @property
    def non_trainable_variables(self) -> Tuple[Variable, ...]:
        return tuple(v for v in self.variables if not v.trainable)

    @property
    def submodules(self) -> Tuple["Module", ...]:
        return tuple(self._walk(lambda o: isinstance(o, Module) and o is not self))

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        return method

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object at 0x{id(self):x}>"
