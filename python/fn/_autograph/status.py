"""AutoGraph's conversion status of the code running now (TF's
``autograph.core.ag_ctx.control_status_ctx``): ENABLED while a Function with ``autograph=True``
traces, DISABLED while one with ``autograph=False`` traces, UNSPECIFIED otherwise (eagerly).
Library code that calls a user's function (``strategy.run``) converts it when ENABLED, as TF's
``autograph.tf_convert`` does."""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator

ENABLED = "ENABLED"
DISABLED = "DISABLED"
UNSPECIFIED = "UNSPECIFIED"

_local = threading.local()


def control_status() -> str:
    """The status of the innermost Function being traced on this thread."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else UNSPECIFIED


@contextlib.contextmanager
def control_status_ctx(status: str) -> Iterator[None]:
    """Sets the status while a Function's Python code runs (its trace)."""
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    stack.append(status)
    try:
        yield
    finally:
        stack.pop()
