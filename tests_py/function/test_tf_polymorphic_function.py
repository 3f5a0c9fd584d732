"""TensorFlow's tf.function tests, ported (tf_oracle): input signatures with missing or
non-TensorSpec entries, structured-signature mismatches of ConcreteFunctions, constant
propagation through nested functions in shape inference, `variable_creator_scope`, variable
naming, retracing on variable combinations, and functions that mutate their input lists/dicts.

Ported from TF 2.21's tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py
(FunctionTest), keeping each test's assertions; TF-internal helpers are replaced by public API
(`_list_all_concrete_functions()` by `experimental_get_tracing_count()`, `array_ops_stack` by
`tf.stack`/`tf.unstack`, `module.Module` by `tf.Module`, `ops.name_scope(skip_on_eager=False)`
by `tf.name_scope`).
"""
import functools

import numpy as np
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle

# Specs print with the backend's module prefix (`dtype=tf.int32`; fn prints `dtype=fn.int32`).
P = "tf" if IS_TF else "fn"


# Input signatures -----------------------------------------------------------------------------
def test_input_signature_must_be_sequence_of_tensor_specs():
    def foo(a, b):
        del a, b

    signature = [(2, 3), tf.TensorSpec([2, 3], tf.float32)]
    with pytest.raises(TypeError, match="input_signature.*nested sequence"):
        tf.function(foo, input_signature=signature)


def test_inputs_incompatible_with_signature_raises_error():
    def foo(a):
        return a

    signature = [tf.TensorSpec(shape=(2,), dtype=tf.float32)]
    defined = tf.function(foo, input_signature=signature)
    defined(tf.ones([2]))
    with pytest.raises(TypeError, match=rf"Can not cast .*dtype={P}.int32.* to .*dtype={P}.float32.*"):
        defined(tf.ones([3], dtype=tf.int32))
    with pytest.raises(TypeError, match="Can not cast.*"):
        defined(tf.ones([3]))
    with pytest.raises(TypeError, match="Can not cast.*"):
        defined(tf.ones([2, 1]))
    with pytest.raises(TypeError, match="too many positional arguments"):
        defined(tf.ones([2]), tf.ones([2]))
    with pytest.raises(TypeError, match="missing a required argument"):
        defined()
    with pytest.raises(TypeError, match=r"Can not cast .*shape=\(3,\).* to .*shape=\(2,\).*"):
        defined.get_concrete_function(tf.TensorSpec(shape=(3,), dtype=tf.float32))


def test_mismatched_concrete_signature_raises_error():
    @tf.function
    def run_test():
        @tf.function
        def f(x):
            return x

        with pytest.raises(TypeError, match="Binding inputs to tf.function failed .*"):
            f.get_concrete_function(1)(tf.constant(1))
        f.get_concrete_function(tf.constant(1))(1)
        with pytest.raises(TypeError, match="Binding inputs to tf.function failed .*"):
            f.get_concrete_function(1)(2)

    run_test()


def test_input_signature_conversion_with_default_arg():
    def foo(a, training=True):
        if training:
            return a
        else:
            return -1.0 * a

    signature = [tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.bool)]
    defined = tf.function(foo, input_signature=signature)
    a = tf.constant(1.0)
    np.testing.assert_array_equal(defined(a), a.numpy())
    np.testing.assert_array_equal(defined(a, training=True), a.numpy())
    np.testing.assert_array_equal(defined(a, training=False), -a.numpy())


def test_variable_spec_with_input_signature():
    def f(v):
        v.assign_add(1)

    # TF's test builds `resource_variable_ops.VariableSpec` (not public); the public
    # `tf.type_spec_from_value` of a Variable is that spec.
    signature = [tf.type_spec_from_value(tf.Variable(0))]
    with pytest.raises(TypeError, match="input_signature doesn't support VariableSpec"):
        tf.function(f, input_signature=signature)


def test_empty_input_signatures():
    class Foo:
        @tf.function(input_signature=[])
        def bar_none(self):
            return 1

        @tf.function(input_signature=[])
        def bar_one(self, x=0):
            return x

        @tf.function(input_signature=[])
        def bar_two(self, x=0, y=1):
            return x + y

    foo = Foo()
    assert foo.bar_none.input_signature == ()
    assert foo.bar_one.input_signature == ()
    assert foo.bar_two.input_signature == ()


