"""Runs fuzz cases in child processes, so a crash or a hang is one failing case, not a dead run.

A child (``python fuzz_runner.py --child <backend>``) reads a JSON list of (case_id, code) on
stdin and, per case, prints ``S <i>`` before and ``R <i> <outcome>`` after it (``ok`` or the
exception's class name, then a short message). The parent reads these lines with a per-case
timeout: a child that dies mid-case (SIGSEGV, SIGFPE, abort) or stops answering is recorded
as ``CRASH(<signal>)`` / ``HANG`` for the case it started last, and a new child continues
from the next case.

    python fuzz_runner.py --seed 1 --cases 100000 [--backend fn|tf] [--jobs 2]

prints a summary and every crash, hang and internal error with its reproducer.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TF_PYTHON = os.path.expanduser("~/.cache/fn/tfref/bin/python")

# Errors a user must never see: fn's or pybind11's internals leaking out.
INTERNAL_CLASSES = {"InternalError", "SystemError"}
# Python's own errors escaping from inside fn (TF raises its own classes for these inputs): a
# MemoryError from a NumPy buffer fn sized (TF: ResourceExhaustedError), a UnicodeDecodeError
# from a message or string decoded strictly (TF: the kernel's InvalidArgumentError)...
PYTHON_INTERNAL = {"ZeroDivisionError", "IndexError", "OverflowError", "RecursionError", "AttributeError",
                   "KeyError", "UnboundLocalError", "NameError", "AssertionError", "UnicodeDecodeError",
                   "UnicodeEncodeError", "MemoryError", "LookupError"}
# The child's own timer (CASE_TIMEOUT / 4 of CPU) stopped a case in Python code: slow, not yet a hang.
SLOW = "TimeoutError case timed out"
# Python classes TF raises by design for these inputs, which fn raises the same way (docs/DESIGN.md),
# as (case name prefix, or "" for any case; class; message prefix):
# - NumPy's OverflowError for a Python int past 64 bits converted to a typed graph constant;
# - tf.tensordot's IndexError for an axis past the operand's rank (TF's docstring names it; its
#   Python code indexes the shape list with the axis).
# - the AttributeErrors of TF's Python code for a wrong argument type (checked under TF 2.21):
#   a gradient's `sources=3` ('int' ... 'dtype'), einsum's equation 3 ('int' ... 'replace').
TF_RAISED = (("", "OverflowError", "Python int too large to convert to C long"),
             ("tensordot", "IndexError", "list index out of range"),
             ("tensordot", "IndexError", "cannot fit 'int' into an index-sized integer"),
             ("gradient", "AttributeError", "'int' object has no attribute 'dtype'"),
             ("einsum", "AttributeError", "'int' object has no attribute 'replace'"))
# Marks a Python-internal class raised by the case's own source text (a Python list, dict or NumPy
# array the case indexes itself, e.g. ``([[]])[2]``), never inside the backend: not the backend's error.
CASE_CODE_TAG = "(raised by the case's own code)"
CASE_FILE = "<case>"
INTERNAL_TEXT = ("Unable to cast", "incompatible function arguments", "'NoneType' object has no attribute '_id'",
                 "make_tensor needs")

CASE_TIMEOUT = 60.0     # CPU seconds a case may take before it counts as a hang (the child's own
                        # SIGPROF fires first, at CASE_TIMEOUT / 4 of CPU: graph loops poll for it)
HANG_WALL = 10          # a case also hangs after HANG_WALL * CASE_TIMEOUT s of wall time (a
                        # deadlock uses no CPU); below that, a child starved of CPU on a loaded
                        # machine is waited for instead of being called a hang
BATCH = 250             # cases per child process


def is_internal(outcome: str) -> bool:
    cls, _, msg = outcome.partition(" ")
    return cls in INTERNAL_CLASSES or any(t in msg for t in INTERNAL_TEXT)


def is_tf_raised(outcome: str, cid: str = "") -> bool:
    """One of TF_RAISED: a Python class with the message TF raises it with (for that call)."""
    cls, _, msg = outcome.partition(" ")
    name = cid.rsplit(":", 1)[-1]
    return any(name.startswith(n) and cls == c and msg.startswith(m) for n, c, m in TF_RAISED)


def is_python_internal(outcome: str, cid: str = "") -> bool:
    """A Python-internal class (ZeroDivisionError, IndexError...) raised inside the backend: a
    failure unless TF raises the same class for the case (tools/fuzz_tf_agreement.py tells; e.g.
    einsum(3) is an AttributeError in TF too)."""
    cls, _, msg = outcome.partition(" ")
    return cls in PYTHON_INTERNAL and not is_tf_raised(outcome, cid) and not msg.startswith(CASE_CODE_TAG)


def raised_in_case_code(e: BaseException) -> bool:
    """The exception's innermost frame is the case's own code (compiled as CASE_FILE): Python or
    NumPy raised it on an object the case made itself; the backend was not running."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename == CASE_FILE


