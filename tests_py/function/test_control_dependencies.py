"""``tf.control_dependencies``: inside a Function the ops made in the block get the given ops as
control inputs (variables' assignments, assertions); eagerly callables are called. Under fn and
TF 2.21."""
from __future__ import annotations

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_ops_in_the_block_depend_on_an_assignment():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        a = v.assign_add(x)
        with tf.control_dependencies([a]):
            y = tf.identity(x) * 2
        return y

    assert f(tf.constant(3.0)).numpy() == 6.0 and v.numpy() == 4.0
    graph = f.get_concrete_function(tf.constant(1.0)).graph

    def after(op):  # the ops `op` waits for through control inputs (TF may group them in a NoOp)
        seen = set()
        work = list(op.control_inputs)
        while work:
            c = work.pop()
            seen.add(c.type)
            work.extend(c.control_inputs)
        return seen

    identity = [op for op in graph.get_operations() if op.type == "Identity" and op.control_inputs]
    assert identity and "AssignAddVariableOp" in after(identity[0])


def test_a_block_after_an_assertion_fails_when_it_fails():
    @tf.function
    def h(x):
        check = tf.debugging.assert_positive(x)
        with tf.control_dependencies([check]):
            return tf.identity(x)

    assert h(tf.constant(2.0)).numpy() == 2.0
    with pytest.raises(tf.errors.InvalidArgumentError):
        h(tf.constant(-2.0))


def test_eagerly_callables_are_called_and_tensors_ignored():
    calls = []
    with tf.control_dependencies([lambda: calls.append(1), tf.constant(1.0)]):
        out = tf.constant(2.0) + 1
    assert calls == [1] and out.numpy() == 3.0


def test_values_from_outside_the_function_add_nothing():
    outer = tf.constant(5.0)

    @tf.function
    def g(x):
        with tf.control_dependencies([object(), outer]):
            return x + 1

    np.testing.assert_allclose(g(tf.constant(1.0)).numpy(), 2.0)
