"""``fn.linalg`` (``tf.linalg``): the linear-algebra names fn supports."""

from fn._ops.math_ops import matmul, tensordot
from fn._ops.array_ops import transpose as matrix_transpose

# Solvers, norms and einsum (issue 14).
from fn._ops.linalg_ops import det, inv, solve
from fn._ops.clip_ops import global_norm, norm
from fn._ops.manip_ops import eye
from fn._ops.einsum_ops import einsum
from fn._ops.nn_ops import l2_normalize

# Decompositions, structured matrices and TF's Python compositions (issue 21).
from fn._linalg.decompositions import (
    band_part,
    cholesky,
    diag,
    diag_part,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    lu,
    qr,
    set_diag,
    slogdet,
    svd,
    triangular_solve,
)
from fn._linalg.compositions import (
    adjoint,
    cholesky_solve,
    cross,
    expm,
    logdet,
    lstsq,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    matrix_rank,
    matvec,
    normalize,
    pinv,
    tensor_diag,
    tensor_diag_part,
    trace,
    tridiagonal_matmul,
    tridiagonal_solve,
)

from fn._public import export as _export

_export(globals())
