"""Elementwise and linear-algebra functions of ``tf.experimental.numpy`` (TF's ``np_math_ops``).

Operands are promoted with NumPy's rules (``_bin_op``); unary functions that NumPy computes in
floating point cast integer inputs to the default float type (``_scalar(..., True)``). Functions
fn has no kernel for (``tan``, the inverse and hyperbolic trigonometric functions, ``expm1``) are
compositions of existing ops, so they differentiate too.
"""

from __future__ import annotations

import builtins
import math
import numbers
from typing import Any, Callable, List

import numpy as np

from fn._ops import array_ops as _array_ops
from fn._ops import clip_ops as _clip_ops
from fn._ops import complex_ops as _complex_ops
from fn._ops import control_flow_ops as _control_flow_ops
from fn._ops import einsum_ops as _einsum_ops
from fn import errors as _errors
from fn._ops import linalg_ops as _linalg_ops
from fn._ops import manip_ops as _manip_ops
from fn._ops import math_ops as _math_ops
from fn import dtypes as _fn_dtypes
from fn._numpy import _dtypes
from fn._numpy._utils import asarray, is_ndarray, promote_dtype, promote_dtype_binary, to_float
from fn._numpy._manip import moveaxis
from fn._numpy._manip import where


def _bin_op(tf_fun: Callable, a: Any, b: Any, promote: bool = True) -> Any:
    if promote:
        a, b = promote_dtype_binary(a, b)
    else:
        a, b = asarray(a), asarray(b)
    return tf_fun(a, b)


def _scalar(tf_fn: Callable, x: Any, promote_to_float: bool = False) -> Any:
    return tf_fn(to_float(x) if promote_to_float else asarray(x))


def _bool_or(int_fn: Callable, bool_fn: Callable) -> Callable:
    def f(x1: Any, x2: Any) -> Any:
        return bool_fn(x1, x2) if x1.dtype is _fn_dtypes.bool_ else int_fn(x1, x2)

    return f


def add(x1: Any, x2: Any) -> Any:
    """``tnp.add`` (``or`` for booleans)."""
    return _bin_op(_bool_or(_math_ops.add, _math_ops.logical_or), x1, x2)


def subtract(x1: Any, x2: Any) -> Any:
    """``tnp.subtract``."""
    return _bin_op(_math_ops.subtract, x1, x2)


def multiply(x1: Any, x2: Any) -> Any:
    """``tnp.multiply`` (``and`` for booleans)."""
    return _bin_op(_bool_or(_math_ops.multiply, _math_ops.logical_and), x1, x2)


def true_divide(x1: Any, x2: Any) -> Any:
    """``tnp.true_divide``: integers divide to the default float type."""

    def f(x1: Any, x2: Any) -> Any:
        if x1.dtype is _fn_dtypes.bool_:
            float_ = _dtypes.result_type(float)
            x1, x2 = _array_ops.cast(x1, float_), _array_ops.cast(x2, float_)
        if not _dtypes.is_allow_float64() and x1.dtype in (_fn_dtypes.int32, _fn_dtypes.int64):
            x1, x2 = _array_ops.cast(x1, _fn_dtypes.float32), _array_ops.cast(x2, _fn_dtypes.float32)
        return _math_ops.truediv(x1, x2)

    return _bin_op(f, x1, x2)


divide = true_divide


def _int8_bools(tf_fn: Callable) -> Callable:
    def f(x1: Any, x2: Any) -> Any:
        if x1.dtype is _fn_dtypes.bool_:
            x1, x2 = _array_ops.cast(x1, _fn_dtypes.int8), _array_ops.cast(x2, _fn_dtypes.int8)
        return tf_fn(x1, x2)

    return f


def floor_divide(x1: Any, x2: Any) -> Any:
    """``tnp.floor_divide``."""
    return _bin_op(_int8_bools(_math_ops.floordiv), x1, x2)