def is_failure(outcome: str) -> bool:
    return outcome.startswith(("CRASH", "HANG")) or is_internal(outcome)


def reproducer(backend: str, code: str) -> str:
    from fuzz_cases import PRELUDE
    head = "import tensorflow as tf" if backend == "tf" else "import fn as tf"
    return f"{head}{PRELUDE}{code}"


# ------------------------------------------------------------------ child side

def _touch(r: object) -> None:
    """Materialises results (an eager tensor's values) so lazy failures surface in the case."""
    if isinstance(r, (list, tuple)):
        for x in r:
            _touch(x)
    elif hasattr(r, "numpy") and callable(r.numpy):
        try:
            r.numpy()
        except (AttributeError, NotImplementedError):   # graph tensors, resource handles
            pass


def _child(backend: str) -> None:
    if backend == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        # TF drops its own frames from tracebacks: an error of TF's code would look raised by
        # the case's (raised_in_case_code); fn filters nothing
        tf.debugging.disable_traceback_filtering()
    else:
        import fn as tf
    import warnings

    import numpy as np  # noqa: F401

    from fuzz_cases import PRELUDE
    warnings.simplefilter("ignore")
    if not os.environ.get("FN_FUZZ_NO_RLIMIT"):   # huge allocations fail instead of swapping
        limit = int(os.environ.get("FN_FUZZ_MEM_GB", "4")) * 2**30
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    def on_alarm(signum: int, frame: object) -> None:
        raise TimeoutError("case timed out")
    signal.signal(signal.SIGPROF, on_alarm)   # CPU time, not wall time: a loaded machine is no timeout
    prelude = compile(PRELUDE, "<prelude>", "exec")   # its own errors are never the case's
    cases = json.loads(sys.stdin.read())
    out = sys.stdout
    for i, (_cid, code) in enumerate(cases):
        out.write(f"S {i}\n")
        out.flush()
        ns: Dict[str, object] = {"tf": tf}
        signal.setitimer(signal.ITIMER_PROF, CASE_TIMEOUT / 4)
        try:
            exec(prelude, ns)
            exec(compile(code, CASE_FILE, "exec"), ns)
            _touch(ns.get("r"))
            outcome = "ok"
        except BaseException as e:
            msg = " ".join(str(e).split())[:200]
            name = type(e).__name__
            if isinstance(e, TypeError) and isinstance(e, ValueError) and name in ("TypeError", "ValueError"):
                name = "ValueError+TypeError"    # fn's input_signature mismatch is both (docs/DESIGN.md)
            if name in PYTHON_INTERNAL and raised_in_case_code(e):
                msg = f"{CASE_CODE_TAG} {msg}"
            outcome = f"{name} {msg}"
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        out.write(f"R {i} {outcome}\n")
        out.flush()


# ------------------------------------------------------------------ parent side

def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (Linux /proc; 0 where unavailable)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _report(err: "tempfile._TemporaryFileWrapper[str]") -> str:
    """The line of a crashed child's stderr that says what happened (ASan/UBSan summary)."""
    err.seek(0)
    lines = [ln.strip() for ln in err.read().splitlines() if ln.strip()]
    for key in ("runtime error:", "ERROR: AddressSanitizer", "SUMMARY:"):
        for ln in lines:
            if key in ln:
                return ln[:300]
    return lines[-1][:300] if lines else ""


def child_env(backend: str) -> Dict[str, str]:
    """The parent's environment (so the child imports the same fn), one oneDNN thread."""
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    if backend == "tf":   # TF's venv must not see fn's test PYTHONPATH or sanitizer preloads
        env.pop("LD_PRELOAD", None)
        env.pop("PYTHONPATH", None)
    return env


