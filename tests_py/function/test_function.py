"""fn.function: trace types and retracing, the cache API, concrete functions, methods, threads."""
import collections
import gc
import logging
import threading

import numpy as np
import pytest

from tfbackend import IS_TF, tf as fn  # noqa: F401

pytestmark = pytest.mark.tf_oracle


def counting(f):
    """A Function whose Python body counts its traces."""
    calls = []

    def body(*args, **kwargs):
        calls.append(1)
        return f(*args, **kwargs)
    body.__name__ = f.__name__
    return fn.function(body, autograph=False), calls


def test_tensors_retrace_by_dtype_and_shape_only():
    f, traces = counting(lambda x: x + x)
    f(fn.constant(1)); f(fn.constant(2)); f(fn.constant(1.0)); f(fn.constant([1, 2])); f(fn.constant([3, 4]))
    assert len(traces) == 3
    assert f(fn.constant([5, 6])).numpy().tolist() == [10, 12]


@pytest.mark.fn_only  # TF 2.21 treats 1, True and 1.0 as one trace type (docs/DESIGN.md)
def test_python_values_retrace_by_value_and_type():
    f, traces = counting(lambda x: fn.constant(1))
    msgs = _logged(lambda: [f(v) for v in [1, 1, 2, True, 1.0, "a", "a", None, None]])
    assert len(msgs) == 2   # the frequent-retracing warning (5th and 6th traces)
    assert len(traces) == 6   # 1, 2, True, 1.0, "a", None


def test_containers_and_dicts():
    f, traces = counting(lambda x: fn.constant(0))
    f([1, 2]); f([1, 2]); f([2, 1]); f((1, 2))
    assert len(traces) == 3
    g, gtraces = counting(lambda x: fn.constant(0))
    g({1: 2, 3: 4}); g({3: 4, 1: 2})
    assert len(gtraces) == 1
    Point = collections.namedtuple("Point", "x y")
    h, htraces = counting(lambda p: p.x + p.y)
    assert h(Point(fn.constant(1), fn.constant(2))).numpy() == 3
    h(Point(fn.constant(5), fn.constant(6)))
    assert len(htraces) == 1


def test_generic_objects_match_while_alive_and_unhashable_objects_fail():
    class Obj:
        pass
    f, traces = counting(lambda o: fn.constant(0))
    a = Obj()
    f(a); f(a)
    assert len(traces) == 1
    f(Obj()); f(Obj())
    assert len(traces) == 3

    class Unhashable:
        __hash__ = None
    with pytest.raises(TypeError, match="hashable"):
        f(Unhashable())


def test_custom_trace_type():
    class KindType(fn.types.experimental.TraceType):
        def __init__(self, kind):
            self.kind = kind

        def is_subtype_of(self, other):
            return type(other) is KindType and self.kind == other.kind

        def most_specific_common_supertype(self, others):
            return self if all(self == o for o in others) else None

        def __eq__(self, other):
            return type(other) is KindType and self.kind == other.kind

        def __hash__(self):
            return hash(self.kind)

        def placeholder_value(self, placeholder_context=None):
            return Thing(self.kind)

    class Thing:
        def __init__(self, kind):
            self.kind = kind

        def __tf_tracing_type__(self, context):
            return KindType(self.kind)
    f, traces = counting(lambda t: fn.constant(t.kind))
    assert f(Thing(1)).numpy() == 1
    assert f(Thing(1)).numpy() == 1
    f(Thing(2))
    assert len(traces) == 2


def test_most_specific_trace_is_chosen():
    f, traces = counting(lambda x: fn.constant(str(x.shape)))
    f.get_concrete_function(fn.TensorSpec([None], fn.int32))
    f.get_concrete_function(fn.TensorSpec(None, fn.int32))
    assert f(fn.constant([1, 2])).numpy() == b"(None,)"
    assert f(fn.constant([[1]])).numpy() == b"<unknown>"
    assert len(traces) == 2


def test_input_signature():
    f, traces = counting(lambda x: x + 1)
    f = fn.function(f.python_function, input_signature=[fn.TensorSpec([None], fn.int32)])
    assert f(fn.constant([1, 2])).numpy().tolist() == [2, 3]
    assert f([4, 5, 6]).numpy().tolist() == [5, 6, 7]        # Python lists convert to the spec
    assert f.experimental_get_tracing_count() == 1
    # TF 2.21 raises TypeError; the guide catches ValueError: fn's exception is both.
    with pytest.raises(TypeError, match=r"Binding inputs to tf.function failed due to `Can not cast "
                       r"TensorSpec\(shape=\(1, 1\), dtype=(fn|tf).int32, name=None\) to "
                       r"TensorSpec\(shape=\(None,\), dtype=(fn|tf).int32, name=None\)`"):
        f(fn.constant([[1]]))
    with pytest.raises(TypeError, match=r"for signature: \(args_0: TensorSpec\(shape=\(None,\), dtype=(fn|tf).int32"):
        f(fn.constant([1.0]))
    with pytest.raises(TypeError):
        fn.function(lambda x: x, input_signature=[3])


