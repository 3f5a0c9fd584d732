"""TensorFlow's argument-naming tests, ported: placeholders of a ConcreteFunction are named after
the parameters (or the TensorSpec's name), and each placeholder op records the
`_user_specified_name` attr (tf_oracle).

Ported from TF 2.21's tensorflow/python/eager/polymorphic_function/argument_naming_test.py
(ArgumentNamingTests) and the CompilationArgumentNamingTest class of tracing_compilation_test.py,
whose `compiled_fn` decorator is TF-internal (tracing_compilation); here both run through the
public `tf.function`, which is what `compiled_fn` wraps.
"""
import numpy as np
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle


def _names(cf):
    return [inp.op.name for inp in cf.inputs]


def _user_names(cf):
    return [inp.op.get_attr("_user_specified_name") for inp in cf.inputs]


def test_basic():
    @tf.function
    def fn(a, b):
        return a + b, a * b

    fn(tf.ones([]), tf.ones([]))
    fn_op = fn.get_concrete_function(
        tf.TensorSpec(shape=(None,), dtype=tf.float32),
        tf.TensorSpec(shape=(), dtype=tf.float32),
    )
    assert _names(fn_op) == ["a", "b"]
    assert _user_names(fn_op) == [b"a", b"b"]
    assert len(fn_op.graph.structured_outputs) == 2
    if IS_TF:
        np.testing.assert_allclose(fn_op(tf.constant(1.0), tf.constant(2.0)), [3.0, 2.0])
        np.testing.assert_allclose(fn_op(a=tf.constant(1.0), b=tf.constant(2.0)), [3.0, 2.0])
    else:
        # docs/DESIGN.md, deliberate differences: flat ConcreteFunction calls check shapes (fn's
        # graphs are specialised to the traced shapes); TF runs `a` of shape () through (None,).
        with pytest.raises(tf.errors.InvalidArgumentError, match="expected to have shape"):
            fn_op(tf.constant(1.0), tf.constant(2.0))
    np.testing.assert_allclose(fn_op(tf.constant([1.0]), tf.constant(2.0)), [[3.0], [2.0]])
    np.testing.assert_allclose(fn_op(a=tf.constant([1.0]), b=tf.constant(2.0)), [[3.0], [2.0]])


def test_variable():
    @tf.function
    def fn(a, b):
        return a + b, a * b

    fn(tf.ones([]), tf.ones([]))
    fn_op = fn.get_concrete_function(
        tf.TensorSpec(shape=(None,), dtype=tf.float32), tf.Variable(1.0))
    assert _names(fn_op) == ["a", "b"]
    assert _user_names(fn_op) == [b"a", b"b"]
    assert len(fn_op.graph.structured_outputs) == 2


def test_dict_returned():
    @tf.function
    def fn(x, z=(1.0, 2.0), y=3.0):
        z1, z2 = z
        return {"alpha": x + y + z1, "beta": x * y + z2}

    fn(tf.ones([]))
    fn_op = fn.get_concrete_function(
        x=tf.TensorSpec(shape=(None,), dtype=tf.float32),
        y=tf.TensorSpec(shape=(), dtype=tf.float32),
    )
    assert _names(fn_op) == ["x", "y"]
    assert _user_names(fn_op) == [b"x", b"y"]
    assert set(fn_op.graph.structured_outputs.keys()) == {"alpha", "beta"}

    fn_op2 = fn.get_concrete_function(
        z=(tf.TensorSpec(shape=(None,), dtype=tf.float32, name="z_first"),
           tf.TensorSpec(shape=(), dtype=tf.float32, name="z_second")),
        y=tf.TensorSpec(shape=(), dtype=tf.float32, name="custom"),
        x=4.0,
    )
    assert _names(fn_op2) == ["z_first", "z_second", "custom"]
    assert _user_names(fn_op2) == [b"z_first", b"z_second", b"custom"]

    fn_op3 = fn.get_concrete_function(
        tf.TensorSpec(shape=(), dtype=tf.float32, name="custom"),
        z=(tf.TensorSpec(shape=(None,), dtype=tf.float32, name="z1"),
           tf.TensorSpec(shape=(), dtype=tf.float32, name="z2")),
        y=tf.TensorSpec(shape=(), dtype=tf.float32),
    )
    assert _names(fn_op3) == ["custom", "z1", "z2", "y"]
    assert _user_names(fn_op3) == [b"custom", b"z1", b"z2", b"y"]


