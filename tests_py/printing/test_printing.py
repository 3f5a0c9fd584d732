"""Tests of fn._tensor.printing.format_print against TensorFlow 2.21's tf.print.

CASES (at the end of this file) was produced once by _gen_tf_expected.py, which
ran tf.print (eagerly and inside a tf.function, with identical output) on each
expression and recorded the exact text written, or the exception raised.  The
expected strings are hard-coded; nothing here computes them.

The expressions build tensors with helpers.  Here each helper returns what fn's
tf.print hands to format_print for a tensor: a NumPy scalar (rank 0), ``bytes``
(rank-0 string) or an ndarray (string tensors as object arrays of bytes).
``A0`` gives the same tensor as a plain ndarray, including 0-d ones.
"""
import collections
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fn._tensor import printing
from fn._tensor.printing import format_print, format_tensor

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

from _case_values import P, O, attr, od  # noqa: E402,F401  (names used by the case table)
if attr is not None:
    from _case_values import A  # noqa: F401


def _to_bytes(v):
    return v.encode("utf-8") if isinstance(v, str) else v


def A0(value, dtype="int32"):
    if dtype == "string":
        a = np.array(value, dtype=object)
        flat = [_to_bytes(v) for v in a.reshape(-1).tolist()]
        out = np.empty(a.shape, dtype=object)
        out.reshape(-1)[:] = flat if flat else []
        return out
    if dtype == "bfloat16":
        return np.array(np.array(value, np.float64), dtype=ml_dtypes.bfloat16)
    if "float" in dtype:
        with np.errstate(over="ignore"):  # 1e20 -> float16 inf, as in TF
            return np.array(np.array(value, np.float64), dtype=dtype)
    return np.array(value, dtype=dtype)


def T(value, dtype="int32"):
    a = A0(value, dtype)
    return a[()] if a.ndim == 0 else a


def R(n, dtype="int32", shape=None):
    a = np.arange(n).astype(dtype)
    return a.reshape(shape) if shape is not None else a


def U(seed, shape, dtype="float32"):
    return np.random.default_rng(seed).random(shape).astype(dtype)


def _run(expr, kwargs):
    inputs = eval(expr)
    try:
        return format_print(inputs, **kwargs)
    except Exception as e:  # noqa: BLE001
        return ("raise", type(e).__name__, str(e))


# --- direct checks of the contract ------------------------------------------

def test_scalar_string_forms_are_equivalent():
    for s in (b"a\tb", np.bytes_(b"a\tb"), np.array(b"a\tb", dtype=object),
              np.array(b"a\tb"), np.str_("a\tb"), np.array("a\tb")):
        assert format_print((s,)) == "a\tb\n", s
        assert format_print((s, 1)) == '"a\\tb" 1\n', s


def test_numeric_scalar_forms_are_equivalent():
    for x in (np.float32(2.5), np.array(2.5, np.float32), np.array([2.5], np.float32)[0]):
        assert format_print((x,)) == "2.5\n"
    assert format_print((np.float64(0.1),)) == "0.1\n"


def test_invalid_utf8_is_backslash_escaped():
    # TF writes the raw byte; a str cannot hold it, so fn shows \xff.
    assert format_print((b"\xffz",)) == "\\xffz\n"
    assert format_print((np.array([b"\xff"], dtype=object),)) == '["\\xff"]\n'


def test_format_tensor_defaults():
    assert format_tensor(np.arange(10)) == "[0 1 2 ... 7 8 9]"
    assert format_tensor(np.arange(10), summarize=None) == "[0 1 2 ... 7 8 9]"
    assert format_tensor(np.arange(10), summarize=-1) == "[0 1 2 3 4 5 6 7 8 9]"
    assert format_tensor(np.float32(2)) == "2"


def test_inputs_may_be_any_sequence():
    assert format_print([np.int32(1), "a"]) == "1 a\n"


def test_only_shown_elements_are_formatted():
    big = np.broadcast_to(np.uint8(0), (100000, 100000))  # 10 GB if materialised
    assert format_print((big,)).count("\n") == 7
    assert printing.format_tensor(big, summarize=1) == "[[0 ... 0]\n ...\n [0 ... 0]]"


# --- property tests (self-consistency; TF's rules as stated in its code) -----

@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5)))
def test_full_print_lists_every_element_in_order(a):
    text = format_tensor(a, summarize=-1)
    assert [int(t) for t in re.findall(r"-?\d+", text)] == a.reshape(-1).tolist()
    assert text.count("[") == text.count("]") == 1 + sum(
        int(np.prod(a.shape[:k])) for k in range(1, a.ndim))


@settings(max_examples=300, deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False).filter(
    lambda v: v == 0 or abs(v) >= float(np.finfo(np.float32).tiny)))
def test_float32_text_round_trips(v):
    text = format_tensor(np.float32(v))
    assert np.float32(float(text)) == np.float32(v)
    assert len(text.lstrip("-").replace(".", "").split("e")[0].lstrip("0")) <= 9


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False).filter(
    lambda v: v == 0 or abs(v) >= float(np.finfo(np.float64).tiny)))
def test_float64_text_round_trips(v):
    assert float(format_tensor(np.float64(v))) == v


