"""FN_PLAN_PROFILE=1 (cpp/exec/plan_profile.cpp): the sequential executor times each plan step and
prints a table at exit. fn-only: checks the table names the function's steps with their calls and
output shapes, that results are unchanged, that the parallel executor then runs sequentially, and
that without the variable nothing is printed."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

import fn

pytestmark = pytest.mark.fn_only

SCRIPT = textwrap.dedent("""
    import numpy as np
    import fn as tf

    @tf.function(autograph=False)
    def step(x, w):
        y = tf.matmul(x, w)
        return tf.reduce_sum(tf.tanh(y) * 2.0, axis=1, name="rowsum")

    x = np.arange(15, dtype=np.float32).reshape(5, 3) / 10
    w = np.ones((3, 7), np.float32)
    for _ in range(4):
        r = step(x, w).numpy()
    np.testing.assert_allclose(r, (np.tanh(x @ w) * 2.0).sum(axis=1), rtol=1e-5)
    print("ok")
""")


def run(env_value: str | None, inter_op: str = "0") -> subprocess.CompletedProcess:
    # FN_INTER_OP_MIN_WORK=0: with FN_INTER_OP=1 even this small plan is marked parallel.
    env = dict(os.environ, FN_INTER_OP=inter_op, FN_INTER_OP_MIN_WORK="0")
    env.pop("FN_PLAN_PROFILE", None)
    if env_value is not None:
        env["FN_PLAN_PROFILE"] = env_value
    # The fn this test imported (the source tree in development, the installed package in CI).
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(fn.__file__)) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)


def table_rows(stderr: str) -> list[list[str]]:
    lines = stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("FN_PLAN_PROFILE:"))
    end = next(i for i, line in enumerate(lines) if line.startswith("FN_PLAN_PROFILE by op"))
    return [line.split() for line in lines[start + 2 : end]]


@pytest.mark.parametrize("inter_op", ["0", "1"])
def test_profile_lists_steps_with_calls_and_shapes(inter_op):
    p = run("1", inter_op)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok"
    rows = table_rows(p.stderr)
    # Every step ran once per call; the matmul (fused with its tanh or not) and the row sum.
    assert rows and all(r[1] == "4" for r in rows), p.stderr
    assert any("MatMul" in r[4] and r[5] == "[5,7]" for r in rows), p.stderr
    assert any(r[5] == "[5]" for r in rows), p.stderr
    # Sorted by total time, every row's total and per-call time non-negative.
    totals = [float(r[0]) for r in rows]
    assert totals == sorted(totals, reverse=True) and min(totals) >= 0
    by_op = p.stderr.split("FN_PLAN_PROFILE by op:")[1]
    assert "MatMul" in by_op and "%" in by_op.splitlines()[1]


@pytest.mark.parametrize("value", [None, "0", ""])
def test_profile_off_prints_nothing(value):
    p = run(value)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok"
    assert "FN_PLAN_PROFILE" not in p.stderr


def test_plan_graph_text_shows_the_fused_graph_the_plan_runs():
    # The graph after the passes, for reading a profile's node names by hand.
    @fn.function(autograph=False)
    def step(x, w):
        return fn.reduce_sum(fn.tanh(fn.matmul(x, w)) * 2.0, axis=1)

    x, w = fn.ones([5, 3]), fn.ones([3, 7])
    step(x, w)
    text = step.get_concrete_function(x, w)._core._plan_graph_text()
    # the tanh is the matmul's epilogue, the product and the row sum one fused reduction
    assert re.search(r"%Tanh/fused: float32\(5, 7\) = _FusedMatMul\(%x, %w\) \{.*tanh=True\}", text), text
    assert re.search(r"= _FusedElementwise\(%Tanh/fused, %mul/y\) \{.*reduce=\[1, 7\], out_shape=\(5,\)\}", text), text
    assert "return (%Identity)" in text
