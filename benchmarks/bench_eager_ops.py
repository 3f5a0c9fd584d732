"""Eager op overhead: fn vs NumPy (and TensorFlow), median microseconds per call.

    python benchmarks/bench_eager_ops.py                       # fn and NumPy
    ~/.cache/fn/tfref/bin/python benchmarks/bench_eager_ops.py --tf   # TensorFlow and NumPy
    python benchmarks/bench_eager_ops.py --compare ~/.cache/fn/tfref/bin/python   # all three, one table

The script runs under either interpreter: it imports ``fn`` or, with --tf, ``tensorflow``.
Target: scalar ``a + b`` under 1.5 us in fn.
"""
import json

import numpy as np

from _common import import_library, median_us, parser, reference_results


def cases(tf, np_mode: bool):
    """The same operations on NumPy arrays (np_mode) or on the library's tensors."""
    rng = np.random.default_rng(0)
    vals = {
        "scalar": (np.float32(1.5), np.float32(2.5)),
        "vec1000": (rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)),
        "vec100k": (rng.standard_normal(100_000).astype(np.float32), rng.standard_normal(100_000).astype(np.float32)),
    }
    make = np.asarray if np_mode else tf.constant
    tanh = np.tanh if np_mode else tf.tanh
    total = np.sum if np_mode else tf.reduce_sum
    conv = {k: (make(a), make(b)) for k, (a, b) in vals.items()}
    s, v, big = conv["scalar"], conv["vec1000"], conv["vec100k"]
    return {
        "a + b, scalar": lambda: s[0] + s[1],
        "a + b, 1,000 floats": lambda: v[0] + v[1],
        "a * b, 1,000 floats": lambda: v[0] * v[1],
        "a + 1, scalar (Python int)": lambda: s[0] + 1,
        "a < b, 1,000 floats": lambda: v[0] < v[1],
        "tanh, 1,000 floats": lambda: tanh(v[0]),
        "reduce_sum, 1,000 floats": lambda: total(v[0]),
        "a + b, 100,000 floats": lambda: big[0] + big[1],
        "tanh, 100,000 floats": lambda: tanh(big[0]),
        "reduce_sum, 100,000 floats": lambda: total(big[0]),
    }


def measure(use_tf: bool, repeats: int, number: int) -> dict:
    tf = import_library(use_tf)
    out = {"lib": {}, "numpy": {}}
    for key, mode in (("lib", False), ("numpy", True)):
        for name, call in cases(tf, mode).items():
            n = max(number // 50, 20) if "100,000" in name else number
            out[key][name] = median_us(call, repeats, n)
    return out


def main() -> None:
    a = parser(__doc__).parse_args()
    res = measure(a.tf, a.repeats, a.number)
    if a.json:
        print(json.dumps(res))
        return
    tf_res = reference_results(a, __file__)
    lib = "TensorFlow" if a.tf else "fn"
    head = f"{'op':30s} {lib + ' us':>10s} {'NumPy us':>10s} {'/NumPy':>8s}"
    if tf_res:
        head += f" {'TF us':>10s} {'fn/TF':>7s}"
    print(head)
    print("-" * len(head))
    for name, t in res["lib"].items():
        n = res["numpy"][name]
        line = f"{name:30s} {t:10.2f} {n:10.2f} {t / n:8.1f}"
        if tf_res:
            tt = tf_res["lib"][name]
            line += f" {tt:10.2f} {t / tt:7.2f}"
        print(line)


if __name__ == "__main__":
    main()
