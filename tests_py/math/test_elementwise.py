"""Elementwise ops against NumPy: random shapes with broadcasting and every dtype they accept,
both the reference loops (small tensors) and the oneDNN paths (large float32 tensors), and
TensorFlow's special semantics (floor division/modulo for negatives, NaN, rounding)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fn
from _math_helpers import assert_same, math_settings

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8]
SIGNED_INTS = [np.int8, np.int16, np.int32, np.int64]
RTOL = {np.float16: 1e-3, np.float32: 1e-5, np.float64: 1e-12}


def elements(dt, lo, hi):
    dt = np.dtype(dt)
    if dt.kind == "f":
        lo, hi = float(dt.type(lo)), float(dt.type(hi))   # representable bounds
        return st.floats(lo, hi, width=dt.itemsize * 8, allow_nan=False, allow_infinity=False)
    info = np.iinfo(dt)
    return st.integers(max(int(lo), int(info.min)), min(int(hi), int(info.max)))


@st.composite
def operands(draw, dtypes, lo=-10, hi=10, rhs_lo=None, rhs_hi=None, rhs_nonzero=False, shapes=None):
    dt = draw(st.sampled_from(dtypes))
    if shapes is None:
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4)).input_shapes
    a = draw(hnp.arrays(dt, shapes[0], elements=elements(dt, lo, hi)))
    b_el = elements(dt, lo if rhs_lo is None else rhs_lo, hi if rhs_hi is None else rhs_hi)
    if rhs_nonzero:
        b_el = b_el.filter(lambda v: v != 0)
    b = draw(hnp.arrays(dt, shapes[1], elements=b_el))
    return a, b


def tf_floor_div(a, b):
    if a.dtype.kind == "f":
        with np.errstate(all="ignore"):
            return np.floor(a / b).astype(a.dtype)
    return np.floor_divide(a, b)


def tf_floor_mod(a, b):
    if a.dtype.kind == "f":
        with np.errstate(all="ignore"):
            r = np.fmod(a, b)
            return np.where((r != 0) & ((b < 0) != (r < 0)), r + b, r).astype(a.dtype)
    return np.mod(a, b)


# ---- binary arithmetic --------------------------------------------------------------------

BINARY = [
    ("add", fn.add, np.add, FLOATS + INTS, {}),
    ("subtract", fn.subtract, np.subtract, FLOATS + INTS, {}),
    ("multiply", fn.multiply, np.multiply, FLOATS + INTS, {}),
    ("maximum", fn.maximum, np.maximum, FLOATS + INTS, {}),
    ("minimum", fn.minimum, np.minimum, FLOATS + INTS, {}),
    ("squared_difference", fn.math.squared_difference, lambda a, b: np.square(a - b),
     FLOATS + [np.int32, np.int64], {}),
    ("floordiv", fn.math.floordiv, tf_floor_div, FLOATS + INTS, {"rhs_nonzero": True}),
    ("floormod", fn.math.floormod, tf_floor_mod, [np.float32, np.float64] + INTS, {"rhs_nonzero": True}),
    ("realdiv", fn.realdiv, np.true_divide, FLOATS, {"rhs_nonzero": True}),
    ("divide_no_nan", fn.math.divide_no_nan, lambda a, b: np.where(b == 0, 0, a / np.where(b == 0, 1, b)).astype(a.dtype),
     [np.float32, np.float64], {}),
]


@pytest.mark.parametrize("name,f,ref,dtypes,kw", BINARY, ids=[b[0] for b in BINARY])
def test_binary_matches_numpy(name, f, ref, dtypes, kw):
    @math_settings
    @given(operands(dtypes, lo=-11, hi=11, **kw))
    def check(ab):
        a, b = ab
        with np.errstate(all="ignore"):
            want = np.asarray(ref(a, b)).astype(a.dtype)
        assert_same(f(fn.constant(a), fn.constant(b)), want, rtol=RTOL.get(a.dtype.type, 0))
    check()


@math_settings


@given(operands([np.float32, np.float64], lo=0.1, hi=4, rhs_lo=-3, rhs_hi=3))
def test_pow_floats(ab):
    a, b = ab
    assert_same(fn.pow(a, b), np.power(a, b), rtol=1e-5)


@math_settings


@given(operands(SIGNED_INTS, lo=-3, hi=3, rhs_lo=0, rhs_hi=4))
def test_pow_integers(ab):
    a, b = ab
    assert_same(fn.pow(a, b), np.power(a, b))


def test_large_float32_binary_ops_use_onednn_and_match(rng):
    a = rng.standard_normal((130, 140)).astype(np.float32)   # > 16384 elements
    b = rng.standard_normal((140,)).astype(np.float32) + 3
    for f, ref in [(fn.add, np.add), (fn.subtract, np.subtract), (fn.multiply, np.multiply),
                   (fn.realdiv, np.true_divide), (fn.maximum, np.maximum), (fn.less, np.less),
                   (fn.equal, np.equal), (fn.greater_equal, np.greater_equal)]:
        assert_same(f(a, b), ref(a, b), rtol=1e-6)
    a[0, 0] = np.nan
    assert_same(fn.greater(a, b), np.greater(a, b))
    assert_same(fn.less_equal(a, b), np.less_equal(a, b))


def test_integer_arithmetic_wraps():
    assert fn.subtract(fn.constant(-128, fn.int8), fn.constant(1, fn.int8)).numpy() == 127
    assert (fn.constant(3, fn.uint8) - fn.constant(5, fn.uint8)).numpy() == 254
    assert (-fn.constant(-2 ** 31)).numpy() == -2 ** 31
    assert fn.abs(fn.constant(-2 ** 31)).numpy() == -2 ** 31
    big = fn.constant(np.full([1 << 15], 2 ** 30, np.int32))   # oneDNN would saturate
    assert (big + big).numpy()[0] == -2 ** 31
    assert fn.reduce_sum(fn.constant([100, 100], fn.int8)).numpy() == -56


def test_floor_division_and_modulo_semantics():
    x, y = fn.constant([-7, 7, -7, 7]), fn.constant([2, -2, -2, 2])
    assert (x // y).numpy().tolist() == [-4, -4, 3, 3]
    assert (x % y).numpy().tolist() == [1, -1, -1, 1]
    xf, yf = fn.cast(x, fn.float32), fn.cast(y, fn.float32)
    assert (xf // yf).numpy().tolist() == [-4, -4, 3, 3]
    assert (xf % yf).numpy().tolist() == [1, -1, -1, 1]
    assert (fn.constant(5.5) % fn.constant(-2.0)).numpy() == -0.5
    assert np.signbit((fn.constant(-4.0) % fn.constant(2.0)).numpy())
    assert (fn.constant([1.0, -1.0]) % fn.constant(np.inf)).numpy().tolist() == [1.0, np.inf]
    assert np.isnan((fn.constant([1.0, -1.0, 0.0]) % fn.constant(0.0)).numpy()).all()
    assert (fn.constant([1.0, -1.0]) // fn.constant(0.0)).numpy().tolist() == [np.inf, -np.inf]
    assert (fn.constant(-2 ** 31) // fn.constant(-1)).numpy() == -2 ** 31
    assert (fn.constant(-2 ** 31) % fn.constant(-1)).numpy() == 0
    assert (fn.constant(-7, fn.int8) // fn.constant(2, fn.int8)).numpy() == -4
    assert (fn.constant(7, fn.uint8) % fn.constant(3, fn.uint8)).numpy() == 1
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"Integer division by zero \[Op:FloorDiv\]"):
        fn.constant(1) // fn.constant(0)
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"Integer division by zero \[Op:FloorMod\]"):
        fn.constant([1, 2]) % fn.constant([1, 0])


def test_truediv_casts_integers():
    assert (fn.constant(1) / fn.constant(2)).dtype == fn.float64
    assert (fn.constant(1, fn.int8) / fn.constant(2, fn.int8)).dtype == fn.float32
    assert (fn.constant(1, fn.int16) / 2).dtype == fn.float32
    assert (fn.constant(1, fn.uint8) / 2).dtype == fn.float32
    assert (fn.constant(1, fn.int64) / 2).dtype == fn.float64
    assert (fn.constant(1, fn.float16) / 2).dtype == fn.float16
    assert (fn.constant(1) / fn.constant(0)).numpy() == np.inf
    assert fn.divide(1, 2).numpy() == 0.5 and fn.divide(1, 2).dtype == fn.float64
    assert fn.truediv(fn.constant([7, -7]), 2).numpy().tolist() == [3.5, -3.5]
    with pytest.raises(TypeError, match=r"`x` and `y` must have the same dtype, got fn.int32 != fn.float32."):
        fn.constant(1) / fn.constant(2.0)
    with pytest.raises(TypeError, match=r"Invalid dtype fn.bool in __truediv__"):
        fn.constant(True) / fn.constant(True)
    with pytest.raises(TypeError, match=r"Invalid dtype fn.string in __truediv__"):
        fn.constant("a") / fn.constant("b")


def test_pow_special_cases():
    assert (fn.constant(2) ** 3).numpy() == 8 and (fn.constant(0) ** fn.constant(0)).numpy() == 1
    assert (fn.constant(-2) ** fn.constant(3)).numpy() == -8
    assert np.isnan((fn.constant(-8.0) ** (1 / 3)).numpy())
    assert (fn.constant(0.0) ** fn.constant(-1.0)).numpy() == np.inf
    with pytest.raises(fn.errors.InvalidArgumentError, match="Integers to negative integer powers are not allowed"):
        fn.constant(2) ** fn.constant(-1)


def test_maximum_minimum_propagate_nan():
    a, b = fn.constant([1.0, np.nan]), fn.constant([np.nan, 1.0])
    assert np.isnan(fn.maximum(a, b).numpy()).all() and np.isnan(fn.minimum(a, b).numpy()).all()
    assert np.isnan(fn.minimum(fn.constant(1, fn.float16), fn.constant(np.nan, fn.float16)).numpy())
    assert fn.maximum([1, 5], 3).numpy().tolist() == [3, 5]


# ---- comparisons and logic ------------------------------------------------------------------

COMPARE = [(fn.equal, np.equal), (fn.not_equal, np.not_equal), (fn.less, np.less),
           (fn.less_equal, np.less_equal), (fn.greater, np.greater), (fn.greater_equal, np.greater_equal)]


@pytest.mark.parametrize("f,ref", COMPARE, ids=[c[0].__name__ for c in COMPARE])
def test_comparisons_match_numpy(f, ref):
    @math_settings
    @given(operands(FLOATS + INTS, lo=-3, hi=3))
    def check(ab):
        a, b = ab
        assert_same(f(a, b), ref(a, b))
    check()


def test_comparisons_with_nan_strings_and_bools():
    nan = fn.constant([np.nan, 1.0])
    assert fn.equal(nan, nan).numpy().tolist() == [False, True]
    assert fn.not_equal(nan, nan).numpy().tolist() == [True, False]
    assert fn.greater(nan, 0.0).numpy().tolist() == [False, True]
    assert fn.equal(fn.constant(["a", "b"]), "a").numpy().tolist() == [True, False]
    assert fn.not_equal(fn.constant([["a"], ["b"]]), fn.constant(["a", "b"])).numpy().tolist() == [[False, True], [True, False]]
    assert fn.equal(fn.constant([True, False]), True).numpy().tolist() == [True, False]
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"(?s)Value for attr 'T' of bool is not in the list of allowed values.*\[Op:Less\]"):
        fn.less(fn.constant(True), fn.constant(False))
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"\[Op:Greater\]"):
        fn.greater(fn.constant("a"), fn.constant("b"))
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\] \[Op:Equal\]"):
        fn.equal(fn.constant([1, 2]), fn.constant([1, 2, 3]))


@math_settings


@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4), st.data())
def test_logical_ops_match_numpy(shapes, data):
    a = data.draw(hnp.arrays(np.bool_, shapes.input_shapes[0]))
    b = data.draw(hnp.arrays(np.bool_, shapes.input_shapes[1]))
    assert_same(fn.logical_and(a, b), np.logical_and(a, b))
    assert_same(fn.logical_or(a, b), np.logical_or(a, b))
    assert_same(fn.math.logical_xor(a, b), np.logical_xor(a, b))
    assert_same(fn.logical_not(a), np.logical_not(a))
    ta, tb = fn.constant(a), fn.constant(b)
    assert_same(ta & tb, a & b)
    assert_same(ta | tb, a | b)
    assert_same(ta ^ tb, a ^ b)
    assert_same(~ta, ~a)


def test_logical_ops_reject_non_bool():
    with pytest.raises(fn.errors.InvalidArgumentError,
                       match=r"cannot compute LogicalAnd as input #0\(zero-based\) was expected to be a bool tensor but is a int32 tensor \[Op:LogicalAnd\]"):
        fn.logical_and(fn.constant(1), fn.constant(3))
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"\[Op:LogicalNot\]"):
        fn.logical_not(fn.constant(1))


def test_bitwise_ops_on_integers():
    a, b = fn.constant([6, -1]), fn.constant([3, 5])
    assert (a & b).numpy().tolist() == [2, 5]
    assert (a | b).numpy().tolist() == [7, -1]
    assert (a ^ b).numpy().tolist() == [5, -6]
    assert (~a).numpy().tolist() == [-7, 0]
    assert fn.bitwise.bitwise_and(fn.constant(12, fn.uint8), 10).numpy() == 8
    assert fn.bitwise.invert(fn.constant(0, fn.uint8)).numpy() == 255
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"\[Op:BitwiseOr\]"):
        fn.constant(1.0) | fn.constant(3.0)


# ---- unary ----------------------------------------------------------------------------------

def np_sigmoid(x):
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


UNARY = [
    ("negative", fn.negative, np.negative, FLOATS + SIGNED_INTS, -10, 10),
    ("abs", fn.abs, np.abs, FLOATS + SIGNED_INTS, -10, 10),
    ("sign", fn.sign, np.sign, FLOATS + SIGNED_INTS, -10, 10),
    ("square", fn.square, np.square, FLOATS + INTS, -10, 10),
    ("sqrt", fn.sqrt, np.sqrt, FLOATS, 0, 100),
    ("rsqrt", fn.math.rsqrt, lambda x: (1 / np.sqrt(x)).astype(x.dtype), FLOATS, 0.01, 100),
    ("exp", fn.exp, np.exp, FLOATS, -10, 10),
    ("log", fn.math.log, np.log, FLOATS, 0.001, 100),
    ("log1p", fn.math.log1p, np.log1p, FLOATS, -0.99, 100),
    ("tanh", fn.tanh, np.tanh, FLOATS, -10, 10),
    ("sigmoid", fn.sigmoid, np_sigmoid, FLOATS, -10, 10),
    ("sin", fn.sin, np.sin, FLOATS, -10, 10),
    ("cos", fn.cos, np.cos, FLOATS, -10, 10),
    ("floor", fn.floor, np.floor, FLOATS, -10, 10),
    ("ceil", fn.math.ceil, np.ceil, FLOATS, -10, 10),
    ("round", fn.round, np.round, FLOATS + SIGNED_INTS, -10, 10),
    ("reciprocal", fn.math.reciprocal, lambda x: (1 / x).astype(x.dtype), FLOATS, 0.01, 10),
    ("relu", fn.nn.relu, lambda x: np.maximum(x, 0).astype(x.dtype), FLOATS + INTS, -10, 10),
    ("relu6", fn.nn.relu6, lambda x: np.clip(x, 0, 6).astype(x.dtype), FLOATS + INTS, -10, 10),
    ("elu", fn.nn.elu, lambda x: np.where(x < 0, np.expm1(x), x).astype(x.dtype), FLOATS, -10, 10),
    ("softplus", fn.nn.softplus, lambda x: np.logaddexp(0, x.astype(np.float64)).astype(x.dtype), FLOATS, -30, 30),
]


@pytest.mark.parametrize("name,f,ref,dtypes,lo,hi", UNARY, ids=[u[0] for u in UNARY])
def test_unary_matches_numpy(name, f, ref, dtypes, lo, hi):
    @math_settings
    @given(st.sampled_from(dtypes).flatmap(
        lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5), elements=elements(dt, lo, hi))))
    def check(a):
        with np.errstate(all="ignore"):
            want = np.asarray(ref(a)).astype(a.dtype)
        assert_same(f(a), want, rtol=RTOL.get(a.dtype.type, 0), atol=1e-6 if a.dtype.kind == "f" else 0)
    check()


@pytest.mark.parametrize("name,f,ref,dtypes,lo,hi", UNARY, ids=[u[0] for u in UNARY])
def test_large_float32_unary_matches_numpy(name, f, ref, dtypes, lo, hi, rng):
    if np.float32 not in dtypes:
        pytest.skip("no float32")
    a = rng.uniform(lo, hi, size=(70, 300)).astype(np.float32)   # the oneDNN path where there is one
    a[0, 0] = np.nan
    with np.errstate(all="ignore"):
        want = np.asarray(ref(a)).astype(np.float32)
    assert_same(f(a), want, rtol=2e-5, atol=1e-6)


def test_unary_special_values():
    assert fn.round([0.5, 1.5, 2.5, -0.5, -1.5, 2.6]).numpy().tolist() == [0, 2, 2, -0.0, -2, 3]
    assert fn.round(fn.constant([0.5, 1.5], fn.float16)).numpy().tolist() == [0, 2]
    assert fn.round([1, 2]).numpy().tolist() == [1, 2]
    s = fn.sign([np.nan, -0.0, 0.0, -3.0]).numpy()
    assert np.isnan(s[0]) and s[1:].tolist() == [0, 0, -1]
    assert fn.sign(fn.constant([-3, 0, 2])).numpy().tolist() == [-1, 0, 1]
    assert fn.math.log1p([-1.0]).numpy()[0] == -np.inf and np.isnan(fn.math.log1p([-2.0]).numpy()[0])
    sp = fn.nn.softplus(fn.constant([100.0, -100.0, 0.0])).numpy()
    # TF prints 0 for sp[1]: its threads flush float32 denormals (exp(-100) ~ 3.7e-44); fn keeps them.
    assert sp[0] == 100 and sp[1] < 1e-40 and abs(sp[2] - np.log(2)) < 1e-6
    assert fn.nn.softplus(fn.constant([-100.0], fn.float64)).numpy()[0] == pytest.approx(3.72007598e-44)
    assert fn.sigmoid([-100.0, 100.0]).numpy().tolist() == [0.0, 1.0]
    assert fn.exp([100.0]).numpy()[0] == np.inf
    assert np.isnan(fn.sqrt(-1.0).numpy()) and fn.math.rsqrt(0.0).numpy() == np.inf
    r = fn.nn.relu([np.nan, -1.0]).numpy()
    assert np.isnan(r[0]) and r[1] == 0
    assert fn.nn.relu6(fn.constant([-1, 3, 7])).numpy().tolist() == [0, 3, 6]
    assert fn.math.is_nan([np.nan, 1.0, np.inf]).numpy().tolist() == [True, False, False]
    assert fn.math.is_inf([np.nan, 1.0, -np.inf]).numpy().tolist() == [False, False, True]
    assert fn.math.is_finite([np.nan, 1.0, np.inf]).numpy().tolist() == [False, True, False]


def test_unary_dtype_errors():
    with pytest.raises(fn.errors.InvalidArgumentError,
                       match=r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double\n\t; NodeDef: \{\{node Sqrt\}\}.* \[Op:Sqrt\]"):
        fn.sqrt(fn.constant(1))
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"(?s)Value for attr 'T' of string .*\[Op:Sqrt\]"):
        fn.sqrt(fn.constant("a"))
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"(?s)Value for attr 'T' of bool .*\[Op:Neg\]"):
        -fn.constant(True)
    with pytest.raises(fn.errors.InvalidArgumentError, match=r"(?s)Value for attr 'T' of uint8 .*\[Op:Abs\]"):
        abs(fn.constant(3, fn.uint8))
    with pytest.raises(fn.errors.NotFoundError, match=r"Could not find device for node: \{\{node Reciprocal\}\} = Reciprocal\[T=DT_INT32\]"):
        fn.math.reciprocal(fn.constant([1, 2]))
    for f in (fn.exp, fn.tanh, fn.sigmoid, fn.nn.elu, fn.nn.softplus, fn.floor, fn.math.is_nan):
        with pytest.raises(fn.errors.InvalidArgumentError, match="Value for attr 'T' of int32"):
            f(fn.constant([1, 2]))
