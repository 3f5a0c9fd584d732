"""``fn.linalg`` (``tf.linalg``): the linear-algebra names fn supports."""
from fn._ops.math_ops import matmul, tensordot  # noqa: F401
from fn._ops.array_ops import transpose as matrix_transpose  # noqa: F401

# Solvers, norms and einsum (issue 14).
from fn._ops.linalg_ops import det, inv, solve  # noqa: E402,F401
from fn._ops.clip_ops import global_norm, norm  # noqa: E402,F401
from fn._ops.manip_ops import eye  # noqa: E402,F401
from fn._ops.einsum_ops import einsum  # noqa: E402,F401
from fn._ops.nn_ops import l2_normalize  # noqa: E402,F401

from fn._public import export as _export  # noqa: E402
_export(globals())
