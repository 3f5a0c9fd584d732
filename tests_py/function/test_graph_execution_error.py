"""A run-time op error inside a Function reads as TF 2.21's (its ``InterpolateRuntimeError``):
"Graph execution error:", then for the failing node "Detected at node N defined at (most recent
call last):" with the user's frames where the node was traced, outermost first, each followed
by a blank line, then the kernel's message and the Function's op tag ``[Op:__inference_f_N]``.
Eager op errors, trace-time errors and tf.data's function errors keep their own forms."""
from __future__ import annotations

import re

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

def _line(marker: str) -> int:
    """The line of this file holding ``marker`` in a comment (the frames name these lines)."""
    with open(__file__, encoding="utf-8") as f:
        for i, text in enumerate(f, 1):
            if text.rstrip().endswith("# " + marker):
                return i
    raise AssertionError(marker)


@tf.function
def _inner(x):
    return tf.gather(x, [5])  # gather


@tf.function
def _outer(x):
    return _inner(x) * 2.0  # inner call


def _call_outer():
    return _outer(tf.constant([1.0, 2.0]))  # outer call


def test_nested_function_error_names_the_node_and_its_frames():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _call_outer()
    msg = str(e.value)
    frames = (f'  File "{__file__}", line {_line("outer call")}, in _call_outer\n\n'
              f'  File "{__file__}", line {_line("inner call")}, in _outer\n\n'
              f'  File "{__file__}", line {_line("gather")}, in _inner\n\n')
    head = "Graph execution error:\n\nDetected at node GatherV2 defined at (most recent call last):\n"
    tail = "indices[0] = 5 is not in [0, 2)\n\t [[{{node GatherV2}}]] [Op:__inference__outer_"
    assert msg.startswith(head) and frames + tail in msg, msg
    assert re.search(r"\[Op:__inference__outer_\d+\]$", msg), msg
    # Between: only the outer frames, each a File line and a blank line.
    outer = msg[len(head):msg.index(frames + tail)]
    assert re.fullmatch(r'(  File "[^\n]*", line \d+, in [^\n]*\n\n)*', outer), outer
    assert msg.count("Detected at node") == 1
    # The test's own frame is among the outer ones (frames are the whole user stack).
    assert "in test_nested_function_error_names_the_node_and_its_frames\n\n" in msg


def test_same_error_on_a_second_call():
    msgs = []
    for _ in range(2):
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _call_outer()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_py_function_error_inside_a_function():
    def bad(x):
        raise ValueError("bad value")

    @tf.function
    def f(x):
        return tf.py_function(bad, [x], tf.float32)  # py_function

    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        f(tf.constant(1.0))
    msg = str(e.value)
    assert msg.startswith("Graph execution error:\n\nDetected at node EagerPyFunc defined at (most recent call last):\n")
    assert f'  File "{__file__}", line {_line("py_function")}, in f\n\nValueError: bad value' in msg
    assert re.search(r"\[\[\{\{node EagerPyFunc\}\}\]\] \[Op:__inference_f_\d+\]$", msg), msg


def test_run_time_assert_inside_a_function():
    @tf.function
    def f(x):
        tf.debugging.assert_positive(x, message="must be positive")  # assert
        return x

    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        f(tf.constant(-1.0))
    msg = str(e.value)
    assert re.match(r"Graph execution error:\n\nDetected at node assert_positive\S* defined at \(most recent call "
                    r"last\):\n", msg), msg
    assert f'  File "{__file__}", line {_line("assert")}, in f\n\n' in msg
    assert "must be positive" in msg
    assert re.search(r"\}\}\]\] \[Op:__inference_f_\d+\]$", msg), msg


def test_error_in_a_loop_body_and_a_branch():
    @tf.function
    def loop(x):
        total = tf.constant(0.0)
        for i in tf.range(2):
            total += tf.reduce_sum(tf.gather(x, [i + 5]))  # loop body
        return total

    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        loop(tf.constant([1.0, 2.0]))
    msg = str(e.value)
    assert msg.startswith("Graph execution error:\n\nDetected at node ")
    assert f'  File "{__file__}", line {_line("loop body")}, in ' in msg
    assert re.search(r"indices\[0\] = 5 is not in \[0, 2\)\n\t \[\[\{\{node \S*GatherV2\}\}\]\] "
                     r"\[Op:__inference_loop_\d+\]$", msg), msg

    @tf.function
    def branch(x):
        if x > 0:
            return tf.gather(x[None], [7])  # branch
        return x[None]

    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        branch(tf.constant(1.0))
    msg = str(e.value)
    assert msg.startswith("Graph execution error:\n\nDetected at node ")
    assert f'  File "{__file__}", line {_line("branch")}, in ' in msg
    assert re.search(r"\[\[\{\{node \S*GatherV2\}\}\]\] \[Op:__inference_branch_\d+\]$", msg), msg


