"""Runs the fuzz cases under fn and under TensorFlow 2.21 and reports exception-class agreement.

    python tools/fuzz_tf_agreement.py [--seed 1] [--cases 2000] [--surface core|new|both] [--jobs 2] [--show 30]
        [--out run.json] [--tf-from run.json]

Agreement rate, per surface ("core": the older API; "new": ragged, sparse, strings, image, linalg,
einsum, map_fn, Checkpoint, SavedModel): among the cases where both raise, the share where fn
raises an exception of the same class name (InvalidArgumentError, ValueError, ...). Also counts
the cases where only one of them raises, Python-internal classes from fn, and lists the most
common disagreements. Cases named in EXCLUDED (deliberate differences, docs/DESIGN.md
"Deliberate exception-class differences") and fn-only cases (onnx.*) are left out.
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


# Case-name prefixes left out of the agreement (each is listed with its reason in docs/DESIGN.md).
EXCLUDED = (
    "onnx.",                 # fn only: TF has no tf.onnx
)
# Known gaps, counted apart (docs/DESIGN.md): NumPy dtypes fn has no tensor dtype for.
GAP_TEXT = ("'uint16'", "'uint32'", "'uint64'")


def excluded(cid: str) -> bool:
    return cid.rsplit(":", 1)[-1].startswith(EXCLUDED)


def is_gap(code: str) -> bool:
    return any(t in code for t in GAP_TEXT)


def tf_fails(outcome: str, cid: str = "") -> bool:
    """TF itself fails on the case: a hang or crash, an error of its own Python code's internals
    (AssertionError, IndexError, AttributeError... from inside TF) or an InternalError. fn raises a
    TF-class error there instead; such cases measure nothing (docs/DESIGN.md)."""
    name = outcome.split(" ", 1)[0]
    return (outcome.startswith(("HANG", "CRASH")) or name == "InternalError"
            or fuzz_runner.is_python_internal(outcome, cid))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=30, help="disagreements to list")
    ap.add_argument("--fn-python", default=str(ROOT / ".venv-test" / "bin" / "python"))
    ap.add_argument("--out", help="write every case's two outcomes here (JSON)")
    ap.add_argument("--surface", default="both", choices=["core", "new", "both"])
    ap.add_argument("--tf-from", help="reuse TF's outcomes from an earlier --out file (same seed and cases)")
    a = ap.parse_args()
    if "PYTHONPATH" not in os.environ:   # the source tree's fn (the TF child drops PYTHONPATH)
        os.environ["PYTHONPATH"] = str(ROOT / "python")
    surfaces = ["core", "new"] if a.surface == "both" else [a.surface]
    cases = [c for sf in surfaces for c in fuzz_cases.cases(a.seed, a.cases, surface=sf)]
    t0 = time.monotonic()
    fn_out = fuzz_runner.run(cases, "fn", python=a.fn_python, jobs=a.jobs)
    t1 = time.monotonic()
    kept = [i for i, (cid, _) in enumerate(cases) if not excluded(cid)]
    tf_out = [""] * len(cases)
    if a.tf_from:   # TF 2.21's outcomes do not change: compare another fn build with the same run
        with open(a.tf_from) as f:
            earlier = {cid: to for cid, _, _, to in json.load(f)}
        for i in kept:
            tf_out[i] = earlier[cases[i][0]]
    else:
        for i, o in zip(kept, fuzz_runner.run([cases[i] for i in kept], "tf", jobs=a.jobs)):
            tf_out[i] = o
    t2 = time.monotonic()
    if a.out:
        with open(a.out, "w") as f:
            json.dump([[cid, code, fo, to] for (cid, code), fo, to in zip(cases, fn_out, tf_out)], f, indent=0)
    print(f"seed {a.seed}; fn {t1 - t0:.0f} s, TF {t2 - t1:.0f} s")
    for sf in surfaces:
        rows = [(c, fn_out[i], tf_out[i]) for i, c in enumerate(cases)
                if (c[0].startswith("new:") == (sf == "new"))]
        report(sf, rows, a.show)
    return 0


def report(surface: str, rows: list, show: int) -> None:
    def cls(o: str, tf_class: str = "") -> str:
        """The outcome's class; fn's dual TypeError/ValueError matches either of TF's."""
        name = o.split(" ", 1)[0]
        return tf_class if tf_class and tf_class in name.split("+") else name
    fails = sum(fuzz_runner.is_failure(f) for _, f, _ in rows)
    internal = Counter(cls(f) for c, f, t in rows if fuzz_runner.is_python_internal(f, c[0]) and cls(f) != cls(t))
    n_excluded = sum(excluded(r[0][0]) for r in rows)
    rows = [r for r in rows if not excluded(r[0][0])]
    gaps = [r for r in rows if is_gap(r[0][1])]
    tf_failed = [r for r in rows if not is_gap(r[0][1]) and tf_fails(r[2], r[0][0])]
    rows = [r for r in rows if not is_gap(r[0][1]) and not tf_fails(r[2], r[0][0])]
    both = [(c, f, t) for c, f, t in rows if cls(t) != "ok" and cls(f) != "ok"]
    agree = sum(cls(f, cls(t)) == cls(t) for _, f, t in both)
    only_tf = sum(cls(f) == "ok" and cls(t) != "ok" for _, f, t in rows)
    only_fn = sum(cls(f) != "ok" and cls(t) == "ok" for _, f, t in rows)
    both_ok = sum(cls(f) == "ok" and cls(t) == "ok" for _, f, t in rows)
    print(f"\n== {surface}: {len(rows)} cases compared (excluded by name: {n_excluded}; known dtype gaps: "
          f"{len(gaps)}; TF itself fails (hang/crash/internal): {len(tf_failed)}, fn raises there: "
          f"{dict(Counter(cls(f) for _, f, _ in tf_failed))})")
    print(f"both raise in {len(both)}: same class in {agree} ({100.0 * agree / max(1, len(both)):.1f}%)")
    print(f"only TF raises: {only_tf}; only fn raises: {only_fn}; both return a value: {both_ok}")
    print(f"fn failures (crash/hang/internal): {fails}; Python-internal classes from fn where TF raises another class: {dict(internal)}")
    pairs = Counter((c[0].rsplit(":", 1)[-1], cls(t), cls(f)) for c, f, t in both if cls(f, cls(t)) != cls(t))
    print("most common (case name: TF class -> fn class):")
    for (name, t, f), n in pairs.most_common(20):
        print(f"  {n:5d}  {name}: {t} -> {f}")
    shown = 0
    for (cid, code), f, t in both:
        if shown >= show:
            break
        if cls(f, cls(t)) != cls(t):
            print(f"{cid}\n  {code[:300]}\n  TF: {t[:160]}\n  fn: {f[:160]}")
            shown += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
