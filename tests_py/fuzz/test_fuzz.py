"""Seeded fuzzing of the public API: no input crashes, hangs or leaks an internal error.

Each case (a line of source calling one of ~100 public functions with random arguments,
eagerly or inside ``fn.function``; see ``fuzz_cases.py``) runs in a child process, so a crash
is a failing case printed with its reproducer (``fuzz_runner.py``).

CI runs ``FN_FUZZ_CASES`` cases (default 2000) of seed ``FN_FUZZ_SEED`` (default 1). A long run
is one command:

    cd tests_py/fuzz && python fuzz_runner.py --seed 1 --cases 50000 --surface both --jobs 2

and ``python tools/fuzz_tf_agreement.py --cases 2000 --surface both`` runs the same cases under
TensorFlow and reports, per surface, how often fn raises TF's exception class where both raise.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import fuzz_cases  # noqa: E402
import fuzz_runner  # noqa: E402


def test_fuzz_public_api() -> None:
    n = int(os.environ.get("FN_FUZZ_CASES", "2000"))
    seed = int(os.environ.get("FN_FUZZ_SEED", "1"))
    cases = fuzz_cases.cases(seed, n)
    outcomes = fuzz_runner.run(cases, "fn", python=sys.executable, jobs=int(os.environ.get("FN_FUZZ_JOBS", "2")))
    failures = [(c, o) for c, o in zip(cases, outcomes) if fuzz_runner.is_failure(o)]
    assert not failures, fuzz_runner.summarize(cases, outcomes)


def test_fuzz_newer_surface() -> None:
    # ragged, sparse, strings, image, linalg, einsum, map_fn, stateless random, Checkpoint,
    # SavedModel and ONNX export round trips (fuzz_cases_new.py), eagerly and in functions
    n = int(os.environ.get("FN_FUZZ_NEW_CASES", "500"))
    seed = int(os.environ.get("FN_FUZZ_SEED", "1"))
    cases = fuzz_cases.cases(seed, n, surface="new")
    outcomes = fuzz_runner.run(cases, "fn", python=sys.executable, jobs=int(os.environ.get("FN_FUZZ_JOBS", "2")))
    failures = [(c, o) for c, o in zip(cases, outcomes) if fuzz_runner.is_failure(o)]
    assert not failures, fuzz_runner.summarize(cases, outcomes)


def test_runner_reports_a_crash_with_its_reproducer() -> None:
    # The harness itself: a case that kills its process is one CRASH outcome, and the cases
    # after it still run (in a new child).
    # (SIGKILL: a sanitizer turns SIGSEGV into a report of its own, which tools/sanitize.sh
    # would count.)
    cases = [("c0", "r = 1"), ("c1", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"),
             ("c2", "r = tf.constant(1) + 1")]
    outcomes = fuzz_runner.run(cases, "fn", python=sys.executable)
    assert outcomes[0] == "ok" and outcomes[1].startswith("CRASH(SIGKILL)") and outcomes[2] == "ok", outcomes
    assert "os.kill" in fuzz_runner.summarize(cases, outcomes)