def test_reduce_retracing_generalises_shapes():
    f, traces = counting(lambda x: x + 1)
    f = fn.function(f.python_function, reduce_retracing=True, autograph=False)
    f(fn.constant([1])); f(fn.constant([1, 2])); f(fn.constant([1, 2, 3])); f(fn.constant([1, 2, 3, 4]))
    assert f.experimental_get_tracing_count() == 2
    assert "shape=(None,)" in f.pretty_printed_concrete_signatures()


def test_keyword_calls_and_defaults_share_traces():
    traces = []

    @fn.function
    def f(x, y=2):
        traces.append(1)
        return x + y
    x = fn.constant(1)
    assert f(x).numpy() == 3
    assert f(x, 2).numpy() == 3
    assert f(x, y=2).numpy() == 3
    assert f(y=2, x=x).numpy() == 3
    assert len(traces) == 1
    with pytest.raises(TypeError):
        f(x, 2, 3)


def test_nested_outputs_and_python_values():
    @fn.function
    def f(x):
        return {"a": x, "b": [x + x, None], "c": 3}
    out = f(fn.constant(1))
    assert out["a"].numpy() == 1 and out["b"][0].numpy() == 2 and out["b"][1] is None
    assert isinstance(out["c"], fn.Tensor) and out["c"].numpy() == 3
    out = f(fn.constant(5))
    assert out["b"][0].numpy() == 10


def test_functions_calling_functions_inline():
    @fn.function
    def inner(a, b):
        return a + b

    @fn.function
    def outer(x):
        return inner(x, x) + inner(x, fn.constant(1))
    assert outer(fn.constant(3)).numpy() == 10
    ops = [n.op for n in outer.get_concrete_function(fn.constant(3)).graph.as_graph_def().node]
    assert "AddV2" in ops and ops.count("Placeholder") == 1


@pytest.mark.fn_only  # beyond TF: cache_info, clear_cache, max_cache_size
def test_cache_info_clear_and_bounded_cache():
    f = fn.function(lambda x: x + 1, max_cache_size=2, autograph=False)
    for i in range(4):
        f(fn.constant([0] * (i + 1)))
    info = f.cache_info()
    assert info["size"] == 2 and info["evictions"] == 2 and info["traces"] == 4
    assert info["trace_seconds"] > 0
    f(fn.constant([0] * 4))
    assert f.cache_info()["hits"] >= 1
    f.clear_cache()
    assert f.cache_info()["size"] == 0
    f(fn.constant([0] * 4))
    assert f.experimental_get_tracing_count() == 5


@pytest.mark.fn_only  # beyond TF: fn.config.explain_retracing
def test_explain_retracing(capsys):
    f = fn.function(lambda x, n: x + n, autograph=False)
    f(fn.constant(1), 1)
    fn.config.explain_retracing(True)
    try:
        f(fn.constant(1), 2)
    finally:
        fn.config.explain_retracing(False)
    err = capsys.readouterr().err
    assert "argument 'n'" in err and "Literal[1]" in err and "Literal[2]" in err