def mod(x1: Any, x2: Any) -> Any:
    """``tnp.mod`` (floored, as NumPy)."""
    return _bin_op(_int8_bools(_math_ops.floormod), x1, x2)


remainder = mod


def divmod(x1: Any, x2: Any) -> Any:
    """``tnp.divmod``."""
    return floor_divide(x1, x2), mod(x1, x2)


def maximum(x1: Any, x2: Any) -> Any:
    """``tnp.maximum`` (``relu`` when ``x2`` is the number 0)."""
    if (
        isinstance(x2, numbers.Real)
        and not isinstance(x2, bool)
        and x2 == 0
        and is_ndarray(x1)
        and x1.dtype is not _fn_dtypes.bool_
    ):
        return _math_ops.relu(x1)
    return _bin_op(_bool_or(_math_ops.maximum, _math_ops.logical_or), x1, x2)


def minimum(x1: Any, x2: Any) -> Any:
    """``tnp.minimum``."""
    return _bin_op(_bool_or(_math_ops.minimum, _math_ops.logical_and), x1, x2)


def clip(a: Any, a_min: Any, a_max: Any) -> Any:
    """``tnp.clip``."""
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return minimum(a, a_max)
    if a_max is None:
        return maximum(a, a_min)
    a, a_min, a_max = promote_dtype(a, a_min, a_max)
    shape = _array_ops.shape(a + a_min + a_max) if a.dtype is not _fn_dtypes.bool_ else _array_ops.shape(a)
    return _clip_ops.clip_by_value(_manip_ops.broadcast_to(a, shape), a_min, a_max)


def matmul(x1: Any, x2: Any) -> Any:
    """``tnp.matmul``: vectors are promoted to matrices as NumPy does (shape errors: ValueError)."""

    def f(x1: Any, x2: Any) -> Any:
        try:
            r1, r2 = x1.shape.rank, x2.shape.rank
            if r1 == 0 or r2 == 0:
                raise ValueError("matmul: Input operand does not have enough dimensions")
            if r2 == 1:
                return _math_ops.tensordot(x1, x2, axes=[[-1 % r1], [0]])
            if r1 == 1:
                return (
                    _math_ops.tensordot(x1, x2, axes=[[0], [r2 - 2]])
                    if r2 == 2
                    else _array_ops.squeeze(_math_ops.matmul(_array_ops.expand_dims(x1, 0), x2), -2)
                )
            return _math_ops.matmul(x1, x2)
        except _errors.InvalidArgumentError as err:
            raise ValueError(str(err)) from None

    return _bin_op(f, x1, x2)


def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    """``tnp.tensordot``."""
    return _bin_op(lambda a, b: _math_ops.tensordot(a, b, axes=axes), a, b)


def dot(a: Any, b: Any) -> Any:
    """``tnp.dot``."""

    def f(a: Any, b: Any) -> Any:
        ra, rb = a.shape.rank, b.shape.rank
        if ra == 0 or rb == 0:
            return a * b
        if rb == 1:
            return _math_ops.tensordot(a, b, axes=[[ra - 1], [0]])
        return _math_ops.tensordot(a, b, axes=[[ra - 1], [rb - 2]])

    return _bin_op(f, a, b)


def inner(a: Any, b: Any) -> Any:
    """``tnp.inner``."""

    def f(a: Any, b: Any) -> Any:
        ra, rb = a.shape.rank, b.shape.rank
        if ra == 0 or rb == 0:
            return a * b
        return _math_ops.tensordot(a, b, axes=[[ra - 1], [rb - 1]])

    return _bin_op(f, a, b)


def vdot(a: Any, b: Any) -> Any:
    """``tnp.vdot``."""
    a, b = promote_dtype(a, b)
    a, b = _array_ops.reshape(a, [-1]), _array_ops.reshape(b, [-1])
    if a.dtype.is_complex:
        a = _complex_ops.conj(a)
    return dot(a, b)


def outer(a: Any, b: Any) -> Any:
    """``tnp.outer``."""
    return _bin_op(lambda a, b: _array_ops.reshape(a, [-1, 1]) * _array_ops.reshape(b, [-1]), a, b)


