"""Shared by the benchmarks: timing, the fn-or-TensorFlow switch, and running the same script
under TensorFlow's interpreter to put both in one table."""
import argparse
import json
import os
import statistics
import subprocess
import timeit
from typing import Any, Callable, Optional


def median_us(call: Callable[[], Any], repeats: int, number: int) -> float:
    """Median over `repeats` runs of the per-call time in microseconds (after one warm-up call)."""
    call()
    return statistics.median(t / number * 1e6 for t in timeit.repeat(call, number=number, repeat=repeats))


def import_library(use_tf: bool) -> Any:
    """`tensorflow` with --tf (quiet), else `fn` (both spelled `tf` by the callers)."""
    if use_tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        return tf
    import fn
    return fn


def parser(doc: str, number: int = 20000) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--tf", action="store_true", help="measure TensorFlow instead of fn")
    p.add_argument("--compare", metavar="PYTHON", help="also run this interpreter with --tf, in one table")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--number", type=int, default=number)
    p.add_argument("--json", action="store_true", help="print the raw results as JSON")
    return p


def reference_results(args: argparse.Namespace, script: str) -> Optional[dict]:
    """With --compare PYTHON, runs `script --tf --json` under PYTHON and returns its results."""
    if not args.compare:
        return None
    cmd = [args.compare, os.path.abspath(script), "--tf", "--json", "--repeats", str(args.repeats),
           "--number", str(args.number)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])
