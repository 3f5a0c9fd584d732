"""More of TensorFlow's tf.function tests, ported (tf_oracle): concrete functions of nested and
non-tensor inputs, argument binding errors, variable creation, functools.partial, tracing
counts and caches, recursion.

Ported from TF 2.21's tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py
(FunctionTest), keeping each test's assertions; TF-internal helpers are replaced by public API
(`_list_all_concrete_functions()` by `experimental_get_tracing_count()`, `module.Module` by
`tf.Module`, `resource_variable_ops.ResourceVariable` by `tf.Variable`).
"""
import collections
import functools

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _spec_for_value(value):
    if isinstance(value, (list, tuple, dict)):
        return tf.nest.map_structure(_spec_for_value, value)
    if isinstance(value, tf.Tensor):
        return tf.TensorSpec(value.shape, value.dtype)
    return value


# Basics -------------------------------------------------------------------------------------
def test_basic():
    matmul = tf.function(tf.linalg.matmul)
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    sq = matmul(t, t, transpose_a=True)
    sq2 = matmul(sq, t, transpose_a=True)
    np.testing.assert_array_equal(sq.numpy().reshape(-1), [10, 14, 14, 20])
    np.testing.assert_array_equal(sq2.numpy().reshape(-1), [52, 76, 74, 108])


def test_python_function_not_callable():
    with pytest.raises(TypeError, match="is not a callable object"):
        tf.function(1)


def test_variable():
    v1 = tf.Variable(1.0)
    add = tf.function(lambda x, v: x + v1 + v)
    v2 = tf.Variable(1.0)
    assert add(tf.constant(1.0), v2).numpy() == 3.0


def test_variable_only():
    v = tf.Variable(1.0)
    add = tf.function(lambda x: x.assign_add(1.0))
    assert add(v).numpy() == 2.0
    with pytest.raises(AttributeError, match="no attribute"):
        add(tf.constant(1.0))


def test_variable_multi_function():
    @tf.function
    def second(dup_var, dup_var_2, some_const):
        return dup_var + dup_var_2 + some_const

    @tf.function
    def first(dup_var, some_const):
        return second(dup_var, dup_var, some_const)

    my_const = tf.constant(1)
    my_var = tf.Variable(2, dtype=tf.int32)
    assert second(my_var, my_var, my_const).numpy() == 5
    assert first(my_var, my_const).numpy() == 5


def test_no_hash():
    @tf.function()
    def f(_):
        return 1.0

    with pytest.raises(TypeError, match=r"Could not generate a generic TraceType"):
        f(set([]))


def test_nested_inputs_and_outputs():
    matmul = tf.function(tf.linalg.matmul)
    pair = collections.namedtuple("pair", ["a", "b"])

    @tf.function
    def a_times_b(inputs):
        return matmul(inputs.a["a"], inputs.b["b"])

    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(a_times_b(pair({"a": t}, {"b": t})), tf.linalg.matmul(t, t).numpy())

    @tf.function()
    def pairs_mul(pair_a, pair_b):
        return pair(matmul(pair_a.a, pair_b.a), matmul(pair_a.b, pair_b.b))

    a = tf.constant([[1.0, 2.0], [1.0, 2.0]])
    b = tf.constant([[3.0, 4.0], [3.0, 4.0]])
    out = pairs_mul(pair(a, b), pair(b, a))
    assert type(out).__name__ == "pair"
    np.testing.assert_allclose(out.a, tf.linalg.matmul(a, b).numpy())
    np.testing.assert_allclose(out.b, tf.linalg.matmul(b, a).numpy())


def test_basic_graph_function():
    matmul = tf.function(tf.linalg.matmul)

    @tf.function
    def sq(a):
        return matmul(a, a)

    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    sq_op = sq.get_concrete_function(t)
    assert sq_op.output_shapes == tf.TensorShape([2, 2])
    np.testing.assert_array_equal(sq_op(t), tf.linalg.matmul(t, t).numpy())


def test_input_spec_graph_function():
    @tf.function
    def sq(a):
        return tf.linalg.matmul(a, a)

    sq_op = sq.get_concrete_function(tf.TensorSpec((None, None), tf.float32))
    assert sq_op.output_shapes.as_list() == [None, None]
    t1 = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(sq_op(t1), tf.linalg.matmul(t1, t1).numpy())


