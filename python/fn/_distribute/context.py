"""Which strategy and which context (cross-replica or replica) the current thread is in.

TF keeps a stack of thread modes on the default graph (``distribute_lib._ThreadMode``); fn keeps
it per thread: a Function is traced on the calling thread, so code traced inside
``strategy.run`` sees the replica context exactly as TF's FuncGraph (which copies the outer
stack) does. The bottom of the stack is the default strategy's replica context.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Iterator, List, Optional

_local = threading.local()


class _ThreadMode:
    __slots__ = ("strategy", "cross_replica_context", "replica_context")

    def __init__(self, strategy: Any, cross: Any, replica: Any) -> None:
        self.strategy = strategy
        self.cross_replica_context = cross
        self.replica_context = replica


def cross_replica_mode(strategy: Any) -> _ThreadMode:
    return _ThreadMode(strategy, strategy, None)


def replica_mode(replica_ctx: Any) -> _ThreadMode:
    return _ThreadMode(replica_ctx.strategy, None, replica_ctx)


def _stack() -> List[_ThreadMode]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def push_mode(mode: _ThreadMode) -> None:
    _stack().append(mode)


def pop_mode() -> None:
    _stack().pop()


_defaults: dict = {}
_defaults_lock = threading.Lock()
# Set by fn._distribute.strategy (which imports this module): makes the default strategy and its
# replica context.
_default_factory: List[Callable[[], tuple]] = []


def set_default_factory(factory: Callable[[], tuple]) -> None:
    _default_factory[:] = [factory]


def default_mode() -> _ThreadMode:
    """The mode outside every scope: the default strategy in its default replica context."""
    mode = _defaults.get("mode")
    if mode is None:
        with _defaults_lock:
            mode = _defaults.get("mode")
            if mode is None:
                strategy, replica = _default_factory[0]()
                mode = _defaults["mode"] = _ThreadMode(strategy, None, replica)
    return mode


def current_mode() -> _ThreadMode:
    stack = _stack()
    return stack[-1] if stack else default_mode()


def get_replica_context() -> Any:
    """``tf.distribute.get_replica_context``: the current ``ReplicaContext``; None in a
    cross-replica context (inside ``strategy.scope()`` but outside ``strategy.run``)."""
    return current_mode().replica_context


def get_cross_replica_context() -> Any:
    return current_mode().cross_replica_context


def in_cross_replica_context() -> bool:
    """``tf.distribute.in_cross_replica_context``: True inside a strategy's scope and outside
    its ``run`` (or inside a ``merge_call``)."""
    return current_mode().cross_replica_context is not None


def get_strategy() -> Any:
    """``tf.distribute.get_strategy``: the strategy of the innermost scope, else the default
    strategy (one replica, no communication)."""
    return current_mode().strategy


def has_strategy() -> bool:
    """``tf.distribute.has_strategy``: True inside a non-default strategy's scope."""
    return get_strategy() is not default_mode().strategy


def get_strategy_and_replica_context() -> tuple:
    mode = current_mode()
    return mode.strategy, mode.replica_context


def experimental_set_strategy(strategy: Any) -> None:
    """``tf.distribute.experimental_set_strategy``: enter ``strategy.scope()`` for good (None
    leaves the one entered before)."""
    old = getattr(_local, "global_scope", None)
    if old is not None:
        old.__exit__(None, None, None)
        _local.global_scope = None
    if has_strategy():
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _local.global_scope = scope


# ---------------------------------------------------------------- checks (TF's messages)
def wrong_strategy_scope(strategy: Any, mode: _ThreadMode) -> None:
    if not has_strategy():
        raise RuntimeError('Need to be inside "with strategy.scope()" for %s' % (strategy,))
    raise RuntimeError("Mixing different tf.distribute.Strategy objects: %s is not %s" % (mode.strategy, strategy))


def require_cross_replica_or_default_context_extended(extended: Any, error_message: Optional[str] = None) -> None:
    mode = current_mode()
    cross = mode.cross_replica_context
    if cross is not None and cross.extended is extended:
        return
    if mode is default_mode():
        return
    strategy = extended._container_strategy()
    if mode.strategy is not strategy:
        wrong_strategy_scope(strategy, mode)
    raise RuntimeError(
        error_message or "Method requires being in cross-replica context, use get_replica_context().merge_call()"
    )


def require_replica_context(replica_ctx: Any) -> None:
    mode = current_mode()
    if mode.replica_context is replica_ctx:
        return
    if mode.replica_context is None:
        raise RuntimeError("Need to be inside `call_for_each_replica()`")
    if mode.strategy is replica_ctx.strategy:
        raise RuntimeError("Mismatching ReplicaContext.")
    raise RuntimeError(
        "Mismatching tf.distribute.Strategy objects: %s is not %s." % (mode.strategy, replica_ctx.strategy)
    )


def require_strategy_scope_extended(extended: Any) -> None:
    mode = current_mode()
    if mode.strategy.extended is extended:
        return
    wrong_strategy_scope(extended._container_strategy(), mode)


# ---------------------------------------------------------------- update context
def get_update_replica_id() -> Any:
    """The replica whose variables an ``extended.update`` is updating (None outside one)."""
    return getattr(_local, "update_replica_id", None)


@contextlib.contextmanager
def update_context(replica_id: Any) -> Iterator[None]:
    old = get_update_replica_id()
    _local.update_replica_id = replica_id
    try:
        yield
    finally:
        _local.update_replica_id = old


def run_in_cross_replica(strategy: Any, fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``merge_call``'s core: run ``fn`` in ``strategy``'s cross-replica context."""
    push_mode(cross_replica_mode(strategy))
    try:
        return fn(*args, **kwargs)
    finally:
        pop_mode()


# ---------------------------------------------------------------- saving
def is_saving_non_distributed() -> bool:
    """True while a SavedModel traces its functions (TF's ``values_util.is_saving_non_distributed``):
    code then acts as one replica on the primary copies of mirrored variables."""
    return bool(getattr(_local, "saving", False))


@contextlib.contextmanager
def saving_non_distributed() -> Iterator[None]:
    old = is_saving_non_distributed()
    _local.saving = True
    try:
        yield
    finally:
        _local.saving = old
