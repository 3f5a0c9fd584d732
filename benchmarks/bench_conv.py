"""Conv2D benchmark: the guide's case (section 1.4), ``conv2d`` of a [1, 200, 200, 100] input with
a 3x3x100x100 filter, SAME padding, stride 1. Prints the median milliseconds over repeats.

    python benchmarks/bench_conv.py            # fn (eager, and inside fn.function when available)
    ~/.cache/fn/tfref/bin/python benchmarks/bench_conv.py --tf   # TensorFlow's figure, same script
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def median_ms(f, repeats: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        f()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tf", action="store_true", help="time TensorFlow instead of fn")
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()
    if args.tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as lib
        name = "tensorflow " + lib.__version__
    else:
        import fn as lib
        name = "fn " + getattr(lib, "__version__", "")
    import numpy as np

    rng = np.random.default_rng(0)
    x = lib.constant(rng.standard_normal([1, 200, 200, 100], dtype=np.float32))
    w = lib.constant(rng.standard_normal([3, 3, 100, 100], dtype=np.float32))

    def eager():
        return lib.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME").numpy()

    results = {"eager": median_ms(eager, args.repeats)}
    if hasattr(lib, "function"):
        conv = lib.function(lambda a, b: lib.nn.conv2d(a, b, strides=[1, 1, 1, 1], padding="SAME"))
        results["function"] = median_ms(lambda: conv(x, w).numpy(), args.repeats)
    gflop = 2 * 200 * 200 * 100 * 3 * 3 * 100 / 1e9
    for k, ms in results.items():
        print(f"{name:>20} conv2d [1,200,200,100] * [3,3,100,100] SAME  {k:>8}: {ms:8.2f} ms median "
              f"({gflop / (ms / 1000):.1f} GFLOP/s, {args.repeats} repeats)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
