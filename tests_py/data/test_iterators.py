"""fn.data.Iterator eagerly and inside Functions (guide 4.4): ``next(iterator)`` in a Function is
a graph op that advances the iterator on every call; the end of the data is StopIteration
eagerly and ``OutOfRangeError`` ("End of sequence") from ``get_next`` or a graph."""
from __future__ import annotations

import pytest

import fn

D = fn.data.Dataset


def test_eager_iterator():
    it = iter(D.from_tensor_slices([1, 2, 3]))
    assert isinstance(it, fn.data.Iterator)
    assert it.element_spec == fn.TensorSpec([], fn.int32)
    assert int(next(it)) == 1 and int(it.get_next()) == 2 and int(it.next()) == 3
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(fn.errors.OutOfRangeError) as e:
        it.get_next()
    assert str(e.value) == "End of sequence"


def test_each_iter_starts_afresh():
    ds = D.range(3)
    a, b = iter(ds), iter(ds)
    assert int(next(a)) == 0 and int(next(a)) == 1 and int(next(b)) == 0


def test_iterator_argument_advances_per_call(capsys):
    @fn.function
    def good_consume_next(iterator):
        fn.print("Value:", next(iterator))
    iterator = iter(D.from_tensor_slices([1, 2, 3]))
    for _ in range(3):
        good_consume_next(iterator)
    assert capsys.readouterr().err == "Value: 1\nValue: 2\nValue: 3\n"
    with pytest.raises(fn.errors.OutOfRangeError) as e:
        good_consume_next(iterator)
    # TF 2.21: the Function call's "Graph execution error" naming the node and where it was traced.
    assert str(e.value).startswith("Graph execution error:\n\nDetected at node IteratorGetNext defined at")
    assert "in good_consume_next\n\nEnd of sequence\n\t [[{{node IteratorGetNext}}]] [Op:__inference_" in str(e.value)
    assert good_consume_next.experimental_get_tracing_count() == 1


def test_iterator_trace_type_is_its_element_spec(capsys):
    @fn.function
    def f(iterator):
        return next(iterator)
    assert int(f(iter(D.from_tensor_slices([7, 8])))) == 7
    assert int(f(iter(D.from_tensor_slices([9])))) == 9                  # same spec: same trace
    assert f.experimental_get_tracing_count() == 1
    assert f(iter(D.from_tensor_slices([[7, 8]]))).numpy().tolist() == [7, 8]   # new spec
    assert f.experimental_get_tracing_count() == 2
    sig = f.pretty_printed_concrete_signatures()
    assert "iterator: IteratorSpec(TensorSpec(shape=(), dtype=fn.int32, name=None),)" in sig
    graph = f.get_concrete_function(iter(D.from_tensor_slices([1]))).graph
    assert [(n.name, n.op) for n in graph.as_graph_def().node][:2] == [("iterator", "Placeholder"),
                                                                      ("IteratorGetNext", "PyCall")]


def test_python_iterator_argument_is_a_constant_of_the_trace(capsys):
    @fn.function
    def buggy_consume_next(iterator):
        fn.print("Value:", next(iterator))
    iterator = iter([1, 2, 3])
    for _ in range(3):
        buggy_consume_next(iterator)
    assert capsys.readouterr().err == "Value: 1\nValue: 1\nValue: 1\n"


def test_nested_elements_and_get_next_in_a_function():
    it = iter(D.from_tensor_slices({"a": [1, 2], "b": (["x", "y"], [0.5, 1.5])}))

    @fn.function
    def f(iterator):
        e = iterator.get_next()
        return e["a"] * 10, e["b"][0], e["b"][1]
    a, s, v = f(it)
    assert (int(a), s.numpy(), float(v)) == (10, b"x", 0.5)
    a, s, v = f(it)
    assert (int(a), s.numpy(), float(v)) == (20, b"y", 1.5)


def test_captured_iterator_advances_per_call():
    it = iter(D.range(10, 13))

    @fn.function
    def f():
        return next(it)
    assert [int(f()) for _ in range(3)] == [10, 11, 12]
    with pytest.raises(fn.errors.OutOfRangeError):
        f()


def test_for_over_iterator_in_a_function_consumes_it():
    @fn.function
    def total(iterator):
        s = fn.constant(0, fn.int64)
        for x in iterator:
            if x > 2:
                break
            s += x
        return s
    it = iter(D.range(10))
    assert int(total(it)) == 3
    assert int(next(it)) == 4      # the loop consumed 0..3 (3 broke out), as TF
    assert int(total(it)) == 0     # 5 > 2: breaks at once


def test_symbolic_iterator_python_loop_is_refused():
    @fn.function(autograph=False)
    def f(iterator):
        for x in iterator:
            pass
    with pytest.raises(fn.errors.OperatorNotAllowedInGraphError):
        f(iter(D.range(2)))
