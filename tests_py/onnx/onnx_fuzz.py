"""Seeded random cases over fn.onnx.export's ops: each case traces one op on random shapes, dtypes
and edge values (0, negatives, +-inf, NaN, large magnitudes), exports it, checks the model with
``onnx.checker.check_model(full_check=True)``, runs it in onnxruntime and compares with fn's own
result. An export may refuse (NotImplementedError/ValueError naming ``fn.onnx.export``); anything
else that goes wrong is a failure.

    python tests_py/onnx/onnx_fuzz.py --cases 2000 --seed 3
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

FLOATS = ["float16", "float32", "float64"]
INTS = ["int8", "int32", "int64"]
EDGE = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e4, -1e4, np.inf, -np.inf, np.nan]


def values(rng: np.random.Generator, shape: Tuple[int, ...], dtype: str, positive: bool = False,
           nonzero: bool = False, edges: bool = True) -> np.ndarray:
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in INTS:
        lo = 1 if positive else -20
        x = rng.integers(lo, 21, size=shape).astype(dtype)
        if nonzero:
            x[x == 0] = 3
        return x
    x = rng.normal(scale=3.0, size=shape)
    if edges and x.size and rng.random() < 0.5:
        mask = rng.random(shape) < 0.3
        x[mask] = rng.choice(EDGE, size=int(mask.sum()))
    if positive:
        x = np.abs(x) + 0.1
    if nonzero:
        x[x == 0] = 1.5
    return x.astype(dtype)


def _shape(rng: np.random.Generator, rank: Optional[int] = None, lo: int = 0) -> Tuple[int, ...]:
    rank = int(rng.integers(0, 4)) if rank is None else rank
    return tuple(int(d) for d in rng.integers(lo, 4, size=rank))


def make_case(tf: Any, rng: np.random.Generator) -> Tuple[str, Callable, List[np.ndarray]]:
    """One (description, fn function of the inputs, inputs)."""
    kind = rng.choice(["unary", "binary", "reduce", "shape", "nn", "index", "control"])
    dt = str(rng.choice(FLOATS + INTS))
    fdt = str(rng.choice(FLOATS))
    shape = _shape(rng)
    if kind == "unary":
        name = str(rng.choice(["abs", "negative", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "floor", "ceil", "sin",
                               "cos", "erf", "softplus", "elu", "sign", "round", "reciprocal", "square",
                               "rsqrt", "relu6", "leaky_relu", "logical_not"]))
        ints_ok = name in ("abs", "negative", "relu", "sign", "square")
        d = "bool" if name == "logical_not" else (dt if ints_ok else fdt)
        op = {"relu": tf.nn.relu, "softplus": tf.nn.softplus, "elu": tf.nn.elu,
              "relu6": tf.nn.relu6, "leaky_relu": tf.nn.leaky_relu, "sigmoid": tf.sigmoid, "erf": tf.math.erf,
              "logical_not": tf.logical_not}.get(name) or getattr(tf.math, name)
        return f"{name}[{d}{list(shape)}]", op, [values(rng, shape, d)]
    if kind == "binary":
        name = str(rng.choice(["add", "subtract", "multiply", "divide", "maximum", "minimum", "pow", "less",
                               "greater", "less_equal", "greater_equal", "equal", "not_equal", "floormod",
                               "logical_and", "logical_or", "divide_no_nan"]))
        d = "bool" if name.startswith("logical") else (fdt if name in ("divide", "pow", "divide_no_nan") else dt)
        s2 = shape[int(rng.integers(0, len(shape) + 1)):] if rng.random() < 0.5 else shape   # broadcasting
        int_div = name == "floormod" and d in INTS
        a = values(rng, shape, d)
        b = values(rng, s2, d, nonzero=int_div, positive=int_div and rng.random() < 0.5)
        op = {"divide": tf.math.truediv, "floormod": tf.math.floormod, "divide_no_nan": tf.math.divide_no_nan,
              "logical_and": tf.logical_and, "logical_or": tf.logical_or}.get(name) or getattr(tf.math, name)
        return f"{name}[{d}{list(shape)},{list(s2)}]", op, [a, b]
    if kind == "reduce":
        name = str(rng.choice(["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
                               "reduce_all", "reduce_any"]))
        d = "bool" if name in ("reduce_all", "reduce_any") else (dt if name != "reduce_mean" else fdt)
        shape = _shape(rng, int(rng.integers(1, 4)))
        axis = int(rng.integers(-len(shape), len(shape)))
        keep = bool(rng.random() < 0.5)
        fn_op = getattr(tf.math, name)
        return (f"{name}[{d}{list(shape)},axis={axis},keepdims={keep}]",
                lambda x: fn_op(x, axis=axis, keepdims=keep), [values(rng, shape, d)])
    if kind == "shape":
        return _shape_case(tf, rng, dt, shape)
    if kind == "nn":
        return _nn_case(tf, rng, fdt)
    if kind == "index":
        return _index_case(tf, rng, dt, fdt)
    return _control_case(tf, rng, fdt)


def _shape_case(tf: Any, rng: np.random.Generator, d: str, shape: Tuple[int, ...]) -> Tuple[str, Callable, List]:
    shape = _shape(rng, int(rng.integers(1, 4)))
    x = values(rng, shape, d)
    r = len(shape)
    name = str(rng.choice(["transpose", "reshape", "concat", "stack", "expand_dims", "squeeze", "tile", "pad",
                           "slice", "reverse_slice", "cast", "shape", "size", "fill", "range"]))
    if name == "transpose":
        perm = [int(p) for p in rng.permutation(r)]
        return f"transpose[{d}{list(shape)},{perm}]", lambda t: tf.transpose(t, perm), [x]
    if name == "reshape":
        return f"reshape[{d}{list(shape)}]", lambda t: tf.reshape(t, [-1]), [x]
    if name == "concat":
        axis = int(rng.integers(-r, r))
        return f"concat[{d}{list(shape)},{axis}]", lambda a, b: tf.concat([a, b, a], axis), [x, values(rng, shape, d)]
    if name == "stack":
        axis = int(rng.integers(-r - 1, r + 1))
        return f"stack[{d}{list(shape)},{axis}]", lambda a, b: tf.stack([a, b], axis), [x, values(rng, shape, d)]
    if name == "expand_dims":
        axis = int(rng.integers(-r - 1, r + 1))
        return f"expand_dims[{d}{list(shape)},{axis}]", lambda t: tf.expand_dims(t, axis), [x]
    if name == "squeeze":
        shape2 = shape + (1,)
        return f"squeeze[{d}{list(shape2)}]", lambda t: tf.squeeze(t, [-1]), [values(rng, shape2, d)]
    if name == "tile":
        mult = [int(m) for m in rng.integers(0, 3, size=r)]
        return f"tile[{d}{list(shape)},{mult}]", lambda t: tf.tile(t, mult), [x]
    if name == "pad":
        pads = [[int(a), int(b)] for a, b in rng.integers(0, 3, size=(r, 2))]
        return f"pad[{d}{list(shape)},{pads}]", lambda t: tf.pad(t, pads), [x]
    if name in ("slice", "reverse_slice"):
        step = -1 if name == "reverse_slice" else int(rng.integers(1, 3))
        begin = int(rng.integers(-3, 3))
        return (f"{name}[{d}{list(shape)},{begin}::{step}]",
                lambda t: t[begin::step] if r == 1 else t[:, begin::step] if r == 2 else t[..., 0, begin::step], [x])
    if name == "cast":
        to = str(rng.choice(FLOATS + INTS + ["bool"]))
        ok = x if d in INTS or to not in INTS else np.nan_to_num(x.astype(np.float64), posinf=0, neginf=0,
                                                                  nan=0).clip(-100, 100).astype(d)
        return f"cast[{d}->{to}{list(shape)}]", lambda t: tf.cast(t, to), [ok]
    if name == "shape":
        return f"shape[{d}{list(shape)}]", lambda t: tf.shape(t), [x]
    if name == "size":
        return f"size[{d}{list(shape)}]", lambda t: tf.size(t), [x]
    if name == "fill":
        return f"fill[{d}{list(shape)}]", lambda t: tf.zeros_like(t) + tf.ones(tf.shape(t), t.dtype), [x]
    n = int(rng.integers(0, 6))
    return f"range[{d},{n}]", lambda t: tf.range(0, n, 1) + tf.cast(tf.size(t), tf.int32), [x]


def _nn_case(tf: Any, rng: np.random.Generator, d: str) -> Tuple[str, Callable, List]:
    name = str(rng.choice(["softmax", "log_softmax", "matmul", "matmul_t", "conv2d", "max_pool", "avg_pool",
                           "bias_add", "add_n"]))
    if name in ("softmax", "log_softmax"):
        shape = _shape(rng, int(rng.integers(1, 4)), lo=1)
        op = getattr(tf.nn, name)
        return f"{name}[{d}{list(shape)}]", op, [values(rng, shape, d, edges=False)]
    if name.startswith("matmul"):
        m, k, n = (int(v) for v in rng.integers(1, 4, size=3))
        batch = tuple(int(v) for v in rng.integers(1, 3, size=int(rng.integers(0, 2))))
        ta = name == "matmul_t" and rng.random() < 0.5
        tb = name == "matmul_t" and not ta
        a = values(rng, batch + ((k, m) if ta else (m, k)), d, edges=False)
        b = values(rng, batch + ((n, k) if tb else (k, n)), d, edges=False)
        return (f"matmul[{d}{list(a.shape)},{list(b.shape)},ta={ta},tb={tb}]",
                lambda x, y: tf.linalg.matmul(x, y, transpose_a=ta, transpose_b=tb), [a, b])
    if name == "bias_add":
        shape = _shape(rng, int(rng.integers(2, 4)), lo=1)
        return f"bias_add[{d}{list(shape)}]", tf.nn.bias_add, [values(rng, shape, d), values(rng, shape[-1:], d)]
    if name == "add_n":
        shape = _shape(rng)
        return f"add_n[{d}{list(shape)}]", lambda a, b: tf.add_n([a, b, a]), [values(rng, shape, d)] * 2
    h, w, c = (int(v) for v in rng.integers(2, 6, size=3))
    x = values(rng, (int(rng.integers(1, 3)), h, w, c), d, edges=False)
    pad = str(rng.choice(["SAME", "VALID"]))
    k = int(rng.integers(1, min(h, w) + 1))
    s = int(rng.integers(1, 3))
    if name == "conv2d":
        filt = values(rng, (k, k, c, int(rng.integers(1, 4))), d, edges=False)
        return (f"conv2d[{d}{list(x.shape)},{list(filt.shape)},{pad},s={s}]",
                lambda a, f: tf.nn.conv2d(a, f, s, pad), [x, filt])
    op = tf.nn.max_pool2d if name == "max_pool" else tf.nn.avg_pool2d
    return f"{name}[{d}{list(x.shape)},k={k},s={s},{pad}]", lambda a: op(a, k, s, pad), [x]


def _index_case(tf: Any, rng: np.random.Generator, d: str, fdt: str) -> Tuple[str, Callable, List]:
    name = str(rng.choice(["one_hot", "gather", "argmax", "argmin", "where", "clip"]))
    if name == "one_hot":
        idx_dt = str(rng.choice(["int32", "int64", "uint8"]))
        depth = int(rng.integers(1, 5))
        idx = rng.integers(0 if idx_dt == "uint8" else -depth - 2, depth + 2, size=_shape(rng)).astype(idx_dt)
        out = str(rng.choice(FLOATS + ["int32", "int64", "bool"]))
        axis = int(rng.integers(-1, idx.ndim + 1))
        return (f"one_hot[{idx_dt}{list(idx.shape)},depth={depth},axis={axis},{out}]",
                lambda i: tf.one_hot(i, depth, axis=axis, dtype=out), [idx])
    if name == "gather":
        shape = _shape(rng, int(rng.integers(1, 4)), lo=1)
        axis = int(rng.integers(0, len(shape)))
        idx = rng.integers(0, shape[axis], size=_shape(rng)).astype(str(rng.choice(["int32", "int64"])))
        return f"gather[{d}{list(shape)},axis={axis}]", lambda x, i: tf.gather(x, i, axis=axis), \
            [values(rng, shape, d), idx]
    if name in ("argmax", "argmin"):
        shape = _shape(rng, int(rng.integers(1, 4)), lo=1)
        axis = int(rng.integers(0, len(shape)))
        out = str(rng.choice(["int32", "int64"]))
        op = getattr(tf.math, name)
        # ties and NaN pick different indices in different libraries: distinct finite values
        x = rng.permutation(np.prod(shape)).reshape(shape).astype(d)
        return f"{name}[{d}{list(shape)},{axis},{out}]", lambda t: op(t, axis=axis, output_type=out), [x]
    shape = _shape(rng)
    if name == "where":
        return (f"where[{d}{list(shape)}]", lambda c, a, b: tf.where(c, a, b),
                [values(rng, shape, "bool"), values(rng, shape, d), values(rng, shape, d)])
    lo, hi = sorted(rng.integers(-5, 6, size=2))
    return f"clip[{fdt}{list(shape)},{lo},{hi}]", lambda t: tf.clip_by_value(t, float(lo), float(hi)), \
        [values(rng, shape, fdt)]


def _control_case(tf: Any, rng: np.random.Generator, d: str) -> Tuple[str, Callable, List]:
    shape = _shape(rng, int(rng.integers(1, 3)), lo=1)
    x = values(rng, shape, d, edges=False)
    if rng.random() < 0.5:
        return f"cond[{d}{list(shape)}]", lambda t: tf.cond(tf.reduce_sum(t) > 0, lambda: t * 2, lambda: -t), [x]
    n = int(rng.integers(0, 5))

    def loop(t: Any) -> Any:
        i = tf.constant(0)
        acc = t
        while i < n:
            acc = acc * 0.5 + t
            i += 1
        return acc
    return f"while[{d}{list(shape)},{n}]", loop, [x]


def run_case(tf: Any, onnx: Any, ort: Any, desc: str, op: Callable, inputs: List[np.ndarray]) -> Tuple[str, str]:
    """('ok' | 'refused' | 'fn-error', detail); raises AssertionError describing a failure."""
    sig = [tf.TensorSpec(x.shape, str(x.dtype)) for x in inputs]
    f = tf.function(op, input_signature=sig)
    try:
        want = f(*[tf.constant(x) for x in inputs])
    except Exception as e:     # noqa: BLE001 - an input fn refuses (checked by the other fuzzers)
        return "fn-error", f"{desc}: {type(e).__name__}"
    try:
        model = tf.onnx.export(f.get_concrete_function())
    except (NotImplementedError, ValueError) as e:
        assert "fn.onnx.export" in str(e), f"{desc}: export failed without naming itself: {e!r}"
        return "refused", f"{desc}: {str(e)[:160]}"
    onnx.checker.check_model(model, full_check=True)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    try:
        sess = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        got = sess.run(None, {i.name: x for i, x in zip(sess.get_inputs(), inputs)})
    except Exception as e:     # noqa: BLE001 - reported as the failure
        raise AssertionError(f"{desc}: onnxruntime cannot run the export: {e}") from None
    want = want if isinstance(want, (list, tuple)) else [want]
    for g, w in zip(got, want):
        w = w.numpy()
        assert g.dtype == w.dtype and g.shape == w.shape, f"{desc}: {g.dtype}{g.shape} vs fn {w.dtype}{w.shape}"
        tol = {"float16": 2e-3, "float32": 2e-5, "float64": 1e-12}.get(str(w.dtype), 0)
        np.testing.assert_allclose(g.astype(np.float64) if w.dtype.kind == "f" else g, w, rtol=tol,
                                   atol=tol, equal_nan=True, err_msg=desc)
    return "ok", desc


def fuzz(tf: Any, cases: int, seed: int, notes: Optional[List[str]] = None) -> Tuple[Counter, List[str]]:
    import onnx
    import onnxruntime as ort
    rng = np.random.default_rng(seed)
    counts: Counter = Counter()
    failures: List[str] = []
    for _ in range(cases):
        desc, op, inputs = make_case(tf, rng)
        try:
            status, detail = run_case(tf, onnx, ort, desc, op, inputs)
            counts[status] += 1
            if notes is not None and status != "ok":
                notes.append(f"{status}: {detail}")
        except AssertionError as e:
            counts["failed"] += 1
            failures.append(str(e)[:600])
        except Exception as e:  # noqa: BLE001 - e.g. a checker ValidationError
            counts["failed"] += 1
            failures.append(f"{desc}: {type(e).__name__}: {str(e)[:400]}")
    return counts, failures


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--cases", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-v", "--verbose", action="store_true", help="print each refusal and fn error")
    a = p.parse_args(argv)
    import fn as tf
    import fn.onnx  # noqa: F401
    notes: List[str] = []
    counts, failures = fuzz(tf, a.cases, a.seed, notes)
    for n in notes if a.verbose else []:
        print(n)
    for f in failures:
        print("FAIL", f)
    print(dict(counts))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
