"""Cached-call overhead of a Function: fn vs TensorFlow (same script, pick with --tf).

    python benchmarks/bench_function.py            # fn
    ~/.cache/fn/tfref/bin/python benchmarks/bench_function.py --tf   # TensorFlow, for the ratio
    python benchmarks/bench_function.py --compare ~/.cache/fn/tfref/bin/python   # both, as a table

Prints the median over repeated runs of the per-call time in microseconds.
"""
import json

from _common import import_library, median_us, parser, reference_results


def measure(use_tf: bool, repeats: int, number: int) -> dict:
    tf = import_library(use_tf)

    @tf.function
    def plus_one(x):
        return x + 1

    @tf.function
    def five_args(a, b, c, d, n):
        return a + b + c + d

    @tf.function
    def keywords(x, *, scale=2.0, **kw):
        return x * scale + kw["shift"]

    x = tf.constant(1.0)
    cases = {
        "f(x) = x + 1, scalar": lambda: plus_one(x),
        "5 args (4 tensors + Python int)": lambda: five_args(x, x, x, x, 3),
        "f(x=x), keyword for a positional": lambda: plus_one(x=x),
        "f(x, shift=x), keyword-only + **kwargs": lambda: keywords(x, shift=x),
        "f(x, scale=3.0, shift=x)": lambda: keywords(x, scale=3.0, shift=x),
        "eager x + 1 (no Function)": lambda: x + 1,
    }
    return {name: median_us(call, repeats, number) for name, call in cases.items()}


def main() -> None:
    a = parser(__doc__).parse_args()
    res = measure(a.tf, a.repeats, a.number)
    if a.json:
        print(json.dumps(res))
        return
    ref = reference_results(a, __file__)
    who = "TensorFlow" if a.tf else "fn"
    print(f"{'case':40s} {who + ' (us)':>12s}" + (f" {'TF (us)':>10s} {'TF/fn':>7s}" if ref else ""))
    for k, v in res.items():
        line = f"{k:40s} {v:12.2f}"
        if ref:
            line += f" {ref[k]:10.2f} {ref[k] / v:7.1f}x"
        print(line)


if __name__ == "__main__":
    main()
