"""A converted graph loop: 10,000 iterations of ``for i in range(n)`` with a tensor ``if``
inside (AutoGraph -> While holding an If), fn vs TensorFlow (same script, pick with --tf).

    python benchmarks/bench_loop.py                  # fn
    /opt/tfref/bin/python benchmarks/bench_loop.py --tf   # TensorFlow
    python benchmarks/bench_loop.py --compare /opt/tfref/bin/python   # both, as a table

Prints the median over repeated calls of the whole call (ms) and per iteration (us).
"""
import argparse
import json
import os
import statistics
import subprocess
import time


def measure(use_tf: bool, repeats: int, n: int) -> dict:
    if use_tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    else:
        import fn as tf

    @tf.function
    def collatz_steps(n):
        # Sum over i < n of a branchy update: the loop and the `if` are staged.
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
    def plain_loop(n):
        s = tf.constant(0.0)
        for i in tf.range(n):
            s += 1.0
        return s

    cases = {"for + tensor if (collatz)": collatz_steps, "for, no if (s += 1.0)": plain_loop}
    arg = tf.constant(n)
    out = {}
    for name, f in cases.items():
        f(arg)   # trace and warm up
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            r = f(arg)
            float(r)   # make sure the value is ready
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        out[name] = {"ms": med * 1e3, "us_per_iter": med / n * 1e6, "result": float(r)}
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tf", action="store_true", help="measure TensorFlow instead of fn")
    p.add_argument("--compare", metavar="PYTHON", help="also run this interpreter with --tf and print ratios")
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--n", type=int, default=10000)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    res = measure(a.tf, a.repeats, a.n)
    if a.json:
        print(json.dumps(res))
        return
    ref = None
    if a.compare:
        proc = subprocess.run([a.compare, __file__, "--tf", "--json", "--repeats", str(a.repeats), "--n", str(a.n)],
                              capture_output=True, text=True, check=True)
        ref = json.loads(proc.stdout.strip().splitlines()[-1])
    who = "TensorFlow" if a.tf else "fn"
    print(f"{a.n} iterations, median of {a.repeats} calls")
    print(f"{'case':28s} {who + ' ms':>10s} {'us/iter':>8s}" + (f" {'TF ms':>9s} {'TF/fn':>7s}" if ref else ""))
    for k, v in res.items():
        line = f"{k:28s} {v['ms']:10.2f} {v['us_per_iter']:8.2f}"
        if ref:
            if ref[k]["result"] != v["result"]:
                line += f"  (results differ: {v['result']} vs TF {ref[k]['result']})"
            line += f" {ref[k]['ms']:9.2f} {ref[k]['ms'] / v['ms']:6.1f}x"
        print(line)


if __name__ == "__main__":
    main()