def test_unspecified_default_argument():
    wrapped = tf.function(lambda x, y=2: x + y, input_signature=[tf.TensorSpec((), tf.int32)])
    assert wrapped(tf.constant(1)).numpy() == 3


def test_concrete_function_from_signature():
    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def compute(x):
        return 2.0 * x

    concrete = compute.get_concrete_function()
    np.testing.assert_allclose(concrete(tf.constant(0.5)), 1.0)
    concrete = compute.get_concrete_function(tf.TensorSpec(None, tf.float32))
    np.testing.assert_allclose(concrete(tf.constant(2.0)), 4.0)
    signature_args, _ = concrete.structured_input_signature
    assert signature_args == (tf.TensorSpec(None, tf.float32, name="x"),)


_MISSING = "input_signature missing type constraint"
_SIG = (tf.TensorSpec([], tf.int32),)


def _missing_cases():
    # pylint: disable=unused-argument
    def f1(arg1, arg2, arg3):
        pass

    def f2(arg1, arg2, arg3, **kwargs):
        pass

    def f3(arg1, arg2, arg3, arg4=4, **kwargs):
        pass

    def f4(arg1, arg2, arg3, *args):
        pass

    def f5(arg1, arg2, arg3, *args, **kwargs):
        pass

    def f6(arg1, arg4=4, **kwargs):
        return arg1 + arg4

    return [f1, f2, f3, f4, f5], f6


def test_input_signature_missing_tensor_specs_method():
    class MyModule(tf.Module):
        def f1(self, arg1, arg2, arg3):
            pass

        def f2(self, arg1, arg2, arg3, **kwargs):
            pass

        def f3(self, arg1, arg2, arg3, arg4=4, **kwargs):
            pass

        def f4(self, arg1, arg2, arg3, *args):
            pass

        def f5(self, arg1, arg2, arg3, *args, **kwargs):
            pass

        def f6(self, arg1, arg4=4, **kwargs):
            return arg1 + arg4

    m = MyModule()
    tf_func_dec = tf.function(input_signature=_SIG)
    for f in (m.f1, m.f2, m.f3, m.f4, m.f5):
        with pytest.raises(TypeError, match=_MISSING):
            tf_func_dec(f)(1, 2, 3)
    assert tf_func_dec(m.f6)(1).numpy() == 5


def test_input_signature_missing_tensor_specs_function():
    tf_func_dec = tf.function(input_signature=_SIG)
    bad, good = _missing_cases()
    for f in bad:
        with pytest.raises(TypeError, match=_MISSING):
            tf_func_dec(f)(1, 2, 3)
    assert tf_func_dec(good)(1).numpy() == 5


def test_input_signature_missing_tensor_specs_lambda_function():
    tf_func_dec = tf.function(input_signature=_SIG)
    for f in (lambda ar1, arg2, arg3: None,
              lambda arg1, arg2, arg3, **kwargs: None,
              lambda arg1, arg2, arg3, arg4=4, **kwargs: None,
              lambda arg1, arg2, arg3, *args: None,
              lambda arg1, arg2, arg3, *args, **kwargs: None):
        with pytest.raises(TypeError, match=_MISSING):
            tf_func_dec(f)(1, 2, 3)
    assert tf_func_dec(lambda arg1, arg4=4, **kwargs: arg1 + arg4)(1).numpy() == 5


@pytest.mark.parametrize("func_type", ["method", "function", "lambda_function"])
def test_input_signature_partial_func_missing_tensor_specs(func_type):
    if func_type == "method":
        class MyModule(tf.Module):
            def f(self, arg1, arg2, arg3, arg4=4):
                return arg1 + arg2 + arg3 + arg4
        f = MyModule().f
    elif func_type == "function":
        def f(arg1, arg2, arg3, arg4=4):
            return arg1 + arg2 + arg3 + arg4
    else:
        f = lambda arg1, arg2, arg3, arg4=4: arg1 + arg2 + arg3 + arg4  # noqa: E731

    tf_func_dec = tf.function(input_signature=_SIG)
    with pytest.raises(TypeError, match=_MISSING):
        tf_func_dec(functools.partial(f, 1))(2, 3)
    with pytest.raises(TypeError, match=_MISSING):
        tf_func_dec(functools.partial(f, arg4=5))(1, 2, 3)
    with pytest.raises(TypeError, match=_MISSING):
        tf_func_dec(functools.partial(f, 1, arg4=5))(2, 3)
    np.testing.assert_array_equal(tf_func_dec(functools.partial(f, 1, 2, arg4=5))(3), 11)


