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


def test_none_is_refused_in_a_function_but_not_eagerly():
    @tf.function
    def f():
        with tf.control_dependencies([None]):
            return tf.constant(1)

    with pytest.raises(TypeError, match="Can not convert a NoneType into a Tensor or Operation."):
        f()
    with tf.control_dependencies([None]):  # eagerly nothing is converted
        assert tf.constant(1).numpy() == 1
    assert tf.function(lambda: _block(None))().numpy() == 1  # no list at all: nothing to wait for
    assert tf.function(lambda: _block([1, lambda: None]))().numpy() == 1  # not graph values: nothing


def _block(controls):
    with tf.control_dependencies(controls):
        return tf.constant(1)


def test_statically_true_rank_checks_are_no_ops_in_a_function():
    seen = {}

    @tf.function
    def f(x):
        checks = [tf.debugging.assert_rank(x, 1), tf.debugging.assert_rank_at_least(x, 1)]
        seen["types"] = [c.type for c in checks]
        seen["names"] = [c.name for c in checks]
        seen["scalar"] = tf.debugging.assert_scalar(x[0])
        with tf.control_dependencies(checks):
            return x + 1

    assert f(tf.constant([1, 2])).numpy().tolist() == [2, 3]
    assert seen["types"] == ["NoOp", "NoOp"]
    assert seen["names"] == [
        "assert_rank/static_checks_determined_all_ok",
        "assert_rank_at_least/static_checks_determined_all_ok",
    ]
    assert seen["scalar"] is None  # TF 2's assert_scalar returns nothing
    assert tf.debugging.assert_rank(tf.constant([1]), 1) is None  # eagerly
    assert tf.debugging.assert_scalar(tf.constant(1.0)) is None


def test_rank_checks_of_an_unknown_rank_run_with_the_graph():
    @tf.function(input_signature=[tf.TensorSpec(None, tf.int32)])
    def f(x):
        with tf.control_dependencies([tf.debugging.assert_rank(x, 1)]):
            return tf.identity(x)

    assert f(tf.constant([1, 2])).numpy().tolist() == [1, 2]
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant([[1, 2]]))

    @tf.function(input_signature=[tf.TensorSpec(None, tf.int32)])
    def g(x):
        with tf.control_dependencies([tf.debugging.assert_rank_at_least(x, 2)]):
            return tf.identity(x)

    assert g(tf.constant([[1, 2]])).numpy().tolist() == [[1, 2]]
    with pytest.raises(tf.errors.InvalidArgumentError):
        g(tf.constant([1, 2]))


def test_no_op_and_group():
    assert tf.no_op() is None and tf.group(tf.constant(1)) is None  # eagerly
    seen = {}
    v = tf.Variable(0)

    @tf.function
    def f():
        a = v.assign_add(1)
        b = v.assign_add(2)
        g = tf.group(a, [b, tf.constant(5)], name="gg")
        seen["group"] = (g.type, g.name, [c.name for c in g.control_inputs])
        seen["one_device"] = [c.type for c in tf.group(a, b).control_inputs]
        n = tf.no_op()
        seen["no_op"] = (n.type, n.outputs)
        e = tf.group()
        seen["empty"] = (e.type, e.name)
        for bad in (None, 1):
            try:
                tf.group(bad)
            except TypeError as err:
                seen.setdefault("errors", []).append(str(err))
        with tf.control_dependencies([g]):
            return v.read_value()

    assert f().numpy() == 3
    # TF groups by device: the assignments (the variable's device) and the constant (none)
    assert seen["group"] == ("NoOp", "gg", ["gg/NoOp", "gg/NoOp_1"])
    assert seen["one_device"] == ["AssignAddVariableOp", "AssignAddVariableOp"]
    assert seen["no_op"] == ("NoOp", [])
    assert seen["empty"] == ("NoOp", "group_deps_1")  # after the unnamed group above
    assert seen["errors"] == [
        "'inputs' should be zero or more (nested) Tensors. Received 'None' with type '<class 'NoneType'>'.",
        "'inputs' should be zero or more (nested) Tensors. Received '1' with type '<class 'int'>'.",
    ]
