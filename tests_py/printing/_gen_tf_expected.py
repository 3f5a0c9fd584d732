"""Regenerate the CASES table of test_printing.py by running real TensorFlow.

Run once with the reference interpreter (attrs must be importable there, e.g.
PYTHONPATH pointing at a directory holding copies of the attr/attrs packages):
    TF_CPP_MIN_LOG_LEVEL=3 ~/.cache/fn/tfref/bin/python tests_py/printing/_gen_tf_expected.py
and paste the printed literal into test_printing.py.  The expected text is what
tf.print wrote to a file (decoded as UTF-8 with backslashreplace); fn's own code
is never used to compute it.  Every case is also run inside a tf.function and
must print the same text as in eager mode.

Case expressions build the tf.print arguments with these helpers:
    T(value, dtype)   a tensor (tf.constant of `value` with that dtype)
    A0(value, dtype)  same tensor; fn's test passes it as a 0-d/n-d np.ndarray
                      instead of the NumPy scalar / bytes a caller usually gives
    R(n, dtype, shape) tf.range(n) cast to dtype and reshaped
    U(seed, shape, dtype) uniform [0, 1) values from NumPy's default_rng(seed)
"""
import collections
import os
import sys

import numpy as np
import tensorflow as tf

OUT = "/tmp/_fn_tfprint_expected.txt"

from _case_values import P, O, attr, od  # noqa: E402,F401  (names used by the case table)
if attr is not None:
    from _case_values import A  # noqa: F401


def T(value, dtype="int32"):
    if dtype == "string":
        return tf.constant(value, tf.string)
    if "float" in dtype:  # float16/32/64, bfloat16: round from float64 values
        return tf.constant(np.array(value, dtype=np.float64), dtype=getattr(tf, dtype))
    return tf.constant(np.array(value, dtype=dtype))


A0 = T


def R(n, dtype="int32", shape=None):
    t = tf.cast(tf.range(n), getattr(tf, dtype))
    return tf.reshape(t, shape) if shape is not None else t


def U(seed, shape, dtype="float32"):
    return tf.constant(np.random.default_rng(seed).random(shape), getattr(tf, dtype))


def _read_and_clear():
    with open(OUT, "rb") as f:
        data = f.read()
    open(OUT, "wb").close()
    return data.decode("utf-8", "backslashreplace")


def run(expr, kwargs):
    inputs = eval(expr)
    open(OUT, "wb").close()
    try:
        tf.print(*inputs, output_stream="file://" + OUT, **kwargs)
    except Exception as e:  # noqa: BLE001
        return ("raise", type(e).__name__, str(e))
    eager = _read_and_clear()

    @tf.function
    def graph_print():
        tf.print(*eval(expr), output_stream="file://" + OUT, **kwargs)

    graph_print()
    graph = _read_and_clear()
    if graph != eager:
        sys.stderr.write(f"EAGER/GRAPH DIFFER for {expr!r}: {eager!r} vs {graph!r}\n")
    return eager


F32_SCALARS = [
    "2.0", "4.3", "1e-10", "float('nan')", "-float('nan')", "float('inf')", "-float('inf')",
    "-0.0", "0.0", "1e20", "123456789.0", "1234567890.0", "0.1", "1/3", "3.4028235e38",
    "1e-45", "-1e-45", "1e-40", "1.17549435e-38", "16777217.0", "1e23", "0.3", "100.0",
    "1e-5", "1e-4", "123456.7", "1234567.8", "1e16", "0.5", "1.5e-7", "65504.0", "-2.5",
    "0.395097852", "0.31937086582", "0.79926908", "999999.5", "9999999.0", "1e-4 * 3",
]
F64_SCALARS = F32_SCALARS + [
    "5e-324", "-5e-324", "1.7976931348623157e308", "2.2250738585072014e-308",
    "2.225e-308", "1e100", "123456789012345678.0", "0.1 + 0.2", "2**53 + 1.0",
]
F16_SCALARS = [
    "2.0", "4.3", "0.1", "1/3", "65504.0", "6e-8", "6.1e-5", "-0.0", "float('inf')",
    "float('nan')", "1e-10", "1e20", "-2.5", "1000.5",
]