def test_nested_input_spec_graph_function():
    @tf.function
    def sq(mats):
        ((a, b),) = mats
        return tf.linalg.matmul(a, b)

    sq_op_autonamed = sq.get_concrete_function(
        [(tf.TensorSpec((None, None), tf.float32), tf.TensorSpec((None, None), tf.float32))])
    assert sq_op_autonamed.output_shapes.as_list() == [None, None]
    sq_op = sq.get_concrete_function(
        [(tf.TensorSpec((None, None), tf.float32, name="first_mat"),
          tf.TensorSpec((None, None), tf.float32, name="second_mat"))])
    assert sq_op.output_shapes.as_list() == [None, None]
    t1 = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    t2 = tf.constant([[1.4, 2.4], [3.4, 4.4]])
    expected = tf.linalg.matmul(t1, t2).numpy()
    np.testing.assert_array_equal(sq_op(first_mat=t1, second_mat=t2), expected)
    np.testing.assert_array_equal(sq_op_autonamed(t1, t2), expected)


def test_nested_inputs_graph_function():
    pair = collections.namedtuple("pair", ["a", "b"])

    @tf.function
    def a_times_b(inputs):
        return tf.linalg.matmul(inputs.a["a"], inputs.b["b"])

    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    sq_op = a_times_b.get_concrete_function(
        pair(dict(a=tf.TensorSpec([2, 2], tf.float32, "a")), dict(b=tf.TensorSpec([2, 2], tf.float32, "b"))))
    assert sq_op.output_shapes == tf.TensorShape([2, 2])
    np.testing.assert_array_equal(sq_op(a=t, b=t), tf.linalg.matmul(t, t).numpy())


def test_nested_output_graph_function():
    @tf.function
    def sq(a):
        return (tf.linalg.matmul(a, a), {"b": tf.constant(1.0)})

    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    sq_op = sq.get_concrete_function(t)
    assert sq_op.output_shapes == (tf.TensorShape([2, 2]), {"b": tf.TensorShape([])})
    assert sq_op.output_dtypes == (tf.float32, {"b": tf.float32})
    a, b = sq_op(t)
    np.testing.assert_array_equal(a, tf.linalg.matmul(t, t).numpy())
    assert b["b"].numpy() == 1.0


def test_graph_function_none_output():
    @tf.function
    def fn(unused_a, unused_b):
        return None

    x = tf.constant(1)
    fn_op = fn.get_concrete_function(x, x)
    assert fn_op.output_dtypes is None
    assert fn_op.output_shapes == None  # noqa: E711 (TF: a TensorShape(None), equal to None)
    assert fn_op(x, x) is None


def test_sequence_inputs():
    clip_by_global_norm = tf.function(tf.clip_by_global_norm)
    t_list = [tf.constant(1.0), tf.constant(2.0)]
    clipped_list, global_norm = clip_by_global_norm(t_list, tf.constant(0.2))
    for t in clipped_list:
        assert isinstance(t, tf.Tensor)
    assert isinstance(global_norm, tf.Tensor)


def test_nested_sequence_inputs():
    def my_op(inputs):
        a, b, c = inputs
        e, f = b
        g, h = e
        return [a + a, [tuple([f + f, g + g]), h + h], c + c], a + f + g + h + c

    ret = tf.function(my_op)([tf.constant(1), [(tf.constant(2), tf.constant(3)), tf.constant(4)],
                              tf.constant(5)])
    assert len(ret) == 2
    assert ret[0][0].numpy() == 2
    assert ret[0][1][0][0].numpy() == 8
    assert ret[0][1][0][1].numpy() == 4
    assert isinstance(ret[0][1][0], tuple)
    assert ret[0][1][1].numpy() == 6
    assert ret[0][2].numpy() == 10
    assert ret[1].numpy() == 15


