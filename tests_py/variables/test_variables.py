"""fn.Variable, fn.Module, fn.init_scope and fn.py_function."""
import gc

import numpy as np
import pytest

from tfbackend import IS_TF, tf as fn  # noqa: F401

pytestmark = pytest.mark.tf_oracle


def test_variable_basics_and_repr():
    v = fn.Variable(1.0)
    assert repr(v) == f"<{'tf' if IS_TF else 'fn'}.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"
    assert v.assign(2.0).numpy() == 2.0
    assert v.assign_add(1.5).numpy() == 3.5
    assert v.assign_sub(0.5).numpy() == 3.0
    assert (v + 1).numpy() == 4.0 and (2 * v).numpy() == 6.0 and float(v) == 3.0
    w = fn.Variable([[1, 2], [3, 4]], name="w", trainable=False)
    assert w.name == "w:0" and w.dtype == fn.int32 and w.shape == fn.TensorShape([2, 2])
    assert not w.trainable and w.numpy().tolist() == [[1, 2], [3, 4]]
    assert fn.Variable(lambda: fn.ones([2])).numpy().tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="unhashable"):
        hash(v)
    assert v.ref() == v.ref()


def test_assign_errors():
    v = fn.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="Shape mismatch"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises((TypeError, ValueError)):
        v.assign(fn.constant([1, 2]))
    with pytest.raises(ValueError):
        fn.Variable(None)
    with pytest.raises(ValueError, match="not compatible"):
        fn.Variable([1.0, 2.0], shape=[3])


def test_functions_see_assignments_and_assign_in_order():
    v = fn.Variable(0)

    @fn.function
    def bump():
        v.assign_add(1)
        v.assign_add(10)
        return v.read_value()
    assert bump().numpy() == 11 and bump().numpy() == 22
    v.assign(100)
    assert bump().numpy() == 111
    assert bump.experimental_get_tracing_count() == 1


def test_variable_capture_in_nested_functions():
    v = fn.Variable(2.0)

    @fn.function
    def inner(x):
        return x * v

    @fn.function
    def outer(x):
        return inner(x) + v
    assert outer(fn.constant(3.0)).numpy() == 8.0
    v.assign(1.0)
    assert outer(fn.constant(3.0)).numpy() == 4.0


def test_each_read_is_its_own_tensor_for_gradients():
    v = fn.Variable(3.0)
    with fn.GradientTape() as tape:
        y = v.read_value() * v.read_value()
    assert tape.gradient(y, v).numpy() == 6.0      # d(v^2)/dv, not doubled
    with fn.GradientTape() as tape:
        y = v * v * 2.0
    assert tape.gradient(y, v).numpy() == 12.0


def test_variables_as_arguments_share_a_trace_per_dtype_and_shape():
    traces = []

    @fn.function
    def read(var):
        traces.append(var)
        return var.read_value()
    a, b = fn.Variable(1.0), fn.Variable(2.0)
    assert read(a).numpy() == 1.0 and read(b).numpy() == 2.0 and read(a).numpy() == 1.0
    assert len(traces) == 1 and traces[0] is a          # the Variable itself while tracing
    assert read(fn.Variable([1.0])).numpy().tolist() == [1.0]
    assert read(fn.Variable(1)).numpy() == 1
    assert len(traces) == 3

    @fn.function
    def bump(var, x):
        var.assign_add(x)
        return var.read_value()
    assert bump(a, fn.constant(1.0)).numpy() == 2.0 and bump(b, fn.constant(1.0)).numpy() == 3.0
    assert a.numpy() == 2.0 and b.numpy() == 3.0

    @fn.function
    def twice(x, y, c):
        return x + y + c

    @fn.function
    def once(x, c):
        return twice(x, x, c)
    m = fn.Variable(2, dtype=fn.int32)
    assert twice(m, m, fn.constant(1)).numpy() == 5 and once(m, fn.constant(1)).numpy() == 5
    with fn.GradientTape() as tape:
        y = read(b) * 3.0
    assert tape.gradient(y, b).numpy() == 3.0


def test_tape_watches_trainable_variables_read_in_functions():
    v = fn.Variable(3.0)
    frozen = fn.Variable(5.0, trainable=False)

    @fn.function
    def f(x):
        return v * v * x + frozen

    with fn.GradientTape() as tape:
        y = f(fn.constant(2.0))
    gv, gf = tape.gradient(y, [v, frozen])
    assert gv.numpy() == 12.0 and gf is None


def test_init_scope_runs_eagerly_while_tracing():
    v = fn.Variable(0)
    seen = []

    @fn.function
    def f():
        with fn.init_scope():
            seen.append(fn.executing_eagerly())
            v.assign_add(1)
        return v.read_value()
    assert f().numpy() == 1 and f().numpy() == 1 and seen == [True]


def test_module_walks_attributes():
    class Inner(fn.Module):
        def __init__(self):
            super().__init__()
            self.w = fn.Variable(1.0)

    class Outer(fn.Module):
        def __init__(self):
            super().__init__(name="outer")
            self.layers = [Inner(), Inner()]
            self.table = {"b": fn.Variable(2.0, trainable=False)}
    m = Outer()
    assert m.name == "outer" and Inner().name == "inner"
    assert len(m.variables) == 3 and len(m.trainable_variables) == 2
    assert len(m.submodules) == 2


def test_py_function_runs_every_call_and_reports_errors():
    calls = []

    def double(x):
        calls.append(1)
        return x.numpy() * 2

    @fn.function
    def f(x):
        return fn.py_function(double, [x], fn.float32)
    assert f(fn.constant(2.0)).numpy() == 4.0 and f(fn.constant(3.0)).numpy() == 6.0
    assert len(calls) == 2

    def broken(x):
        raise ValueError("boom")

    @fn.function
    def g(x):
        return fn.py_function(broken, [x], fn.float32)
    with pytest.raises(fn.errors.OpError, match="boom"):
        g(fn.constant(1.0))


@pytest.mark.fn_only  # TF 2.21 does not check the number of py_function results
def test_py_function_checks_result_count():
    @fn.function
    def wrong_count(x):
        return fn.py_function(lambda t: (t, t), [x], [fn.float32])
    with pytest.raises(fn.errors.InvalidArgumentError):
        wrong_count(fn.constant(1.0))


@pytest.mark.fn_only  # the guide (4.11) documents FailedPreconditionError; TF 2.21 keeps the variable alive
def test_deleted_variable_fails_cleanly():
    v = fn.Variable(np.float32(1.0))

    @fn.function
    def f():
        return v + 1.0
    c = f.get_concrete_function()
    del v, f
    gc.collect()
    with pytest.raises(fn.errors.FailedPreconditionError, match="Could not find variable"):
        c()