# Structured-signature errors of a ConcreteFunction ---------------------------------------------
_STRUCTURED_CASES = {
    "MissingArg": dict(conc_args=lambda: (1, tf.constant(2)), call_args=lambda: (1,),
                       error=r"missing a required argument: 'y'"),
    "MissingVararg": dict(conc_args=lambda: (1, 2, tf.constant(1.0)), call_args=lambda: (1, 2),
                          error=r"missing a required argument: 'varargs_0'"),
    "ExtraPositionalArg": dict(conc_args=lambda: (1, 2), call_args=lambda: (1, 2, 3),
                               error=r"too many positional arguments"),
    "MissingKeywordOnlyArg": dict(conc_args=lambda: (1, 2),
                                  conc_kwargs=lambda: {"c": tf.constant(1.0)},
                                  call_args=lambda: (1, 2),
                                  error=r"missing a required( keyword-only)? argument: 'c'"),
    "ExtraKeywordArg": dict(conc_args=lambda: (1, 2), call_args=lambda: (1, 2),
                            call_kwargs=lambda: {"c": tf.constant(1.0)},
                            error=r"got an unexpected keyword argument"),
    "ExpectedRaggedGotNest": dict(
        conc_args=lambda: (tf.ragged.constant([[1, 2], [3]]),),
        call_args=lambda: ({"a": tf.constant([1, 2, 3])}, 5),
        error=r"Binding inputs .* failed .* don't have the same nested structure"),
    "WrongRaggedRank": dict(
        conc_args=lambda: (tf.ragged.constant([[1, 2], [3]]),),
        call_args=lambda: (tf.ragged.constant([[[1]]]), 5),
        error=r"Binding inputs .* failed .* don't have the same nested structure"),
    "WrongRaggedDType": dict(
        conc_args=lambda: (tf.ragged.constant([[1]]),),
        call_args=lambda: (tf.ragged.constant([[1.0]]), 5),
        error=rf"Binding inputs .* failed.*dtype={P}.float32.* to .*dtype={P}.int32.*"),
    "ExpectedDictGotTensor": dict(
        conc_args=lambda: ({"a": tf.constant(1), "b": tf.constant(1)},),
        call_args=lambda: (tf.constant(1), 5),
        error=r"Binding inputs .* failed .*Can not cast .*Tensor.* to a Dict"),
    "ExpectedTupleGotTensor": dict(
        conc_args=lambda: ((tf.constant(1), tf.constant(2)),),
        call_args=lambda: (tf.constant(1), 5),
        error=r"Binding inputs .* failed .*Can not cast .*Tensor.* to tuple"),
    "WrongDType": dict(conc_args=lambda: (tf.constant(1),),
                       call_args=lambda: (tf.constant(1.0), 5),
                       exception=(TypeError, tf.errors.InvalidArgumentError)),
    "ExpectedIntGotDifferentInt": dict(conc_args=lambda: (5,), call_args=lambda: (8, 5),
                                       error=r"Binding inputs .* failed .*Can not cast 8 to .*5"),
    "ExpectedIntGotTensor": dict(conc_args=lambda: (5,), call_args=lambda: (tf.constant(6), 5),
                                 error=r"Binding inputs .* failed .*Can not cast .*Tensor.* to .*5"),
    "TwoValuesForArgument": dict(conc_args=lambda: (1, 2), call_args=lambda: (1, 2),
                                 call_kwargs=lambda: {"x": 3},
                                 error=r"got an unexpected keyword argument 'x'"),
}


@pytest.mark.parametrize("case", sorted(_STRUCTURED_CASES))
def test_concrete_function_structured_signature_error(case):
    c = _STRUCTURED_CASES[case]
    conc_args = c["conc_args"]()
    conc_kwargs = c.get("conc_kwargs", dict)()
    call_args = c["call_args"]()
    call_kwargs = c.get("call_kwargs", dict)()

    @tf.function
    def func(x, y=5, *varargs, **kwargs):  # pylint: disable=keyword-arg-before-vararg
        del y, varargs, kwargs
        return x

    conc = func.get_concrete_function(*conc_args, **conc_kwargs)
    with pytest.raises(c.get("exception", TypeError), match=c.get("error", ".*")):
        conc(*call_args, **call_kwargs)


