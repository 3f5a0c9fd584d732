"""``fn.config``: ``run_functions_eagerly`` (as ``tf.config``) and ``explain_retracing`` (beyond TF)."""
from __future__ import annotations

from fn import _core


def run_functions_eagerly(run_eagerly: bool) -> None:
    """``tf.config.run_functions_eagerly``: when True every Function runs its Python body eagerly."""
    _core.set_run_eagerly(bool(run_eagerly))


def functions_run_eagerly() -> bool:
    """``tf.config.functions_run_eagerly``."""
    return _core.run_eagerly()


def explain_retracing(enabled: bool = True) -> None:
    """Beyond TF: print, on every retrace, which argument's trace type differed from the closest
    cached signature and how (also kept in each Function's ``_retrace_log``)."""
    from fn._function import _explain
    _explain.enabled = bool(enabled)
