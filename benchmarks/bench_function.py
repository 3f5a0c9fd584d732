"""Cached-call overhead of a Function: fn vs TensorFlow (same script, pick with --tf).

    python benchmarks/bench_function.py            # fn
    /opt/tfref/bin/python benchmarks/bench_function.py --tf   # TensorFlow, for the ratio
    python benchmarks/bench_function.py --compare /opt/tfref/bin/python   # both, as a table

Prints the median over repeated runs of the per-call time in microseconds.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import timeit


def measure(use_tf: bool, repeats: int, number: int) -> dict:
    if use_tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    else:
        import fn as tf

    @tf.function
    def plus_one(x):
        return x + 1

    @tf.function
    def five_args(a, b, c, d, n):
        return a + b + c + d

    x = tf.constant(1.0)
    plus_one(x)
    five_args(x, x, x, x, 3)
    cases = {
        "f(x) = x + 1, scalar": lambda: plus_one(x),
        "5 args (4 tensors + Python int)": lambda: five_args(x, x, x, x, 3),
        "eager x + 1 (no Function)": lambda: x + 1,
    }
    out = {}
    for name, call in cases.items():
        times = [t / number * 1e6 for t in timeit.repeat(call, number=number, repeat=repeats)]
        out[name] = statistics.median(times)
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tf", action="store_true", help="measure TensorFlow instead of fn")
    p.add_argument("--compare", metavar="PYTHON", help="also run this interpreter with --tf and print ratios")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--number", type=int, default=20000)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    res = measure(a.tf, a.repeats, a.number)
    if a.json:
        print(json.dumps(res))
        return
    ref = None
    if a.compare:
        proc = subprocess.run([a.compare, __file__, "--tf", "--json", "--repeats", str(a.repeats),
                               "--number", str(a.number)], capture_output=True, text=True, check=True)
        ref = json.loads(proc.stdout.strip().splitlines()[-1])
    who = "TensorFlow" if a.tf else "fn"
    print(f"{'case':40s} {who + ' (us)':>12s}" + (f" {'TF (us)':>10s} {'TF/fn':>7s}" if ref else ""))
    for k, v in res.items():
        line = f"{k:40s} {v:12.2f}"
        if ref:
            line += f" {ref[k]:10.2f} {ref[k] / v:7.1f}x"
        print(line)


if __name__ == "__main__":
    main()
