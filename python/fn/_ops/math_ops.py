"""Math ops with TensorFlow's names, dtype rules and node names: elementwise arithmetic,
comparisons, logic, unary math, reductions, ``argmax``/``argmin``, ``add_n``, ``zeros_like``.

Every function is a thin call of one C++ op through ``_core.execute`` (eager or traced alike).
The non-tensor operand of a binary op is converted to the tensor operand's dtype, strictly
(``TypeError`` when impossible) except for ``add``, which only uses it as a hint, as in TF.
"""

from __future__ import annotations

import builtins
from typing import Any, Optional

import numpy as np

from fn import _core
from fn._ops.array_ops import convert_to_tensor
from fn.dtypes import as_dtype, int32, int64
from fn._ops.op_call import run_op as _run, wraps_op
from fn._ops.array_ops import constant
from fn._ops.array_ops import range as _range
from fn._ops.array_ops import rank as _rank
from fn._ops.array_ops import cast
from fn._ops import array_ops


# ---- conversions -------------------------------------------------------------------------


def _like(value: Any, dtype: Any, name: str = "") -> Any:
    """``value`` as a tensor of ``dtype`` (TF's ``convert_to_tensor(value, dtype=...)``); tensors
    and tensor-like objects (variables) pass through unchanged."""
    if _core.is_tensor(value):
        return value
    if hasattr(value, "__fn_tensor__"):
        return _core.convert_to_tensor(value, None)
    return _core.convert_to_tensor(value, dtype, None, name)


def _operand_name(value: Any, op_name: Optional[str], reflected: bool) -> str:
    """TF's name for an op's Python operand while tracing: ``Greater/y`` (``/x`` for the first)."""
    if not op_name or _core.is_tensor(value) or hasattr(value, "__fn_tensor__"):
        return ""
    return _core.operand_const_name(op_name, reflected)


def _binary_args(
    x: Any, y: Any, strict: bool = True, op_name: Optional[str] = None, op_type: Optional[str] = None
) -> tuple:
    """TF converts the non-tensor operand to the tensor operand's dtype (named in the op's scope
    when ``op_name`` says the op's node name). While tracing, an op wrapper (``op_type``) takes
    op_def_library's order instead: ``x`` converts as it is and ``y`` must match it."""
    if not _core.is_tensor(x) and _core.is_tensor(y):
        xn = _operand_name(x, op_name, True)
        if op_type and not _core.executing_eagerly():
            x = _core.convert_to_tensor(x, None, None, xn)
            if x.dtype != y.dtype:
                raise TypeError(
                    f"Input 'y' of '{op_type}' Op has type {y.dtype.name} that does not match type "
                    f"{x.dtype.name} of argument 'x'."
                )
            return x, y
        return (_like(x, y.dtype, xn) if strict else _core.convert_to_tensor(x, None, y.dtype, xn)), y
    if not _core.is_tensor(x) and op_name and isinstance(x, (bool, int, float, complex)):
        x = _core.convert_to_tensor(x, None, None, _operand_name(x, op_name, True))
    else:
        x = convert_to_tensor(x)
    yn = _operand_name(y, op_name, False)
    return x, (_like(y, x.dtype, yn) if strict else _core.convert_to_tensor(y, None, x.dtype, yn))


def _binary(op: str, default_name: str, graph_order: bool = True):
    @wraps_op(op)
    def f(x: Any, y: Any, name: Optional[str] = None) -> Any:
        x, y = _binary_args(x, y, op_name=name or default_name, op_type=op if graph_order else None)
        return _run(op, [x, y], None, name or default_name)

    return f


def _unary(op: str, default_name: Optional[str] = None):
    node = default_name or op

    @wraps_op(op)
    def f(x: Any, name: Optional[str] = None) -> Any:
        if not _core.is_tensor(x) and hasattr(type(x), "_fn_unary_dispatch"):  # SparseTensor values
            return x._fn_unary_dispatch(op, f, name)
        return _core.execute(op, [x if _core.is_tensor(x) else convert_to_tensor(x)], None, name or node)[0]

    return f


def _doc(f: Any, name: str, text: str) -> Any:
    f.__name__ = f.__qualname__ = name
    f.__doc__ = text
    return f


# ---- binary arithmetic ----------------------------------------------------------------------