def _run_batch(python: str, backend: str, cases: Sequence[Tuple[str, str]]) -> List[str]:
    """Outcomes of `cases`, restarting the child after a crash or hang."""
    outcomes: List[Optional[str]] = [None] * len(cases)
    pos = 0
    failed_starts = 0
    while pos < len(cases):
        err = tempfile.TemporaryFile(mode="w+")   # a sanitizer's report, kept for a crash
        proc = subprocess.Popen([python, str(HERE / "fuzz_runner.py"), "--child", backend],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                env=child_env(backend))
        assert proc.stdin and proc.stdout
        proc.stdin.write(json.dumps(list(cases[pos:])).encode())
        proc.stdin.close()
        fd = proc.stdout.fileno()
        pending = b""     # bytes read but not yet a whole line
        lines: List[str] = []
        started: Optional[int] = None
        wall_at_start, cpu_at_start = time.monotonic(), 0.0
        deadline = time.monotonic() + CASE_TIMEOUT + 60   # the first case also imports the backend
        while True:
            if not lines:
                # Raw reads: a buffered readline() could hold later lines ("R i", "S i+1"...) that
                # select() no longer sees, and a slow case would then be blamed on an earlier one.
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    used = _cpu_seconds(proc.pid) - cpu_at_start   # (before the first case: the import)
                    if used < CASE_TIMEOUT and time.monotonic() - wall_at_start < HANG_WALL * CASE_TIMEOUT:
                        deadline = time.monotonic() + max(1.0, CASE_TIMEOUT - used)   # starved, not hung
                        continue
                    proc.kill()   # no answer in time: the started case hangs
                    proc.wait()
                    if started is None:
                        raise RuntimeError(f"fuzz child ({backend}) did not start")
                    outcomes[pos + started] = "HANG"
                    break
                chunk = os.read(fd, 1 << 16)
                if chunk:
                    pending += chunk
                    *whole, pending = pending.split(b"\n")
                    lines.extend(ln.decode("utf-8", "replace") for ln in whole)
                    continue
            if not lines:   # EOF: the child exited: done, or it died in the case it started last
                rc = proc.wait()
                if started is None:   # e.g. the extension being rebuilt under us: retry
                    failed_starts += 1
                    if failed_starts > 3:
                        raise RuntimeError(f"fuzz child ({backend}) exited with {rc} before any case")
                    time.sleep(5)
                    started = -1
                    break
                if outcomes[pos + started] is None:
                    sig = -rc
                    name = signal.Signals(sig).name if rc < 0 and sig in signal.Signals._value2member_map_ else f"exit {rc}"
                    outcomes[pos + started] = f"CRASH({name}) {_report(err)}"
                break
            tag, _, rest = lines.pop(0).partition(" ")
            if tag == "S":
                started = int(rest)
                wall_at_start, cpu_at_start = time.monotonic(), _cpu_seconds(proc.pid)
                deadline = wall_at_start + CASE_TIMEOUT
            elif tag == "R":
                i, _, outcome = rest.partition(" ")
                outcomes[pos + int(i)] = outcome
        proc.stdout.close()
        err.close()
        pos += started + 1
    return [o if o is not None else "HANG" for o in outcomes]


def run(cases: Sequence[Tuple[str, str]], backend: str = "fn", python: Optional[str] = None,
        jobs: int = 1, progress: bool = False) -> List[str]:
    """Outcome per case (in order), batches of BATCH cases per child, `jobs` children at once."""
    python = python or (TF_PYTHON if backend == "tf" else sys.executable)
    batches = [cases[i:i + BATCH] for i in range(0, len(cases), BATCH)]
    done = [0]
    t0 = time.monotonic()

    def one(b: Sequence[Tuple[str, str]]) -> List[str]:
        out = _run_batch(python, backend, b)
        done[0] += len(b)
        if progress and len(batches) > 1:
            bad = sum(is_failure(o) for o in out)
            print(f"[fuzz {backend}] {done[0]}/{len(cases)} cases, {time.monotonic() - t0:.0f} s"
                  + (f", {bad} failures in the last batch" if bad else ""), file=sys.stderr, flush=True)
        return out
    if jobs <= 1:
        return [o for b in batches for o in one(b)]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(one, batches))
    return [o for r in results for o in r]


def summarize(cases: Sequence[Tuple[str, str]], outcomes: Sequence[str], backend: str = "fn") -> str:
    from collections import Counter
    classes = Counter(o.split(" ", 1)[0] for o in outcomes)
    lines = [f"{len(cases)} cases: " + ", ".join(f"{k} {v}" for k, v in classes.most_common())]
    for (cid, code), o in zip(cases, outcomes):
        if is_failure(o):
            lines.append(f"FAIL {cid}: {o}\n--- reproducer ---\n{reproducer(backend, code)}\n---")
        elif is_python_internal(o, cid):
            lines.append(f"PYTHON-INTERNAL {cid}: {o[:200]}\n  {code[:300]}")
        elif o.startswith(SLOW):
            lines.append(f"SLOW {cid}: {o[:200]}\n  {code[:300]}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--child", metavar="BACKEND")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--backend", default="fn", choices=["fn", "tf"])
    ap.add_argument("--surface", default="core", choices=["core", "new", "both"])
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    if a.child:
        _child(a.child)
        return 0
    sys.path.insert(0, str(HERE))
    import importlib.util
    if a.backend == "fn" and importlib.util.find_spec("fn") is None:   # the source tree's fn
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), os.environ.get("PYTHONPATH")]))
    from fuzz_cases import cases as make_cases
    surfaces = ["core", "new"] if a.surface == "both" else [a.surface]
    cs = [c for s in surfaces for c in make_cases(a.seed, a.cases, a.start, s)]
    t0 = time.monotonic()
    outs = run(cs, a.backend, jobs=a.jobs, progress=True)
    print(summarize(cs, outs, a.backend))
    print(f"{time.monotonic() - t0:.0f} s")
    return 1 if any(is_failure(o) for o in outs) else 0


if __name__ == "__main__":
    sys.exit(main())
