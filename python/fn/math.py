"""``fn.math``: TensorFlow's ``tf.math`` namespace (``fn.math.floormod``, ``fn.math.reduce_sum``...)."""

from __future__ import annotations

from fn._ops.math_ops import (
    tensordot,
    abs,
    add,
    add_n,
    argmax,
    argmin,
    ceil,
    cos,
    count_nonzero,
    divide,
    divide_no_nan,
    elu,
    equal,
    exp,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
    invert,
    is_finite,
    is_inf,
    is_nan,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    matmul,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    realdiv,
    reciprocal,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_std,
    reduce_sum,
    reduce_variance,
    relu,
    round,
    rsqrt,
    scalar_mul,
    sigmoid,
    sign,
    sin,
    softplus,
    sqrt,
    square,
    squared_difference,
    subtract,
    tanh,
    truediv,
)

# Scans, top_k and special functions (issue 14).
from fn._ops.sort_ops import cumprod, cumsum, top_k
from fn._ops.linalg_ops import atan2, erf, segment_sum
from fn._ops.nn_ops import l2_normalize
from fn._ops.complex_ops import conj, imag, real
from fn._tf_compat._math_extra import (acos, acosh, angle, asin, asinh, atan, atanh, bincount, cosh, erfc,
                                      expm1, in_top_k, sinh, tan)
from fn._tf_compat._nn_extra import log_sigmoid, softsign
from fn._tf_compat._segment_ops import (segment_max, segment_mean, segment_min, segment_prod,
                                        unsorted_segment_max, unsorted_segment_mean, unsorted_segment_min,
                                        unsorted_segment_prod, unsorted_segment_sqrt_n, unsorted_segment_sum)

from fn._public import export as _export

_export(globals(), hide=["elu", "invert", "matmul", "realdiv", "relu", "tensordot"])
