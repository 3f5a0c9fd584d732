"""A run-time assert in a Function names TF 2.21's node (``SCOPE/Assert/AssertGuard/Assert``) and
the ``y`` constant made in its scope (``SCOPE/y:0``); ``tf.debugging.assert_equal`` takes one scope
name more, as TF's v2 wrapper does; assert_non_positive keeps TF's missing-comma item."""
from __future__ import annotations

import re

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _error(f, x):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        f(tf.constant(x))
    return str(e.value)


def _node(text):
    return re.search(r"Detected at node (\S+) defined at", text).group(1)


@pytest.mark.parametrize(
    "name, value, scope",
    [
        ("assert_equal", 2.0, "assert_equal_1"),
        ("assert_none_equal", 1.0, "assert_none_equal"),
        ("assert_less", 3.0, "assert_less"),
        ("assert_less_equal", 3.0, "assert_less_equal"),
        ("assert_greater", 0.0, "assert_greater"),
        ("assert_greater_equal", 0.0, "assert_greater_equal"),
    ],
)
def test_binary_assert_node_and_y_names(name, value, scope):
    @tf.function
    def f(x):
        getattr(tf.debugging, name)(x, 1.0)
        return x

    text = _error(f, value)
    assert _node(text) == f"{scope}/Assert/AssertGuard/Assert"
    assert f"[y ({scope}/y:0) = ] [1]" in text
    assert f"\t [[{{{{node {scope}/Assert/AssertGuard/Assert}}}}]] [Op:__inference_f_" in text


def test_scopes_count_up_and_a_given_name_is_used():
    @tf.function
    def f(x):
        tf.debugging.assert_equal(x, 2.0)
        tf.debugging.assert_less(x, 3.0, name="mine")
        tf.debugging.assert_equal(x, 1.0, message="boom")
        return x

    text = _error(f, 2.0)
    assert _node(text) == "assert_equal_3/Assert/AssertGuard/Assert"
    assert "[boom] [Condition x == y did not hold element-wise:] [x (x:0) = ] [2] [y (assert_equal_3/y:0) = ] [1]" in text
    names = [op.name for op in f.get_concrete_function(tf.constant(2.0)).graph.get_operations()]
    assert "mine/y" in names and "assert_equal_1/y" in names and "assert_equal_3/y" in names


@pytest.mark.parametrize(
    "name, value, inner, cond",
    [
        ("assert_positive", -1.0, "assert_less", "[Condition x > 0 did not hold element-wise:] [x (x:0) = ]"),
        ("assert_negative", 1.0, "assert_less", "[Condition x < 0 did not hold element-wise:] [x (x:0) = ]"),
        ("assert_non_negative", -1.0, "assert_less_equal", "[Condition x >= 0 did not hold element-wise:] [x (x:0) = ]"),
        ("assert_non_positive", 1.0, "assert_less_equal", "[Condition x <= 0 did not hold element-wise:x (x:0) = ]"),
    ],
)
def test_unary_assert_nodes_and_text(name, value, inner, cond):
    @tf.function
    def f(x):
        getattr(tf.debugging, name)(x, message="m")
        return x

    text = _error(f, [value])
    assert _node(text) == f"{name}/{inner}/Assert/AssertGuard/Assert"
    assert f"assertion failed: [m.  ] {cond} [{value:g}]\n" in text


def test_tf_assert_node_name():
    @tf.function
    def f(x):
        tf.debugging.Assert(x > 3.0, [x])
        return x

    text = _error(f, 2.0)
    assert _node(text) == "Assert/AssertGuard/Assert"
    assert "assertion failed: [2]\n\t [[{{node Assert/AssertGuard/Assert}}]]" in text
