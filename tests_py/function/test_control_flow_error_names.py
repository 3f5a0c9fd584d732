"""Errors from inside a loop or branch of a Function read as TF 2.21's: at run time the node is
named under its control-flow op (TF lowers loops and branches into the caller's graph:
``while/GatherV2``, ``while_1/...``, ``while/cond/...``, ``cond/...``) and the body's frame is in
the user's function (not AutoGraph's generated ``loop_body``/``if_body``); at trace time the
"in user code" frames show the body's line in the user's function, without the statement's."""
from __future__ import annotations

import re

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

_X = [1.0, 2.0]


@tf.function
def _assert_in_loop(x):
    for _ in tf.range(2):
        tf.debugging.assert_less(x, 0.0)
    return x


@tf.function
def _branch_in_loop(x):
    t = tf.constant(0.0)
    for _ in tf.range(2):
        if tf.reduce_sum(x) > 0:
            t += tf.reduce_sum(tf.gather(x, [5]))
    return t


@tf.function
def _second_loop(x):
    t = tf.constant(0.0)
    for _ in tf.range(2):
        t += 1.0
    for _ in tf.range(2):
        t += tf.reduce_sum(tf.gather(x, [5]))  # second loop body
    return t


@tf.function
def _tf_cond(x):
    return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.gather(x, [5]), lambda: x)


@tf.function
def _tf_while_loop(x):
    return tf.while_loop(lambda i: i < 2, lambda i: i + tf.cast(tf.reduce_sum(tf.gather(x, [5])), tf.int32), [0])


@pytest.mark.parametrize("f, node", [
    (_assert_in_loop, "while/assert_less/Assert/AssertGuard/Assert"),
    (_branch_in_loop, "while/cond/GatherV2"),
    (_second_loop, "while_1/GatherV2"),
    (_tf_cond, "cond/GatherV2"),
    (_tf_while_loop, "while/GatherV2"),
])
def test_node_is_named_under_its_control_flow_op(f, node):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        f(tf.constant(_X))
    msg = str(e.value)
    assert msg.startswith(f"Graph execution error:\n\nDetected at node {node} defined at (most recent call last):\n")
    assert re.search(r"\n\t \[\[\{\{node " + re.escape(node) + r"\}\}\]\] \[Op:__inference_\w+_\d+\]$", msg), msg


def test_under_a_tape_too():
    x = tf.constant(_X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _second_loop(x)
    assert re.search(r"\[\[\{\{node while_1/GatherV2\}\}\]\] \[Op:__forward__second_loop_\d+\]$", str(e.value))


def test_body_frame_is_in_the_users_function():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _second_loop(tf.constant(_X))
    msg = str(e.value)
    with open(__file__, encoding="utf-8") as f:
        line = next(i for i, text in enumerate(f, 1) if text.rstrip().endswith("# second loop body"))
    assert f'  File "{__file__}", line {line}, in _second_loop\n\n' in msg
    assert "loop_body" not in msg


def _helper(v):
    return v + tf.constant(1, tf.int32)  # helper line


@tf.function
def _bad_loop_trace(n):
    s = tf.constant(0, tf.int64)
    for _ in tf.range(n):
        s += tf.constant(1, tf.int32)  # bad loop line
    return s


@tf.function
def _bad_while_trace(n):
    s = tf.constant(0, tf.int64)
    while n > 0:
        n -= 1
        s += tf.constant(1, tf.int32)  # bad while line
    return s


@tf.function
def _bad_if_trace(n):
    if n > 0:
        y = tf.constant(1, tf.int64) + tf.constant(1, tf.int32)  # bad if line
    else:
        y = tf.constant(2, tf.int64)
    return y


@tf.function
def _bad_helper_in_loop(n):
    s = tf.constant(0, tf.int64)
    for _ in tf.range(n):
        s = _helper(s)  # helper call line
    return s


def _line(marker):
    with open(__file__, encoding="utf-8") as f:
        return next(i for i, text in enumerate(f, 1) if text.rstrip().endswith("# " + marker))


@pytest.mark.parametrize("f, frames", [
    (_bad_loop_trace, [("_bad_loop_trace", "bad loop line")]),
    (_bad_while_trace, [("_bad_while_trace", "bad while line")]),
    (_bad_if_trace, [("_bad_if_trace", "bad if line")]),
    (_bad_helper_in_loop, [("_bad_helper_in_loop", "helper call line"), ("_helper", "helper line")]),
])
def test_trace_time_frames_show_the_body_line_in_the_users_function(f, frames):
    with pytest.raises(TypeError) as e:
        f(tf.constant(3))
    msg = str(e.value)
    listed = re.findall(r'File "[^"]+", line (\d+), in (\w+)', msg)
    assert listed == [(str(_line(marker)), name) for name, marker in frames], msg