def kron(a: Any, b: Any) -> Any:
    """``tnp.kron``: the Kronecker product."""
    a, b = promote_dtype(a, b)
    ra, rb = a.shape.rank, b.shape.rank
    n = builtins.max(ra, rb)
    sa = [1] * (n - ra) + a.shape.as_list()
    sb = [1] * (n - rb) + b.shape.as_list()
    a2 = _array_ops.reshape(a, [d for x in sa for d in (x, 1)])
    b2 = _array_ops.reshape(b, [d for x in sb for d in (1, x)])
    return _array_ops.reshape(a2 * b2, [x * y for x, y in zip(sa, sb)])


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None) -> Any:
    """``tnp.cross`` of 2- or 3-vectors."""

    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote_dtype(a, b)
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    da, db = a.shape[-1], b.shape[-1]
    if da not in (2, 3) or db not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    ca, cb = _array_ops.unstack(a, axis=-1), _array_ops.unstack(b, axis=-1)
    if da == 2 and db == 2:
        return ca[0] * cb[1] - ca[1] * cb[0]
    zero = _math_ops.zeros_like(ca[0])
    a0, a1, a2 = ca if da == 3 else (ca[0], ca[1], zero)
    b0, b1, b2 = cb if db == 3 else (cb[0], cb[1], _math_ops.zeros_like(cb[0]))
    c = _array_ops.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(c, -1, axisc)


def power(x1: Any, x2: Any) -> Any:
    """``tnp.power``."""
    return _bin_op(_math_ops.pow, x1, x2)


float_power = power


def arctan2(x1: Any, x2: Any) -> Any:
    """``tnp.arctan2``."""
    return _bin_op(
        _linalg_ops.atan2, to_float(x1) if not is_ndarray(x1) else x1, to_float(x2) if not is_ndarray(x2) else x2
    )


def heaviside(x1: Any, x2: Any) -> Any:
    """``tnp.heaviside``."""

    def f(x1: Any, x2: Any) -> Any:
        return _array_ops.where(x1 < 0, _math_ops.zeros_like(x2), _array_ops.where(x1 > 0, _math_ops.ones_like(x2), x2))

    y = _bin_op(f, x1, x2)
    if not _dtypes.is_inexact(y.dtype):
        y = _array_ops.cast(y, _dtypes.result_type(float))
    return y


def hypot(x1: Any, x2: Any) -> Any:
    """``tnp.hypot``."""
    return sqrt(square(x1) + square(x2))


def logaddexp(x1: Any, x2: Any) -> Any:
    """``tnp.logaddexp``."""
    amax = maximum(x1, x2)
    delta = subtract(x1, x2)

    return where(isnan(delta), add(x1, x2), amax + log1p(exp(-absolute(delta))))


def logaddexp2(x1: Any, x2: Any) -> Any:
    """``tnp.logaddexp2``."""
    amax = maximum(x1, x2)
    delta = subtract(x1, x2)

    return where(isnan(delta), add(x1, x2), amax + log1p(exp2(-absolute(delta))) / np.log(2))


