"""A graph While loop that never ends can be interrupted: the executor polls for pending
signals between iterations, so Ctrl-C raises KeyboardInterrupt and a SIGALRM handler's
exception (pytest-timeout's) propagates. Beyond TF, whose graph loops ignore Ctrl-C."""
import os
import signal
import threading
import time

import pytest

import fn


def forever():
    @fn.function
    def loop(x):
        return fn.while_loop(lambda i: i >= 0, lambda i: (i + 1) % 7, [x])
    return loop


def test_sigalrm_handler_exception_stops_a_graph_loop():
    loop = forever()
    loop.get_concrete_function(fn.constant(0))   # trace outside the timed part

    def on_alarm(signum, frame):
        raise TimeoutError("took too long")
    old = signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        t0 = time.monotonic()
        with pytest.raises(TimeoutError, match="took too long"):
            loop(fn.constant(0))
        assert time.monotonic() - t0 < 5
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_ctrl_c_stops_a_graph_loop():
    loop = forever()
    loop.get_concrete_function(fn.constant(0))
    # Python's own SIGINT handler, whatever an earlier test or library left installed (in the
    # full suite the signal was once lost and the loop ran on); SIGALRM ends the test if not.
    old_int = signal.signal(signal.SIGINT, signal.default_int_handler)

    def on_alarm(signum, frame):
        raise TimeoutError("SIGINT did not stop the loop")

    old_alarm = signal.signal(signal.SIGALRM, on_alarm)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    signal.setitimer(signal.ITIMER_REAL, 20)
    try:
        with pytest.raises(KeyboardInterrupt):
            loop(fn.constant(0))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        timer.cancel()
        signal.signal(signal.SIGALRM, old_alarm)
        signal.signal(signal.SIGINT, old_int)
    # The function still works afterwards (nothing left locked or half-updated).
    bounded = fn.function(lambda n: fn.while_loop(lambda i: i < n, lambda i: i + 1, [0]))
    assert int(bounded(fn.constant(5))[0]) == 5
