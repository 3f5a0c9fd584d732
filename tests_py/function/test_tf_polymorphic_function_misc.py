"""The rest of TensorFlow's FunctionTest/MultiDeviceTest that public API can express, ported
(tf_oracle): threads, captures, nested calls, out-of-scope tensors, retracing warnings,
recursion with gradients.

Ported from TF 2.21's tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py,
keeping each test's assertions (`check_ops.assert_equal_v2` is `tf.debugging.assert_equal`,
`assertLogs(level='WARN')` a handler on `tf.get_logger()`).
"""
import logging
import multiprocessing.pool
import re
import weakref

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.output = []

    def emit(self, record):
        self.output.append(record.getMessage())


@pytest.fixture
def warnings_log():
    handler = _Records()
    logger = tf.get_logger()
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


# Threads ------------------------------------------------------------------------------------
def test_get_concrete_function_thread_safety():
    @tf.function
    def sq():
        t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        return tf.linalg.matmul(t, t)

    concrete_functions = []
    pool = multiprocessing.pool.ThreadPool(16)
    pool.map(lambda _: concrete_functions.append(sq.get_concrete_function()), list(range(100)))
    pool.close()
    assert len(set(concrete_functions)) == 1


def test_get_concrete_function_thread_safety_with_args():
    @tf.function
    def add_100(*args):
        return tf.math.add_n(args)

    p = multiprocessing.pool.ThreadPool(2)
    args = (tf.constant(1.0),) * 100
    f1, f2 = p.map(add_100.get_concrete_function, [args] * 2)
    p.close()
    f1(*args)
    del f2


def test_executing_stateless_function_concurrently():
    @tf.function
    def stateless(x):
        return tf.math.multiply(2.0, x)

    pool = multiprocessing.pool.ThreadPool()
    inputs = [tf.constant(1.0 * x) for x in range(100)]
    outputs = [float(out) for out in pool.map(stateless, inputs)]
    pool.close()
    assert outputs == [float(2.0 * x) for x in inputs]


def test_executing_many_stateless_functions_concurrently():
    @tf.function
    def stateless(x):
        del x
        return tf.math.multiply(2.0, 2.0)

    pool = multiprocessing.pool.ThreadPool()
    outputs = [float(out) for out in pool.map(stateless, [object() for _ in range(100)])]
    pool.close()
    assert outputs == [4.0] * 100


def test_executing_stateful_function_concurrently():
    v = tf.Variable(1.0)

    @tf.function
    def stateful(x):
        v.assign(x)

    pool = multiprocessing.pool.ThreadPool()
    pool.map(stateful, [tf.constant(0.0)] * 100)
    pool.close()
    assert float(v.read_value()) == 0.0


# Captures and nested calls ------------------------------------------------------------------
def test_function_captured_int32():
    x = tf.constant(1, dtype=tf.int32)

    @tf.function
    def add_int32s():
        return x + x

    assert int(add_int32s()) == 2


def test_read_and_assign_add_variable():
    v = tf.Variable(1.0)
    x = tf.constant(2.0)

    @tf.function
    def f():
        return v.read_value()

    @tf.function
    def test_assign_add():
        v.assign_add(x)
        return v.read_value()

    assert float(f()) == 1.0
    assert float(test_assign_add()) == 3.0


def test_call_shape():
    @tf.function
    def f(x):
        return x + 1

    @tf.function
    def g(x):
        x = f(x)
        assert x.shape.as_list() == []
        return None

    g(tf.constant(1.0))


def test_tensor_conversion_call():
    @tf.function
    def f(x):
        return tf.math.add(x, tf.constant(3))

    @tf.function
    def g(x):
        return f(f(x))

    assert f(tf.constant(2)).numpy() == 5
    assert g(tf.constant(2)).numpy() == 8


def test_dict_output():
    @tf.function
    def f(x):
        return {"name": x + 1}

    assert f(tf.constant(1.0))["name"].numpy() == 2.0