def polyval(p: Any, x: Any) -> Any:
    """``tnp.polyval`` (Horner's rule)."""

    def f(p: Any, x: Any) -> Any:
        if p.shape.rank == 0:
            p = _array_ops.reshape(p, [1])
        coeffs = _array_ops.unstack(p)
        y = _math_ops.zeros_like(x) + coeffs[0]
        for c in coeffs[1:]:
            y = y * x + c
        return y

    return _bin_op(f, p, x)


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Any:
    """``tnp.isclose``."""

    def f(a: Any, b: Any) -> Any:
        if _dtypes.is_inexact(a.dtype):
            real = a.dtype.real_dtype if hasattr(a.dtype, "real_dtype") else a.dtype
            result = _math_ops.abs(a - b) <= _array_ops.constant(atol, real) + _array_ops.constant(
                rtol, real
            ) * _math_ops.abs(b)
            if equal_nan:
                result = result | (_math_ops.is_nan(a) & _math_ops.is_nan(b))
            return result
        return _math_ops.equal(a, b)

    return _bin_op(f, a, b)


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Any:
    """``tnp.allclose``."""
    return _math_ops.reduce_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _tf_gcd(x1: Any, x2: Any) -> Any:
    if not x1.dtype.is_integer:
        raise ValueError("Arguments to gcd must be integers.")
    shape = _array_ops.shape(x1 + x2)
    x1, x2 = _math_ops.abs(_manip_ops.broadcast_to(x1, shape)), _math_ops.abs(_manip_ops.broadcast_to(x2, shape))

    def body(a: Any, b: Any) -> Any:
        nonzero = _math_ops.not_equal(b, 0)
        safe_b = _array_ops.where(nonzero, b, _math_ops.ones_like(b))
        return _array_ops.where(nonzero, b, a), _array_ops.where(
            nonzero, _math_ops.floormod(a, safe_b), _math_ops.zeros_like(b)
        )

    return _control_flow_ops.while_loop(lambda a, b: _math_ops.reduce_any(_math_ops.not_equal(b, 0)), body, (x1, x2))[0]


def gcd(x1: Any, x2: Any) -> Any:
    """``tnp.gcd``."""
    return _bin_op(_tf_gcd, x1, x2)


def lcm(x1: Any, x2: Any) -> Any:
    """``tnp.lcm``."""

    def f(x1: Any, x2: Any) -> Any:
        d = _tf_gcd(x1, x2)
        safe_d = _array_ops.where(_math_ops.equal(d, 0), _math_ops.ones_like(d), d)
        x1, x2 = _math_ops.abs(x1), _math_ops.abs(x2)
        return _array_ops.where(_math_ops.equal(d, 0), _math_ops.zeros_like(d), x1 * _math_ops.floordiv(x2, safe_d))

    return _bin_op(f, x1, x2)


def _bitwise_binary_op(tf_fn: Callable, bool_fn: Callable, x1: Any, x2: Any) -> Any:
    def f(x1: Any, x2: Any) -> Any:
        if x1.dtype is _fn_dtypes.bool_:
            return bool_fn(x1, x2)
        if not x1.dtype.is_integer:
            raise _errors.InvalidArgumentError(None, None, "Bitwise ops need integer or boolean operands")
        return tf_fn(x1, x2)

    return _bin_op(f, x1, x2)


def bitwise_and(x1: Any, x2: Any) -> Any:
    """``tnp.bitwise_and``."""
    return _bitwise_binary_op(_math_ops.bitwise_and, _math_ops.logical_and, x1, x2)


def bitwise_or(x1: Any, x2: Any) -> Any:
    """``tnp.bitwise_or``."""
    return _bitwise_binary_op(_math_ops.bitwise_or, _math_ops.logical_or, x1, x2)


def bitwise_xor(x1: Any, x2: Any) -> Any:
    """``tnp.bitwise_xor``."""
    return _bitwise_binary_op(_math_ops.bitwise_xor, _math_ops.logical_xor, x1, x2)


def bitwise_not(x: Any) -> Any:
    """``tnp.bitwise_not``."""
    return _scalar(lambda x: _math_ops.logical_not(x) if x.dtype is _fn_dtypes.bool_ else _math_ops.invert(x), x)


# ---- unary ----------------------------------------------------------------------------------


def _float_unary(tf_fn: Callable, name: str) -> Callable:
    def f(x: Any) -> Any:
        return _scalar(tf_fn, x, True)

    f.__name__ = name
    f.__doc__ = f"``tnp.{name}`` (integers are computed in the default float type)."
    return f


def _sinh(x: Any) -> Any:
    return (_math_ops.exp(x) - _math_ops.exp(-x)) / 2


def _cosh(x: Any) -> Any:
    return (_math_ops.exp(x) + _math_ops.exp(-x)) / 2


