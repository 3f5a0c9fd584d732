"""Datasets inside Functions: a dataset argument's trace type is its element spec (one trace per
spec, a graph whose size does not depend on the data: the guide's 3.4), a ``for`` over a
dataset is one graph loop that iterates afresh on every call, and datasets captured from
outside or built inside the trace work too."""
from __future__ import annotations

import pytest

import fn

D = fn.data.Dataset


def node_count(f, *args):
    return len(f.get_concrete_function(*args).graph.as_graph_def().node)


@fn.function
def train(dataset):
    loss = fn.constant(0)
    for x, y in dataset:
        loss += fn.abs(y - x)
    return loss


def test_guide_3_4_graph_size():
    small_data = [(1, 1)] * 3
    big_data = [(1, 1)] * 10
    assert node_count(train, small_data) == 11
    assert node_count(train, big_data) == 32
    small = node_count(train, D.from_generator(lambda: small_data, (fn.int32, fn.int32)))
    big = node_count(train, D.from_generator(lambda: big_data, (fn.int32, fn.int32)))
    # TF: 6 (dataset, Const, ScanDataset, ReduceDataset, Identity, NoOp); fn's loop is a While,
    # printed as TF prints one (its loop counter and maximum iterations are Const inputs).
    assert small == big == 7
    g = train.get_concrete_function(D.from_generator(lambda: big_data, (fn.int32, fn.int32))).graph
    assert [(n.name, n.op) for n in g.as_graph_def().node] == [
        ("dataset", "Placeholder"), ("Const", "Const"), ("MakeIterator", "PyCall"),
        ("while/maximum_iterations", "Const"), ("while/loop_counter", "Const"), ("while", "While"),
        ("Identity", "Identity")]


def test_one_trace_per_element_spec_and_fresh_iteration():
    @fn.function
    def total(dataset):
        s = fn.constant(0)
        for x, y in dataset:
            s += x * y
        return s
    a = D.from_generator(lambda: [(1, 2), (3, 4)], (fn.int32, fn.int32))
    b = D.from_generator(lambda: [(5, 6)], (fn.int32, fn.int32))
    assert int(total(a)) == 14
    assert int(total(b)) == 30
    assert int(total(a)) == 14           # the same dataset iterates afresh on every call
    assert total.experimental_get_tracing_count() == 1
    assert int(total(D.from_tensor_slices(([1, 2], [3, 4])))) == 11
    with pytest.raises(Exception):
        total(D.from_tensor_slices(([1.0], [2.0])))   # float elements: a new trace, int32 + float32 fails


def test_concrete_function_takes_any_dataset_of_its_spec():
    @fn.function
    def first(ds):
        return next(iter(ds))
    cf = first.get_concrete_function(D.range(3))
    assert int(cf(D.range(7, 9))) == 7
    assert "DatasetSpec(TensorSpec(shape=(), dtype=fn.int64, name=None), TensorShape([]))" in str(cf)
    with pytest.raises(TypeError):
        cf(D.from_tensor_slices(["a"]))


def test_captured_dataset_and_per_element_print(capsys):
    ds = D.range(3)

    @fn.function
    def f():
        s = fn.constant(0, fn.int64)
        for x in ds:
            fn.print("x", x)
            s += x
        return s
    assert int(f()) == 3 and int(f()) == 3
    assert capsys.readouterr().err == "x 0\nx 1\nx 2\n" * 2


def test_dataset_built_inside_from_graph_tensors():
    @fn.function
    def f(x):
        ds = D.from_tensor_slices(x).map(lambda v: v * 2).batch(2)   # `v` is also the loop variable
        s = fn.constant(0)
        for v in ds:
            s += fn.reduce_sum(v)
        return s
    assert int(f(fn.constant([1, 2, 3]))) == 12
    assert int(f(fn.constant([4, 5]))) == 18
    assert f.experimental_get_tracing_count() == 2     # (3,) then (2,)


def test_transforming_a_dataset_argument():
    @fn.function
    def f(ds):
        return next(iter(ds.skip(1).map(lambda x: x * 10)))
    assert int(f(D.range(5))) == 10
    assert int(f(D.range(3, 9))) == 40


def test_break_and_return_inside_dataset_loops():
    @fn.function
    def find(ds, target):
        found = fn.constant(-1, fn.int64)
        for i, x in ds.enumerate():
            if x == target:
                found = i
                break
        return found
    data = D.from_tensor_slices([5, 7, 9])
    assert int(find(data, 9)) == 2
    assert int(find(data, 4)) == -1

    @fn.function
    def find_return(ds, target):
        for i, x in ds.enumerate():
            if x == target:
                return i
        return fn.constant(-1, fn.int64)
    # As in TF: the loop's return value has no value before the loop.
    with pytest.raises(NotImplementedError, match="a return statement cannot be placed inside this fn loop"):
        find_return(data, 9)


def test_loop_variables_whose_shape_changes_are_relaxed():
    @fn.function
    def collect(ds):
        acc = fn.zeros([0], fn.int64)
        for b in ds:
            acc = fn.concat([acc, b], 0)
        return acc
    assert collect(D.range(5).batch(2)).numpy().tolist() == [0, 1, 2, 3, 4]


def test_reduce_inside_a_function_and_nested_functions():
    @fn.function
    def red(ds):
        return ds.reduce(fn.constant(0, fn.int64), lambda s, x: s + x)

    @fn.function
    def outer(ds):
        return red(ds) * 2
    assert int(red(D.range(5))) == 10 and int(red(D.range(3))) == 3
    assert int(outer(D.range(4))) == 12
    assert red.experimental_get_tracing_count() == 1   # the nested call reuses the trace (same spec)


def test_dict_elements():
    @fn.function
    def f(ds):
        s = fn.constant(0)
        for e in ds:
            s += e["a"] * e["b"]
        return s
    assert int(f(D.from_tensor_slices({"a": [1, 2], "b": [3, 4]}))) == 11


def test_generator_errors_surface_from_the_graph():
    ds = D.from_generator(lambda: iter([1, "a"]), fn.int32)

    @fn.function
    def f(d):
        s = fn.constant(0)
        for x in d:
            s += x
        return s
    with pytest.raises(fn.errors.InvalidArgumentError, match="did not match the expected structure"):
        f(ds)


def test_training_loop_over_a_dataset_updates_variables():
    w = fn.Variable(0.0)

    @fn.function
    def fit(ds):
        for x, y in ds:
            with fn.GradientTape() as tape:
                loss = fn.square(w * x - y)
            w.assign_sub(0.1 * tape.gradient(loss, w))
        return w.read_value()
    ds = D.from_tensor_slices(([1.0, 2.0, 1.0], [2.0, 4.0, 2.0]))
    for _ in range(20):
        fit(ds)
    assert abs(float(w.numpy()) - 2.0) < 1e-3
    assert fit.experimental_get_tracing_count() == 1


def test_iterating_an_argument_dataset_with_python_is_refused():
    @fn.function(autograph=False)
    def f(ds):
        return list(ds._elements())
    with pytest.raises(fn.errors.OperatorNotAllowedInGraphError):
        f(D.range(2))