def test_concrete_function_ambiguous_signature():
    @tf.function
    def f(x, y):
        return x * 10 + y

    conc = f.get_concrete_function(x=tf.TensorSpec(None, tf.int32, name="y"),
                                   y=tf.TensorSpec(None, tf.int32, name="x"))
    result = conc(x=tf.constant(5), y=tf.constant(6))
    assert result.numpy() == 56


# Shape inference: constants propagate through nested functions --------------------------------
def test_shape_inference_propagate_const_nested_stack():
    @tf.function(input_signature=[tf.TensorSpec((None, None), dtype=tf.int32),
                                  tf.TensorSpec((), dtype=tf.int32)])
    def f(x, s):
        old_shape = tf.shape(x)
        new_shape = tf.stack([old_shape[0], s], axis=0)
        return tf.ones(shape=new_shape, dtype=tf.int32)

    @tf.function(input_signature=[tf.TensorSpec(shape=(3, 6), dtype=tf.int32)])
    def g(x):
        y = f(x, s=5)
        assert y.shape.as_list() == [3, 5], y.shape.as_list()
        return y

    np.testing.assert_array_equal(g(tf.zeros([3, 6], dtype=tf.int32)), np.ones([3, 5]))


def test_shape_inference_propagate_const_nested_unstack_stack():
    @tf.function(input_signature=[tf.TensorSpec((None, None), dtype=tf.int32),
                                  tf.TensorSpec((), dtype=tf.int32)])
    def f(x, s):
        s0, _ = tf.unstack(tf.shape(x), axis=0)
        new_shape = tf.stack([s0, s], axis=0)
        return tf.ones(shape=new_shape, dtype=tf.int32)

    @tf.function(input_signature=[tf.TensorSpec(shape=(3, 6), dtype=tf.int32)])
    def g(x):
        y = f(x, s=5)
        assert y.shape.as_list() == [3, 5], y.shape.as_list()
        return y

    np.testing.assert_array_equal(g(tf.zeros([3, 6], dtype=tf.int32)), np.ones([3, 5]))


def _concat_shape_fn():
    @tf.function(input_signature=[tf.TensorSpec((), dtype=tf.int32)] * 3)
    def f(d1, d2, d3):
        new_shape = tf.concat([[d1], [d2], [d3]], axis=-1)
        return tf.ones(shape=new_shape, dtype=tf.int32)
    return f


def test_shape_inference_propagate_const_nested_concat():
    f = _concat_shape_fn()

    @tf.function()
    def g():
        y = f(1, 2, 3)
        assert y.shape.as_list() == [1, 2, 3], y.shape.as_list()
        return y

    np.testing.assert_array_equal(g(), np.ones([1, 2, 3]))


def test_shape_inference_propagate_const_double_nested():
    f = _concat_shape_fn()

    @tf.function()
    def g():
        y = tf.function(f)(1, 2, 3)
        assert y.shape.as_list() == [1, 2, 3], y.shape.as_list()
        return y

    np.testing.assert_array_equal(g(), np.ones([1, 2, 3]))


def test_shape_inference_for_more_specific_input():
    def f(a):
        return tf.reshape(a, [-1, 3])

    compiled = tf.function(f, input_signature=[tf.TensorSpec(None, tf.float32)])

    @tf.function
    def use_f():
        inputs = tf.zeros([10, 10, 3])
        assert f(inputs).shape == compiled(inputs).shape

    use_f()