CASES = []
CASES += [(f"(T({v}, 'float32'),)", {}) for v in F32_SCALARS]
CASES += [(f"(T({v}, 'float64'),)", {}) for v in F64_SCALARS]
CASES += [(f"(T({v}, 'float16'),)", {}) for v in F16_SCALARS]
CASES += [(f"(T({v}, 'bfloat16'),)", {}) for v in ["2.0", "4.3", "0.1", "1e-40", "1e-7", "-1.5"]]
CASES += [
    # float vectors
    ("(T([0.395097852, 0.31937086582, 0.79926908], 'float32'),)", {}),
    (f"(T([{', '.join(F32_SCALARS)}], 'float32'),)", {"summarize": -1}),
    (f"(T([{', '.join(F64_SCALARS)}], 'float64'),)", {"summarize": -1}),
    (f"(T([{', '.join(F16_SCALARS)}], 'float16'),)", {"summarize": -1}),
    (f"(T([{', '.join(F32_SCALARS)}], 'float32'),)", {}),
    ("(T([0.1, 1e-40, -1e-40, 1e-7, 3.0, -1.5], 'bfloat16'),)", {}),
    ("(U(0, [5], 'float32'),)", {}),
    ("(U(1, [4, 3], 'float64'),)", {}),
    ("(U(2, [2, 10], 'float32'),)", {}),
    ("(U(3, [3, 2, 2], 'float16'),)", {}),
    ("(R(20, 'float32', [2, 10]) / 3,)", {}),
    # integers
    ("(T([-128, 127, 0], 'int8'),)", {}),
    ("(T([0, 255, 7], 'uint8'),)", {}),
    ("(T([-32768, 32767], 'int16'),)", {}),
    ("(T([0, 65535], 'uint16'),)", {}),
    ("(T([-2**31, 2**31 - 1], 'int32'),)", {}),
    ("(T([0, 2**32 - 1], 'uint32'),)", {}),
    ("(T([-2**63, 2**63 - 1], 'int64'),)", {}),
    ("(T([0, 2**64 - 1], 'uint64'),)", {}),
    ("(T(-3, 'int8'), T(3, 'uint8'), T(1, 'int16'), T(2, 'uint32'), T(3, 'uint64'), T(4, 'int64'))", {}),
    ("(T(0),)", {}),
    ("(T(-7, 'int64'),)", {}),
    # bools
    ("(T(True, 'bool'),)", {}),
    ("(T(False, 'bool'),)", {}),
    ("(T([True, False], 'bool'),)", {}),
    ("(T([[True, False], [False, True]], 'bool'),)", {}),
    ("(T([True] * 9, 'bool'),)", {}),
    # complex
    ("(T(1 + 2j, 'complex64'),)", {}),
    ("(T([1 + 2j, 3.5 - 1j], 'complex128'),)", {}),
    ("(T([[1 + 1j]], 'complex64'),)", {}),
    # strings
    ("(T('a', 'string'),)", {}),
    ("(A0('a', 'string'),)", {}),
    ("(T('', 'string'),)", {}),
    ("(T('a\\tb', 'string'),)", {}),
    ("(T('a\"b\\nc\\\\ \\xff \\u00e9', 'string'),)", {}),
    ("(T(b'\\xff\\x00z', 'string'),)", {}),
    ("(T(b'\\x00\\x01\\t\\r z\\x7f', 'string'), '|')", {}),
    ("(T('a\\tb', 'string'), '|')", {}),
    ("('|', T('a\\tb', 'string'))", {}),
    ("(T('a', 'string'), T('b', 'string'))", {}),
    ("(T('a', 'string'), T(1))", {}),
    ("(T(['a', 'b'], 'string'),)", {}),
    ("(T([''], 'string'),)", {}),
    ("(T(['a\"b', 'c\\nd', b'\\xff', '\\u00e9', '\\\\', \"'\", '?', '{}'], 'string'),)", {}),
    ("(T([b'\\x00\\x01\\t\\r z\\x7f\\x1b', b'\\x80\\xc3'], 'string'),)", {}),
    ("(T([['a', 'b'], ['c', 'd']], 'string'),)", {}),
    ("(T([str(i) for i in range(10)], 'string'),)", {}),
    ("(T([[str(i * 10 + j) for j in range(8)] for i in range(8)], 'string'),)", {"summarize": 2}),
    ("([T('s', 'string')],)", {}),
    ("([T('a\"b\\n', 'string')],)", {}),
    ("([T(['x', 'y'], 'string')],)", {}),
    ("({'k': T('v', 'string')},)", {}),
    ("(T('\\u00e9', 'string'),)", {}),
    ("('\\u00e9', T('\\u00e9', 'string'))", {}),
    ("('x', [T('a', 'string')], ['\\u00e9', T('\\u00e9', 'string')])", {}),
    # rank 0 / 1 / 2 / 3 / 4 and summarisation
    ("(T(5),)", {}),
    ("(T(5),)", {"summarize": 0}),
    ("(T(5),)", {"summarize": 1000}),
    ("(T([1]),)", {}),
    ("(R(6),)", {}),
    ("(R(7),)", {}),
    ("(R(10),)", {}),
    ("(R(100),)", {}),
    ("(R(1000, 'int64'),)", {}),
    ("(R(7),)", {"summarize": -1}),
    ("(R(100),)", {"summarize": 2}),
    ("(R(10),)", {"summarize": 0}),
    ("(R(1),)", {"summarize": 0}),
    ("(R(10),)", {"summarize": None}),
    ("(R(5),)", {"summarize": 2}),
    ("(R(4),)", {"summarize": 2}),
    ("(R(20),)", {"summarize": 9}),
    ("(R(20),)", {"summarize": 10}),
    ("(R(20),)", {"summarize": -5}),
    ("(R(20),)", {"summarize": 1}),
    ("(R(4, 'int32', [2, 2]),)", {}),
    ("(R(6, 'int32', [1, 6]),)", {}),
    ("(R(6, 'int32', [6, 1]),)", {}),
    ("(R(100, 'int32', [10, 10]),)", {}),
    ("(R(60, 'int32', [3, 20]),)", {}),
    ("(R(60, 'int32', [3, 20]),)", {"summarize": -1}),
    ("(R(60, 'int32', [20, 3]),)", {}),
    ("(R(49, 'int32', [7, 7]),)", {}),
    ("(R(16, 'int32', [4, 4]),)", {"summarize": 0}),
    ("(R(16, 'int32', [4, 4]),)", {"summarize": 1}),
    ("(R(24, 'int32', [2, 3, 4]),)", {}),
    ("(R(24, 'float32', [2, 3, 4]) / 7,)", {}),
    ("(R(512, 'int32', [8, 8, 8]),)", {}),
    ("(R(512, 'int32', [8, 8, 8]),)", {"summarize": 1}),
    ("(R(96, 'int32', [2, 8, 3, 2]),)", {"summarize": 2}),
    ("(R(120, 'int32', [2, 3, 4, 5]),)", {}),
    ("(R(2, 'int32', [1, 1, 1, 2]),)", {}),
    ("(R(1000, 'float64', [10, 100]),)", {}),
    ("(R(1000, 'uint8', [100, 10]),)", {"summarize": 4}),
    # summarize=0 and empty tensors: bools print nothing, complex stays flat
    ("(T(5), T(True, 'bool'), T(2.5, 'float32'), T('s', 'string'), '|')", {"summarize": 0}),
    ("(T('s', 'string'),)", {"summarize": 0}),
    ("([T(5)], [T(True, 'bool')], [T('s', 'string')])", {"summarize": 0}),
    ("(T(True, 'bool'),)", {"summarize": 0}),
    ("(T([True, False] * 5, 'bool'), '|')", {"summarize": 0}),
    ("(T([[True, False]] * 5, 'bool'), '|')", {"summarize": 0}),
    ("(T([True, False] * 5, 'bool'), '|')", {"summarize": 1}),
    ("(T([[True, False] * 5] * 2, 'bool'), '|')", {"summarize": 1}),
    ("(T([], 'bool'), '|')", {}),
    ("(T(np.zeros([2, 0]), 'bool'), '|')", {}),
    ("(T(np.zeros([2, 0]), 'bool'), '|')", {"summarize": -1}),
    ("(R(10, 'float16'), '|')", {"summarize": 0}),
    ("(R(10, 'int8', [2, 5]), '|')", {"summarize": 0}),
    ("(T(['z'] * 10, 'string'), '|')", {"summarize": 0}),
    ("(T(1 + 1j, 'complex64'), '|')", {"summarize": 0}),
    ("(T(1 + 1j, 'complex128'),)", {"summarize": -1}),
    ("(T([1j] * 10, 'complex64'), '|')", {"summarize": 0}),
    ("(T([1j] * 10, 'complex64'), '|')", {"summarize": 1}),
    ("(T([[1j] * 5] * 2, 'complex64'), '|')", {"summarize": -1}),
    ("(T([[1j] * 5] * 2, 'complex128'), '|')", {"summarize": 5}),
    ("(T(np.zeros([3, 2, 2]), 'complex64'),)", {}),
    ("(T([], 'complex64'), T(np.zeros([2, 0]), 'complex64'))", {}),
    ("([T(1j, 'complex64')],)", {"summarize": 0}),
    # empty tensors
    ("(T([], 'float32'),)", {}),
    ("(T(np.zeros([0, 3]), 'float32'),)", {}),
    ("(T(np.zeros([2, 0]), 'int32'),)", {}),
    ("(T(np.zeros([8, 0]), 'int32'),)", {}),
    ("(T(np.zeros([0, 0]), 'int32'),)", {}),
    ("(T(np.zeros([2, 0, 3]), 'int32'),)", {}),
    ("(T(np.zeros([2, 3, 0]), 'int32'),)", {}),
    ("(T(np.zeros([0, 2, 3]), 'int32'),)", {}),
    ("(T(np.zeros([3, 0, 2, 1]), 'int32'),)", {}),
    ("(T(np.zeros([2, 0]), 'float32'),)", {"summarize": -1}),
    ("(T(np.zeros([2, 0]), 'float32'),)", {"summarize": 100}),
    ("(T(np.zeros([0], dtype=object), 'string'),)", {}),
    ("([T([], 'float32'), T(np.zeros([2, 0]), 'int32')],)", {}),
    # Python values and structures
    ("()", {}),
    ("(1, 2.0, True, None, 'str')", {}),
    ("(1.0,)", {}),
    ("([1.0, 1e20, 1e-7, float('nan'), float('inf'), -0.0, 0.1, 1/3],)", {}),
    ("('Executing with num_steps = ', T(10))", {}),
    ("('Executed with', 1)", {}),
    ("(T(2.0, 'float32'),)", {}),
    ("([T(4.3, 'float32')],)", {}),
    ("([T([1, 2]), T(3)],)", {}),
    ("({'a': T(1), 'b': 'x', 'c': 2.5},)", {}),
    ("(['a', 1, 2.0, None, (1,), T('s', 'string')],)", {}),
    ("({'b': 1, 'a': T(2)},)", {}),
    ("({'b': 1, 'a': 2},)", {}),
    ("({2: 'x', 1: T(2)},)", {}),
    ("({'a': {'c': T(1), 'b': [2, T(3)]}},)", {}),
    ("(od(('b', T(1)), ('a', 2)),)", {}),
    ("(od(('b', T(1)), ('a', T(2))),)", {}),
    ("(collections.defaultdict(int, {'b': 1, 'a': T(2)}),)", {}),
    ("(P(1, T(2)),)", {}),
    ("(P(T(1), [T(2)]),)", {}),
    ("(P(1, 2),)", {}),
    ("(attr.s and A(T(1), [2, T(3)]),)", {}),
    ("(O(),)", {}),
    ("([O(), T(1)],)", {}),
    ("(O(), T(1))", {}),
    ("({1, 2},)", {}),
    ("([{1, 2}, T(1)],)", {}),
    ("((T(1),),)", {}),
    ("((), [], {})", {}),
    ("([[]], [()], {'a': []})", {}),
    ("([], [T(1)], {}, ())", {}),
    ("(1, [2])", {}),
    ("(True, [True, T(True, 'bool')])", {}),
    ("([[T([[1, 2], [3, 4]])], T(5)],)", {}),
    ("(T([[1, 2], [3, 4]]), T([[1, 2], [3, 4]]))", {}),
    ("('x\\ny', T(1))", {}),
    ("('x\\ty', ['x\\ty'], T(1))", {}),
    ("(\"it's\", [\"it's\", T(1)])", {}),
    # pprint wrapping (80 columns, placeholders counted instead of tensors)
    ("(list(range(40)),)", {}),
    ("([T(1)] * 13,)", {}),
    ("([T(1)] * 14,)", {}),
    ("([T(123456789)] * 10,)", {}),
    ("([T(1)] * 5 + list(range(30)),)", {}),
    ("({'k%d' % i: i for i in range(15)},)", {}),
    ("({'k%d' % i: T(i) for i in range(15)},)", {}),
    ("(('a' * 30, 'b' * 30, 'c' * 30),)", {}),
    ("(('a' * 30, 'b' * 30, T('c' * 30, 'string')),)", {}),
    ("(['a' * 70, T(1)],)", {}),
    ("(['a' * 71, T(1)],)", {}),
    ("(['{}' + 'a' * 67, T(1)],)", {}),
    ("(['{}' + 'a' * 68, T(1)],)", {}),
    ("(['{}'] + [T(1)] * 10,)", {}),
    ("(['{}'] + [T(1)] * 11,)", {}),
    ("(['{}', '{}4'] + [T(1)] * 11,)", {}),
    ("([R(12, 'int32', [3, 4])] * 3,)", {}),
    # templates, separators and ends
    ("('a{}b', T(1))", {}),
    ("('{', T(1), '}')", {}),
    ("('{}',)", {}),
    ("('%s %d', 1)", {}),
    ("(['{}', T(1)],)", {}),
    ("(T(1),)", {"sep": ", ", "end": "!\n"}),
    ("(T(1), T(2))", {"sep": ""}),
    ("(T(1), 'a', [T(2)])", {"sep": ", "}),
    ("('a', 'b')", {"sep": "\n"}),
    ("(T(1),)", {"end": ""}),
    ("(T(1),)", {"end": "{}"}),
    ("(T('a', 'string'),)", {"sep": ",", "end": "!\n"}),
    ("(T(1),)", {"sep": "{}"}),
    ("('{}', T(1))", {"sep": "{}"}),
    ("(T(1), T(2))", {"sep": "{}"}),
    ("(T(1), T(2))", {"sep": "'{}'"}),
    ("(\"'\", T(1), \"'\")", {"sep": ""}),
    ("(\"'\", T(1), \"'\")", {}),
]


if __name__ == "__main__":
    print("CASES = [")
    for expr, kwargs in CASES:
        if "attr.s" in expr and attr is None:
            sys.exit("attrs is needed to generate the attrs cases")
        print(f"    ({expr!r}, {kwargs!r},\n     {run(expr, kwargs)!r}),")
    print("]")
