"""Ctrl-C (SIGINT) reaches a program busy in fn: a loop of eager ops, one long eager kernel, and
one long graph run (a straight-line function of many heavy ops, no loop: the executor checks for
pending signals between steps). Each runs in a child process that a real SIGINT is sent to; the
child must die of KeyboardInterrupt within a few seconds, never hang. Beyond TF, whose graph
runs finish before Python sees the signal (fn-only behaviour)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.fn_only

# Each child prints "ready" when the busy part starts (after imports, tracing and calibration).
EAGER_LOOP = """
x = fn.constant(np.random.default_rng(0).normal(size=(300, 300)))
print("ready", flush=True)
while True:
    x = fn.linalg.matmul(x, x)
    x = x / fn.reduce_max(fn.abs(x))   # stays normal: denormal float64 matmuls outlast the deadline under ASan
"""

LONG_KERNEL = """
a = fn.constant(np.eye(900) * 3 + np.random.default_rng(0).normal(size=(900, 900)) * 0.01)
t0 = time.monotonic(); fn.linalg.inv(a); once = time.monotonic() - t0
print("ready", once, flush=True)
while True:
    fn.linalg.inv(a)
"""

LONG_GRAPH = """
w = fn.constant(np.eye(200) * 0.5)
def chain(n):
    @fn.function
    def f(x):
        for _ in range(n):
            x = fn.linalg.matmul(x, w) + 1.0
        return x
    return f
x = fn.constant(np.ones((200, 200)))
small = chain(50); small(x)
t0 = time.monotonic(); small(x); step = (time.monotonic() - t0) / 50
n = int(min(max(60.0 / max(step, 1e-6), 200), 200000))   # a call of about a minute
big = chain(n); big.get_concrete_function(x)
print("ready", n, flush=True)
big(x)
print("finished", flush=True)
"""


def _interrupt(body: str, deadline: float) -> tuple:
    """Runs ``body`` in a child, sends SIGINT a second after it says ready; returns (seconds from
    the signal to the child's exit, its stderr, its stdout)."""
    # Python's own SIGINT handler in the child: a test run started in the background (`cmd &`)
    # passes SIGINT on as ignored, and the child would inherit that.
    code = (
        "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "import time\nimport numpy as np\nimport fn\n" + textwrap.dedent(body)
    )
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("ready"), (line, proc.stderr.read() if proc.poll() is not None else "")
        time.sleep(1.0)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=deadline)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the child did not stop within {deadline} s of SIGINT ({line.strip()})")
        took = time.monotonic() - sent
        return took, proc.stderr.read(), line + proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctrl_c_stops_a_loop_of_eager_ops():
    took, err, _ = _interrupt(EAGER_LOOP, 20)
    assert "KeyboardInterrupt" in err, err[-2000:]


def test_ctrl_c_during_a_long_eager_kernel_raises_when_it_returns():
    # One kernel is not cut short: the signal is seen as soon as it returns.
    took, err, out = _interrupt(LONG_KERNEL, 30)
    assert "KeyboardInterrupt" in err, err[-2000:]


def test_ctrl_c_stops_a_long_straight_line_graph():
    took, err, out = _interrupt(LONG_GRAPH, 20)
    assert "KeyboardInterrupt" in err, err[-2000:]
    assert "finished" not in out  # stopped between steps, not after a minute of them
