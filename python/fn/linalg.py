"""``fn.linalg`` (``tf.linalg``): the linear-algebra names fn supports."""
from fn._math_ops import matmul, tensordot  # noqa: F401
from fn._array_ops import transpose as matrix_transpose  # noqa: F401

from fn._public import export as _export  # noqa: E402
_export(globals())
