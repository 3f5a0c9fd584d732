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


def test_runner_tells_the_cases_own_python_errors_from_the_backends() -> None:
    # ``([[]])[2]`` is Python's IndexError on the case's own list (TF's too): not fn's. An
    # AttributeError raised inside fn stays Python-internal unless TF_RAISED names it for the call
    # (the gradient of sources=3: TF raises it as well).
    cases = [("a:1:getitem", "r = ([[]])[2]"), ("a:2:getitem", "r = tf.function(lambda: ({'a': 1})[None])()"),
             ("a:3:other", "r = _grad(tf.constant([1.0]), lambda x: 3)")]
    outcomes = fuzz_runner.run(cases, "fn", python=sys.executable)
    assert [o.split(" ", 1)[0] for o in outcomes] == ["IndexError", "KeyError", "AttributeError"], outcomes
    assert [fuzz_runner.is_python_internal(o, c) for (c, _), o in zip(cases, outcomes)] == [False, False, True]
    assert fuzz_runner.is_tf_raised(outcomes[2], "a:3:gradient")
    assert fuzz_runner.is_tf_raised("IndexError list index out of range", "core:1:2:tensordot")
    assert not fuzz_runner.is_tf_raised("IndexError list index out of range", "core:1:2:gather")


def test_runner_blames_a_slow_case_not_the_one_before(monkeypatch) -> None:
    # The child answers "S i"/"R i" lines faster than the parent reads them; a case that then
    # never answers is the HANG, not an earlier case whose lines sat in a read buffer.
    # A case waiting (no CPU: a starved child on a loaded machine) past the timeout is waited for;
    # one computing past it is the HANG.
    monkeypatch.setattr(fuzz_runner, "CASE_TIMEOUT", 4.0)
    cases = ([(f"c{i}", "r = 1") for i in range(5)] + [("waits", "import time; time.sleep(6); r = 2")]
             + [("busy", "while True: pass")])
    outcomes = fuzz_runner.run(cases, "fn", python=sys.executable)
    assert outcomes == ["ok"] * 6 + ["HANG"], outcomes
