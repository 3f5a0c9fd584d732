"""Shim of ``tensorflow.python.framework.config``: op determinism switches (Keras'
``keras.utils.set_random_seed``/``enable_op_determinism`` paths). fn's kernels give the same result
on every run for the same inputs, so enabling determinism only records the setting."""

from __future__ import annotations

_deterministic = False


def enable_op_determinism() -> None:
    """``tf.config.experimental.enable_op_determinism``."""
    global _deterministic
    _deterministic = True


def disable_op_determinism() -> None:
    global _deterministic
    _deterministic = False


def is_op_determinism_enabled() -> bool:
    return _deterministic