def test_method():
    class HasMethod:
        @tf.function
        def method(self, x):
            return x

    has_method = HasMethod()
    HasMethod.method(has_method, tf.ones([]))
    class_op = HasMethod.method.get_concrete_function(
        has_method, tf.TensorSpec(shape=(), dtype=tf.float32))
    assert _names(class_op) == ["x"]
    assert _user_names(class_op) == [b"x"]
    has_method.method(tf.ones([]))
    method_op = has_method.method.get_concrete_function(tf.TensorSpec(shape=(), dtype=tf.float32))
    assert _names(method_op) == ["x"]
    assert _user_names(method_op) == [b"x"]
    # TF's test stops here ("Not working": a TensorSpec name given on a later
    # get_concrete_function does not rename the cached trace).


def test_method_signature():
    class HasMethod:
        @tf.function(input_signature=(tf.TensorSpec(shape=None, dtype=tf.float64, name="y"),))
        def method(self, x):
            hash(self)  # No weak proxies passed as `self`
            return x

    has_method = HasMethod()
    has_method.method(tf.ones([], dtype=tf.float64))
    method_op = has_method.method.get_concrete_function()
    assert _names(method_op) == ["y"]
    assert _user_names(method_op) == [b"y"]
    method_op2 = has_method.method.get_concrete_function()
    assert _names(method_op2) == ["y"]
    assert _user_names(method_op2) == [b"y"]


def test_variadic():
    @tf.function
    def variadic_fn(x, *args, **kwargs):
        return x + tf.math.add_n(list(args) + list(kwargs.values()))

    variadic_fn(tf.ones([]), tf.ones([]))
    variadic_op = variadic_fn.get_concrete_function(
        tf.TensorSpec(shape=(), dtype=tf.float32),
        tf.TensorSpec(shape=None, dtype=tf.float32, name="y"),
        tf.TensorSpec(shape=(), dtype=tf.float32),
        tf.TensorSpec(shape=(), dtype=tf.float32, name="second_variadic"),
        z=tf.TensorSpec(shape=(), dtype=tf.float32),
        zz=tf.TensorSpec(shape=(), dtype=tf.float32, name="cust"),
    )
    assert _names(variadic_op) == ["x", "y", "args_1", "second_variadic", "z", "cust"]
    assert _user_names(variadic_op) == [b"x", b"y", b"args_1", b"second_variadic", b"z", b"cust"]


def test_variadic_input_signature():
    @tf.function(input_signature=(
        tf.TensorSpec(shape=None, dtype=tf.float32),
        tf.TensorSpec(shape=None, dtype=tf.float32, name="y"),
        tf.TensorSpec(shape=(), dtype=tf.float32),
        tf.TensorSpec(shape=(), dtype=tf.float32, name="z"),
    ))
    def variadic_fn(x, *args):
        return x + tf.math.add_n(list(args))

    variadic_fn(tf.ones([]), tf.ones([]), tf.ones([]), tf.ones([]))
    variadic_op = variadic_fn.get_concrete_function()
    assert b"variadic_fn" in variadic_op.name
    assert _names(variadic_op) == ["x", "y", "args_1", "z"]
    assert _user_names(variadic_op) == [b"x", b"y", b"args_1", b"z"]


# CompilationArgumentNamingTest: the same naming through a function of a bound method ----------
def test_bound_method_compiled():
    class HasMethod:
        def method(self, x):
            return x

    compiled_method = tf.function(HasMethod().method)
    for _ in range(2):
        op = compiled_method.get_concrete_function(tf.TensorSpec(shape=(), dtype=tf.float32))
        assert _names(op) == ["x"]
        assert _user_names(op) == [b"x"]


def test_bound_method_compiled_with_signature():
    class HasMethod:
        def method(self, x):
            hash(self)
            return x

    compiled_method = tf.function(
        HasMethod().method,
        input_signature=(tf.TensorSpec(shape=None, dtype=tf.float64, name="y"),))
    for _ in range(2):
        op = compiled_method.get_concrete_function()
        assert _names(op) == ["y"]
        assert _user_names(op) == [b"y"]


# The Operation behind a placeholder, as far as these tests read it ---------------------------
def test_placeholder_operation():
    @tf.function
    def fn(a, b):
        return a + b

    cf = fn.get_concrete_function(tf.TensorSpec([2], tf.float32), tf.TensorSpec([2], tf.float32))
    op = cf.inputs[0].op
    assert op.type == "Placeholder"
    assert op.name == "a"
    assert list(op.inputs) == []
    assert [t.name for t in op.outputs] == ["a:0"]
    assert op.get_attr("dtype") == tf.float32
    out = cf.outputs[0]
    assert out.op.type == "Identity"
    add = out.op.inputs[0].op
    assert add.type in ("AddV2", "Add")
    assert [t.name for t in add.inputs] == ["a:0", "b:0"]
    with pytest.raises(ValueError, match="Operation 'a' has no attr named 'nope'"):
        op.get_attr("nope")