def _expm1(x: Any) -> Any:
    # exp(x) - 1 loses the digits of small x; its series does not.
    small = _math_ops.abs(x) < 1e-5
    return _array_ops.where(small, x + x * x / 2, _math_ops.exp(x) - 1)


def _asin(x: Any) -> Any:
    return _linalg_ops.atan2(x, _math_ops.sqrt((1 - x) * (1 + x)))


def _acos(x: Any) -> Any:
    return _linalg_ops.atan2(_math_ops.sqrt((1 - x) * (1 + x)), x)


def _atan(x: Any) -> Any:
    return _linalg_ops.atan2(x, _math_ops.ones_like(x))


def _asinh(x: Any) -> Any:
    ax = _math_ops.abs(x)
    return _math_ops.sign(x) * _math_ops.log1p(ax + ax * ax / (1 + _math_ops.sqrt(1 + ax * ax)))


def _acosh(x: Any) -> Any:
    return _math_ops.log(x + _math_ops.sqrt((x - 1) * (x + 1)))


def _atanh(x: Any) -> Any:
    return 0.5 * (_math_ops.log1p(x) - _math_ops.log1p(-x))


def _cbrt(x: Any) -> Any:
    rt = _math_ops.abs(x) ** (1.0 / 3)
    return _array_ops.where(x < 0, -rt, rt)


def _sinc(x: Any) -> Any:
    pi_x = x * np.pi
    return _array_ops.where(x == 0, _math_ops.ones_like(x), _math_ops.sin(pi_x) / pi_x)


# fn.math and friends are looked up when called: fn is still importing when this module loads.
log = _float_unary(lambda x: _math_ops.log(x), "log")
exp = _float_unary(lambda x: _math_ops.exp(x), "exp")
sqrt = _float_unary(lambda x: _math_ops.sqrt(x), "sqrt")
sin = _float_unary(lambda x: _math_ops.sin(x), "sin")
cos = _float_unary(lambda x: _math_ops.cos(x), "cos")
tan = _float_unary(lambda x: _math_ops.sin(x) / _math_ops.cos(x), "tan")
sinh = _float_unary(_sinh, "sinh")
cosh = _float_unary(_cosh, "cosh")
tanh = _float_unary(lambda x: _math_ops.tanh(x), "tanh")
arcsin = _float_unary(_asin, "arcsin")
arccos = _float_unary(_acos, "arccos")
arctan = _float_unary(_atan, "arctan")
arcsinh = _float_unary(_asinh, "arcsinh")
arccosh = _float_unary(_acosh, "arccosh")
arctanh = _float_unary(_atanh, "arctanh")
ceil = _float_unary(lambda x: _math_ops.ceil(x), "ceil")
floor = _float_unary(lambda x: _math_ops.floor(x), "floor")
expm1 = _float_unary(_expm1, "expm1")
log1p = _float_unary(lambda x: _math_ops.log1p(x), "log1p")
cbrt = _float_unary(_cbrt, "cbrt")
exp2 = _float_unary(lambda x: 2**x, "exp2")
deg2rad = _float_unary(lambda x: x * (np.pi / 180.0), "deg2rad")
fix = _float_unary(lambda x: _array_ops.where(x < 0, _math_ops.ceil(x), _math_ops.floor(x)), "fix")
isnan = _float_unary(lambda x: _math_ops.is_nan(x), "isnan")
isfinite = _float_unary(lambda x: _math_ops.is_finite(x), "isfinite")
sinc = _float_unary(_sinc, "sinc")


# As TF writes these, with Tensor operators: under NumPy behaviour the float64 constant promotes a
# float32 result to float64, and ``rad2deg`` of a NumPy array is a NumPy array.
def log2(x: Any) -> Any:
    """``tnp.log2``."""
    return log(x) / np.log(2)


def log10(x: Any) -> Any:
    """``tnp.log10``."""
    return log(x) / np.log(10)


