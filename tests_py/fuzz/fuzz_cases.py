"""Seeded random cases over fn's public API (the same source text runs under TensorFlow).

Each case is a line of Python source calling one public function with random arguments
(random shapes and dtypes, huge / negative / empty values, wrong types, strings, nested
lists, NaN), either eagerly or inside ``tf.function`` (arguments captured as constants, or
the first tensor argument passed as a traced input, sometimes with unknown shape). The text
is its own reproducer: ``import fn as tf; import numpy as np; exec(code)``.

    cases(seed, n) -> list of (case_id, code)
"""
from __future__ import annotations

# Defined before every case (both backends): helpers cases may call.
PRELUDE = """
import numpy as np
def _grad(x, sources):
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.reduce_sum(tf.tanh(tf.cast(x, tf.float32)))
    return t.gradient(y, sources(x))
"""

import random
from typing import Callable, Dict, List, Tuple

from fuzz_cases_new import PRELUDE_NEW, add_calls

PRELUDE += PRELUDE_NEW

INTS = [0, 1, 2, 3, -1, -2, 5, 7, 2**31 - 1, 2**31, 2**40, 2**62, 2**63 - 1, -2**63, 2**64]
FLOATS = ["0.0", "1.5", "-2.0", "float('nan')", "float('inf')", "-float('inf')", "1e30", "1e-30"]
DTYPES = ["tf.float32", "tf.float64", "tf.int32", "tf.int64", "tf.bool", "tf.string", "tf.uint8",
          "tf.float16", "tf.int8", "tf.int16"]
NUM_DTYPES = ["tf.float32", "tf.float64", "tf.int32", "tf.int64"]


class Gen:
    """Random argument text for one case."""

    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def shape(self, max_rank: int = 4, max_dim: int = 4) -> List[int]:
        return [self.r.randint(0, max_dim) for _ in range(self.r.randint(0, max_rank))]

    def int_(self) -> str:
        r = self.r.random()
        if r < 0.6:
            return str(self.r.randint(-3, 5))
        return str(self.r.choice(INTS))

    def scalar(self) -> str:
        r = self.r.random()
        if r < 0.4:
            return self.int_()
        if r < 0.8:
            return self.r.choice(FLOATS)
        if r < 0.9:
            return self.r.choice(["True", "False"])
        return self.r.choice(["'ab'", "b'x'", "''"])

    def nested(self, shape: List[int], leaf: Callable[[], str]) -> str:
        if not shape:
            return leaf()
        return "[" + ", ".join(self.nested(shape[1:], leaf) for _ in range(shape[0])) + "]"

    def numeric_tensor(self, shape: List[int] | None = None, dtype: str | None = None) -> str:
        shape = self.shape() if shape is None else shape
        dtype = dtype or self.r.choice(NUM_DTYPES + ["tf.bool"])
        n = 1
        for d in shape:
            n *= d
        if dtype == "tf.bool":
            return f"tf.constant(np.arange({n}).reshape({shape}) % 2 == 0)"
        if self.r.random() < 0.15 and dtype.startswith("tf.float"):
            return f"tf.constant(np.full({shape}, float('nan')), {dtype})"
        return f"tf.cast(tf.reshape(tf.range({n}), {shape}) - {n // 2}, {dtype})"

    def tensor(self) -> str:
        r = self.r.random()
        if r < 0.7:
            return self.numeric_tensor()
        if r < 0.78:
            return self.r.choice(["tf.constant(['a', 'bc'])", "tf.constant('x')", "tf.constant([[b'a'], [b'']])"])
        if r < 0.86:
            return self.nested(self.shape(3, 3), self.scalar)
        if r < 0.92:
            dt = self.r.choice(["'>i4'", "'<f8'", "'>f4'", "'int16'", "'uint16'", "'complex64'", "'O'"])
            return f"np.arange(6, dtype={dt}).reshape(2, 3)" if dt != "'O'" else "np.array([1, 'a'], dtype=object)"
        return self.r.choice(["None", "'ab'", "[]", "[[]]", "[[0], [1, 2]]", "{'a': 1}", "object()",
                              "tf.float32", "2**70", "float('nan')"])

    def int_list(self, n: int | None = None) -> str:
        n = self.r.randint(0, 4) if n is None else n
        r = self.r.random()
        if r < 0.08:
            return self.r.choice(["'ab'", "[[0]]", "[0.5]", "None", "[True]", "['a']", "[2**64]"])
        vals = [self.int_() for _ in range(n)]
        if r < 0.25:
            return f"tf.constant([{', '.join(vals)}], tf.int64)" if all(
                -2**63 <= int(v) < 2**63 for v in vals) else "[" + ", ".join(vals) + "]"
        return "[" + ", ".join(vals) + "]"

    def axis(self) -> str:
        r = self.r.random()
        if r < 0.7:
            return str(self.r.randint(-3, 3))
        if r < 0.85:
            return self.int_list(self.r.randint(0, 3))
        return self.r.choice(["None", "'a'", "2**40", "[[0]]", "0.5", "tf.constant('a')"])

    def dtype(self) -> str:
        return self.r.choice(DTYPES + ["'float32'", "np.int32", "'nope'", "None", "3"])