def test_shape_inference_with_symbolic_shapes():
    @tf.function
    def _uses_symbolic_shapes(w, x, y):
        x = tf.identity(x, name="name_collision")
        x = tf.transpose(x, [1, 0, 2])
        x_batch = tf.shape(x)[0]
        y_batch = tf.shape(y)[0]
        y *= w
        n = y_batch // x_batch
        return tf.reshape(y, [n, x_batch, -1])

    conc = _uses_symbolic_shapes.get_concrete_function(
        tf.TensorSpec(None, tf.float32), tf.TensorSpec(None, tf.float32),
        tf.TensorSpec(None, tf.float32))

    @tf.function
    def _call_concrete():
        c = tf.constant(1.0)
        tf.identity(c, name="name_collision")
        output1 = conc(tf.ones([2]), tf.ones([5, 4, 2]), tf.ones([20, 2]))
        assert output1.shape == [5, 4, 2]
        output2 = conc(tf.ones([3]), tf.ones([5, 4, 3]), tf.ones([40, 3]))
        assert output2.shape == [10, 4, 3]
        return output1, output2

    output1, output2 = _call_concrete()
    assert output1.numpy().shape == (5, 4, 2)
    assert output2.numpy().shape == (10, 4, 3)


# Variables: creator scopes, names, retracing --------------------------------------------------
def test_variable_creator_scope():
    created_variables = []
    captured_variables = []

    @tf.function
    def f():
        if not created_variables:
            created_variables.append(tf.Variable(1.0))
        return created_variables[0] + 1.0

    def capture_creator(next_creator, **kwargs):
        created = next_creator(**kwargs)
        captured_variables.append(created)
        return created

    with tf.variable_creator_scope(capture_creator):
        f()
    assert created_variables == captured_variables


def test_variable_names_respect_name_scopes_in_function():
    # TF's test makes a `ResourceVariable` (internal; it skips tf.function's once-only rule):
    # with the public tf.Variable the variable is created on the first trace only.
    holder = []

    @tf.function
    def create_variable():
        if not holder:
            with tf.name_scope("foo"):
                holder.append(tf.Variable(0.0, name="bar"))
            assert holder[0].name == "foo/bar:0"
        return holder[0].read_value()

    create_variable()
    assert holder[0].name == "foo/bar:0"


def test_variable_naming():
    class HasVars(tf.Module):
        def __init__(self):
            self.x = None
            self.y = None
            self.z = None

        @tf.function
        def make_x(self):
            if self.x is None:
                self.x = tf.Variable(1.0, name="v")

        def make_y(self):
            if self.y is None:
                self.y = tf.Variable(1.0, name="v")

        def make_z(self):
            if self.z is None:
                with tf.name_scope("z_scope"):
                    self.z = tf.Variable(1.0, name="z")

    root = HasVars()
    root.make_x()
    root.make_y()
    root.make_z()
    assert root.x.name == "v:0"
    assert root.z.name == "z_scope/z:0"


@pytest.mark.parametrize("reduce_retracing", [True, False])
def test_variable_retracing_on_dtype_changes(reduce_retracing):
    @tf.function(reduce_retracing=reduce_retracing)
    def defined(a, b):
        return a + b

    x1 = tf.Variable(0.0)
    x2 = tf.Variable(0.0)
    defined(x1, x2)
    assert defined.experimental_get_tracing_count() == 1
    y1 = tf.Variable(0)
    y2 = tf.Variable(1)
    defined(y1, y2)
    assert defined.experimental_get_tracing_count() == 2


def test_variable_retracing_dtype_shape():
    @tf.function
    def defined(a, b):
        return a + b

    defined(tf.Variable(0.0), tf.Variable(0.0))
    assert defined.experimental_get_tracing_count() == 1
    defined(tf.Variable([0.0, 1.0]), tf.Variable([0.0, 1.0]))
    assert defined.experimental_get_tracing_count() == 2
    defined(tf.Variable([[0.0, 1.0]]), tf.Variable([[0.0, 1.0]]))
    assert defined.experimental_get_tracing_count() == 3


@pytest.mark.parametrize("reduce_retracing", [True, False])
def test_variables_are_tracked(reduce_retracing):
    v = tf.Variable(1.0)

    def foo(x):
        return v * x

    defined = tf.function(foo, reduce_retracing=reduce_retracing)
    assert defined(tf.constant([1.0])).numpy() == 1.0
    v.assign(2.0)
    np.testing.assert_array_equal(defined(tf.constant([1.0, 2.0])), [2.0, 4.0])


def test_same_variable_twice():
    v = tf.Variable(1.0)

    @tf.function
    def add(a, b):
        return a + b

    assert add(v, v).numpy() == 2.0


def test_same_variable_twice_with_reduced_retracing():
    v = tf.Variable(2.0)

    @tf.function(reduce_retracing=True)
    def add(a, b):
        return a + b

    assert add(v, v).numpy() == 4.0