def rad2deg(x: Any) -> Any:
    """``tnp.rad2deg``."""
    return x * (180.0 / np.pi)


def fabs(x: Any) -> Any:
    """``tnp.fabs`` (``abs``, integers kept, as TF)."""
    return abs(x)


def isinf(x: Any) -> Any:
    """``tnp.isinf`` (the Python ``False`` for non-float inputs, as TF)."""
    x = asarray(x)
    return _math_ops.is_inf(x) if x.dtype.is_floating else False


def isneginf(x: Any) -> Any:
    """``tnp.isneginf``."""
    x = asarray(x)
    return (
        _math_ops.equal(x, _array_ops.fill(_array_ops.shape(x), _array_ops.constant(-np.inf, x.dtype)))
        if x.dtype.is_floating
        else False
    )


def isposinf(x: Any) -> Any:
    """``tnp.isposinf``."""
    x = asarray(x)
    return (
        _math_ops.equal(x, _array_ops.fill(_array_ops.shape(x), _array_ops.constant(np.inf, x.dtype)))
        if x.dtype.is_floating
        else False
    )


def abs(x: Any) -> Any:
    """``tnp.abs``."""
    return _scalar(_math_ops.abs, x)


absolute = abs


def negative(x: Any) -> Any:
    """``tnp.negative``."""
    return _scalar(_math_ops.negative, x)


def positive(x: Any) -> Any:
    """``tnp.positive``."""
    return _scalar(lambda x: x, x)


def reciprocal(x: Any) -> Any:
    """``tnp.reciprocal``."""
    return _scalar(_math_ops.reciprocal, x)


def square(x: Any) -> Any:
    """``tnp.square``."""
    return _scalar(_math_ops.square, x)


def sign(x: Any) -> Any:
    """``tnp.sign``."""
    return _scalar(_math_ops.sign, x)


def signbit(x: Any) -> Any:
    """``tnp.signbit``."""

    def f(x: Any) -> Any:
        if x.dtype is _fn_dtypes.bool_:
            return _array_ops.fill(_array_ops.shape(x), False)
        return x < 0

    return _scalar(f, x)


def conj(x: Any) -> Any:
    """``tnp.conj``."""
    return _scalar(_complex_ops.conj, x)


conjugate = conj


def real(val: Any) -> Any:
    """``tnp.real``."""
    val = asarray(val)
    return _complex_ops.real(val) if val.dtype.is_complex else val


def imag(val: Any) -> Any:
    """``tnp.imag``."""
    val = asarray(val)
    return _complex_ops.imag(val) if val.dtype.is_complex else _math_ops.zeros_like(val)


def angle(z: Any, deg: bool = False) -> Any:
    """``tnp.angle`` (real inputs give float32 0 or pi, as TF)."""

    def f(x: Any) -> Any:
        if x.dtype.is_floating:
            return _array_ops.where(
                x < 0, _array_ops.constant(np.pi, _fn_dtypes.float32), _array_ops.constant(0.0, _fn_dtypes.float32)
            )
        return _linalg_ops.atan2(_complex_ops.imag(x), _complex_ops.real(x))

    y = _scalar(f, z, True)
    return rad2deg(y) if deg else y


def iscomplex(x: Any) -> Any:
    """``tnp.iscomplex``."""
    x = asarray(x)
    return (
        _math_ops.not_equal(_complex_ops.imag(x), 0)
        if x.dtype.is_complex
        else _math_ops.zeros_like(x, dtype=_fn_dtypes.bool_)
    )


def isreal(x: Any) -> Any:
    """``tnp.isreal``."""
    x = asarray(x)
    return (
        _math_ops.equal(_complex_ops.imag(x), 0)
        if x.dtype.is_complex
        else _math_ops.ones_like(x, dtype=_fn_dtypes.bool_)
    )


def iscomplexobj(x: Any) -> bool:
    """``tnp.iscomplexobj``."""
    return bool(asarray(x).dtype.is_complex)


