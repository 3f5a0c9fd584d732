"""A converted graph loop: `for i in range(n)` with a tensor `if` inside (AutoGraph -> a While
holding an If), fn vs TensorFlow (same script, pick with --tf).

    python benchmarks/bench_loop.py                   # fn
    ~/.cache/fn/tfref/bin/python benchmarks/bench_loop.py --tf   # TensorFlow
    python benchmarks/bench_loop.py --compare ~/.cache/fn/tfref/bin/python   # both, as a table

Prints the median over repeated calls of one whole call (ms) and the time per iteration (us).
`--number` is the iteration count n (default 10,000).
"""
import json
import statistics
import time

from _common import import_library, parser, reference_results


def measure(use_tf: bool, repeats: int, n: int) -> dict:
    tf = import_library(use_tf)

    @tf.function
    def collatz(n):
        # The loop and the `if` are staged: a While whose body holds an If.
        s = tf.constant(0)
        x = tf.constant(27)
        for i in tf.range(n):
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            s += x
        return s

    @tf.function
    def counting(n):
        s = tf.constant(0.0)
        for i in tf.range(n):
            s += 1.0
        return s

    cases = {"for + tensor if (collatz)": collatz, "for, no if (s += 1.0)": counting}
    arg = tf.constant(n)
    out = {}
    for name, f in cases.items():
        f(arg)   # trace and warm up
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            r = float(f(arg))
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        out[name] = {"ms": med * 1e3, "us_per_iter": med / n * 1e6, "result": r}
    return out


def main() -> None:
    a = parser(__doc__, number=10000).parse_args()
    res = measure(a.tf, a.repeats, a.number)
    if a.json:
        print(json.dumps(res))
        return
    ref = reference_results(a, __file__)
    who = "TensorFlow" if a.tf else "fn"
    print(f"{a.number} iterations, median of {a.repeats} calls")
    print(f"{'case':28s} {who + ' ms':>10s} {'us/iter':>8s}" + (f" {'TF ms':>9s} {'TF/fn':>7s}" if ref else ""))
    for k, v in res.items():
        line = f"{k:28s} {v['ms']:10.2f} {v['us_per_iter']:8.2f}"
        if ref:
            line += f" {ref[k]['ms']:9.2f} {ref[k]['ms'] / v['ms']:6.1f}x"
            if ref[k]["result"] != v["result"]:
                line += f"  (results differ: {v['result']} vs TF {ref[k]['result']})"
        print(line)


if __name__ == "__main__":
    main()
