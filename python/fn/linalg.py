"""``fn.linalg`` (``tf.linalg``): the linear-algebra names fn supports."""

from fn._ops.math_ops import matmul, tensordot
from fn._ops.array_ops import transpose as matrix_transpose

# Solvers, norms and einsum (issue 14).
from fn._ops.linalg_ops import det, inv, solve
from fn._ops.clip_ops import global_norm, norm
from fn._ops.manip_ops import eye
from fn._ops.einsum_ops import einsum
from fn._ops.nn_ops import l2_normalize

from fn._public import export as _export

_export(globals())
