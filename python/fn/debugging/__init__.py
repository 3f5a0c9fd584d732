"""``fn.debugging`` (``tf.debugging``): NaN/Inf checks."""
from fn import _core


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """``tf.debugging.enable_check_numerics``: every op that produces NaN or Inf (eagerly or in a
    Function) raises InvalidArgumentError naming the op."""
    _core.set_check_numerics(True)


def disable_check_numerics() -> None:
    """``tf.debugging.disable_check_numerics``."""
    _core.set_check_numerics(False)

from fn._public import export as _export  # noqa: E402
_export(globals())
