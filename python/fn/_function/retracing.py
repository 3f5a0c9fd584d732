"""Retracing diagnostics for ``fn.function``: TF's frequent-retracing warning (same rule and
message, through ``fn.get_logger()``) and fn's explanation of each retrace."""

from __future__ import annotations

import collections
import logging
import sys
import threading
import weakref
from typing import Any, List


_logger = logging.getLogger("fn")
_RETRACE_COMPARE = 32  # cached signatures a retrace explanation compares with
_RETRACE_LOG_SIZE = 100  # explanations kept per Function


class _Explain:
    """Retracing explanations (beyond TF): which argument's trace type differed and how."""

    def __init__(self) -> None:
        self.enabled = False
        self.log: List[str] = []

    def on_trace(self, f: Any, key: Any) -> None:
        # Compare with the most recent signatures only, and keep the last messages only: a
        # Function retraced 20,000 times must stay O(1) per trace in time and memory.
        items = [k for k, _ in f._cache_items(_RETRACE_COMPARE) if not (k == key)]
        if not items:
            return
        msg = _describe_retrace(f, key, items)
        log = f.__dict__.get("_retrace_log")
        if log is None:
            log = f.__dict__["_retrace_log"] = collections.deque(maxlen=_RETRACE_LOG_SIZE)
        log.append(msg)
        if self.enabled:
            print(msg, file=sys.stderr)


class _FrequentTracingDetector:
    """TF's rule for the retracing warning: when 5 of the last calls (a window of 10) of one
    Python function traced, warn through the logger (at most twice per Python function)."""

    def __init__(self) -> None:
        self.calls_per_tracing: List[int] = []
        self.call_count = 0
        self.warnings = 0

    def called_without_tracing(self, n: int = 1) -> None:
        if not self.calls_per_tracing:
            self.calls_per_tracing = [0]
        self.calls_per_tracing[-1] += n
        self.call_count += n

    def called_with_tracing(self, function: Any, explanation: str) -> None:
        self.call_count += 1
        self.calls_per_tracing.append(1)
        while self.calls_per_tracing and self.call_count - self.calls_per_tracing[0] > 10:
            self.call_count -= self.calls_per_tracing.pop(0)
        if self.warnings >= 2 or len(self.calls_per_tracing) < 5:
            return
        self.warnings += 1
        _logger.warning(
            "%d out of the last %d calls to %s triggered tf.function retracing. Tracing is expensive and the "
            "excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop, (2) "
            "passing tensors with different shapes, (3) passing Python objects instead of tensors. For (1), please "
            "define your @tf.function outside of the loop. For (2), @tf.function has reduce_retracing=True option "
            "that can avoid unnecessary retracing. For (3), please refer to "
            "https://www.tensorflow.org/guide/function#controlling_retracing and "
            "https://www.tensorflow.org/api_docs/python/tf/function for  more details.%s",
            len(self.calls_per_tracing),
            self.call_count,
            function,
            explanation,
        )


# Keyed by the Python function, as TF does, so Functions re-created in a loop count together.
_detectors: "weakref.WeakKeyDictionary[Any, _FrequentTracingDetector]" = weakref.WeakKeyDictionary()
_detectors_lock = threading.Lock()


def _key_for_call_stats(target: Any) -> Any:
    """TF's key: the code object under any ``__wrapped__``/method wrapper, so a Function made
    again from the same ``def`` (in a loop) counts with the earlier ones."""
    while hasattr(target, "__wrapped__"):
        target = target.__wrapped__
    target = getattr(target, "__func__", target)
    return getattr(target, "__code__", target)


def _count_call(f: Any, traced: bool, hits_before: int) -> None:
    """Called after a top-level eager call that went through Python (calls served by the C++
    fast path in between are counted from the cache's hit counter)."""
    key = _key_for_call_stats(f._python_function)
    with _detectors_lock:
        try:
            det = _detectors.setdefault(key, _FrequentTracingDetector())
        except TypeError:  # not weakly referenceable
            return
        unseen = hits_before - getattr(f, "_hits_seen", 0)
        if unseen > 0:
            det.called_without_tracing(unseen)
        if traced:
            log = f.__dict__.get("_retrace_log")
            det.called_with_tracing(f._python_function, f"\n{log[-1]}" if log else "")
        else:
            det.called_without_tracing()
        f._hits_seen = f._cache_stats()[0]


def _describe_retrace(f: Any, key: Any, others: List[Any]) -> str:
    names = [p.name for p in f._signature.params]
    best, best_diff = None, None
    for other in others:
        a, b = key.elements(), other.elements()
        if len(a) != len(b):
            diff = [f"the number of arguments changed ({len(b)} -> {len(a)})"]
        else:
            diff = [
                f"argument {names[i] if i < len(names) else i!r}: {b[i]!r} -> {a[i]!r}"
                for i in range(len(a))
                if not (a[i] == b[i])
            ]
        if best_diff is None or len(diff) < len(best_diff):
            best, best_diff = other, diff
    return f"{f._name} retraced: closest cached signature {best!r} differs in " + "; ".join(best_diff or ["(nothing)"])


_explain = _Explain()