# Each entry builds the call text from a Gen. ~70 public functions.
def _calls() -> Dict[str, Callable[[Gen], str]]:
    T = lambda g: g.tensor()  # noqa: E731
    c: Dict[str, Callable[[Gen], str]] = {}
    for name in ["add", "subtract", "multiply", "divide", "truediv", "maximum", "minimum", "pow",
                 "equal", "not_equal", "less", "greater", "greater_equal", "less_equal",
                 "logical_and", "logical_or", "math.floordiv", "math.floormod", "realdiv"]:
        c[name] = (lambda n: lambda g: f"tf.{n}({T(g)}, {T(g)})")(name)
    for name in ["abs", "negative", "exp", "sqrt", "tanh", "sigmoid", "square", "sign", "floor",
                 "round", "cos", "sin", "logical_not", "identity", "zeros_like", "ones_like",
                 "shape", "size", "rank", "nn.relu", "math.log", "math.reciprocal", "stop_gradient"]:
        c[name] = (lambda n: lambda g: f"tf.{n}({T(g)})")(name)
    for name in ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
                 "reduce_all", "reduce_logsumexp"]:
        c[name] = (lambda n: lambda g: f"tf.{n}({T(g)}, axis={g.axis()}, keepdims={g.r.choice(['True', 'False'])})")(name)
    c["argmax"] = lambda g: f"tf.argmax({T(g)}, axis={g.axis()})"
    c["argmin"] = lambda g: f"tf.argmin({T(g)}, axis={g.axis()})"
    c["matmul"] = lambda g: f"tf.matmul({T(g)}, {T(g)}, transpose_a={g.r.choice(['True', 'False'])})"
    c["transpose"] = lambda g: f"tf.transpose({T(g)}, perm={g.r.choice([g.int_list(), 'None', chr(39) + 'ab' + chr(39)])})"
    c["reshape"] = lambda g: f"tf.reshape({T(g)}, {g.int_list()})"
    c["concat"] = lambda g: f"tf.concat([{', '.join(T(g) for _ in range(g.r.randint(0, 3)))}], {g.axis()})"
    c["stack"] = lambda g: f"tf.stack([{', '.join(T(g) for _ in range(g.r.randint(0, 3)))}], axis={g.int_()})"
    c["unstack"] = lambda g: f"tf.unstack({T(g)}, num={g.r.choice(['None', g.int_()])}, axis={g.int_()})"
    c["split"] = lambda g: f"tf.split({T(g)}, {g.r.choice([g.int_(), g.int_list()])}, axis={g.int_()})"
    c["squeeze"] = lambda g: f"tf.squeeze({T(g)}, axis={g.axis()})"
    c["expand_dims"] = lambda g: f"tf.expand_dims({T(g)}, {g.axis()})"
    c["tile"] = lambda g: f"tf.tile({T(g)}, {g.int_list()})"
    c["pad"] = lambda g: f"tf.pad({T(g)}, [{', '.join(g.int_list(2) for _ in range(g.r.randint(0, 3)))}])"
    c["slice"] = lambda g: f"tf.slice({T(g)}, {g.int_list()}, {g.int_list()})"
    c["strided_slice"] = lambda g: f"tf.strided_slice({T(g)}, {g.int_list()}, {g.int_list()}, {g.int_list()})"
    c["getitem"] = lambda g: f"({T(g)})[{g.r.choice([g.int_(), '1:' + g.int_(), '::' + g.int_(), '..., 0', 'None', 'tf.newaxis, 0'])}]"
    c["gather"] = lambda g: f"tf.gather({T(g)}, {g.r.choice([g.int_(), g.int_list()])}, axis={g.r.choice(['None', g.int_()])})"
    c["gather_nd"] = lambda g: f"tf.gather_nd({T(g)}, {g.r.choice([g.int_list(), '[' + g.int_list() + ']'])})"
    c["scatter_nd"] = lambda g: f"tf.scatter_nd({g.r.choice(['[' + g.int_list(1) + ']', g.int_list()])}, {T(g)}, {g.int_list()})"
    c["where"] = lambda g: f"tf.where({T(g)}, {T(g)}, {T(g)})" if g.r.random() < 0.5 else f"tf.where({T(g)})"
    c["one_hot"] = lambda g: f"tf.one_hot({g.r.choice([g.int_list(), T(g)])}, {g.int_()})"
    c["range"] = lambda g: f"tf.range({g.scalar()}, {g.scalar()}, {g.r.choice(['1', g.scalar()])})"
    c["linspace"] = lambda g: f"tf.linspace({g.scalar()}, {g.scalar()}, {g.int_()})"
    c["zeros"] = lambda g: f"tf.zeros({g.int_list()}, {g.dtype()})"
    c["ones"] = lambda g: f"tf.ones({g.int_list()}, {g.dtype()})"
    c["fill"] = lambda g: f"tf.fill({g.int_list()}, {g.scalar()})"
    c["cast"] = lambda g: f"tf.cast({T(g)}, {g.dtype()})"
    c["constant"] = lambda g: f"tf.constant({g.r.choice([g.nested(g.shape(3, 3), g.scalar), g.scalar(), chr(39) + chr(92) + 'ud800' + chr(39)])}, dtype={g.r.choice(['None', g.dtype()])})"
    c["convert_to_tensor"] = lambda g: f"tf.convert_to_tensor({T(g)}, dtype={g.r.choice(['None', g.dtype()])})"
    c["add_n"] = lambda g: f"tf.add_n([{', '.join(T(g) for _ in range(g.r.randint(0, 3)))}])"
    c["tensordot"] = lambda g: f"tf.tensordot({T(g)}, {T(g)}, axes={g.r.choice([g.int_(), '[' + g.int_list() + ', ' + g.int_list() + ']'])})"
    c["math.squared_difference"] = lambda g: f"tf.math.squared_difference({T(g)}, {T(g)})"
    c["math.count_nonzero"] = lambda g: f"tf.math.count_nonzero({T(g)}, axis={g.axis()})"
    c["math.reduce_std"] = lambda g: f"tf.math.reduce_std({T(g)}, axis={g.axis()})"
    c["nn.softmax"] = lambda g: f"tf.nn.softmax({T(g)}, axis={g.int_()})"
    c["nn.log_softmax"] = lambda g: f"tf.nn.log_softmax({T(g)}, axis={g.int_()})"
    c["nn.bias_add"] = lambda g: f"tf.nn.bias_add({T(g)}, {T(g)})"
    c["nn.conv2d"] = lambda g: (f"tf.nn.conv2d({g.numeric_tensor(g.shape(4, 5), 'tf.float32')}, "
                                f"{g.numeric_tensor(g.shape(4, 3), 'tf.float32')}, strides={g.r.choice(['1', g.int_(), g.int_list()])}, "
                                f"padding={g.r.choice([repr('VALID'), repr('SAME'), repr('bad')])})")
    c["nn.max_pool2d"] = lambda g: (f"tf.nn.max_pool2d({g.numeric_tensor(g.shape(4, 5), 'tf.float32')}, "
                                    f"ksize={g.r.choice([g.int_(), g.int_list()])}, strides={g.r.choice([g.int_(), g.int_list()])}, padding='VALID')")
    c["nn.avg_pool2d"] = lambda g: (f"tf.nn.avg_pool2d({g.numeric_tensor(g.shape(4, 5), 'tf.float32')}, "
                                    f"ksize={g.r.choice([g.int_(), g.int_list()])}, strides={g.r.choice([g.int_(), g.int_list()])}, padding='SAME')")
    c["random.uniform"] = lambda g: f"tf.random.uniform({g.int_list()}, dtype={g.r.choice(['tf.float32', 'tf.int32', 'tf.string', 'tf.float64'])}, maxval={g.r.choice(['None', g.int_()])})"
    c["random.normal"] = lambda g: f"tf.random.normal({g.int_list()}, stddev={g.scalar()})"
    c["math.divide_no_nan"] = lambda g: f"tf.math.divide_no_nan({T(g)}, {T(g)})"
    c["nn.relu6"] = lambda g: f"tf.nn.relu6({T(g)})"
    c["Variable.assign_add"] = lambda g: f"tf.Variable({T(g)}).assign_add({T(g)})"
    c["TensorArray"] = lambda g: (f"tf.TensorArray(tf.float32, size={g.int_()}, dynamic_size={g.r.choice(['True', 'False'])})"
                                  f".write({g.int_()}, {g.r.choice(['1.0', T(g)])}).stack()")
    c["while_loop"] = lambda g: (f"tf.while_loop(lambda i: i < {g.int_()}, lambda i: (i + {g.r.choice(['1', '2', '0.5'])},), "
                                 f"[tf.constant(0)], maximum_iterations={g.r.choice(['None', '5', '-1', '2**40'])})")
    c["cond"] = lambda g: f"tf.cond({T(g)}, lambda: {T(g)}, lambda: {T(g)})"
    # _grad (defined by the runner, PRELUDE): d sum(tanh(x)) / sources(x), x watched.
    c["gradient"] = lambda g: f"_grad({T(g)}, lambda x: {g.r.choice(['x', 'None', '[x, None]', '3', '[x, x]'])})"
    c["data.batch"] = lambda g: f"list(tf.data.Dataset.range({g.r.randint(0, 5)}).batch({g.int_()}).take(3))"
    c["data.shuffle"] = lambda g: f"list(tf.data.Dataset.range({g.r.randint(0, 5)}).shuffle({g.int_()}).take(3))"
    # ending in .take(100): a negative repeat and take count is an endless dataset (in TF too)
    c["data.take_skip"] = lambda g: f"list(tf.data.Dataset.range({g.r.randint(0, 5)}).repeat({g.int_()}).skip({g.int_()}).take({g.int_()}).take(100))"
    c["data.from_tensor_slices"] = lambda g: f"list(tf.data.Dataset.from_tensor_slices({T(g)}).take(3))"
    c["function_max_cache"] = lambda g: f"tf.function(lambda x: x + 1, reduce_retracing={g.r.choice(['True', 'False'])})({T(g)})"
    return c


