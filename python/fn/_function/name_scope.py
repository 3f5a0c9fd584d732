"""``fn.name_scope`` (``tf.name_scope``): prefixes the names of ops created while tracing."""

from __future__ import annotations

import threading
from typing import Any, List, Optional, Tuple

from fn import _core

# The scopes entered on this thread: (id of the graph being traced or None when eager, scope).
_local = threading.local()


def _stack() -> List[Tuple[Optional[int], str]]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _graph_key() -> Optional[int]:
    g = _core.current_graph()
    return None if g is None else g.id


def current_scope() -> str:
    """The name scope ops and variables made here are named under (``"a/b/"``, or ``""``)."""
    stack, key = _stack(), _graph_key()
    for graph, scope in reversed(stack):
        if graph == key:
            return scope
    return ""


class name_scope:  # TensorFlow's name
    """``tf.name_scope(name)``: ops traced inside are named ``name/op``; a scope name used twice
    in one graph becomes ``name_1`` (TF's uniquing). A name ending in ``/`` is reused as given.
    Eagerly op names do not exist, so it only returns the scope string."""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise ValueError(f"name for name_scope must be a string, got {name!r}")
        self._name = name
        self._prev: Optional[str] = None

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        r = _core.name_scope_enter(self._name)
        if r is None:  # eager: scopes nest by name (TF's eager context scope name)
            if not self._name or self._name.endswith("/"):
                scope = self._name
            else:
                scope = current_scope() + self._name + "/"
        else:
            self._prev, scope = r
        _stack().append((_graph_key(), scope))
        return scope

    def __exit__(self, *exc: Any) -> None:
        stack = _stack()
        if stack:
            stack.pop()
        if self._prev is not None:
            _core.name_scope_exit(self._prev)
            self._prev = None
