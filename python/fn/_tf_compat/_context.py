"""Shim of ``tensorflow.python.eager.context`` (imported by Keras' trainer and global state):
the eager context's few entry points Keras calls. fn runs eager ops synchronously and keeps no
per-op kernel cache, so ``async_wait`` and ``clear_kernel_cache`` have nothing to wait for or drop."""

from __future__ import annotations

from fn import _core
from fn._runtime.device import reset_runtime


class _Context:
    """The process' eager context (``context.context()``)."""

    def executing_eagerly(self) -> bool:
        return bool(_core.executing_eagerly())

    def clear_kernel_cache(self) -> None:
        """TF drops cached eager kernels; fn's eager ops cache none."""

    def async_wait(self) -> None:
        """TF waits for pending async eager ops; fn's eager ops are synchronous."""


_CONTEXT = _Context()


def context() -> _Context:
    return _CONTEXT


def executing_eagerly() -> bool:
    return bool(_core.executing_eagerly())


def async_wait() -> None:
    """Eager ops in fn complete before they return: nothing is pending."""


def _reset_context() -> None:
    """``context._reset_context()`` (TF's test helper): a new eager context, whose logical devices
    are not configured yet (Keras' distribute tests then split the CPU into two)."""
    import gc

    gc.collect()
    reset_runtime()