def isrealobj(x: Any) -> bool:
    """``tnp.isrealobj``."""
    return not iscomplexobj(x)


def around(a: Any, decimals: int = 0) -> Any:
    """``tnp.around``: half to even, as NumPy (integers computed in the default float type)."""
    a = asarray(a)
    dtype = a.dtype
    factor = math.pow(10, decimals)
    if not _dtypes.is_inexact(dtype):
        a = _array_ops.cast(a, _dtypes.result_type(float))
    factor_t = _array_ops.cast(factor, a.dtype)
    return _array_ops.cast(_math_ops.truediv(_math_ops.round(a * factor_t), factor_t), dtype)


round = around


def _comparison(tf_fun: Callable, x1: Any, x2: Any, cast_bool_to_int: bool = False) -> Any:
    def f(x1: Any, x2: Any) -> Any:
        if cast_bool_to_int and x1.dtype is _fn_dtypes.bool_:
            x1, x2 = _array_ops.cast(x1, _fn_dtypes.int32), _array_ops.cast(x2, _fn_dtypes.int32)
        return tf_fun(x1, x2)

    return _bin_op(f, x1, x2)


def equal(x1: Any, x2: Any) -> Any:
    """``tnp.equal``."""
    return _comparison(_math_ops.equal, x1, x2)


def not_equal(x1: Any, x2: Any) -> Any:
    """``tnp.not_equal``."""
    return _comparison(_math_ops.not_equal, x1, x2)


def greater(x1: Any, x2: Any) -> Any:
    """``tnp.greater``."""
    return _comparison(_math_ops.greater, x1, x2, True)


def greater_equal(x1: Any, x2: Any) -> Any:
    """``tnp.greater_equal``."""
    return _comparison(_math_ops.greater_equal, x1, x2, True)


def less(x1: Any, x2: Any) -> Any:
    """``tnp.less``."""
    return _comparison(_math_ops.less, x1, x2, True)


def less_equal(x1: Any, x2: Any) -> Any:
    """``tnp.less_equal``."""
    return _comparison(_math_ops.less_equal, x1, x2, True)


def array_equal(a1: Any, a2: Any) -> Any:
    """``tnp.array_equal``: same shape and elements."""
    a1, a2 = promote_dtype(a1, a2)
    s1, s2 = a1.shape.as_list(), a2.shape.as_list()
    if a1.shape.is_fully_defined() and a2.shape.is_fully_defined():
        if s1 != s2:
            return _array_ops.constant(False)
        return _math_ops.reduce_all(_math_ops.equal(a1, a2))
    same = (
        _math_ops.reduce_all(_math_ops.equal(_array_ops.shape(a1), _array_ops.shape(a2)))
        if len(s1) == len(s2)
        else _array_ops.constant(False)
    )
    return _control_flow_ops.cond(
        same, lambda: _math_ops.reduce_all(_math_ops.equal(a1, a2)), lambda: _array_ops.constant(False)
    )


def _logical_binary_op(tf_fun: Callable, x1: Any, x2: Any) -> Any:
    return tf_fun(asarray(x1, dtype=np.bool_), asarray(x2, dtype=np.bool_))


def logical_and(x1: Any, x2: Any) -> Any:
    """``tnp.logical_and``."""
    return _logical_binary_op(_math_ops.logical_and, x1, x2)


def logical_or(x1: Any, x2: Any) -> Any:
    """``tnp.logical_or``."""
    return _logical_binary_op(_math_ops.logical_or, x1, x2)


def logical_xor(x1: Any, x2: Any) -> Any:
    """``tnp.logical_xor``."""
    return _logical_binary_op(_math_ops.logical_xor, x1, x2)


def logical_not(x: Any) -> Any:
    """``tnp.logical_not``."""
    return _math_ops.logical_not(asarray(x, dtype=np.bool_))