def test_variable_alias_combinations_retrace():
    # testVariableAliasIdInStructuredInputSignature reads VariableSpec.alias_id (not public);
    # what it pins is observable: (v1, v1) and (v1, v2) are different traces, (v2, v2) reuses
    # the (v1, v1) trace, and each trace reads the variables it is called with.
    @tf.function
    def foo(a, b):
        a.assign_add(1.0)
        return a + b

    v1 = tf.Variable(1.0)
    v2 = tf.Variable(2.0)
    assert foo(v1, v1).numpy() == 4.0
    assert foo.experimental_get_tracing_count() == 1
    assert foo(v1, v2).numpy() == 5.0
    assert foo.experimental_get_tracing_count() == 2
    assert foo(v2, v2).numpy() == 6.0
    assert foo.experimental_get_tracing_count() == 2
    assert foo(v2, v1).numpy() == 7.0
    assert foo.experimental_get_tracing_count() == 2


def test_variable_update():
    v1 = tf.Variable(1.0)
    v2 = tf.Variable(2.0)
    v3 = tf.Variable(4, dtype=tf.int32)
    trace_count = [0]

    @tf.function
    def double_variable(x):
        trace_count[0] += 1
        x.assign_add(x.read_value())

    assert trace_count[0] == 0
    double_variable(v1)
    assert trace_count[0] == 1
    assert v1.numpy() == 2.0
    double_variable(v2)
    assert trace_count[0] == 1
    assert v2.numpy() == 4.0
    double_variable(v3)
    assert trace_count[0] == 2
    assert v3.numpy() == 8


# Functions that modify their input structures ---------------------------------------------------
def _get_list():
    return [tf.constant(0.0), tf.constant(1.0)]


def _list_mutators():
    def append(lst):
        lst.append(tf.constant(0.0))

    def extend(lst):
        lst.extend([tf.constant(0.0)])

    def insert(lst):
        lst.insert(0, tf.constant(0.0))

    def pop(lst):
        lst.pop()

    def reverse(lst):
        lst.reverse()

    def remove(lst):
        lst.remove(lst[0])

    def clear(lst):
        lst.clear()

    return [append, extend, insert, pop, reverse, remove, clear]


@pytest.mark.parametrize("mutator", _list_mutators(), ids=lambda f: f.__name__)
def test_function_modifies_input_list(mutator):
    with pytest.raises(ValueError, match=".*() should not modify"):
        tf.function(mutator)(_get_list())


def test_function_modifies_input_list_keyword():
    @tf.function
    def kwdappend(**kwargs):
        lst = kwargs["l"]
        lst.append(tf.constant(0.0))

    with pytest.raises(ValueError, match=".*() should not modify"):
        kwdappend(l=_get_list())


def _dict_mutators():
    def clear(m):
        m.clear()

    def pop(m):
        m.pop("t1")

    def popitem(m):
        m.popitem()

    def update(m):
        m.update({"t1": tf.constant(3.0)})

    def setdefault(m):
        m.setdefault("t3", tf.constant(3.0))

    return [clear, pop, popitem, update, setdefault]


@pytest.mark.parametrize("mutator", _dict_mutators(), ids=lambda f: f.__name__)
def test_function_modifies_input_dict(mutator):
    with pytest.raises(ValueError, match=".* should not modify"):
        tf.function(mutator)({"t1": tf.constant(0.0), "t2": tf.constant(1.0)})


def test_function_modifies_input_nest():
    @tf.function
    def modify(n):
        n[0]["t1"].append(tf.constant(1.0))

    with pytest.raises(ValueError, match="modify.* should not modify"):
        modify([{"t1": [tf.constant(0.0), tf.constant(1.0)]}, tf.constant(2.0)])

    # The flat list doesn't change whereas the true structure changes.
    @tf.function
    def modify_same_flat(n):
        n[0].append(n[1].pop(0))

    with pytest.raises(ValueError, match="modify_same_flat.* should not modify"):
        modify_same_flat([[tf.constant(0.0)], [tf.constant(1.0), tf.constant(2.0)]])


def test_function_reads_input_list_without_modifying():
    @tf.function
    def total(lst):
        return lst[0] + lst[1]

    inp = _get_list()
    assert total(inp).numpy() == 1.0
    assert len(inp) == 2
