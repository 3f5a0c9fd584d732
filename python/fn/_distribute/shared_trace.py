"""A Function's trace shared with the threads of its local replicas (TF's ``mirrored_run``
traces each replica of ``strategy.run`` on its own thread, into the graph the caller builds).

Only one of the threads runs at a time (the caller waits while a replica runs, a replica waits
at ``merge_call``), so they take turns on the same graph builders. What is per thread in fn is
handed over: the C++ frame stack (which graphs are being built), the Python thread-local
tracing state (AutoGraph status, name scopes, Functions being traced, the variable-creation
rules), and at every hand-over the graph's current name scope and each thread's device scopes.
"""

from __future__ import annotations

import threading
from typing import Any, List, Optional

from fn import _core
from fn._autograph import status as _autograph_status
from fn._function import function as _function
from fn._function import name_scope as _name_scope
from fn._runtime import device as _device
from fn._state import variables as _variables


def graph_name_scope() -> Optional[str]:
    """The name scope of the graph being built (None eagerly)."""
    r = _core.name_scope_enter("")
    if r is None:
        return None
    _core.name_scope_exit(r[0])
    return str(r[0])


def set_graph_name_scope(scope: Optional[str]) -> None:
    if scope is not None:
        _core.name_scope_exit(scope)


class SharedTrace:
    """Captured on the calling thread; ``enter``/``exit`` on a replica thread."""

    def __init__(self) -> None:
        self._frames = _core.current_context_frames()
        self._ident = threading.get_ident()
        self._autograph: List[Any] = list(getattr(_autograph_status._local, "stack", []))
        self._names = list(_name_scope._stack())
        self._tracing = set(_function._tracing_now())
        self._policies = list(_variables._policies())
        self._creators = list(_variables._creators())
        self.name_scope = graph_name_scope()

    def enter(self) -> Any:
        """Makes this thread trace where the caller does; returns what ``exit`` takes."""
        scope = _core.SharedContextScope(self._frames)
        scope.__enter__()
        _autograph_status._local.stack = list(self._autograph)
        _name_scope._local.stack = list(self._names)
        _function._tracing_local.active = set(self._tracing)
        _variables._local.policies = list(self._policies)
        _variables._local.creators = list(self._creators)
        _device.adopt_scopes(self._ident)
        set_graph_name_scope(self.name_scope)
        _device.resume_scopes()
        return scope

    def exit(self, scope: Any) -> None:
        _device.drop_scopes()
        scope.__exit__(None, None, None)


class Handover:
    """One thread's share of the graph-wide state while another thread runs."""

    def __init__(self) -> None:
        self._scope: Optional[str] = None

    def pause(self) -> None:
        self._scope = graph_name_scope()

    def resume(self) -> None:
        set_graph_name_scope(self._scope)
        _device.resume_scopes()