def einsum(subscripts: str, *operands: Any, **kwargs: Any) -> Any:
    """``tnp.einsum`` (``casting`` 'safe' promotes the operands, 'no' keeps them)."""
    casting = kwargs.get("casting", "safe")
    arrays: List[Any]
    if casting == "safe":
        arrays = list(promote_dtype(*operands))
    elif casting == "no":
        arrays = [asarray(x) for x in operands]
    else:
        raise ValueError(
            "Invalid value for argument `casting`. Expected casting=\"safe\" or "
            f"casting=\"no\". Received: casting={casting}"
        )
    optimize = kwargs.get("optimize", False)
    if optimize not in (False, True, "greedy", "optimal"):
        raise ValueError(
            "Invalid value for argument `optimize`. Expected one of "
            f"{{True, \"greedy\", \"optimal\"}}. Received: optimize={optimize}"
        )
    return _einsum_ops.einsum(subscripts, *arrays)


def diff(a: Any, n: int = 1, axis: int = -1) -> Any:
    """``tnp.diff``: the ``n``-th discrete difference along ``axis``."""
    a = asarray(a)
    if n < 0:
        raise ValueError(f"Argument `order` must be a non-negative integer. Received: axis={n}")
    r = a.shape.rank
    if r == 0:
        raise ValueError(f"Argument `a` must have rank at least 1. Received: a={a}")
    axis = axis % r
    for _ in range(n):
        begin_hi = [0] * r
        begin_hi[axis] = 1
        size_lo = [-1] * r
        length = a.shape[axis] if a.shape[axis] is not None else _array_ops.shape(a)[axis]
        size_lo[axis] = length - 1
        hi = _array_ops.slice(a, begin_hi, size_lo)
        lo = _array_ops.slice(a, [0] * r, size_lo)
        a = _math_ops.logical_xor(hi, lo) if a.dtype is _fn_dtypes.bool_ else hi - lo
    return a


def _tf_nextafter(x1: Any, x2: Any) -> Any:
    # fn has no NextAfter kernel: step by one unit in the last place of x1 (half a unit when moving
    # towards zero from a power of two), the exponent read with log2 and corrected to be exact.
    if not x1.dtype.is_floating:
        raise _errors.InvalidArgumentError(None, None, "nextafter needs float operands")
    info = np.finfo(x1.dtype.as_numpy_dtype)
    dt = x1.dtype
    ax = _math_ops.abs(x1)
    safe = _array_ops.where(_math_ops.equal(ax, 0), _math_ops.ones_like(ax), ax)
    e = _math_ops.floor(_math_ops.log(safe) / _array_ops.constant(math.log(2), dt))
    two = _array_ops.constant(2.0, dt)
    e = _array_ops.where(_math_ops.pow(two, e) > safe, e - 1, e)
    e = _array_ops.where(_math_ops.pow(two, e + 1) <= safe, e + 1, e)
    e = _math_ops.maximum(e, _array_ops.constant(float(info.minexp), dt))
    ulp = _math_ops.pow(two, e - _array_ops.constant(float(info.nmant), dt))
    towards_zero = _math_ops.not_equal(_math_ops.sign(x2 - x1), _math_ops.sign(x1))
    exact_pow2 = _math_ops.equal(_math_ops.pow(two, e), ax) & (e > _array_ops.constant(float(info.minexp), dt))
    step = _array_ops.where(towards_zero & exact_pow2, ulp / 2, ulp)
    moved = x1 + _math_ops.sign(x2 - x1) * step
    tiny = _array_ops.constant(float(info.smallest_subnormal), dt) * _math_ops.sign(x2 - x1)
    moved = _array_ops.where(_math_ops.equal(x1, 0), tiny, moved)
    out = _array_ops.where(_math_ops.equal(x1, x2), x2, moved)
    return _array_ops.where(_math_ops.is_nan(x1) | _math_ops.is_nan(x2), x1 + x2, out)


def nextafter(x1: Any, x2: Any) -> Any:
    """``tnp.nextafter``: the next float after ``x1`` towards ``x2``."""
    return _bin_op(_tf_nextafter, x1, x2)