class _Records(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _logged(body):
    handler = _Records()
    fn.get_logger().addHandler(handler)
    try:
        body()
    finally:
        fn.get_logger().removeHandler(handler)
    return [m for m in handler.messages if "retracing" in m]


def test_frequent_retracing_is_logged_as_tf_does():
    f = fn.function(lambda n: fn.constant(n), autograph=False)
    assert _logged(lambda: [f(i) for i in range(4)]) == []
    msgs = _logged(lambda: f(4))
    assert len(msgs) == 1 and msgs[0].startswith("5 out of the last 5 calls to <function test_frequent_retracing")
    assert "triggered tf.function retracing" in msgs[0]
    assert len(_logged(lambda: [f(100 + i) for i in range(20)])) == 1   # at most twice per function

    def g(x):
        return x + 1
    assert len(_logged(lambda: [fn.function(g)(fn.constant(i)) for i in range(6)])) == 2   # Functions in a loop


@pytest.mark.fn_only  # fn adds which argument changed (beyond TF)
def test_frequent_retracing_message_explains_the_retrace():
    f = fn.function(lambda n: fn.constant(n), autograph=False)
    msgs = _logged(lambda: [f(i) for i in range(6)])
    assert msgs and "argument 'n'" in msgs[0]


@pytest.mark.fn_only  # inspects fn's per-instance cache
def test_methods_have_a_cache_per_instance_held_weakly():
    class Model:
        def __init__(self, k):
            self.k = k

        @fn.function
        def __call__(self, x):
            return x * 1 + self.k if False else x + self.k
    a, b = Model(1), Model(10)
    assert a(fn.constant(1)).numpy() == 2
    assert b(fn.constant(1)).numpy() == 11
    assert a.__call__ is a.__call__
    assert a.__call__ is not b.__call__
    n_bound = len(Model.__call__._bound_functions)
    del a
    gc.collect()
    assert len(Model.__call__._bound_functions) == n_bound - 1


def test_run_functions_eagerly():
    f, traces = counting(lambda x: x + 1)
    fn.config.run_functions_eagerly(True)
    try:
        assert f(fn.constant(1)).numpy() == 2
        f(fn.constant(1))
        assert len(traces) == 2 and fn.config.functions_run_eagerly()
    finally:
        fn.config.run_functions_eagerly(False)
    f(fn.constant(1)); f(fn.constant(1))
    assert len(traces) == 3


def test_concurrent_first_calls_trace_once_and_calls_are_thread_safe():
    f, traces = counting(lambda x: x + x)
    x = fn.constant(np.arange(1000, dtype=np.float32))
    errors = []
    barrier = threading.Barrier(8)

    def work():
        try:
            barrier.wait()
            for _ in range(200):
                assert f(x).numpy()[3] == 6.0
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(traces) == 1


def test_leaked_tensor_is_out_of_scope():
    leaked = []

    @fn.function
    def leak(x):
        y = x + x
        leaked.append(y)
        return y
    leak(fn.constant(1))
    with pytest.raises(AttributeError, match="Tensor' object has no attribute 'numpy'"):
        leaked[0].numpy()
    with pytest.raises(TypeError, match="is out of scope and cannot be used here"):
        leaked[0] + 1

    @fn.function
    def use():
        return leaked[0] + 1
    with pytest.raises(TypeError, match="was defined here"):
        use()


def test_graph_tensor_as_python_bool_is_not_allowed():
    @fn.function(autograph=False)
    def f(x):
        if x:
            return x
        return x
    with pytest.raises(fn.errors.OperatorNotAllowedInGraphError):
        f(fn.constant(True))


def test_concrete_function_api():
    @fn.function
    def scale(a, b=2):
        return a + a
    c = scale.get_concrete_function(fn.TensorSpec([None], fn.float32, name="a"), 2)
    assert c(fn.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert c(a=fn.constant([1.0])).numpy().tolist() == [2.0]
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed due to `Can not cast 3 to Literal"):
        c(fn.constant([1.0]), b=3)
    with pytest.raises(fn.errors.InvalidArgumentError, match="expected to be a float tensor but is a int32 tensor"):
        c(fn.constant([1]))
    assert [n.name for n in c.graph.get_operations()] == ["a", "add", "Identity"]
    assert c.structured_input_signature == ((fn.TensorSpec([None], fn.float32, "a"), 2), {})


@pytest.mark.fn_only  # the guide's (2.14) signature format; TF 2.21 prints "Input Parameters:"
def test_concrete_function_text():
    @fn.function
    def scale(a, b=2):
        return a + a
    c = scale.get_concrete_function(fn.TensorSpec([None], fn.float32, name="a"), 2)
    assert str(c).startswith("ConcreteFunction scale(a, b=2)")
    assert "AddV2" in c.graph.to_text()
    with pytest.raises(TypeError, match="was constructed with int value 2 in b, but was called with int value 3"):
        c(fn.constant([1.0]), b=3)


@pytest.mark.fn_only  # the guide (4.11) documents FailedPreconditionError; TF 2.21 keeps the variable alive
def test_variables_captured_by_reference_and_deleted_variable():
    v = fn.Variable(1.0)

    @fn.function
    def read():
        return v.read_value()
    assert read().numpy() == 1.0
    v.assign(5.0)
    assert read().numpy() == 5.0
    c = read.get_concrete_function()
    del v, read
    gc.collect()
    with pytest.raises(fn.errors.FailedPreconditionError):
        c()


def test_variable_singleton_rule():
    @fn.function
    def bad(x):
        v = fn.Variable(1.0)
        return v.read_value() + x
    with pytest.raises(ValueError, match="only supports singleton (fn|tf).Variables created on the first call"):
        bad(fn.constant(1.0))

    class Counter(fn.Module):
        def __init__(self):
            self.count = None

        @fn.function
        def __call__(self):
            if self.count is None:
                self.count = fn.Variable(0)
            return self.count.assign_add(1)
    c = Counter()
    assert c().numpy() == 1 and c().numpy() == 2
    assert len(c.variables) == 1


@pytest.mark.fn_only  # inspects fn's C++ fast path
def test_keyword_and_default_calls_take_the_fast_path():
    @fn.function
    def g(x, y=1):
        return x + y
    x = fn.constant(1)
    assert g(x, y=2).numpy() == 3            # traces
    before = g._fast_hits
    assert g(x, y=2).numpy() == 3 and g(y=2, x=x).numpy() == 3 and g(x, 2).numpy() == 3
    assert g._fast_hits == before + 3
    assert g(x).numpy() == 2 and g(x=x).numpy() == 2
    with pytest.raises(TypeError, match="multiple values"):
        g(x, x=x)
    with pytest.raises(TypeError, match="unexpected keyword"):
        g(x, z=1)
    assert g.experimental_get_tracing_count() == 2