# Concrete functions of nested and non-tensor inputs ------------------------------------------
def test_concrete_function_with_nested_tensor_inputs():
    @tf.function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a, b, c = tf.constant(1000), tf.constant(200), tf.constant(30)
    d = {"a": a, "b": b}
    e = (c, 4)
    for cf in [f.get_concrete_function(d, e), f.get_concrete_function(d, y=e),
               f.get_concrete_function(y=e, x=d),
               f.get_concrete_function(_spec_for_value(d), _spec_for_value(e)),
               f.get_concrete_function(_spec_for_value(d), y=_spec_for_value(e)),
               f.get_concrete_function(y=_spec_for_value(e), x=_spec_for_value(d))]:
        for output in [cf(d, e), cf(d, y=e), cf(y=e, x=d), cf(a, b, c)]:
            assert isinstance(output, tuple) and len(output) == 2
            assert output[0].numpy() == 1200
            assert output[1].numpy() == 34


def test_concrete_function_with_nested_non_tensor_inputs():
    @tf.function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a = {"a": tf.constant(1000), "b": tf.constant(200)}
    b = (50, 3)
    for cf in [f.get_concrete_function(a, b), f.get_concrete_function(a, y=b),
               f.get_concrete_function(x=a, y=b)]:
        for output in [cf(a, b), cf(x=a, y=b)]:
            assert (output[0] + output[1]).numpy() == 1253


def test_concrete_function_with_non_tensor_string_inputs():
    @tf.function
    def f(x, y):
        return tf.strings.join([x, y])

    a = tf.constant("a")
    cf = f.get_concrete_function(a, "b")
    for output in [cf(a), cf(x=a), cf(a, "b"), cf(x=a, y="b")]:
        assert output.numpy() == b"ab"


def test_concrete_function_with_bound_nested_non_tensor_inputs():
    @tf.function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a = {"a": 3000, "b": 200, "c": 9000}
    b = (tf.constant(30), 4)
    for cf in [f.get_concrete_function(a, b), f.get_concrete_function(a, y=b),
               f.get_concrete_function(x=a, y=b)]:
        for output in [cf(a, b), cf(a, y=b), cf(x=a, y=b)]:
            assert (output[0] + output[1]).numpy() == 3234


def test_concrete_function_with_all_bound_nested_non_tensor_inputs():
    @tf.function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a = {"a": 5000, "b": 500}
    b = (50, 5)
    cf = f.get_concrete_function(a, b)
    for output in [cf(), cf(a, b), cf(x=a, y=b)]:
        assert (output[0] + output[1]).numpy() == 5555


def test_concrete_function_method_with_varargs():
    float32_scalar = tf.TensorSpec(shape=(), dtype=tf.float32)

    class MyModel(tf.Module):
        @tf.function(input_signature=[float32_scalar, float32_scalar])
        def add(self, *arg):
            return tf.math.add(*arg)

    cf = MyModel().add.get_concrete_function()
    assert cf(-12.0, 3.0).numpy() == -9.0


def test_concrete_function_structured_signature_keyword_order():
    @tf.function
    def g(**kwargs):
        return tf.strings.reduce_join(
            tf.strings.reduce_join(tf.convert_to_tensor(sorted(kwargs.items())), axis=1, separator="="),
            axis=0, separator=", ")

    s = tf.constant("s")
    g.get_concrete_function(q=s, a=s, p=s, r=s, v=s, m=s, l=s)
    expected = b"a=f, l=e, m=a, p=g, q=d, r=b, v=c"
    assert g(m="a", r="b", v="c", q="d", l="e", a="f", p="g").numpy() == expected
    assert g(q="d", a="f", p="g", r="b", v="c", m="a", l="e").numpy() == expected
    assert g(a="f", l="e", m="a", p="g", q="d", r="b", v="c").numpy() == expected


def test_same_concrete_function_different_kwarg_order():
    @tf.function
    def foo(**kwargs):
        return kwargs["a"] + tf.cast(kwargs["b"], tf.float32)

    foo(a=tf.constant(1.0), b=tf.constant(1))
    foo(b=tf.constant(1), a=tf.constant(1.0))
    assert foo.experimental_get_tracing_count() == 1