def test_eager_and_trace_time_errors_keep_their_forms():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.gather(tf.constant([1.0]), [4])
    assert "Graph execution error" not in str(e.value)
    assert "indices[0] = 4 is not in [0, 1) [Op:GatherV2]" in str(e.value)

    @tf.function
    def f(x):
        return tf.reshape(x, [3])

    with pytest.raises((ValueError, tf.errors.InvalidArgumentError)) as e:
        f(tf.constant([1.0, 2.0]))
    assert "Graph execution error" not in str(e.value)


def test_dataset_function_errors_are_the_iterators():
    ds = tf.data.Dataset.range(3).map(lambda x: tf.gather([1, 2], x + 5))
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        list(ds)
    assert "Graph execution error" not in str(e.value)
    assert "indices = 5 is not in [0, 2)\n\t [[{{node GatherV2}}]]" in str(e.value)


@pytest.mark.parametrize("check, text", [
    (lambda x: tf.debugging.assert_equal(x, 1.0, message="boom"),
     r"assertion failed: \[boom\] \[Condition x == y did not hold element-wise:\] \[x \(x:0\) = \] \[2 3\] "
     r"\[y \(\S+:0\) = \] \[1\]"),
    (lambda x: tf.debugging.assert_less(x, 0.5, summarize=1),
     r"assertion failed: \[Condition x < y did not hold element-wise:\] \[x \(x:0\) = \] \[2\.\.\.\] "
     r"\[y \(\S+:0\) = \] \[0\.5\]"),
    (lambda x: tf.debugging.assert_non_negative(x - 5.0),
     r"assertion failed: \[\] \[Condition x >= 0 did not hold element-wise:\] \[x \(sub:0\) = \] \[-3 -2\]"),
    (lambda x: tf.debugging.assert_negative(x, message="neg"),
     r"assertion failed: \[neg\.  \] \[Condition x < 0 did not hold element-wise:\] \[x \(x:0\) = \] \[2 3\]"),
    (lambda x: tf.debugging.Assert(tf.reduce_all(x > 100.0), [x, "str"]), r"assertion failed: \[2 3\] \[str\]"),
    (lambda x: tf.debugging.Assert(x > 100.0, [x]), r"The second input must be a scalar, but it has shape \[2\]"),
])
def test_run_time_assert_texts_in_a_function(check, text):
    @tf.function
    def f(x):
        check(x)
        return x

    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        f(tf.constant([2.0, 3.0]))
    msg = str(e.value)
    assert msg.startswith("Graph execution error:\n\nDetected at node ")
    # (TF adds a line tagging its AssertGuard function after the op tag for the shape error.)
    assert re.search("\n" + text + r"\n\t \[\[\{\{node \S+\}\}\]\] \[Op:__inference_f_\d+\]", msg), msg


def test_error_under_a_gradient_tape():
    # A Function called while a tape records (fn runs its graph node by node then): still the
    # graph's error (TF names its forward function: [Op:__forward__inner_N]).
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _inner(x)  # taped call
    msg = str(e.value)
    assert msg.startswith("Graph execution error:\n\nDetected at node GatherV2 defined at (most recent call last):\n")
    assert f'  File "{__file__}", line {_line("gather")}, in _inner\n\n' in msg
    assert re.search(r"indices\[0\] = 5 is not in \[0, 2\)\n\t \[\[\{\{node GatherV2\}\}\]\] \[Op:__forward__inner_\d+\]$",
                     msg), msg


def test_error_in_a_loop_body_under_a_gradient_tape():
    @tf.function
    def loop(x):
        total = tf.constant(0.0)
        for i in tf.range(2):
            total += tf.reduce_sum(tf.gather(x, [i + 5]))  # taped loop body
        return total

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            loop(x)
    msg = str(e.value)
    assert msg.startswith("Graph execution error:\n\nDetected at node ")
    assert f'  File "{__file__}", line {_line("taped loop body")}, in ' in msg
    assert re.search(r"indices\[0\] = 5 is not in \[0, 2\)\n\t \[\[\{\{node \S*GatherV2\}\}\]\] \[Op:__forward_loop_\d+\]",
                     msg), msg
