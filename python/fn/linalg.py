"""``fn.linalg`` (``tf.linalg``): the linear-algebra names fn supports."""
from fn._math_ops import matmul, tensordot  # noqa: F401
from fn._array_ops import transpose as matrix_transpose  # noqa: F401

# Solvers, norms and einsum (issue 14).
from fn._linalg_ops import det, inv, solve  # noqa: E402,F401
from fn._clip_ops import global_norm, norm  # noqa: E402,F401
from fn._manip_ops import eye  # noqa: E402,F401
from fn._einsum import einsum  # noqa: E402,F401
from fn._nn_ops import l2_normalize  # noqa: E402,F401

from fn._tf_compat._math_extra import adjoint, band_part, diag, diag_part, qr  # noqa: E402,F401
from fn._public import export as _export  # noqa: E402
_export(globals())
