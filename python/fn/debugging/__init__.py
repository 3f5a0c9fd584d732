"""``fn.debugging`` (``tf.debugging``): assertions and NaN/Inf checks."""

from fn import _core
from fn._ops.check_ops import (
    Assert,
    assert_all_finite,
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_less,
    assert_less_equal,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_rank,
    assert_rank_at_least,
    assert_scalar,
    assert_type,
    check_numerics,
    is_numeric_tensor,
)
from fn._ops.check_ops_extra import (
    assert_integer,
    assert_near,
    assert_proper_iterable,
    assert_rank_in,
    assert_same_float_dtype,
)
from fn._ops.check_shapes import assert_shapes


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """``tf.debugging.enable_check_numerics``: every op that produces NaN or Inf (eagerly or in a
    Function) raises InvalidArgumentError naming the op."""
    _core.set_check_numerics(True)


def set_log_device_placement(enabled: bool) -> None:
    """``tf.debugging.set_log_device_placement``: accepted (every op runs on the CPU)."""
    global _log_placement
    _log_placement = bool(enabled)


def get_log_device_placement() -> bool:
    """``tf.debugging.get_log_device_placement``."""
    return _log_placement


_log_placement = False


def disable_check_numerics() -> None:
    """``tf.debugging.disable_check_numerics``."""
    _core.set_check_numerics(False)


from fn._public import export as _export

_export(globals())
