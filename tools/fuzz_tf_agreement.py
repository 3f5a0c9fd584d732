"""Runs the fuzz cases under fn and under TensorFlow 2.21 and reports exception-class agreement.

    python tools/fuzz_tf_agreement.py [--seed 1] [--cases 2000] [--jobs 2] [--show 30]

Agreement rate: among the cases where TensorFlow raises, the share where fn raises an exception
of the same class name (InvalidArgumentError, ValueError, ...). Also counts the cases where
only one of them raises, and lists the most common disagreements.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests_py" / "fuzz"))

import fuzz_cases  # noqa: E402
import fuzz_runner  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=30, help="disagreements to list")
    ap.add_argument("--fn-python", default=str(ROOT / ".venv-test" / "bin" / "python"))
    ap.add_argument("--out", help="write every case's two outcomes here (JSON)")
    a = ap.parse_args()
    if "PYTHONPATH" not in os.environ:   # the source tree's fn (the TF child drops PYTHONPATH)
        os.environ["PYTHONPATH"] = str(ROOT / "python")
    cases = fuzz_cases.cases(a.seed, a.cases)
    t0 = time.monotonic()
    fn_out = fuzz_runner.run(cases, "fn", python=a.fn_python, jobs=a.jobs)
    t1 = time.monotonic()
    tf_out = fuzz_runner.run(cases, "tf", jobs=a.jobs)
    t2 = time.monotonic()
    if a.out:
        with open(a.out, "w") as f:
            json.dump([[cid, code, fo, to] for (cid, code), fo, to in zip(cases, fn_out, tf_out)], f, indent=0)
    cls = lambda o: o.split(" ", 1)[0]  # noqa: E731
    tf_raises = [(c, f, t) for c, f, t in zip(cases, fn_out, tf_out) if cls(t) != "ok"]
    agree = sum(cls(f) == cls(t) for _, f, t in tf_raises)
    only_tf = sum(cls(f) == "ok" for _, f, t in tf_raises)
    only_fn = sum(cls(f) != "ok" and cls(t) == "ok" for f, t in zip(fn_out, tf_out))
    both_ok = sum(cls(f) == "ok" and cls(t) == "ok" for f, t in zip(fn_out, tf_out))
    print(f"{len(cases)} cases (seed {a.seed}); fn {t1 - t0:.0f} s, TF {t2 - t1:.0f} s")
    print(f"TF raises in {len(tf_raises)}: fn raises the same class in {agree} "
          f"({100.0 * agree / max(1, len(tf_raises)):.1f}%), fn returns a value in {only_tf}")
    print(f"both return a value: {both_ok}; only fn raises: {only_fn}")
    print("fn failures (crash/hang/internal):", sum(fuzz_runner.is_failure(o) for o in fn_out))
    pairs = Counter((cls(t), cls(f)) for _, f, t in tf_raises if cls(f) != cls(t))
    print("most common (TF class -> fn class):")
    for (t, f), n in pairs.most_common(15):
        print(f"  {n:5d}  {t} -> {f}")
    shown = 0
    for (cid, code), f, t in zip(cases, fn_out, tf_out):
        if shown >= a.show:
            break
        if cls(f) != cls(t):
            print(f"{cid}\n  {code}\n  TF: {t[:160]}\n  fn: {f[:160]}")
            shown += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