CALLS = _calls()
NAMES = sorted(CALLS)
NEW_CALLS: Dict[str, Callable[[Gen], str]] = {}
add_calls(NEW_CALLS)
NEW_NAMES = sorted(NEW_CALLS)
SURFACES = {"core": (CALLS, NAMES), "new": (NEW_CALLS, NEW_NAMES)}
# Round trips that trace their own Function (or write files): never wrapped in another one.
_SELF_TRACED = ("checkpoint.", "saved_model.", "onnx.", "data.")


def _in_function(g: Gen, call: str) -> str:
    """The call traced inside a Function: its arguments captured, or a tensor argument fed."""
    if g.r.random() < 0.5 or "tf.cast(tf.reshape(tf.range(" not in call:
        return f"tf.function(lambda: {call})()"
    # Feed the first generated tensor as the Function's argument (a traced placeholder).
    start = call.index("tf.cast(tf.reshape(tf.range(")
    depth, end = 0, start
    for end in range(start, len(call)):
        depth += call[end] == "("
        depth -= call[end] == ")"
        if depth == 0 and call[end] == ")":
            break
    arg = call[start:end + 1]
    body = call[:start] + "a" + call[end + 1:]
    if g.r.random() < 0.4:   # unknown shape: the shape rules see partial shapes
        return (f"(lambda a: tf.function(lambda a: {body}, input_signature=[tf.TensorSpec("
                f"{g.r.choice(['None', '[None]', '[None, None]'])}, a.dtype)])(a))({arg})")
    return f"tf.function(lambda a: {body})({arg})"


def cases(seed: int, n: int, start: int = 0, surface: str = "core") -> List[Tuple[str, str]]:
    """Cases start .. start+n-1 of the seeded sequence over ``surface`` ("core": the older API,
    "new": ragged, sparse, strings, image, linalg, einsum, map_fn, Checkpoint, SavedModel, ONNX):
    (case_id, code). Each case has its own generator (seeded by seed, surface and index), so any
    case regenerates alone."""
    calls, names = SURFACES[surface]
    out = []
    for i in range(start, start + n):
        g = Gen(random.Random(f"{seed}:{i}" if surface == "core" else f"{surface}:{seed}:{i}"))
        name = names[i % len(names)] if g.r.random() < 0.5 else g.r.choice(names)
        call = calls[name](g)
        mode = g.r.random()
        # Datasets are iterated eagerly only (list(ds) inside a Function never ends, in TF too).
        code = _in_function(g, call) if mode < 0.4 and not name.startswith(_SELF_TRACED) else call
        prefix = "" if surface == "core" else surface + ":"
        out.append((f"{prefix}{seed}:{i}:{name}", "r = " + code))
    return out
