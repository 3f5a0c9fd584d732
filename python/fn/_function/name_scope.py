"""``fn.name_scope`` (``tf.name_scope``): prefixes the names of ops created while tracing."""
from __future__ import annotations

from typing import Any, Optional

from fn import _core


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
        if r is None:   # eager
            return self._name if not self._name or self._name.endswith("/") else self._name + "/"
        self._prev, scope = r
        return scope

    def __exit__(self, *exc: Any) -> None:
        if self._prev is not None:
            _core.name_scope_exit(self._prev)
            self._prev = None