def test_weakref_inputs_rejected():
    @tf.function
    def f(x):
        return x

    class Dummy:
        pass

    o = Dummy()
    with pytest.raises(TypeError, match="weakref"):
        f(weakref.ref(o))


def test_none_output():
    @tf.function
    def my_function(_):
        return None

    assert my_function(1) is None


def test_nested_function_with_no_output_and_taped_input():
    three = tf.Variable(3.0, name="v")

    @tf.function
    def f(x):
        tf.math.add(x, three)

    @tf.function
    def g(x):
        y = tf.math.add(x, three)
        f(y)

    g(three)


def test_gather_resource():
    v = tf.Variable([0.0, 1.0, 2.0])

    def sum_gather():
        return tf.reduce_sum(tf.gather(v, [1, 2]))

    assert sum_gather().numpy() == tf.function(sum_gather)().numpy()


def test_variable_capture_in_nested_functions():
    v = tf.Variable(1, dtype=tf.int32)

    @tf.function
    def inner_read():
        return v.read_value()

    @tf.function
    def outer():
        return inner_read()

    assert int(outer()) == 1


def test_return_captured_eager_tensor():
    t = tf.constant(1)

    @tf.function
    def read():
        return t

    assert int(read()) == 1


def test_control_dependency_after_inline():
    v = tf.Variable(0.0)

    @tf.function
    def assign():
        return v.assign(1.0)

    @tf.function
    def assign_add():
        return v.assign_add(1.0)

    @tf.function
    def f():
        tf.debugging.assert_equal(assign(), 1.0)
        tf.debugging.assert_equal(assign_add(), 2.0)

    for _ in range(30):
        f()


def test_read_in_func_write_outside():
    for _ in range(30):
        v = tf.Variable(1.0)

        @tf.function
        def add_one():
            return v + 1.0  # noqa: B023 (the loop's variable, as in TF's test)

        @tf.function
        def get_v_plus_one():
            v_plus_one = add_one()
            v.assign_add(2.0)  # noqa: B023
            return v_plus_one

        assert get_v_plus_one().numpy() == 2.0


def test_no_variables():
    @tf.function
    def fn(x):
        return 2 * x

    assert fn(tf.constant(4.0)).numpy() == 8.0


def test_function_initializer():
    state = []

    @tf.function
    def fn(x):
        if not state:
            state.append(tf.Variable(lambda: 2.0))
        return state[0] * x

    assert fn(tf.constant(1.0)).numpy() == 2.0


def test_indexed_slices_as_gradients_for_concrete_functions():
    @tf.function
    def summing_rnn(inputs):
        return tf.reduce_sum(inputs, axis=1)

    @tf.function
    def gradients(inputs):
        with tf.GradientTape() as tape:
            tape.watch(inputs)
            hidden = summing_rnn(inputs)
            hidden = tf.gather(hidden, tf.constant([0]))
            loss = tf.reduce_mean(hidden)
        return tape.gradient(loss, inputs)

    gradients(tf.constant([[[1.0], [2.0]]]))  # No error is raised


def test_nested_call_watched_variables():
    v = tf.Variable(4.0)

    @tf.function
    def f():
        return v**2.0

    with tf.GradientTape() as tape:
        f()
    assert tape.watched_variables() == (v,)

    @tf.function
    def g():
        return f()

    with tf.GradientTape() as tape:
        g()
    assert tape.watched_variables() == (v,)

    @tf.function
    def h():
        return g()

    with tf.GradientTape() as tape:
        h()
    assert tape.watched_variables() == (v,)


# Out-of-scope graph tensors -------------------------------------------------------------------
def test_error_message_when_graph_tensor_is_passed_to_eager():
    @tf.function
    def failing_function():
        a = tf.constant(1.0)
        with tf.init_scope():
            _ = a + a

    with pytest.raises(TypeError, match=re.compile("test_tf_polymorphic_function_misc.*out of scope", re.DOTALL)):
        failing_function()