def test_concrete_function_keyword_arguments():
    @tf.function
    def f(x):
        return x

    conc = f.get_concrete_function(tf.TensorSpec(None, tf.float32, "y"))
    conc(y=tf.constant(3.0))
    signature_args, _ = conc.structured_input_signature
    assert signature_args[0].name == "y"

    # If name is not specified, the previously named one will be returned.
    conc = f.get_concrete_function(tf.TensorSpec(None, tf.float32))
    conc(x=tf.constant(3.0))
    signature_args, _ = conc.structured_input_signature
    assert signature_args[0].name == "y"

    # New name will return updated signature.
    conc = f.get_concrete_function(tf.TensorSpec(None, tf.float32, "z"))
    conc(x=tf.constant(3.0))
    signature_args, _ = conc.structured_input_signature
    assert signature_args[0].name == "z"

    @tf.function
    def g(x):
        return x[0]

    conc = g.get_concrete_function([tf.TensorSpec(None, tf.float32, "z"), 2])
    conc(z=tf.constant(3.0))
    signature_args, _ = conc.structured_input_signature
    assert signature_args[0][0].name == "z"


def test_non_unique_names_get_concrete_function():
    @tf.function
    def non_unique_arg_names(x, **kwargs):
        a, b, c = x
        d = kwargs["d"]
        return a + b + c + d

    concrete = non_unique_arg_names.get_concrete_function(
        (tf.TensorSpec(None, tf.float32), tf.TensorSpec(None, tf.float32), tf.TensorSpec(None, tf.float32)),
        d=tf.TensorSpec(None, tf.float32))
    np.testing.assert_allclose(
        concrete(x=tf.constant(1.0), x_1=tf.constant(2.0), x_2=tf.constant(3.0), d=tf.constant(4.0)), 10.0)
    np.testing.assert_allclose(
        concrete(tf.constant(1.0), tf.constant(2.0), tf.constant(3.0), tf.constant(4.0)), 10.0)


def test_duplicated_sanitized_names():
    @tf.function
    def foo(**kwargs):
        return kwargs["a_b"] + kwargs["a/b"]

    with pytest.raises(ValueError, match="Name collision after sanitization."):
        foo(**{"a_b": 1, "a/b": 2})


def test_shape_cache():
    @tf.function
    def func(x):
        return 2 * x

    func_a = func.get_concrete_function(tf.TensorSpec([None], tf.int32))
    func_b = func.get_concrete_function(tf.TensorSpec([None], tf.int32))
    assert func_a is func_b


