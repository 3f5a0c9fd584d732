"""``tf.experimental.numpy`` (``import fn.experimental.numpy as tnp``): the NumPy API on fn
tensors. ``tnp.ndarray`` is ``fn.Tensor``; results follow NumPy's type promotion; everything works
eagerly and inside ``fn.function``. Implementation in ``fn._numpy``."""
from __future__ import annotations

import numpy as _np

from fn._tensor.tensor import Tensor as ndarray
from fn._numpy._dtypes import (bool_, complex64, complex128, complex_, finfo, float16, float32,
                               float64, float_, iinfo, inexact, int8, int16, int32, int64, int_,
                               issubdtype, object_, promote_types, result_type, string_, uint8,
                               uint16, uint32, uint64, unicode_)
from fn._numpy._utils import array, asanyarray, asarray, ascontiguousarray
from fn._numpy._creation import (arange, copy, diag, diag_indices, diagflat, empty, empty_like, eye,
                                 broadcast_to, full, full_like, geomspace, identity, ix_, linspace, logspace,
                                 meshgrid, ones, ones_like, tri, tril, triu, vander, zeros,
                                 zeros_like)
from fn._numpy._manip import (append, atleast_1d, atleast_2d, atleast_3d, broadcast_arrays,
                              compress, concatenate, diagonal, dsplit, dstack,
                              expand_dims, flatten, flip, fliplr, flipud, hsplit, hstack, isscalar,
                              moveaxis, ndim, nonzero, pad, ravel, repeat, reshape, roll, rot90,
                              select, shape, size, split, squeeze, stack, swapaxes, take,
                              take_along_axis, tile, transpose, vsplit, vstack, where)
from fn._numpy._math import (abs, absolute, add, allclose, angle, arccos, arccosh, arcsin,
                             arcsinh, arctan, arctan2, arctanh, around, array_equal, bitwise_and,
                             bitwise_not, bitwise_or, bitwise_xor, cbrt, ceil, clip, conj,
                             conjugate, cos, cosh, cross, deg2rad, diff, divide, divmod, dot,
                             einsum, equal, exp, exp2, expm1, fabs, fix, float_power, floor,
                             floor_divide, gcd, greater, greater_equal, heaviside, hypot, imag,
                             inner, isclose, iscomplex, iscomplexobj, isfinite, isinf, isnan,
                             isneginf, isposinf, isreal, isrealobj, kron, lcm, less, less_equal,
                             log, log1p, log2, log10, logaddexp, logaddexp2, logical_and,
                             logical_not, logical_or, logical_xor, matmul, maximum, minimum, mod,
                             multiply, negative, not_equal, outer, polyval, positive, power,
                             rad2deg, real, reciprocal, remainder, round, sign, signbit, sin, sinc,
                             sinh, sqrt, square, subtract, tan, tanh, tensordot, true_divide, vdot)
from fn._numpy._math import nextafter
from fn._numpy._reduce import (all, amax, amin, any, argmax, argmin, argsort, average,
                               count_nonzero, cumprod, cumsum, max, mean, min, nanmean, nanprod,
                               nansum, prod, ptp, sort, std, sum, trace, var)
from fn._numpy._behavior import experimental_enable_numpy_behavior
from fn.experimental.numpy import random

e = _np.e
pi = _np.pi
inf = _np.inf
newaxis = _np.newaxis

__all__ = sorted(n for n in dir() if not n.startswith("_") and n != "annotations")

from fn._public import export as _export
_export(globals())