# Generated by _gen_tf_expected.py under TensorFlow 2.21 -- do not edit by hand.
CASES = [
    ("(T(2.0, 'float32'),)", {},
     '2\n'),
    ("(T(4.3, 'float32'),)", {},
     '4.3\n'),
    ("(T(1e-10, 'float32'),)", {},
     '1e-10\n'),
    ("(T(float('nan'), 'float32'),)", {},
     'nan\n'),
    ("(T(-float('nan'), 'float32'),)", {},
     '-nan\n'),
    ("(T(float('inf'), 'float32'),)", {},
     'inf\n'),
    ("(T(-float('inf'), 'float32'),)", {},
     '-inf\n'),
    ("(T(-0.0, 'float32'),)", {},
     '-0\n'),
    ("(T(0.0, 'float32'),)", {},
     '0\n'),
    ("(T(1e20, 'float32'),)", {},
     '1e+20\n'),
    ("(T(123456789.0, 'float32'),)", {},
     '123456792\n'),
    ("(T(1234567890.0, 'float32'),)", {},
     '1.23456794e+09\n'),
    ("(T(0.1, 'float32'),)", {},
     '0.1\n'),
    ("(T(1/3, 'float32'),)", {},
     '0.333333343\n'),
    ("(T(3.4028235e38, 'float32'),)", {},
     '3.40282347e+38\n'),
    ("(T(1e-45, 'float32'),)", {},
     '0\n'),
    ("(T(-1e-45, 'float32'),)", {},
     '-0\n'),
    ("(T(1e-40, 'float32'),)", {},
     '0\n'),
    ("(T(1.17549435e-38, 'float32'),)", {},
     '1.17549435e-38\n'),
    ("(T(16777217.0, 'float32'),)", {},
     '16777216\n'),
    ("(T(1e23, 'float32'),)", {},
     '1e+23\n'),
    ("(T(0.3, 'float32'),)", {},
     '0.3\n'),
    ("(T(100.0, 'float32'),)", {},
     '100\n'),
    ("(T(1e-5, 'float32'),)", {},
     '1e-05\n'),
    ("(T(1e-4, 'float32'),)", {},
     '0.0001\n'),
    ("(T(123456.7, 'float32'),)", {},
     '123456.703\n'),
    ("(T(1234567.8, 'float32'),)", {},
     '1234567.75\n'),
    ("(T(1e16, 'float32'),)", {},
     '1e+16\n'),
    ("(T(0.5, 'float32'),)", {},
     '0.5\n'),
    ("(T(1.5e-7, 'float32'),)", {},
     '1.5e-07\n'),
    ("(T(65504.0, 'float32'),)", {},
     '65504\n'),
    ("(T(-2.5, 'float32'),)", {},
     '-2.5\n'),
    ("(T(0.395097852, 'float32'),)", {},
     '0.395097852\n'),
    ("(T(0.31937086582, 'float32'),)", {},
     '0.319370866\n'),
    ("(T(0.79926908, 'float32'),)", {},
     '0.79926908\n'),
    ("(T(999999.5, 'float32'),)", {},
     '999999.5\n'),
    ("(T(9999999.0, 'float32'),)", {},
     '9999999\n'),
    ("(T(1e-4 * 3, 'float32'),)", {},
     '0.0003\n'),
    ("(T(2.0, 'float64'),)", {},
     '2\n'),
    ("(T(4.3, 'float64'),)", {},
     '4.3\n'),
    ("(T(1e-10, 'float64'),)", {},
     '1e-10\n'),
    ("(T(float('nan'), 'float64'),)", {},
     'nan\n'),
    ("(T(-float('nan'), 'float64'),)", {},
     '-nan\n'),
    ("(T(float('inf'), 'float64'),)", {},
     'inf\n'),
    ("(T(-float('inf'), 'float64'),)", {},
     '-inf\n'),
    ("(T(-0.0, 'float64'),)", {},
     '-0\n'),
    ("(T(0.0, 'float64'),)", {},
     '0\n'),
    ("(T(1e20, 'float64'),)", {},
     '1e+20\n'),
    ("(T(123456789.0, 'float64'),)", {},
     '123456789\n'),
    ("(T(1234567890.0, 'float64'),)", {},
     '1234567890\n'),
    ("(T(0.1, 'float64'),)", {},
     '0.1\n'),
    ("(T(1/3, 'float64'),)", {},
     '0.33333333333333331\n'),
    ("(T(3.4028235e38, 'float64'),)", {},
     '3.4028235e+38\n'),
    ("(T(1e-45, 'float64'),)", {},
     '1e-45\n'),
    ("(T(-1e-45, 'float64'),)", {},
     '-1e-45\n'),
    ("(T(1e-40, 'float64'),)", {},
     '1e-40\n'),
    ("(T(1.17549435e-38, 'float64'),)", {},
     '1.17549435e-38\n'),
    ("(T(16777217.0, 'float64'),)", {},
     '16777217\n'),
    ("(T(1e23, 'float64'),)", {},
     '1e+23\n'),
    ("(T(0.3, 'float64'),)", {},
     '0.3\n'),
    ("(T(100.0, 'float64'),)", {},
     '100\n'),
    ("(T(1e-5, 'float64'),)", {},
     '1e-05\n'),
    ("(T(1e-4, 'float64'),)", {},
     '0.0001\n'),
    ("(T(123456.7, 'float64'),)", {},
     '123456.7\n'),
    ("(T(1234567.8, 'float64'),)", {},
     '1234567.8\n'),
    ("(T(1e16, 'float64'),)", {},
     '1e+16\n'),
    ("(T(0.5, 'float64'),)", {},
     '0.5\n'),
    ("(T(1.5e-7, 'float64'),)", {},
     '1.5e-07\n'),
    ("(T(65504.0, 'float64'),)", {},
     '65504\n'),
    ("(T(-2.5, 'float64'),)", {},
     '-2.5\n'),
    ("(T(0.395097852, 'float64'),)", {},
     '0.395097852\n'),
    ("(T(0.31937086582, 'float64'),)", {},
     '0.31937086582\n'),
    ("(T(0.79926908, 'float64'),)", {},
     '0.79926908\n'),
    ("(T(999999.5, 'float64'),)", {},
     '999999.5\n'),
    ("(T(9999999.0, 'float64'),)", {},
     '9999999\n'),
    ("(T(1e-4 * 3, 'float64'),)", {},
     '0.00030000000000000003\n'),
    ("(T(5e-324, 'float64'),)", {},
     '0\n'),
    ("(T(-5e-324, 'float64'),)", {},
     '-0\n'),
    ("(T(1.7976931348623157e308, 'float64'),)", {},
     '1.7976931348623157e+308\n'),
    ("(T(2.2250738585072014e-308, 'float64'),)", {},
     '2.2250738585072014e-308\n'),
    ("(T(2.225e-308, 'float64'),)", {},
     '0\n'),
    ("(T(1e100, 'float64'),)", {},
     '1e+100\n'),
    ("(T(123456789012345678.0, 'float64'),)", {},
     '1.2345678901234568e+17\n'),
    ("(T(0.1 + 0.2, 'float64'),)", {},
     '0.30000000000000004\n'),
    ("(T(2**53 + 1.0, 'float64'),)", {},
     '9007199254740992\n'),
    ("(T(2.0, 'float16'),)", {},
     '2\n'),
    ("(T(4.3, 'float16'),)", {},
     '4.30078125\n'),
    ("(T(0.1, 'float16'),)", {},
     '0.0999755859\n'),
    ("(T(1/3, 'float16'),)", {},
     '0.333251953\n'),
    ("(T(65504.0, 'float16'),)", {},
     '65504\n'),
    ("(T(6e-8, 'float16'),)", {},
     '5.96046448e-08\n'),
    ("(T(6.1e-5, 'float16'),)", {},
     '6.09755516e-05\n'),
    ("(T(-0.0, 'float16'),)", {},
     '-0\n'),
    ("(T(float('inf'), 'float16'),)", {},
     'inf\n'),
    ("(T(float('nan'), 'float16'),)", {},
     'nan\n'),
    ("(T(1e-10, 'float16'),)", {},
     '0\n'),
    ("(T(1e20, 'float16'),)", {},
     'inf\n'),
    ("(T(-2.5, 'float16'),)", {},
     '-2.5\n'),
    ("(T(1000.5, 'float16'),)", {},
     '1000.5\n'),
    ("(T(2.0, 'bfloat16'),)", {},
     '2\n'),
    ("(T(4.3, 'bfloat16'),)", {},
     '4.3125\n'),
    ("(T(0.1, 'bfloat16'),)", {},
     '0.100097656\n'),
    ("(T(1e-40, 'bfloat16'),)", {},
     '0\n'),
    ("(T(1e-7, 'bfloat16'),)", {},
     '1.00117177e-07\n'),
    ("(T(-1.5, 'bfloat16'),)", {},
     '-1.5\n'),
    ("(T([0.395097852, 0.31937086582, 0.79926908], 'float32'),)", {},
     '[0.395097852 0.319370866 0.79926908]\n'),
    ("(T([2.0, 4.3, 1e-10, float('nan'), -float('nan'), float('inf'), -float('inf'), -0.0, 0.0, 1e20, 123456789.0, 1234567890.0, 0.1, 1/3, 3.4028235e38, 1e-45, -1e-45, 1e-40, 1.17549435e-38, 16777217.0, 1e23, 0.3, 100.0, 1e-5, 1e-4, 123456.7, 1234567.8, 1e16, 0.5, 1.5e-7, 65504.0, -2.5, 0.395097852, 0.31937086582, 0.79926908, 999999.5, 9999999.0, 1e-4 * 3], 'float32'),)", {'summarize': -1},
     '[2 4.3 1e-10 nan -nan inf -inf -0 0 1e+20 123456792 1.23456794e+09 0.1 0.333333343 3.40282347e+38 0 -0 0 1.17549435e-38 16777216 1e+23 0.3 100 1e-05 0.0001 123456.703 1234567.75 1e+16 0.5 1.5e-07 65504 -2.5 0.395097852 0.319370866 0.79926908 999999.5 9999999 0.0003]\n'),
    ("(T([2.0, 4.3, 1e-10, float('nan'), -float('nan'), float('inf'), -float('inf'), -0.0, 0.0, 1e20, 123456789.0, 1234567890.0, 0.1, 1/3, 3.4028235e38, 1e-45, -1e-45, 1e-40, 1.17549435e-38, 16777217.0, 1e23, 0.3, 100.0, 1e-5, 1e-4, 123456.7, 1234567.8, 1e16, 0.5, 1.5e-7, 65504.0, -2.5, 0.395097852, 0.31937086582, 0.79926908, 999999.5, 9999999.0, 1e-4 * 3, 5e-324, -5e-324, 1.7976931348623157e308, 2.2250738585072014e-308, 2.225e-308, 1e100, 123456789012345678.0, 0.1 + 0.2, 2**53 + 1.0], 'float64'),)", {'summarize': -1},
     '[2 4.3 1e-10 nan -nan inf -inf -0 0 1e+20 123456789 1234567890 0.1 0.33333333333333331 3.4028235e+38 1e-45 -1e-45 1e-40 1.17549435e-38 16777217 1e+23 0.3 100 1e-05 0.0001 123456.7 1234567.8 1e+16 0.5 1.5e-07 65504 -2.5 0.395097852 0.31937086582 0.79926908 999999.5 9999999 0.00030000000000000003 0 -0 1.7976931348623157e+308 2.2250738585072014e-308 0 1e+100 1.2345678901234568e+17 0.30000000000000004 9007199254740992]\n'),
    ("(T([2.0, 4.3, 0.1, 1/3, 65504.0, 6e-8, 6.1e-5, -0.0, float('inf'), float('nan'), 1e-10, 1e20, -2.5, 1000.5], 'float16'),)", {'summarize': -1},
     '[2 4.30078125 0.0999755859 0.333251953 65504 5.96046448e-08 6.09755516e-05 -0 inf nan 0 inf -2.5 1000.5]\n'),
    ("(T([2.0, 4.3, 1e-10, float('nan'), -float('nan'), float('inf'), -float('inf'), -0.0, 0.0, 1e20, 123456789.0, 1234567890.0, 0.1, 1/3, 3.4028235e38, 1e-45, -1e-45, 1e-40, 1.17549435e-38, 16777217.0, 1e23, 0.3, 100.0, 1e-5, 1e-4, 123456.7, 1234567.8, 1e16, 0.5, 1.5e-7, 65504.0, -2.5, 0.395097852, 0.31937086582, 0.79926908, 999999.5, 9999999.0, 1e-4 * 3], 'float32'),)", {},
     '[2 4.3 1e-10 ... 999999.5 9999999 0.0003]\n'),
    ("(T([0.1, 1e-40, -1e-40, 1e-7, 3.0, -1.5], 'bfloat16'),)", {},
     '[0.100097656 0 -0 1.00117177e-07 3 -1.5]\n'),
    ("(U(0, [5], 'float32'),)", {},
     '[0.636961699 0.269786716 0.0409735255 0.016527636 0.813270211]\n'),
    ("(U(1, [4, 3], 'float64'),)", {},
     '[[0.51182162470025672 0.9504636963259353 0.14415961271963373]\n [0.94864944713724386 0.31183145201048545 0.42332644897257565]\n [0.82770259382044176 0.40919913636916128 0.54959368767305949]\n [0.027559113243068367 0.75351310867480659 0.53814331321927822]]\n'),
    ("(U(2, [2, 10], 'float32'),)", {},
     '[[0.261612147 0.29849115 0.814225733 ... 0.0551466271 0.274969369 0.657433033]\n [0.562265635 0.150062263 0.432630777 ... 0.683064818 0.391624838 0.187252566]]\n'),
    ("(U(3, [3, 2, 2], 'float16'),)", {},
     '[[[0.0856323242 0.236816406]\n  [0.801269531 0.58203125]]\n\n [[0.0941162109 0.433105469]\n  [0.479003906 0.159790039]]\n\n [[0.734375 0.113647461]\n  [0.391113281 0.516601562]]]\n'),
    ("(R(20, 'float32', [2, 10]) / 3,)", {},
     '[[0 0.333333343 0.666666687 ... 2.33333325 2.66666675 3]\n [3.33333325 3.66666675 4 ... 5.66666651 6 6.33333349]]\n'),
    ("(T([-128, 127, 0], 'int8'),)", {},
     '[-128 127 0]\n'),
    ("(T([0, 255, 7], 'uint8'),)", {},
     '[0 255 7]\n'),
    ("(T([-32768, 32767], 'int16'),)", {},
     '[-32768 32767]\n'),
    ("(T([0, 65535], 'uint16'),)", {},
     '[0 65535]\n'),
    ("(T([-2**31, 2**31 - 1], 'int32'),)", {},
     '[-2147483648 2147483647]\n'),
    ("(T([0, 2**32 - 1], 'uint32'),)", {},
     '[0 4294967295]\n'),
    ("(T([-2**63, 2**63 - 1], 'int64'),)", {},
     '[-9223372036854775808 9223372036854775807]\n'),
    ("(T([0, 2**64 - 1], 'uint64'),)", {},
     '[0 18446744073709551615]\n'),
    ("(T(-3, 'int8'), T(3, 'uint8'), T(1, 'int16'), T(2, 'uint32'), T(3, 'uint64'), T(4, 'int64'))", {},
     '-3 3 1 2 3 4\n'),
    ('(T(0),)', {},
     '0\n'),
    ("(T(-7, 'int64'),)", {},
     '-7\n'),
    ("(T(True, 'bool'),)", {},
     '1\n'),
    ("(T(False, 'bool'),)", {},
     '0\n'),
    ("(T([True, False], 'bool'),)", {},
     '[1 0]\n'),
    ("(T([[True, False], [False, True]], 'bool'),)", {},
     '[[1 0]\n [0 1]]\n'),
    ("(T([True] * 9, 'bool'),)", {},
     '[1 1 1 ... 1 1 1]\n'),
    ("(T(1 + 2j, 'complex64'),)", {},
     '?\n'),
    ("(T([1 + 2j, 3.5 - 1j], 'complex128'),)", {},
     '[? ?]\n'),
    ("(T([[1 + 1j]], 'complex64'),)", {},
     '[?]\n'),
    ("(T('a', 'string'),)", {},
     'a\n'),
    ("(A0('a', 'string'),)", {},
     'a\n'),
    ("(T('', 'string'),)", {},
     '\n'),
    ("(T('a\\tb', 'string'),)", {},
     'a\tb\n'),
    ('(T(\'a"b\\nc\\\\ \\xff \\u00e9\', \'string\'),)', {},
     'a"b\nc\\ ÿ é\n'),
    ("(T(b'\\xff\\x00z', 'string'),)", {},
     '\\xff\x00z\n'),
    ("(T(b'\\x00\\x01\\t\\r z\\x7f', 'string'), '|')", {},
     '"\\000\\001\\t\\r z\\177" |\n'),
    ("(T('a\\tb', 'string'), '|')", {},
     '"a\\tb" |\n'),
    ("('|', T('a\\tb', 'string'))", {},
     '| "a\\tb"\n'),
    ("(T('a', 'string'), T('b', 'string'))", {},
     '"a" "b"\n'),
    ("(T('a', 'string'), T(1))", {},
     '"a" 1\n'),
    ("(T(['a', 'b'], 'string'),)", {},
     '["a" "b"]\n'),
    ("(T([''], 'string'),)", {},
     '[""]\n'),
    ('(T([\'a"b\', \'c\\nd\', b\'\\xff\', \'\\u00e9\', \'\\\\\', "\'", \'?\', \'{}\'], \'string\'),)', {},
     '["a\\"b" "c\\nd" "\\xff" ... "\\\'" "?" "{}"]\n'),
    ("(T([b'\\x00\\x01\\t\\r z\\x7f\\x1b', b'\\x80\\xc3'], 'string'),)", {},
     '["\\000\\001\\t\\r z\\177\\033" "\\x80\\xc3"]\n'),
    ("(T([['a', 'b'], ['c', 'd']], 'string'),)", {},
     '[["a" "b"]\n ["c" "d"]]\n'),
    ("(T([str(i) for i in range(10)], 'string'),)", {},
     '["0" "1" "2" ... "7" "8" "9"]\n'),
    ("(T([[str(i * 10 + j) for j in range(8)] for i in range(8)], 'string'),)", {'summarize': 2},
     '[["0" "1" ... "6" "7"]\n ["10" "11" ... "16" "17"]\n ...\n ["60" "61" ... "66" "67"]\n ["70" "71" ... "76" "77"]]\n'),
    ("([T('s', 'string')],)", {},
     '["s"]\n'),
    ('([T(\'a"b\\n\', \'string\')],)', {},
     '["a\\"b\\n"]\n'),
    ("([T(['x', 'y'], 'string')],)", {},
     '[["x" "y"]]\n'),
    ("({'k': T('v', 'string')},)", {},
     '{\'k\': "v"}\n'),
    ("(T('\\u00e9', 'string'),)", {},
     'é\n'),
    ("('\\u00e9', T('\\u00e9', 'string'))", {},
     'é "é"\n'),
    ("('x', [T('a', 'string')], ['\\u00e9', T('\\u00e9', 'string')])", {},
     'x ["a"] [\'é\', "é"]\n'),
    ('(T(5),)', {},
     '5\n'),
    ('(T(5),)', {'summarize': 0},
     '...\n'),
    ('(T(5),)', {'summarize': 1000},
     '5\n'),
    ('(T([1]),)', {},
     '[1]\n'),
    ('(R(6),)', {},
     '[0 1 2 3 4 5]\n'),
    ('(R(7),)', {},
     '[0 1 2 ... 4 5 6]\n'),
    ('(R(10),)', {},
     '[0 1 2 ... 7 8 9]\n'),
    ('(R(100),)', {},
     '[0 1 2 ... 97 98 99]\n'),
    ("(R(1000, 'int64'),)", {},
     '[0 1 2 ... 997 998 999]\n'),
    ('(R(7),)', {'summarize': -1},
     '[0 1 2 3 4 5 6]\n'),
    ('(R(100),)', {'summarize': 2},
     '[0 1 ... 98 99]\n'),
    ('(R(10),)', {'summarize': 0},
     '[ ...]\n'),
    ('(R(1),)', {'summarize': 0},
     '[ ...]\n'),
    ('(R(10),)', {'summarize': None},
     '[0 1 2 ... 7 8 9]\n'),
    ('(R(5),)', {'summarize': 2},
     '[0 1 ... 3 4]\n'),
    ('(R(4),)', {'summarize': 2},
     '[0 1 2 3]\n'),
    ('(R(20),)', {'summarize': 9},
     '[0 1 2 3 4 5 6 7 8 ... 11 12 13 14 15 16 17 18 19]\n'),
    ('(R(20),)', {'summarize': 10},
     '[0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19]\n'),
    ('(R(20),)', {'summarize': -5},
     '[0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19]\n'),
    ('(R(20),)', {'summarize': 1},
     '[0 ... 19]\n'),
    ("(R(4, 'int32', [2, 2]),)", {},
     '[[0 1]\n [2 3]]\n'),
    ("(R(6, 'int32', [1, 6]),)", {},
     '[[0 1 2 3 4 5]]\n'),
    ("(R(6, 'int32', [6, 1]),)", {},
     '[[0]\n [1]\n [2]\n [3]\n [4]\n [5]]\n'),
    ("(R(100, 'int32', [10, 10]),)", {},
     '[[0 1 2 ... 7 8 9]\n [10 11 12 ... 17 18 19]\n [20 21 22 ... 27 28 29]\n ...\n [70 71 72 ... 77 78 79]\n [80 81 82 ... 87 88 89]\n [90 91 92 ... 97 98 99]]\n'),
    ("(R(60, 'int32', [3, 20]),)", {},
     '[[0 1 2 ... 17 18 19]\n [20 21 22 ... 37 38 39]\n [40 41 42 ... 57 58 59]]\n'),
    ("(R(60, 'int32', [3, 20]),)", {'summarize': -1},
     '[[0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19]\n [20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39]\n [40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59]]\n'),
    ("(R(60, 'int32', [20, 3]),)", {},
     '[[0 1 2]\n [3 4 5]\n [6 7 8]\n ...\n [51 52 53]\n [54 55 56]\n [57 58 59]]\n'),
    ("(R(49, 'int32', [7, 7]),)", {},
     '[[0 1 2 ... 4 5 6]\n [7 8 9 ... 11 12 13]\n [14 15 16 ... 18 19 20]\n ...\n [28 29 30 ... 32 33 34]\n [35 36 37 ... 39 40 41]\n [42 43 44 ... 46 47 48]]\n'),
    ("(R(16, 'int32', [4, 4]),)", {'summarize': 0},
     '[\n ...]\n'),
    ("(R(16, 'int32', [4, 4]),)", {'summarize': 1},
     '[[0 ... 3]\n ...\n [12 ... 15]]\n'),
    ("(R(24, 'int32', [2, 3, 4]),)", {},
     '[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]\n'),
    ("(R(24, 'float32', [2, 3, 4]) / 7,)", {},
     '[[[0 0.142857149 0.285714298 0.428571433]\n  [0.571428597 0.714285731 0.857142866 1]\n  [1.14285719 1.28571427 1.42857146 1.57142854]]\n\n [[1.71428573 1.85714281 2 2.14285707]\n  [2.28571439 2.42857146 2.57142854 2.71428561]\n  [2.85714293 3 3.14285707 3.28571439]]]\n'),
    ("(R(512, 'int32', [8, 8, 8]),)", {},
     '[[[0 1 2 ... 5 6 7]\n  [8 9 10 ... 13 14 15]\n  [16 17 18 ... 21 22 23]\n  ...\n  [40 41 42 ... 45 46 47]\n  [48 49 50 ... 53 54 55]\n  [56 57 58 ... 61 62 63]]\n\n [[64 65 66 ... 69 70 71]\n  [72 73 74 ... 77 78 79]\n  [80 81 82 ... 85 86 87]\n  ...\n  [104 105 106 ... 109 110 111]\n  [112 113 114 ... 117 118 119]\n  [120 121 122 ... 125 126 127]]\n\n [[128 129 130 ... 133 134 135]\n  [136 137 138 ... 141 142 143]\n  [144 145 146 ... 149 150 151]\n  ...\n  [168 169 170 ... 173 174 175]\n  [176 177 178 ... 181 182 183]\n  [184 185 186 ... 189 190 191]]\n\n ...\n\n [[320 321 322 ... 325 326 327]\n  [328 329 330 ... 333 334 335]\n  [336 337 338 ... 341 342 343]\n  ...\n  [360 361 362 ... 365 366 367]\n  [368 369 370 ... 373 374 375]\n  [376 377 378 ... 381 382 383]]\n\n [[384 385 386 ... 389 390 391]\n  [392 393 394 ... 397 398 399]\n  [400 401 402 ... 405 406 407]\n  ...\n  [424 425 426 ... 429 430 431]\n  [432 433 434 ... 437 438 439]\n  [440 441 442 ... 445 446 447]]\n\n [[448 449 450 ... 453 454 455]\n  [456 457 458 ... 461 462 463]\n  [464 465 466 ... 469 470 471]\n  ...\n  [488 489 490 ... 493 494 495]\n  [496 497 498 ... 501 502 503]\n  [504 505 506 ... 509 510 511]]]\n'),
    ("(R(512, 'int32', [8, 8, 8]),)", {'summarize': 1},
     '[[[0 ... 7]\n  ...\n  [56 ... 63]]\n\n ...\n\n [[448 ... 455]\n  ...\n  [504 ... 511]]]\n'),
    ("(R(96, 'int32', [2, 8, 3, 2]),)", {'summarize': 2},
     '[[[[0 1]\n   [2 3]\n   [4 5]]\n\n  [[6 7]\n   [8 9]\n   [10 11]]\n\n  ...\n\n  [[36 37]\n   [38 39]\n   [40 41]]\n\n  [[42 43]\n   [44 45]\n   [46 47]]]\n\n\n [[[48 49]\n   [50 51]\n   [52 53]]\n\n  [[54 55]\n   [56 57]\n   [58 59]]\n\n  ...\n\n  [[84 85]\n   [86 87]\n   [88 89]]\n\n  [[90 91]\n   [92 93]\n   [94 95]]]]\n'),
    ("(R(120, 'int32', [2, 3, 4, 5]),)", {},
     '[[[[0 1 2 3 4]\n   [5 6 7 8 9]\n   [10 11 12 13 14]\n   [15 16 17 18 19]]\n\n  [[20 21 22 23 24]\n   [25 26 27 28 29]\n   [30 31 32 33 34]\n   [35 36 37 38 39]]\n\n  [[40 41 42 43 44]\n   [45 46 47 48 49]\n   [50 51 52 53 54]\n   [55 56 57 58 59]]]\n\n\n [[[60 61 62 63 64]\n   [65 66 67 68 69]\n   [70 71 72 73 74]\n   [75 76 77 78 79]]\n\n  [[80 81 82 83 84]\n   [85 86 87 88 89]\n   [90 91 92 93 94]\n   [95 96 97 98 99]]\n\n  [[100 101 102 103 104]\n   [105 106 107 108 109]\n   [110 111 112 113 114]\n   [115 116 117 118 119]]]]\n'),
    ("(R(2, 'int32', [1, 1, 1, 2]),)", {},
     '[[[[0 1]]]]\n'),
    ("(R(1000, 'float64', [10, 100]),)", {},
     '[[0 1 2 ... 97 98 99]\n [100 101 102 ... 197 198 199]\n [200 201 202 ... 297 298 299]\n ...\n [700 701 702 ... 797 798 799]\n [800 801 802 ... 897 898 899]\n [900 901 902 ... 997 998 999]]\n'),
    ("(R(1000, 'uint8', [100, 10]),)", {'summarize': 4},
     '[[0 1 2 3 ... 6 7 8 9]\n [10 11 12 13 ... 16 17 18 19]\n [20 21 22 23 ... 26 27 28 29]\n [30 31 32 33 ... 36 37 38 39]\n ...\n [192 193 194 195 ... 198 199 200 201]\n [202 203 204 205 ... 208 209 210 211]\n [212 213 214 215 ... 218 219 220 221]\n [222 223 224 225 ... 228 229 230 231]]\n'),
    ("(T(5), T(True, 'bool'), T(2.5, 'float32'), T('s', 'string'), '|')", {'summarize': 0},
     '...  ... ... |\n'),
    ("(T('s', 'string'),)", {'summarize': 0},
     's\n'),
    ("([T(5)], [T(True, 'bool')], [T('s', 'string')])", {'summarize': 0},
     '[...] [] [...]\n'),
    ("(T(True, 'bool'),)", {'summarize': 0},
     '\n'),
    ("(T([True, False] * 5, 'bool'), '|')", {'summarize': 0},
     ' |\n'),
    ("(T([[True, False]] * 5, 'bool'), '|')", {'summarize': 0},
     ' |\n'),
    ("(T([True, False] * 5, 'bool'), '|')", {'summarize': 1},
     '[1 ... 0] |\n'),
    ("(T([[True, False] * 5] * 2, 'bool'), '|')", {'summarize': 1},
     '[[1 ... 0]\n [1 ... 0]] |\n'),
    ("(T([], 'bool'), '|')", {},
     ' |\n'),
    ("(T(np.zeros([2, 0]), 'bool'), '|')", {},
     ' |\n'),
    ("(T(np.zeros([2, 0]), 'bool'), '|')", {'summarize': -1},
     ' |\n'),
    ("(R(10, 'float16'), '|')", {'summarize': 0},
     '[ ...] |\n'),
    ("(R(10, 'int8', [2, 5]), '|')", {'summarize': 0},
     '[\n ...] |\n'),
    ("(T(['z'] * 10, 'string'), '|')", {'summarize': 0},
     '[ ...] |\n'),
    ("(T(1 + 1j, 'complex64'), '|')", {'summarize': 0},
     '... |\n'),
    ("(T(1 + 1j, 'complex128'),)", {'summarize': -1},
     '?\n'),
    ("(T([1j] * 10, 'complex64'), '|')", {'summarize': 0},
     '[...] |\n'),
    ("(T([1j] * 10, 'complex64'), '|')", {'summarize': 1},
     '[?...] |\n'),
    ("(T([[1j] * 5] * 2, 'complex64'), '|')", {'summarize': -1},
     '[? ? ? ? ? ? ? ? ? ?] |\n'),
    ("(T([[1j] * 5] * 2, 'complex128'), '|')", {'summarize': 5},
     '[? ? ? ? ?...] |\n'),
    ("(T(np.zeros([3, 2, 2]), 'complex64'),)", {},
     '[? ? ?...]\n'),
    ("(T([], 'complex64'), T(np.zeros([2, 0]), 'complex64'))", {},
     '[] []\n'),
    ("([T(1j, 'complex64')],)", {'summarize': 0},
     '[...]\n'),
    ("(T([], 'float32'),)", {},
     '[]\n'),
    ("(T(np.zeros([0, 3]), 'float32'),)", {},
     '[]\n'),
    ("(T(np.zeros([2, 0]), 'int32'),)", {},
     '[\n ...]\n'),
    ("(T(np.zeros([8, 0]), 'int32'),)", {},
     '[\n ...]\n'),
    ("(T(np.zeros([0, 0]), 'int32'),)", {},
     '[]\n'),
    ("(T(np.zeros([2, 0, 3]), 'int32'),)", {},
     '[\n\n ...]\n'),
    ("(T(np.zeros([2, 3, 0]), 'int32'),)", {},
     '[\n\n ...]\n'),
    ("(T(np.zeros([0, 2, 3]), 'int32'),)", {},
     '[]\n'),
    ("(T(np.zeros([3, 0, 2, 1]), 'int32'),)", {},
     '[\n\n\n ...]\n'),
    ("(T(np.zeros([2, 0]), 'float32'),)", {'summarize': -1},
     '[\n ...]\n'),
    ("(T(np.zeros([2, 0]), 'float32'),)", {'summarize': 100},
     '[\n ...]\n'),
    ("(T(np.zeros([0], dtype=object), 'string'),)", {},
     '[]\n'),
    ("([T([], 'float32'), T(np.zeros([2, 0]), 'int32')],)", {},
     '[[], [\n ...]]\n'),
    ('()', {},
     '\n'),
    ("(1, 2.0, True, None, 'str')", {},
     '1 2.0 True None str\n'),
    ('(1.0,)', {},
     '1.0\n'),
    ("([1.0, 1e20, 1e-7, float('nan'), float('inf'), -0.0, 0.1, 1/3],)", {},
     '[1.0, 1e+20, 1e-07, nan, inf, -0.0, 0.1, 0.3333333333333333]\n'),
    ("('Executing with num_steps = ', T(10))", {},
     'Executing with num_steps =  10\n'),
    ("('Executed with', 1)", {},
     'Executed with 1\n'),
    ("(T(2.0, 'float32'),)", {},
     '2\n'),
    ("([T(4.3, 'float32')],)", {},
     '[4.3]\n'),
    ('([T([1, 2]), T(3)],)', {},
     '[[1 2], 3]\n'),
    ("({'a': T(1), 'b': 'x', 'c': 2.5},)", {},
     "{'a': 1, 'b': 'x', 'c': 2.5}\n"),
    ("(['a', 1, 2.0, None, (1,), T('s', 'string')],)", {},
     '[\'a\', 1, 2.0, None, (1,), "s"]\n'),
    ("({'b': 1, 'a': T(2)},)", {},
     "{'a': 2, 'b': 1}\n"),
    ("({'b': 1, 'a': 2},)", {},
     "{'a': 2, 'b': 1}\n"),
    ("({2: 'x', 1: T(2)},)", {},
     "{1: 2, 2: 'x'}\n"),
    ("({'a': {'c': T(1), 'b': [2, T(3)]}},)", {},
     "{'a': {'b': [2, 3], 'c': 1}}\n"),
    ("(od(('b', T(1)), ('a', 2)),)", {},
     "OrderedDict([('b', 1), ('a', 2)])\n"),
    ("(od(('b', T(1)), ('a', T(2))),)", {},
     "OrderedDict([('b', 2), ('a', 1)])\n"),
    ("(collections.defaultdict(int, {'b': 1, 'a': T(2)}),)", {},
     "defaultdict(<class 'int'>, {'b': 1, 'a': 2})\n"),
    ('(P(1, T(2)),)', {},
     'P(x=1, y=2)\n'),
    ('(P(T(1), [T(2)]),)', {},
     'P(x=1, y=[2])\n'),
    ('(P(1, 2),)', {},
     'P(x=1, y=2)\n'),
    ('(attr.s and A(T(1), [2, T(3)]),)', {},
     'A(b=1, a=[2, 3])\n'),
    ('(O(),)', {},
     'O()\n'),
    ('([O(), T(1)],)', {},
     '[O(), 1]\n'),
    ('(O(), T(1))', {},
     'O() 1\n'),
    ('({1, 2},)', {},
     '{1, 2}\n'),
    ('([{1, 2}, T(1)],)', {},
     '[{1, 2}, 1]\n'),
    ('((T(1),),)', {},
     '(1,)\n'),
    ('((), [], {})', {},
     '() [] {}\n'),
    ("([[]], [()], {'a': []})", {},
     "[[]] [()] {'a': []}\n"),
    ('([], [T(1)], {}, ())', {},
     '[] [1] {} ()\n'),
    ('(1, [2])', {},
     '1 [2]\n'),
    ("(True, [True, T(True, 'bool')])", {},
     'True [True, 1]\n'),
    ('([[T([[1, 2], [3, 4]])], T(5)],)', {},
     '[[[[1 2]\n [3 4]]], 5]\n'),
    ('(T([[1, 2], [3, 4]]), T([[1, 2], [3, 4]]))', {},
     '[[1 2]\n [3 4]] [[1 2]\n [3 4]]\n'),
    ("('x\\ny', T(1))", {},
     'x\ny 1\n'),
    ("('x\\ty', ['x\\ty'], T(1))", {},
     "x\ty ['x\\ty'] 1\n"),
    ('("it\'s", ["it\'s", T(1)])', {},
     'it\'s ["it\'s", 1]\n'),
    ('(list(range(40)),)', {},
     '[0,\n 1,\n 2,\n 3,\n 4,\n 5,\n 6,\n 7,\n 8,\n 9,\n 10,\n 11,\n 12,\n 13,\n 14,\n 15,\n 16,\n 17,\n 18,\n 19,\n 20,\n 21,\n 22,\n 23,\n 24,\n 25,\n 26,\n 27,\n 28,\n 29,\n 30,\n 31,\n 32,\n 33,\n 34,\n 35,\n 36,\n 37,\n 38,\n 39]\n'),
    ('([T(1)] * 13,)', {},
     '[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n'),
    ('([T(1)] * 14,)', {},
     '[1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1]\n'),
    ('([T(123456789)] * 10,)', {},
     '[123456789, 123456789, 123456789, 123456789, 123456789, 123456789, 123456789, 123456789, 123456789, 123456789]\n'),
    ('([T(1)] * 5 + list(range(30)),)', {},
     '[1,\n 1,\n 1,\n 1,\n 1,\n 0,\n 1,\n 2,\n 3,\n 4,\n 5,\n 6,\n 7,\n 8,\n 9,\n 10,\n 11,\n 12,\n 13,\n 14,\n 15,\n 16,\n 17,\n 18,\n 19,\n 20,\n 21,\n 22,\n 23,\n 24,\n 25,\n 26,\n 27,\n 28,\n 29]\n'),
    ("({'k%d' % i: i for i in range(15)},)", {},
     "{'k0': 0,\n 'k1': 1,\n 'k10': 10,\n 'k11': 11,\n 'k12': 12,\n 'k13': 13,\n 'k14': 14,\n 'k2': 2,\n 'k3': 3,\n 'k4': 4,\n 'k5': 5,\n 'k6': 6,\n 'k7': 7,\n 'k8': 8,\n 'k9': 9}\n"),
    ("({'k%d' % i: T(i) for i in range(15)},)", {},
     "{'k0': 0,\n 'k1': 1,\n 'k10': 10,\n 'k11': 11,\n 'k12': 12,\n 'k13': 13,\n 'k14': 14,\n 'k2': 2,\n 'k3': 3,\n 'k4': 4,\n 'k5': 5,\n 'k6': 6,\n 'k7': 7,\n 'k8': 8,\n 'k9': 9}\n"),
    ("(('a' * 30, 'b' * 30, 'c' * 30),)", {},
     "('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',\n 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',\n 'cccccccccccccccccccccccccccccc')\n"),
    ("(('a' * 30, 'b' * 30, T('c' * 30, 'string')),)", {},
     '(\'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\', \'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\', "cccccccccccccccccccccccccccccc")\n'),
    ("(['a' * 70, T(1)],)", {},
     "['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 1]\n"),
    ("(['a' * 71, T(1)],)", {},
     "['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',\n 1]\n"),
    ("(['{}' + 'a' * 67, T(1)],)", {},
     "['{}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 1]\n"),
    ("(['{}' + 'a' * 68, T(1)],)", {},
     "['{}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',\n 1]\n"),
    ("(['{}'] + [T(1)] * 10,)", {},
     "['{}', 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"),
    ("(['{}'] + [T(1)] * 11,)", {},
     "['{}',\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1]\n"),
    ("(['{}', '{}4'] + [T(1)] * 11,)", {},
     "['{}',\n '{}4',\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1,\n 1]\n"),
    ("([R(12, 'int32', [3, 4])] * 3,)", {},
     '[[[0 1 2 3]\n [4 5 6 7]\n [8 9 10 11]], [[0 1 2 3]\n [4 5 6 7]\n [8 9 10 11]], [[0 1 2 3]\n [4 5 6 7]\n [8 9 10 11]]]\n'),
    ("('a{}b', T(1))", {},
     'a{}b 1\n'),
    ("('{', T(1), '}')", {},
     '{ 1 }\n'),
    ("('{}',)", {},
     '{}\n'),
    ("('%s %d', 1)", {},
     '%s %d 1\n'),
    ("(['{}', T(1)],)", {},
     "['{}', 1]\n"),
    ('(T(1),)', {'sep': ', ', 'end': '!\n'},
     '1!\n'),
    ('(T(1), T(2))', {'sep': ''},
     '12\n'),
    ("(T(1), 'a', [T(2)])", {'sep': ', '},
     '1, a, [2]\n'),
    ("('a', 'b')", {'sep': '\n'},
     'a\nb\n'),
    ('(T(1),)', {'end': ''},
     '1'),
    ('(T(1),)', {'end': '{}'},
     '1{}'),
    ("(T('a', 'string'),)", {'sep': ',', 'end': '!\n'},
     'a!\n'),
    ('(T(1),)', {'sep': '{}'},
     '1\n'),
    ("('{}', T(1))", {'sep': '{}'},
     '{}{}1\n'),
    ('(T(1), T(2))', {'sep': '{}'},
     ('raise', 'ValueError', 'The template expects 3 tensors, but the inputs only has 2. Please ensure the number of placeholders in template matches inputs length.')),
    ('(T(1), T(2))', {'sep': "'{}'"},
     ('raise', 'ValueError', 'The template expects 3 tensors, but the inputs only has 2. Please ensure the number of placeholders in template matches inputs length.')),
    ('("\'", T(1), "\'")', {'sep': ''},
     "'1'\n"),
    ('("\'", T(1), "\'")', {},
     "' 1 '\n"),
]


def _case_id(case):
    expr, kwargs, _ = case
    s = expr + (repr(kwargs) if kwargs else "")
    return s if len(s) < 80 else s[:77] + "..."


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_matches_tensorflow(case):
    expr, kwargs, expected = case
    if "attr.s" in expr and attr is None:
        pytest.skip("attrs is not installed")
    if "bfloat16" in expr and ml_dtypes is None:
        pytest.skip("ml_dtypes (NumPy bfloat16) is not installed")
    assert _run(expr, kwargs) == expected