# Binding errors -----------------------------------------------------------------------------
def test_missing_args_tf_functioned_method():
    class A:
        def func(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

        @tf.function
        def decorated_method(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

    a_instance = A()
    tf_method_pos = tf.function(a_instance.func)
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_method_pos(position_arg2="foo")
    tf_func_decorated_method = tf.function(a_instance.decorated_method)
    tf_func_decorated_method(position_arg1="foo", position_arg2="bar")
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_func_decorated_method(position_arg2="bar")


def test_missing_args_tf_functioned_object():
    class A:
        def __call__(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

    tf_func_obj = tf.function(A())
    tf_func_obj(position_arg1=1, position_arg2=2)
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_func_obj(position_arg2="bar")


def test_missing_args_tf_functioned_functions():
    def func_pos(position_arg1, position_arg2):
        return position_arg1, position_arg2

    def func_with_default(position_arg, named_arg=None):
        return position_arg, named_arg

    def func_pos_3args(position_arg1, position_arg2, position_arg3):
        return position_arg1, position_arg2, position_arg3

    with pytest.raises(TypeError, match="missing a required argument"):
        tf.function(func_pos)(position_arg2="foo")
    tf_func_with_default = tf.function(func_with_default)
    tf_func_with_default(position_arg="bar")
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_func_with_default(named_arg="foo")
    with pytest.raises(TypeError, match="missing a required argument"):
        tf.function(func_pos_3args)(position_arg2="foo")


def test_concrete_function_shape_mismatch_in_function():
    @tf.function
    def f(argument_name):
        return argument_name + 1.0

    f_concrete = f.get_concrete_function(tf.constant([1.0]))

    @tf.function
    def g():
        f_concrete(tf.constant([1.0, 2.0]))

    with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(2,\).* to TensorSpec\(shape=\(1,\)"):
        g()


# Variables created by functions ---------------------------------------------------------------
def test_fail_if_variables_are_created_more_than_once():
    @tf.function
    def fn(x):
        return tf.Variable(1.0) + x

    with pytest.raises(ValueError):
        fn(1.0)


def test_fail_if_variables_are_created_more_than_once_no_weak_ref():
    state = []

    @tf.function
    def fn(x):
        state.append(tf.Variable(1.0))
        return state[-1] + x

    with pytest.raises(ValueError):
        fn(1.0)


def test_correct_variable_creation():
    state = []

    @tf.function
    def fn(x):
        if not state:
            state.append(tf.Variable(2.0))
        return state[0] * x

    assert fn(tf.constant(1.0)).numpy() == 2.0
    assert fn(tf.constant(3.0)).numpy() == 6.0


def test_function_multiple_variable_initializer():
    state = []

    @tf.function
    def fn(x):
        if not state:
            state.append(tf.Variable(lambda: 2.0))
            state.append(tf.Variable(lambda: 5.0))
        return state[0] * x, state[1] * x

    np.testing.assert_array_equal(fn(tf.constant(1.0)), [2.0, 5.0])


def test_variable_initializer_not_constant():
    state = []

    @tf.function
    def fn(x):
        if not state:
            state.append(tf.Variable(2.0 * x))
        return state[0] * x

    assert fn(tf.constant(1.0)).numpy() == 2.0
    assert fn(tf.constant(3.0)).numpy() == 6.0


def test_method_creates_variable_once():
    class MyModel:
        def __init__(self):
            self.var = None

        @tf.function
        def apply(self, x):
            if self.var is None:
                self.var = tf.Variable(2.0)
            return self.var * x

    m0 = MyModel()
    assert m0.apply(3.0).numpy() == 6.0
    m0.var.assign(3.0)
    assert m0.apply(3.0).numpy() == 9.0
    assert MyModel().apply(3.0).numpy() == 6.0


def test_var_already_initialized_no_clobbering():
    v_holder = []

    @tf.function
    def add_var(x):
        if not v_holder:
            v = tf.Variable([1.0, 2.0])
            v_holder.append(v)
            already_initialized = tf.Variable(3.0)
            with tf.init_scope():
                already_initialized.assign(10.0)
            v_holder.append(already_initialized)
        return v_holder[0] + v_holder[1] + x

    add_var.get_concrete_function(tf.constant(2.0))
    np.testing.assert_allclose(add_var(tf.constant(2.0)), [13.0, 14.0])


def test_initialization_in_nested_call():
    v_holder = []

    @tf.function
    def add_var(x):
        if not v_holder:
            v_holder.append(tf.Variable([1.0, 2.0]))
            already_initialized = tf.Variable(3.0)
            with tf.init_scope():
                already_initialized.assign(10.0)
            v_holder.append(already_initialized)
        return v_holder[0] + v_holder[1] + x

    @tf.function
    def wrapper(x):
        return add_var(x)

    np.testing.assert_allclose(wrapper(tf.constant(2.0)), [13.0, 14.0])
    v_holder[1].assign(11.0)
    np.testing.assert_allclose(wrapper(tf.constant(2.0)), [14.0, 15.0])


def test_captures_variables():
    a = tf.Variable(1.0, trainable=False)
    b = tf.Variable(1.0)
    cc = [None]

    @tf.function
    def f():
        c = cc[0]
        if c is None:
            c = cc[0] = tf.Variable(1.0)
        return a + b + c + 1

    cf = f.get_concrete_function()
    c = cc[0]
    assert {v.ref() for v in cf.variables} == {v.ref() for v in (a, b, c)}
    assert {v.ref() for v in cf.trainable_variables} == {v.ref() for v in (b, c)}


def test_python_call_with_side_effects():
    state = []

    @tf.function
    def side_effecting_function():
        state.append(0)

    side_effecting_function()
    assert state == [0]
    side_effecting_function()
    assert state == [0]
    side_effecting_function.python_function()
    assert state == [0, 0]


def test_function_with_nested_function_call_and_side_effects():
    v1 = tf.Variable(1.0)
    v2 = tf.Variable(1.0)

    @tf.function
    def add_one(a):
        a.assign_add(1.0)

    @tf.function
    def side_effecting_function(a, b):
        add_one(a)
        add_one(b)
        return a + b

    assert side_effecting_function(v1, v2).numpy() == 4.0


# functools.partial and methods -----------------------------------------------------------------
def test_functools_partial():
    np.testing.assert_allclose(tf.function(functools.partial(lambda x, y: x + y, 1.0))(tf.constant(2.0)), 3.0)


def test_functools_partial_new_default():
    def f(x=3, y=7):
        return x + y

    func = tf.function(functools.partial(f, y=6))
    assert func().numpy() == 9
    assert func(y=8).numpy() == 11


def test_functools_partial_keywords():
    def f(x, y):
        return x + y

    func = tf.function(functools.partial(f, x=tf.zeros([1]), y=tf.zeros([1])))
    np.testing.assert_array_equal(func(), [0.0])


def test_functools_partial_single_positional():
    def f(x, y):
        return x + y

    assert tf.function(functools.partial(f, tf.constant(1)))(5).numpy() == 6


def test_defuning_instance_method():
    integer = tf.constant(2, tf.int64)

    class Foo:
        def one(self, tensor):
            return tensor

        @tf.function
        def two(self, tensor, other=integer):
            return self.one(tensor), other

    foo = Foo()
    one, two = foo.two(tf.constant(1.0))
    assert one.numpy() == 1.0
    assert two.numpy() == 2


def test_defuning_instance_method_with_default_argument():
    integer = tf.constant(2, tf.int64)

    class Foo:
        @tf.function
        def func(self, other=integer):
            return other

    assert Foo().func().numpy() == 2


# Tracing counts, caches, shapes ----------------------------------------------------------------
def test_experimental_get_tracing_count_function():
    @tf.function
    def double(a):
        return a + a

    double(tf.constant(1))
    double(tf.constant(2))
    assert double.experimental_get_tracing_count() == 1
    double(tf.constant("a"))
    assert double.experimental_get_tracing_count() == 2


def test_experimental_get_tracing_count_method():
    class TestClass:
        @tf.function
        def testDouble(self, a):
            return a + a

    obj1 = TestClass()
    obj1.testDouble(tf.constant(1))
    obj1.testDouble(tf.constant(2))
    obj1.testDouble(tf.constant(1.1))
    assert obj1.testDouble.experimental_get_tracing_count() == 2
    obj2 = TestClass()
    obj2.testDouble(tf.constant(1))
    obj2.testDouble(tf.constant(1.1))
    obj2.testDouble(tf.constant("a"))
    assert obj2.testDouble.experimental_get_tracing_count() == 3
    assert obj1.testDouble.experimental_get_tracing_count() == 2


def test_tensor_shape_casted_to_specific():
    @tf.function(input_signature=[tf.TensorSpec([1])])
    def specific(x):
        assert x.shape == [1]
        return x

    @tf.function(input_signature=[tf.TensorSpec(None)])
    def general(x):
        return specific(x)

    assert general(tf.constant([1.0])).numpy() == 1.0


def test_input_shape_relaxation_on_instance_method():
    unknown_dim = [False]

    class Foo:
        @tf.function(reduce_retracing=True)
        def func(self, a):
            if a.shape[0] is None:
                unknown_dim[0] = True
            return a + 1

    foo = Foo()
    foo.func(tf.constant([]))
    assert not unknown_dim[0]
    foo.func(tf.constant([1.0]))
    assert unknown_dim[0]
    foo.func(tf.constant([1.0, 2.0]))
    assert unknown_dim[0]


def test_nested_shape_function_relaxation():
    traced_shape = None

    @tf.function(reduce_retracing=True)
    def bar(x_shape):
        nonlocal traced_shape
        traced_shape = tuple(x_shape.shape.as_list())
        return x_shape

    @tf.function(reduce_retracing=True)
    def foo(ones):
        return bar(tf.shape(ones))

    np.testing.assert_array_equal(foo(tf.ones([1])), [1])
    assert traced_shape == (1,)
    for rank in range(2, 6):
        np.testing.assert_array_equal(foo(tf.ones([1] * rank)), [1] * rank)
        assert traced_shape == (None,)


def test_reduce_tracing_with_nested_tf_function():
    v = tf.Variable([1.0, 2.0])

    @tf.function(reduce_retracing=True)
    def inner_test_fn(x):
        x.assign_add([2.0, 2.0])
        return x

    @tf.function(reduce_retracing=True)
    def test_fn(x):
        x.assign_add([1.0, 1.0])
        return inner_test_fn(x)

    with tf.GradientTape() as tape:
        y = test_fn(v)
    np.testing.assert_array_equal(y, [4.0, 5.0])
    np.testing.assert_array_equal(tape.gradient(y, v), [1.0, 1.0])
    with tf.GradientTape() as tape:
        y = test_fn(v)
    np.testing.assert_array_equal(y, [7.0, 8.0])
    np.testing.assert_array_equal(tape.gradient(y, v), [1.0, 1.0])


def test_range_argument():
    @tf.function
    def f(unused_x):
        return 1.0

    assert f(range(5)).numpy() == 1.0


def test_underscore_name():
    @tf.function
    def f(_):
        return _ + _

    assert f(tf.constant(1.0)).numpy() == 2.0


def test_runtime_error_not_sticky():
    @tf.function
    def fail(i):
        tf.debugging.Assert(tf.equal(i, 0), ["ick"])

    fail(tf.constant(0))
    with pytest.raises(tf.errors.InvalidArgumentError):
        fail(tf.constant(1))
    fail(tf.constant(0))


# Recursion -----------------------------------------------------------------------------------
def test_recursive_tf_function():
    @tf.function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        return 1

    assert recursive_fn(5).numpy() == 1


def test_recursive_tf_function_with_gradients():
    @tf.function
    def recursive_fn(n, x):
        if n > 0:
            return n * recursive_fn(n - 1, x)
        return x

    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        g = recursive_fn(5, x)
    assert tape.gradient(g, x).numpy() == 120


def test_recursive_tf_function_call_each_other():
    @tf.function
    def recursive_fn1(n):
        if n <= 1:
            return 1
        return recursive_fn2(n - 1)

    @tf.function
    def recursive_fn2(n):
        if n <= 1:
            return 2
        return recursive_fn1(n - 1)

    assert recursive_fn1(5).numpy() == 1
    assert recursive_fn1(6).numpy() == 2
    assert recursive_fn2(5).numpy() == 2
    assert recursive_fn2(6).numpy() == 1


def test_recursive_tf_function_with_cond():
    @tf.function(autograph=False)
    def recursive_fn(n):
        return tf.cond(n > 0, recursive_fn(n - 1), 1)

    with pytest.raises(RecursionError):
        recursive_fn(tf.constant(5))


# concrete_function_test.py: its ConcreteFunction/AtomicFunction constructors are TF-internal
# (cf.ConcreteFunction(atomic_fn), atomic_function.from_function_def); the public call it checks:
def test_concrete_function_of_dicts_with_variables_ragged_and_python_values():
    @tf.function
    def add_dicts(dict_a, dict_b):
        result = {}
        for key in dict_a.keys():
            result[key] = dict_a[key] + dict_b[key]
        return result

    dict_a = {"tensor": tf.constant(1), "variable": tf.Variable(2),
              "ragged_tensor": tf.RaggedTensor.from_row_splits(values=[3, 1, 4, 1, 5, 9, 2, 6],
                                                               row_splits=[0, 4, 4, 7, 8, 8]),
              "python_int": 4}
    dict_b = {"tensor": tf.constant(2), "variable": tf.Variable(5),
              "ragged_tensor": tf.RaggedTensor.from_row_splits(values=[4, 2, 4, 1, 6, 9, 3, 6],
                                                               row_splits=[0, 4, 4, 7, 8, 8]),
              "python_int": 5}
    concrete_fn = add_dicts.get_concrete_function(dict_a, dict_b)
    result = concrete_fn(dict_a, dict_b)
    assert result["tensor"].numpy() == 3
    assert result["variable"].numpy() == 7
    assert result["ragged_tensor"].flat_values.numpy().tolist() == [7, 3, 8, 2, 11, 18, 5, 12]
    assert result["python_int"].numpy() == 9
