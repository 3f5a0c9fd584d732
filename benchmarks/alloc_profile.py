"""Heap allocations per call of the model workloads (issue 13), fn only.

    .venv-test/bin/python benchmarks/alloc_profile.py [--only mlp_train,cnn_infer] [--calls 20]

Builds benchmarks/malloc_count.c into a preloaded shim (needs gcc) and re-runs itself under it;
prints per workload the allocations per call, those of at least 64 KiB, and the MB requested.
"""
import argparse
import ctypes
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = "/tmp/fn_malloc_count.so"
DEFAULT = "mlp_train,cnn_infer,rnn_infer,rnn_train,transformer"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default=DEFAULT)
    p.add_argument("--calls", type=int, default=20)
    args = p.parse_args()
    if "FN_MALLOC_COUNT" not in os.environ:
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", SHIM, os.path.join(HERE, "malloc_count.c"), "-ldl"],
                       check=True)
        env = dict(os.environ, LD_PRELOAD=SHIM, FN_MALLOC_COUNT="1",
                   PYTHONPATH=os.path.join(HERE, "..", "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
        sys.exit(subprocess.run([sys.executable] + sys.argv, env=env).returncode)
    sys.path.insert(0, HERE)
    import fn
    import models_tf
    from bench_models import make_data
    mc = ctypes.CDLL(SHIM)
    buf = (ctypes.c_long * 3)()
    data = make_data()
    print("| workload | allocations per call | of >= 64 KiB | MB per call |")
    print("|---|---|---|---|")
    for name in args.only.split(","):
        call = models_tf.WORKLOADS[name](fn, data)
        for _ in range(3):
            call()
        mc.mc_read(buf)
        a0, b0, m0 = buf[0], buf[1], buf[2]
        for _ in range(args.calls):
            call()
        mc.mc_read(buf)
        n = args.calls
        print(f"| {name} | {(buf[0] - a0) / n:.0f} | {(buf[1] - b0) / n:.0f} | {(buf[2] - m0) / n / 1e6:.1f} |", flush=True)


if __name__ == "__main__":
    main()