@wraps_op("AddV2")
def add(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """``tf.add`` / ``tf.math.add``: elementwise sum with broadcasting (strings concatenate)."""
    x, y = _binary_args(x, y, strict=False, op_name=name or "Add", op_type="AddV2")
    return _run("AddV2", [x, y], None, name or "Add")


subtract = _doc(_binary("Sub", "Sub"), "subtract", "``tf.subtract``: x - y elementwise, broadcasting.")
multiply = _doc(_binary("Mul", "Mul"), "multiply", "``tf.multiply``: x * y elementwise, broadcasting.")
realdiv = _doc(_binary("RealDiv", "RealDiv"), "realdiv", "``tf.realdiv``: x / y for floating dtypes.")
_div_no_nan = _binary("DivNoNan", "div_no_nan", graph_order=False)  # TF's wrapper converts x to y's dtype


def divide_no_nan(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """``tf.math.divide_no_nan``: x / y, and 0 where y is 0."""
    if _core.is_tensor(x) and _core.is_tensor(y) and x.dtype != y.dtype:  # TF's wrapper checks first
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    if _core.is_tensor(x) and x.dtype.is_integer and _core.is_tensor(y) and y.dtype == x.dtype:
        # TF's wrapper divides integers as truediv does: in float32 (8/16-bit) or float64
        f = as_dtype("float32" if x.dtype.size <= 2 else "float64")
        attrs = {"SrcT": x.dtype, "DstT": f, "Truncate": False}
        x, y = _run("Cast", [x], attrs, None), _run("Cast", [y], attrs, None)
    return _div_no_nan(x, y, name)


floordiv = _doc(
    _binary("FloorDiv", "floordiv"),
    "floordiv",
    "``tf.math.floordiv``: floor(x / y), rounding toward -inf for negatives too.",
)
floormod = _doc(
    _binary("FloorMod", "FloorMod"),
    "floormod",
    "``tf.math.floormod``: x - floor(x / y) * y; the result has the sign of y.",
)
mod = floormod
truncatediv = _doc(
    _binary("TruncateDiv", "TruncateDiv"),
    "truncatediv",
    "``tf.truncatediv``: x / y rounded toward zero (C's division), for integers.",
)
truncatemod = _doc(
    _binary("TruncateMod", "TruncateMod"),
    "truncatemod",
    "``tf.truncatemod``: x - truncatediv(x, y) * y (C's remainder, fmod for floats); the result has the sign of x.",
)
pow = _doc(_binary("Pow", "Pow"), "pow", "``tf.pow``: x ** y (integers to negative powers raise).")
maximum = _doc(_binary("Maximum", "Maximum"), "maximum", "``tf.maximum``: elementwise max (NaN propagates).")
minimum = _doc(_binary("Minimum", "Minimum"), "minimum", "``tf.minimum``: elementwise min (NaN propagates).")
squared_difference = _doc(
    _binary("SquaredDifference", "SquaredDifference"),
    "squared_difference",
    "``tf.math.squared_difference``: (x - y) ** 2.",
)


def truediv(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """``tf.math.truediv``: x / y; integer inputs are cast to float first (int8/int16/uint8 to
    float32, int32/int64 to float64); both must have the same dtype."""
    x, y = _binary_args(x, y)
    return _core.truediv(x, y, name or "truediv")


def divide(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """``tf.divide``: Python's ``/`` (``truediv``)."""
    return truediv(x, y, name)


def scalar_mul(scalar: Any, x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.scalar_mul``: a scalar times a tensor."""
    x = convert_to_tensor(x)
    return _run("Mul", [_like(scalar, x.dtype), x], None, name or "Mul")


# ---- comparisons and logic ------------------------------------------------------------------

equal = _doc(_binary("Equal", "Equal"), "equal", "``tf.equal``: x == y elementwise (bool).")
not_equal = _doc(_binary("NotEqual", "NotEqual"), "not_equal", "``tf.not_equal``: x != y elementwise (bool).")
less = _doc(_binary("Less", "Less"), "less", "``tf.less``: x < y elementwise (bool).")
less_equal = _doc(_binary("LessEqual", "LessEqual"), "less_equal", "``tf.less_equal``: x <= y (bool).")
greater = _doc(_binary("Greater", "Greater"), "greater", "``tf.greater``: x > y elementwise (bool).")
greater_equal = _doc(_binary("GreaterEqual", "GreaterEqual"), "greater_equal", "``tf.greater_equal``: x >= y (bool).")
logical_and = _doc(_binary("LogicalAnd", "LogicalAnd"), "logical_and", "``tf.logical_and`` on bool tensors.")
logical_or = _doc(_binary("LogicalOr", "LogicalOr"), "logical_or", "``tf.logical_or`` on bool tensors.")
logical_not = _doc(_unary("LogicalNot"), "logical_not", "``tf.logical_not`` on a bool tensor.")
bitwise_and = _doc(_binary("BitwiseAnd", "BitwiseAnd"), "bitwise_and", "``tf.bitwise.bitwise_and`` on integers.")
bitwise_or = _doc(_binary("BitwiseOr", "BitwiseOr"), "bitwise_or", "``tf.bitwise.bitwise_or`` on integers.")
bitwise_xor = _doc(_binary("BitwiseXor", "BitwiseXor"), "bitwise_xor", "``tf.bitwise.bitwise_xor`` on integers.")
invert = _doc(_unary("Invert"), "invert", "``tf.bitwise.invert``: ~x on integers.")


def logical_xor(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """``tf.math.logical_xor``: built as TF builds it, (x | y) & ~(x & y)."""
    x, y = _binary_args(x, y)
    either = _run("LogicalOr", [x, y], None, None)
    both = _run("LogicalAnd", [x, y], None, None)
    return _run("LogicalAnd", [either, _run("LogicalNot", [both], None, None)], None, name or "LogicalXor")


# ---- unary ----------------------------------------------------------------------------------

negative = _doc(_unary("Neg"), "negative", "``tf.negative``: -x.")
abs = _doc(_unary("Abs"), "abs", "``tf.abs``: |x| (integers wrap at the minimum, as in TF).")
sign = _doc(_unary("Sign"), "sign", "``tf.sign``: -1, 0 or 1 (NaN stays NaN).")
square = _doc(_unary("Square"), "square", "``tf.square``: x * x.")
sqrt = _doc(_unary("Sqrt"), "sqrt", "``tf.sqrt`` (floating dtypes).")
rsqrt = _doc(_unary("Rsqrt"), "rsqrt", "``tf.math.rsqrt``: 1 / sqrt(x).")
exp = _doc(_unary("Exp"), "exp", "``tf.exp``.")
log = _doc(_unary("Log"), "log", "``tf.math.log``: natural logarithm.")
log1p = _doc(_unary("Log1p"), "log1p", "``tf.math.log1p``: log(1 + x), accurate near 0.")
tanh = _doc(_unary("Tanh"), "tanh", "``tf.tanh``.")
sigmoid = _doc(_unary("Sigmoid"), "sigmoid", "``tf.sigmoid``: 1 / (1 + exp(-x)).")
sin = _doc(_unary("Sin"), "sin", "``tf.sin``.")
cos = _doc(_unary("Cos"), "cos", "``tf.cos``.")
floor = _doc(_unary("Floor"), "floor", "``tf.floor`` (floating dtypes).")
ceil = _doc(_unary("Ceil"), "ceil", "``tf.math.ceil`` (floating dtypes).")
_round = _unary("Round")


def round(x: Any, name: Optional[str] = None) -> Any:
    """``tf.round``: half to even (banker's rounding); integer tensors are returned as they are."""
    if _core.is_tensor(x) and x.dtype.is_integer:
        return x
    return _round(x, name)


reciprocal = _doc(_unary("Reciprocal"), "reciprocal", "``tf.math.reciprocal``: 1 / x.")
is_nan = _doc(_unary("IsNan"), "is_nan", "``tf.math.is_nan`` (bool).")
is_inf = _doc(_unary("IsInf"), "is_inf", "``tf.math.is_inf`` (bool).")
is_finite = _doc(_unary("IsFinite"), "is_finite", "``tf.math.is_finite`` (bool).")
relu = _doc(_unary("Relu"), "relu", "``tf.nn.relu``: max(x, 0).")
relu6 = _doc(_unary("Relu6"), "relu6", "``tf.nn.relu6``: min(max(x, 0), 6).")
elu = _doc(_unary("Elu"), "elu", "``tf.nn.elu``: x if x > 0 else exp(x) - 1.")
softplus = _doc(_unary("Softplus"), "softplus", "``tf.math.softplus``: log(exp(x) + 1), overflow-free.")


# ---- n-ary, like ----------------------------------------------------------------------------


def add_n(inputs: Any, name: Optional[str] = None) -> Any:
    """``tf.math.add_n``: the sum of same-shape, same-dtype tensors."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError(
            "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and shape."
        )
    values = [convert_to_tensor(v) for v in inputs]
    if len(values) == 1:
        return _run("Identity", values, None, name or "Identity")
    return _run("AddN", values, {"N": len(values)}, name or "AddN")


def _filled_like(op: str, value: int, input: Any, dtype: Any, name: str) -> Any:
    x = convert_to_tensor(input)
    dtype = None if dtype is None else as_dtype(dtype)
    shape = x.shape
    static = shape.is_fully_defined() and x.dtype.name not in ("resource", "variant")
    if not _core.executing_eagerly() and static:
        # TF folds these to a constant while tracing when the shape is known.
        d = dtype or x.dtype
        fill = b"" if d.name == "string" else value
        return constant(np.full(shape.as_list(), fill, dtype=object if d.name == "string" else None), d, name=name)
    out = _run(op, [x], None, name)
    if dtype is not None and dtype != x.dtype:
        out = _run("Cast", [out], {"SrcT": x.dtype, "DstT": dtype, "Truncate": False}, None)
    return out


def zeros_like(input: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    """``tf.zeros_like``: zeros with input's shape (and its dtype unless ``dtype``)."""
    return _filled_like("ZerosLike", 0, input, dtype, name or "zeros_like")


def ones_like(input: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    """``tf.ones_like``: ones with input's shape (and its dtype unless ``dtype``)."""
    return _filled_like("OnesLike", 1, input, dtype, name or "ones_like")


# ---- reductions -----------------------------------------------------------------------------

_EAGER_AXES: dict = {}


def _int32_const(key: Any, make: Any) -> Any:
    """A small int32 constant: cached eagerly (tensors are immutable), a Const node when traced."""
    t = _EAGER_AXES.get(key)
    if t is None:
        t = _EAGER_AXES[key] = _core.to_eager(make(), None)
    if _core.executing_eagerly():
        return t
    return _core.execute("Const", [], {"value": t, "dtype": t.dtype}, None)[0]


def _reduction_axes(x: Any, axis: Any) -> Any:
    if axis is None:
        rank = x._rank
        if rank < 0:
            return None
        return _int32_const(("all", rank), lambda: np.arange(rank, dtype=np.int32))
    if _core.is_tensor(axis):
        return axis
    if isinstance(axis, int) and not isinstance(axis, bool) and -64 <= axis < 64:
        return _int32_const(axis, lambda: np.int32(axis))
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        return convert_to_tensor(np.zeros([0], np.int32))
    if isinstance(axis, np.ndarray) and axis.dtype == np.int64:
        return convert_to_tensor(axis)
    if isinstance(axis, (str, bytes)):  # the op's dtype check raises TF's error for it
        return convert_to_tensor(axis)
    if isinstance(axis, (list, tuple)) and not all(
        isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in axis
    ):
        return _core.convert_to_tensor(axis, None, int32)  # int32 preferred: ['a'] meets the op's Tidx check
    return _like(axis, int32)


def _reduce(op: str, input_tensor: Any, axis: Any, keepdims: Any, name: Optional[str]) -> Any:
    if op in ("Any", "All"):  # a bool input: Python values convert to bool (TF's TypeError otherwise)
        x = input_tensor if _core.is_tensor(input_tensor) else _core.convert_to_tensor(input_tensor, as_dtype("bool"))
        if x.dtype != as_dtype("bool") and not _core.executing_eagerly():  # op_def_library, before the axis
            raise TypeError(
                f"Input 'input' of '{op}' Op has type {x.dtype.name} that does not match expected type of bool."
            )
    else:
        x = input_tensor if _core.is_tensor(input_tensor) else convert_to_tensor(input_tensor)
    keepdims = bool(keepdims) if keepdims is not None else False
    axes = _reduction_axes(x, axis)
    if axes is None:
        # Unknown rank, all axes: reduce the flattened tensor (the result is a scalar).
        if keepdims:  # TF's range(rank(x)) as the axes
            return _run(op, [x, _range(0, _rank(x))], {"keep_dims": True}, name or op)
        if not _core.has_op("Reshape"):
            raise NotImplementedError(f"{op} over all axes of a tensor of unknown rank")
        flat = _run("Reshape", [x, convert_to_tensor(np.array([-1], np.int32))], None, None)
        return _run(op, [flat, convert_to_tensor(np.zeros([1], np.int32))], {"keep_dims": False}, name or op)
    return _run(op, [x, axes], {"keep_dims": keepdims}, name or op)


def _reduction(op: str, tf_name: str, text: str):
    def f(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: Optional[str] = None) -> Any:
        return _reduce(op, input_tensor, axis, keepdims, name)

    return _doc(
        f,
        tf_name,
        f"``tf.{tf_name}``: {text} along ``axis`` (int, list, negative; None: "
        "all), keeping reduced dims as size 1 when ``keepdims``.",
    )


reduce_sum = _reduction("Sum", "reduce_sum", "sum")
reduce_mean = _reduction("Mean", "reduce_mean", "mean (integer division for integers)")
reduce_max = _reduction("Max", "reduce_max", "maximum (NaN propagates; -inf for empty)")
reduce_min = _reduction("Min", "reduce_min", "minimum (NaN propagates; inf for empty)")
reduce_prod = _reduction("Prod", "reduce_prod", "product")
reduce_any = _reduction("Any", "reduce_any", "logical or of a bool tensor")
reduce_all = _reduction("All", "reduce_all", "logical and of a bool tensor")


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: Optional[str] = None) -> Any:
    """``tf.math.reduce_variance``: mean of squared deviations (floating dtypes)."""
    x = convert_to_tensor(input_tensor)
    mean = reduce_mean(x, axis, keepdims=True)  # TF's order: Mean's own dtype check (bool, string) first
    if mean.dtype.is_integer:
        raise TypeError(f"Input must be either real or complex. Received integer type {mean.dtype!r}.")
    diff = subtract(x, mean)
    if diff.dtype.is_complex:  # |d|^2 = real(conj(d) * d), a real result as TF's
        from fn._ops.complex_ops import conj, real

        squared = real(multiply(conj(diff), diff))
    else:
        squared = square(diff)
    return reduce_mean(squared, axis, keepdims, name=name or "reduce_variance")


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: Optional[str] = None) -> Any:
    """``tf.math.reduce_std``: square root of ``reduce_variance``."""
    return sqrt(reduce_variance(input_tensor, axis, keepdims), name=name or "reduce_std")


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: Optional[str] = None) -> Any:
    """``tf.reduce_logsumexp``: log(sum(exp(x))) computed stably (max subtracted first)."""
    x = convert_to_tensor(input_tensor)
    raw_max = reduce_max(x, axis, keepdims=True)
    # A non-finite max (all -inf, or inf) is replaced by 0 so the subtraction stays finite.
    my_max = stop_gradient(_run("SelectV2", [is_finite(raw_max), raw_max, zeros_like(raw_max)], None, None))
    result = log(reduce_sum(exp(x - my_max), axis, keepdims=True)) + my_max
    if keepdims:
        return result
    return reduce_sum(result, axis, name=name or "reduce_logsumexp")  # drops the size-1 dims


def _arg(op: str, input: Any, axis: Any, output_type: Any, name: Optional[str]) -> Any:
    x = convert_to_tensor(input)
    if axis is None:
        axis = 0
    # TF's argmax (v2) takes an int or an integer tensor only (argmin leaves it to the op)
    if op == "ArgMax" and hasattr(axis, "dtype"):
        if as_dtype(axis.dtype).name not in ("int8", "uint8", "int16", "uint16", "int32", "int64"):
            raise TypeError(f"axis tensor dtypes {as_dtype(axis.dtype)!r} is not supported")
        if _core.is_tensor(axis) and as_dtype(axis.dtype).name in ("int8", "uint8", "int16"):
            axis = cast(axis, int32)
    elif op == "ArgMax" and not isinstance(axis, int):
        raise TypeError("axis must be int or Tensor with integer datatype")
    dim = axis if _core.is_tensor(axis) else _like(axis, int32)
    return _run(op, [x, dim], {"output_type": as_dtype(output_type)}, name or op)


def argmax(input: Any, axis: Any = None, output_type: Any = int64, name: Optional[str] = None) -> Any:
    """``tf.math.argmax``: index of the largest value along ``axis`` (default 0); the first on
    ties; NaNs are skipped."""
    return _arg("ArgMax", input, axis, output_type, name)


def argmin(input: Any, axis: Any = None, output_type: Any = int64, name: Optional[str] = None) -> Any:
    """``tf.math.argmin``: index of the smallest value along ``axis`` (default 0)."""
    return _arg("ArgMin", input, axis, output_type, name)


def count_nonzero(
    input: Any, axis: Any = None, keepdims: bool = False, dtype: Any = int64, name: Optional[str] = None
) -> Any:
    """``tf.math.count_nonzero``: the number of non-zero elements along ``axis``."""
    x = convert_to_tensor(input)
    zero = "" if x.dtype.name == "string" else False if x.dtype.name == "bool" else 0
    nonzero = not_equal(x, _like(zero, x.dtype))
    counts = _run("Cast", [nonzero], {"SrcT": as_dtype("bool"), "DstT": as_dtype(int64), "Truncate": False}, None)
    out = reduce_sum(counts, axis, keepdims, name=name or "count_nonzero")
    if as_dtype(dtype) != as_dtype(int64):
        out = _run("Cast", [out], {"SrcT": as_dtype(int64), "DstT": as_dtype(dtype), "Truncate": False}, None)
    return out


def stop_gradient(input: Any, name: Optional[str] = None) -> Any:
    """``tf.stop_gradient``: the value unchanged, but tapes see no gradient through it."""
    return _run("StopGradient", [convert_to_tensor(input)], None, name or "StopGradient")


# ---- matmul, stack ---------------------------------------------------------------------------


def matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    output_type: Any = None,
    grad_a: bool = False,
    grad_b: bool = False,
    name: Optional[str] = None,
) -> Any:
    """``tf.linalg.matmul``: rank-2 MatMul, or BatchMatMulV2 for higher ranks (oneDNN for float32).
    TF's full signature (dispatch targets must match it); ``a_is_sparse``/``b_is_sparse`` and
    ``grad_a``/``grad_b`` are hints fn does not need; ``output_type`` computes (u)int8 products
    in the wider output type, as TF's int8 x int8 -> int32."""
    a, b = _binary_args(a, b)
    if output_type is not None:
        output_type = as_dtype(output_type)
        if output_type != a.dtype:
            if a.dtype.name not in ("int8", "uint8") or output_type.name != "int32":
                raise TypeError(
                    f"Only (u)int8 inputs support output_type int32; got {a.dtype.name} inputs and "
                    f"output_type {output_type.name}."
                )
            a, b = cast(a, output_type), cast(b, output_type)
    ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
    ra, rb = a._rank, b._rank
    if a.dtype.is_complex:  # MatMul transposes, BatchMatMulV2's adj_x/y conjugate too (TF's conj + flag)
        batch = not (ra == 2 and rb == 2)
        if transpose_a if batch else adjoint_a:
            a = _run("Conj", [a], None, None)
        if transpose_b if batch else adjoint_b:
            b = _run("Conj", [b], None, None)
    if ra == 2 and rb == 2:
        return _core.execute("MatMul", [a, b], {"transpose_a": ta, "transpose_b": tb}, name)[0]
    return _core.execute("BatchMatMulV2", [a, b], {"adj_x": ta, "adj_y": tb}, name or "MatMul")[0]


# ---- Python operators -----------------------------------------------------------------------
# + - * / // % ** < <= > >= == != unary - and abs() are installed in C++ (bind_operators.cpp);
# the bool/bitwise operators and @ are here.


def _logic_operator(bool_op: str, int_op: str, name: str, reflected: bool):
    def f(self: Any, other: Any) -> Any:
        try:
            o = _like(other, self.dtype)
        except (TypeError, ValueError):
            if not reflected and hasattr(type(other), "__r" + name + "__") and not _core.is_tensor(other):
                r = getattr(other, "__r" + name + "__")(self)
                if r is not NotImplemented:
                    return r
            raise
        x, y = (o, self) if reflected else (self, o)
        if self.dtype.is_bool:
            if bool_op == "xor":
                return logical_xor(x, y, name="xor")
            return _run(bool_op, [x, y], None, name)
        return _run(int_op, [x, y], None, name)

    return f


def _invert(self: Any) -> Any:
    if self.dtype.is_bool:
        return _run("LogicalNot", [self], None, "LogicalNot")
    return _run("Invert", [self], None, "Invert")


def _tensordot_axes(a: Any, axes: Any) -> tuple:
    """TF's ``_tensordot_axes``: the contraction axes of ``a`` and of ``b`` (lists, as given)."""
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        if a._rank < 0:
            raise ValueError("fn.tensordot needs operands of known rank")
        if axes > a._rank:  # TF checks `a` only: an N past b's rank is b's IndexError
            raise ValueError(
                f"`axes` must not be larger than the number of dimensions of tensor {a}.  "
                f"Received {axes}, vs tensor dimensions {a._rank}."
            )
        return list(builtins.range(a._rank - axes, a._rank)), list(builtins.range(axes))
    if not isinstance(axes, (list, tuple)):  # an int32 tensor of shape [2, k]
        axes = convert_to_tensor(axes, int32)
        if not _core.executing_eagerly():
            raise NotImplementedError("fn.tensordot needs `axes` as Python ints or lists inside a Function")
        axes = axes.numpy().tolist()
        if not isinstance(axes, list) or len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        return axes[0] if isinstance(axes[0], list) else [axes[0]], axes[1] if isinstance(axes[1], list) else [axes[1]]
    if len(axes) != 2:
        raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
    a_axes, b_axes = axes[0], axes[1]
    if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
        a_axes, b_axes = [a_axes], [b_axes]
    if len(a_axes) != len(b_axes):  # TF compares the counts before reading the axes
        raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
    return a_axes, b_axes


def _tensordot_reshape(a: Any, axes: Any, flipped: bool = False) -> tuple:
    """TF's ``_tensordot_reshape``: ``a`` transposed and reshaped to a matrix whose columns (rows
    when ``flipped``) are the contracted ``axes``; also its free dims (ints, or scalar tensors of
    ``Shape`` where a dim is unknown) and their static values. Like TF, an axis past the rank is Python's
    IndexError (TF's documented class) and one within [-2 * rank, -rank) reaches Transpose."""
    rank = a._rank
    if rank < 0:
        raise ValueError("fn.tensordot needs operands of known rank")
    shape_a = list(a._shape_tuple)
    axes = [i if i >= 0 else i + rank for i in axes]
    free = [i for i in builtins.range(rank) if i not in axes]
    if None not in shape_a:
        free_dims = [shape_a[i] for i in free]
        prod_free = int(np.prod([shape_a[i] for i in free]))
        prod_axes = int(np.prod([shape_a[i] for i in axes]))
        perm = list(axes) + free if flipped else free + list(axes)
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        a_trans = array_ops.transpose(a, perm) if np.any(np.asarray(perm) != np.arange(rank)) else a
        if list(a_trans._shape_tuple) != new_shape:
            a_trans = array_ops.reshape(a_trans, new_shape)
        return a_trans, free_dims, free_dims
    axes_dims = [shape_a[i] for i in axes]  # noqa: F841  (TF's IndexError for an axis past the rank)
    free_dims_static = [shape_a[i] for i in free]
    # TF builds perm and the shapes from constants and Shape's dims; fn keeps what is static as
    # Python ints (a constant perm: exporters and the shape rules see it) and reads the unknown
    # dims from the Shape op.
    shape_t = array_ops.shape(a)
    dims = [d if d is not None else shape_t[i] for i, d in enumerate(shape_a)]

    def prod(ds: list) -> Any:
        out: Any = 1
        for d in ds:
            out = out * d
        return out

    free_dims = [dims[i] for i in free]
    prod_free, prod_axes = prod(free_dims), prod([dims[i] for i in axes])
    perm = list(axes) + free if flipped else free + list(axes)
    new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
    return array_ops.reshape(array_ops.transpose(a, perm), new_shape), free_dims, free_dims_static


def tensordot(a: Any, b: Any, axes: Any, name: Optional[str] = None) -> Any:
    """``tf.tensordot``: contracts ``axes`` of ``a`` with those of ``b`` (an int N means the last
    N of ``a`` with the first N of ``b``), as one matmul between transposed, reshaped operands,
    checked in TF's order (``a``'s axes, then ``b``'s, then the matmul's dims and dtypes)."""
    a, b = _core.convert_to_tensor(a), _core.convert_to_tensor(b)
    a_axes, b_axes = _tensordot_axes(a, axes)
    a_reshape, a_free_dims, a_free_static = _tensordot_reshape(a, a_axes)
    b_reshape, b_free_dims, b_free_static = _tensordot_reshape(b, b_axes, True)
    ab_matmul = matmul(a_reshape, b_reshape)
    free_dims = a_free_dims + b_free_dims
    if all(isinstance(d, int) for d in free_dims) and list(ab_matmul._shape_tuple) == free_dims:
        return ab_matmul
    product = array_ops.reshape(ab_matmul, free_dims, name=name)
    if None in a_free_static + b_free_static:
        product.set_shape(a_free_static + b_free_static)
    return product
