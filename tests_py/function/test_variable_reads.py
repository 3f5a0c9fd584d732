"""Reads of a variable inside a Function see the assignments made before them: ReadVariableOp is
stateful, so passes never merge two reads of one variable across an assignment (a CSE bug that
made Adam read its momentum slot before updating it)."""
from __future__ import annotations

import pytest

from tfbackend import IS_TF, tf as fn  # noqa: F401

pytestmark = pytest.mark.tf_oracle


def test_reads_around_assignments_are_not_merged():
    v = fn.Variable(1.0)

    @fn.function
    def f():
        before = v.read_value()
        v.assign_add(1.0)
        after = v.read_value()
        v.assign(after * 10.0)
        return before, after, v.read_value()
    before, after, last = f()
    assert (float(before), float(after), float(last)) == (1.0, 2.0, 20.0)
    ops = [n.op for n in f.get_concrete_function().graph.as_graph_def().node]
    assert ops.count("ReadVariableOp") == 3    # as TF: assign* return the variable unread


def test_operator_reads_after_assign_add():
    m = fn.Variable([0.0, 0.0])

    @fn.function
    def step(g):
        m.assign_add((g - m) * 0.5)
        return m * 2.0
    assert step(fn.constant([2.0, 4.0])).numpy().tolist() == [2.0, 4.0]
    assert step(fn.constant([2.0, 4.0])).numpy().tolist() == [3.0, 6.0]