def test_symbolic_tensor_illegal_capture_call_time_error():
    x = None

    @tf.function
    def f1(a):
        nonlocal x
        x = a
        return a

    @tf.function
    def f2(b):
        return b + x

    f1(tf.constant(1))
    with pytest.raises(TypeError, match=re.compile("test_tf_polymorphic_function_misc.*out of scope", re.DOTALL)):
        f2(tf.constant(2))


def test_symbolic_tensor_illegal_capture_trace_time_error():
    @tf.function
    def f(inputs):
        num_steps, _ = inputs.shape[:2]
        outputs = []
        for t in tf.range(num_steps):
            outputs.append(inputs[t])
        return outputs

    # TF raises errors.InaccessibleTensorError (not public; a ValueError).
    with pytest.raises(ValueError, match="out of scope"):
        f(tf.zeros(shape=(8, 42, 3)))


# Retracing warnings -----------------------------------------------------------------------------
def test_frequent_retracing_warning(warnings_log):
    @tf.function
    def f(x):
        return x

    for i in range(1, 5):
        f(i)
    assert warnings_log.output == []
    f(5)
    assert len(warnings_log.output) == 1
    assert "Tracing is expensive" in warnings_log.output[0]


def test_frequent_retracing_warning_lambda(warnings_log):
    f = tf.function(lambda x: x)
    for i in range(1, 6):
        f(i)
    assert len(warnings_log.output) == 1
    assert "Tracing is expensive" in warnings_log.output[0]


def test_frequent_retracing_warning_two_independent_tf_functions(warnings_log):
    @tf.function
    def f(x):
        return x

    @tf.function
    def g(x):
        return x

    for i in range(1, 5):
        f(i)
    for i in range(1, 6):
        g(i)
    assert len(warnings_log.output) == 1
    assert "Tracing is expensive" in warnings_log.output[0]


def test_frequent_retracing_warning_on_reinstantiation(warnings_log):
    for i in range(5):
        @tf.function
        def f(x):
            return x

        f(i)
        if i < 4:
            assert warnings_log.output == []
    assert len(warnings_log.output) == 1
    assert "Tracing is expensive" in warnings_log.output[0]


def test_retracing_warning_limits(warnings_log):
    @tf.function
    def my_func(x):
        return x

    for i in range(10):
        my_func(i)
    assert len(warnings_log.output) == 2


# Recursion with gradients -----------------------------------------------------------------------
def test_recursive_python_function():
    def recursive_py_fn(n):
        if n > 0:
            return recursive_py_fn(n - 1)
        return 1

    assert tf.function(lambda n: recursive_py_fn(n))(5).numpy() == 1


def test_recursive_python_function_with_gradients():
    def recursive_py_fn(n, x):
        if n > 0:
            return n * recursive_py_fn(n - 1, x)
        return x

    recursive_fn = tf.function(lambda n, x: recursive_py_fn(n, x))
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        g = recursive_fn(5, x)
    assert tape.gradient(g, x).numpy() == 120


def test_recursive_tf_function_call_each_other_with_gradients():
    @tf.function
    def recursive_fn1(n, x):
        if n <= 1:
            return x
        return n * recursive_fn2(n - 1, x)

    @tf.function
    def recursive_fn2(n, x):
        if n <= 1:
            return 2 * x
        return n * recursive_fn1(n - 1, x)

    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        g1 = recursive_fn1(5, x)
    assert tape.gradient(g1, x).numpy() == 120
    with tf.GradientTape() as tape:
        g2 = recursive_fn2(5, x)
    assert tape.gradient(g2, x).numpy() == 240


def test_zip_strict_builtin():
    @tf.function
    def foo(x):
        return list(zip([x], [x], strict=True))

    assert foo(2)[0][0].numpy() == 2


def test_numpy_outputs_match():
    # testBasicGraphMode / testNestedInputsGraphMode: a Function calling a Function.
    matmul = tf.function(tf.linalg.matmul)

    @tf.function
    def sq(a):
        return matmul(a, a)

    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(sq(t), tf.linalg.matmul(t, t).numpy())
