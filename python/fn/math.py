"""``fn.math``: TensorFlow's ``tf.math`` namespace (``fn.math.floormod``, ``fn.math.reduce_sum``...)."""
from __future__ import annotations

from fn._math_ops import (tensordot, abs, add, add_n, argmax, argmin, ceil, cos, count_nonzero, divide,  # noqa: F401,A004
                         divide_no_nan, elu, equal, exp, floor, floordiv, floormod, greater,
                         greater_equal, invert, is_finite, is_inf, is_nan, less, less_equal, log,
                         log1p, logical_and, logical_not, logical_or, logical_xor, matmul, maximum,
                         minimum, mod, multiply, negative, not_equal, pow, realdiv, reciprocal,
                         reduce_all, reduce_any, reduce_logsumexp, reduce_max, reduce_mean,
                         reduce_min, reduce_prod, reduce_std, reduce_sum, reduce_variance, relu,
                         round, rsqrt, scalar_mul, sigmoid, sign, sin, softplus, sqrt, square,
                         squared_difference, subtract, tanh, truediv)

# Scans, top_k and special functions (issue 14).
from fn._sort_ops import cumprod, cumsum, top_k  # noqa: E402,F401
from fn._linalg_ops import atan2, erf, segment_sum  # noqa: E402,F401
from fn._nn_ops import l2_normalize  # noqa: E402,F401
from fn._complex_ops import conj, imag, real  # noqa: E402,F401

from fn._tf_compat._segment_ops import (segment_max, segment_mean, segment_min, segment_prod,  # noqa: E402,F401
                                        unsorted_segment_max, unsorted_segment_mean,
                                        unsorted_segment_min, unsorted_segment_prod,
                                        unsorted_segment_sqrt_n, unsorted_segment_sum)
from fn._tf_compat._math_extra import (acos, acosh, angle, asin, asinh, atan, atanh, bincount,  # noqa: E402,F401
                                      cosh, erfc, expm1, in_top_k, sinh, tan)
from fn._tf_compat._nn_extra import log_sigmoid, softsign  # noqa: E402,F401

from fn._public import export as _export  # noqa: E402
_export(globals(), hide=["elu", "invert", "matmul", "realdiv", "relu", "tensordot"])
