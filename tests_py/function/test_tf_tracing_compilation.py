"""TensorFlow's tracing-compilation tests, ported (tf_oracle): numpy and Python arguments, cache
collisions, input signatures (matching, compatible, nested, composite, keyword-only, partial).

Ported from TF 2.21's tensorflow/python/eager/polymorphic_function/tracing_compilation_test.py
(TracingCompilationTest), keeping each test's assertions. Its `compiled_fn` decorator and
`FunctionCache` are TF-internal (tracing_compilation); here the public `tf.function` (what
`compiled_fn` wraps) runs each test, and the cache's length is the Function's
`experimental_get_tracing_count()` (one trace per cache entry in these tests).
"""
import functools

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_input_shape_function_relaxation():
    unknown_dim = [False]

    @tf.function(reduce_retracing=True)
    def func(a):
        if a.shape[0] is None:
            unknown_dim[0] = True
        return a + 1

    func(tf.constant([]))
    assert not unknown_dim[0]
    assert func.experimental_get_tracing_count() == 1
    func(tf.constant([1.0]))
    assert unknown_dim[0]
    assert func.experimental_get_tracing_count() == 2
    func(tf.constant([1.0, 2.0]))
    assert unknown_dim[0]


def test_nested_input_shape_function_relaxation():
    unknown_dim = [False]

    @tf.function(reduce_retracing=True)
    def func(a_, b_=None):
        del a_
        assert b_[0].shape == ()
        if b_[1].shape[0] is None:
            unknown_dim[0] = True
        return b_[0] + 1

    b0 = tf.constant(1.0)
    func("hi", b_=[b0, tf.constant([])])
    assert not unknown_dim[0]
    assert func.experimental_get_tracing_count() == 1
    func("hi", b_=[b0, tf.constant([1.0])])
    assert unknown_dim[0]
    assert func.experimental_get_tracing_count() == 2
    func("hi", b_=[b0, tf.constant([1.0, 1.0])])
    assert func.experimental_get_tracing_count() == 2
    unknown_dim[0] = False
    func("bye", b_=[b0, tf.constant([])])
    assert not unknown_dim[0]
    assert func.experimental_get_tracing_count() == 3
    func("bye", b_=[b0, tf.constant([1.0])])
    assert unknown_dim[0]
    assert func.experimental_get_tracing_count() == 4


def test_numpy_arrays_converted_to_tensors():
    def f(x):
        assert isinstance(x, tf.Tensor)
        return x

    defined = tf.function(f)
    defined(tf.random.uniform([2, 2]).numpy())
    assert defined.experimental_get_tracing_count() == 1
    defined(tf.random.uniform([2, 2]).numpy())
    assert defined.experimental_get_tracing_count() == 1
    np_ones = np.ones([], np.float32)
    np_zeros = np.zeros([], np.float32)
    assert defined(np_ones).numpy() == 1.0
    assert defined.experimental_get_tracing_count() == 2
    assert defined(np_zeros).numpy() == 0.0
    assert defined(tf.ones([])).numpy() == 1.0
    assert defined(tf.zeros([])).numpy() == 0.0
    assert defined.experimental_get_tracing_count() == 2
    mutable = np.ones([], np.float32)
    assert defined(mutable).numpy() == 1.0
    mutable.fill(0)
    assert defined(mutable).numpy() == 0.0

    class MyNdarray(np.ndarray):
        pass

    assert defined(np_ones.view(MyNdarray)).numpy() == 1.0
    assert defined(np_zeros.view(MyNdarray)).numpy() == 0.0
    assert defined.experimental_get_tracing_count() == 2


def test_numpy_dtype_input_supported():
    @tf.function
    def f(x, dtype):
        return tf.constant(dtype(x))

    assert f(1, np.float32).numpy() == np.float32(1)
    assert f(2, np.float32).numpy() == np.float32(2)
    assert f(1, np.int32).numpy() == np.int32(1)
    assert f(2, np.int32).numpy() == np.int32(2)


def test_numpy_arrays_converted_to_tensors_in_kwargs():
    def f(**kwargs):
        x = kwargs.pop("x")
        assert isinstance(x, tf.Tensor)
        return x

    defined = tf.function(f)
    defined(x=tf.random.uniform([2, 2]).numpy())
    assert defined.experimental_get_tracing_count() == 1
    defined(x=tf.random.uniform([2, 2]).numpy())
    assert defined.experimental_get_tracing_count() == 1
    assert defined(x=np.ones([])).numpy() == 1.0
    assert defined(x=np.zeros([])).numpy() == 0.0
    assert defined(x=tf.ones([])).numpy() == 1.0
    assert defined(x=tf.zeros([])).numpy() == 0.0


def test_cache_object_hash_collisions():
    class Foo:
        def __hash__(self):
            return 42

    defined = tf.function(lambda foo: tf.constant([id(foo)]))
    foo_1 = Foo()
    defined(foo_1)
    assert defined.experimental_get_tracing_count() == 1
    foo_2 = Foo()
    defined(foo_2)
    assert defined.experimental_get_tracing_count() == 2


@pytest.mark.parametrize("first, second", [
    (([[1.0]], tf.complex64), ([[1.0]], tf.complex128)),   # dtype
    (([[1.0]], tf.complex64), ([1.0], tf.complex64)),       # shape
    (([[1.0]], tf.complex64), ([1.0], tf.complex128)),      # both
])
def test_cache_tensor_collisions(first, second):
    defined = tf.function(lambda t: t + t)
    defined(tf.constant(first[0], dtype=first[1]))
    assert defined.experimental_get_tracing_count() == 1
    defined(tf.constant(second[0], dtype=second[1]))
    assert defined.experimental_get_tracing_count() == 2


def test_python_function_with_default_args():
    def func(foo, bar=1, baz=2):
        del foo, bar, baz

    defined = tf.function(func)
    defined(0, baz=20)
    assert defined.experimental_get_tracing_count() == 1
    defined(1)
    assert defined.experimental_get_tracing_count() == 2
    defined(foo=1)
    assert defined.experimental_get_tracing_count() == 2
    defined(1, 2, 3)
    assert defined.experimental_get_tracing_count() == 3
    defined(1, bar=2, baz=3)
    assert defined.experimental_get_tracing_count() == 3
    defined(1, baz=3, bar=2)
    assert defined.experimental_get_tracing_count() == 3


def test_functools_partial_unwrapped_correctly():
    def full_function(a, b, c=3):
        return a, b, c

    partial = functools.partial(full_function, 1, c=4)
    a, b, c = partial(2)
    func_a, func_b, func_c = tf.function(partial)(2)
    assert (func_a.numpy(), func_b.numpy(), func_c.numpy()) == (a, b, c)


def test_input_signature_with_matching_inputs():
    def foo(a):
        assert a.shape == (2,)
        return a

    defined = tf.function(foo, input_signature=[tf.TensorSpec(shape=(2,), dtype=tf.float32)])
    a = tf.ones([2])
    np.testing.assert_array_equal(defined(a), a)
    assert defined.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(defined.get_concrete_function()(a), a)
    np.testing.assert_array_equal(defined.get_concrete_function(a)(a), a)
    np.testing.assert_array_equal(defined.get_concrete_function(tf.TensorSpec((2,), dtype=tf.float32))(a), a)
    assert defined.experimental_get_tracing_count() == 1

    def bar(a):
        assert a.shape.as_list() == [2, None]
        return a

    defined = tf.function(bar, input_signature=[tf.TensorSpec((2, None), tf.float32)])
    a = tf.ones([2, 1])
    np.testing.assert_array_equal(defined(a), a)
    assert defined.experimental_get_tracing_count() == 1
    b = tf.ones([2, 3])
    np.testing.assert_array_equal(defined(b), b)
    assert defined.experimental_get_tracing_count() == 1


def test_input_signature_with_dict_in_positional_args():
    @tf.function
    def f(*_args, **_kwargs):
        return None

    f(1, x=2)
    assert f.experimental_get_tracing_count() == 1
    f(1, x=2)
    assert f.experimental_get_tracing_count() == 1
    f(1, {"x": 2})
    assert f.experimental_get_tracing_count() == 2


def test_input_signature_with_compatible_inputs():
    @tf.function(input_signature=[tf.TensorSpec(shape=(None, None), dtype=tf.float32)])
    def func(a):
        assert a.shape.as_list() == [None, None]
        return tf.shape(a)

    np.testing.assert_array_equal(func([[0], [1.0], [1]]), [3, 1])
    np.testing.assert_array_equal(func(np.array([[1, 1], [2, 2]])), [2, 2])
    with pytest.raises(TypeError):
        func([0.0, 1.0, 2.0])  # Wrong shape.
    with pytest.raises(TypeError):
        func([["wrong dtype"]])


def test_nested_input_signatures():
    @tf.function(input_signature=[[tf.TensorSpec((2, None), tf.float32)] * 2, tf.TensorSpec((1,), tf.float32)])
    def foo(a, b):
        assert a[0].shape.as_list() == [2, None]
        assert a[1].shape.as_list() == [2, None]
        assert b.shape.as_list() == [1]
        return [a, b]

    a = tf.ones([2, 1])
    b = tf.ones([1])
    out = foo([a, a], b)
    assert foo.experimental_get_tracing_count() == 1
    tf.nest.assert_same_structure(out, [[a, a], b])
    np.testing.assert_array_equal(out[0][0], a)
    np.testing.assert_array_equal(out[0][1], a)
    np.testing.assert_array_equal(out[1], b)

    a, b, c = tf.ones([2, 3]), tf.ones([2, 5]), tf.ones([1])
    expected = [[a, b], c]
    out = foo([a, b], c)
    assert foo.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(out[0][0], a)
    np.testing.assert_array_equal(out[0][1], b)
    np.testing.assert_array_equal(out[1], c)

    a, b, c = a.numpy().tolist(), b.numpy().tolist(), c.numpy().tolist()
    out = foo([a, b], c)
    assert foo.experimental_get_tracing_count() == 1
    tf.nest.assert_same_structure(out, expected)
    np.testing.assert_array_equal(out[0][0], a)
    np.testing.assert_array_equal(out[0][1], b)
    np.testing.assert_array_equal(out[1], c)


def test_nested_input_signatures_with_dict():
    @tf.function(input_signature=[{"a": tf.TensorSpec((2, None), tf.float32),
                                   "b": tf.TensorSpec((2, None), tf.float32),
                                   "c": tf.TensorSpec((1,), tf.float32)}])
    def bar(a):
        assert a["a"].shape.as_list() == [2, None]
        assert a["b"].shape.as_list() == [2, None]
        assert a["c"].shape.as_list() == [1]
        return a

    a = tf.ones([2, 3])
    b = tf.ones([1])
    inputs = {"a": a, "b": a, "c": b}
    out = bar(inputs)
    tf.nest.assert_same_structure(out, inputs)
    for k in "abc":
        np.testing.assert_array_equal(out[k], inputs[k])
    out = bar({"a": a.numpy().tolist(), "b": a.numpy().tolist(), "c": b.numpy().tolist()})
    for k in "abc":
        np.testing.assert_array_equal(out[k], inputs[k])


def test_input_signature_must_be_sequence():
    def foo(a, b):
        del a, b

    with pytest.raises(TypeError, match="input_signature must be either a tuple or a list.*"):
        tf.function(foo, input_signature={"t1": tf.TensorSpec([], tf.float32)})


def test_inputs_incompatible_with_nested_signature_raises_error():
    def foo(a, b):
        return [a, b]

    signature = [[tf.TensorSpec((1,), tf.float32)] * 2, [tf.TensorSpec((1,), tf.float32)] * 2]
    defined = tf.function(foo, input_signature=signature)
    a = tf.ones([1])
    with pytest.raises(TypeError):
        defined([a, a, a], [a])
    with pytest.raises(TypeError):
        defined([a], [a, a, a])
    defined([a, a], [a, a])


def test_underspecified_input_signature():
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def foo(a, training=True):
        if training:
            return a
        else:
            return -1.0 * a

    x = tf.constant(1.0)
    with pytest.raises(TypeError):   # TF 2.21's class (the ported test, older, says ValueError)
        foo(x, training=False)
    np.testing.assert_array_equal(foo(x), x.numpy())


def test_input_signature_with_partial_function():
    def full_function(a, b, c=3.0):
        return a, b, c

    partial = functools.partial(full_function, 1, c=4)
    a, b, c = partial(2.0)
    defined = tf.function(partial, input_signature=[tf.TensorSpec([], tf.float32)])
    func_a, func_b, func_c = defined(tf.constant(2.0))
    assert (func_a.numpy(), func_b.numpy(), func_c.numpy()) == (a, b, c)


def test_input_signature_with_keyword_positional_args():
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.int64)])
    def foo(flt, integer):
        return flt, integer

    flt = tf.constant(1.0)
    integer = tf.constant(2, tf.int64)
    for args, kwargs in [((flt, integer), {}), ((), dict(flt=flt, integer=integer)),
                         ((), dict(integer=integer, flt=flt)), ((flt,), dict(integer=integer))]:
        out1, out2 = foo(*args, **kwargs)
        assert foo.experimental_get_tracing_count() == 1
        assert out1.numpy() == 1.0
        assert out2.numpy() == 2


def test_input_signature_with_keyword_args():
    def foo(a, b, **kwargs):
        del kwargs
        return a, b

    x = tf.function(foo, input_signature=[tf.TensorSpec([], tf.float32),
                                          tf.TensorSpec([], tf.int32)]).get_concrete_function()
    result = x(tf.constant(5.0), tf.constant(5))
    assert [r.numpy() for r in result] == [5.0, 5]


def test_input_signature_with_composite_tensors():
    def f(rt):
        assert rt.values.shape.as_list() == [None]
        assert rt.row_splits.shape.as_list() == [4]
        return rt

    defined = tf.function(f, input_signature=[tf.RaggedTensorSpec(shape=[3, None], dtype=tf.int32)])
    rt1 = tf.ragged.constant([[1], [], [2, 3, 4]])
    out1 = defined(rt1)
    assert defined.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(out1.values, rt1.values)
    np.testing.assert_array_equal(out1.row_splits, rt1.row_splits)
    rt2 = tf.ragged.constant([[1, 2], [3, 4], [5]])
    out2 = defined(rt2)
    assert defined.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(out2.values, rt2.values)
    with pytest.raises(TypeError):   # different number of rows
        defined(tf.ragged.constant([[1, 2], [3, 4], [5], [6]]))
    with pytest.raises(TypeError):   # different dtype
        defined(tf.ragged.constant([[1.0, 2.0], [], [3.0]]))
    with pytest.raises(TypeError):   # different rank (TF 2.21: TypeError; the ported test says ValueError)
        defined(tf.ragged.constant([[[1]], [[2]], [[3]]]))


def test_input_signature_with_keyword_only_args(tmp_path):
    def f(a, b, c=3, *, d=4):
        assert isinstance(a, tf.Tensor)
        assert isinstance(b, tf.Tensor)
        assert isinstance(c, int)
        assert isinstance(d, (int, tf.Tensor))
        return a + b + c + d

    signature = [tf.TensorSpec(shape=[], dtype=tf.int32), tf.TensorSpec(shape=[], dtype=tf.int32)]
    assert tf.function(f, input_signature=signature)(1, 2).numpy() == 10
    assert tf.function(functools.partial(f, c=4), input_signature=signature)(1, 2).numpy() == 11
    assert tf.function(functools.partial(f, d=5), input_signature=signature)(1, 2).numpy() == 11
    defined = tf.function(functools.partial(f, d=tf.constant(5)), input_signature=signature)
    assert defined(1, 2).numpy() == 11

    mod = tf.Module()
    tf.saved_model.save(mod, str(tmp_path), defined.get_concrete_function(*signature))
    loaded = tf.saved_model.load(str(tmp_path))
    result = loaded.signatures["serving_default"](a=tf.constant(1), b=tf.constant(2), d=tf.constant(5))
    assert result["output_0"].numpy() == 11


def test_input_signature_with_keyword_only_args_no_defaults():
    signature = [tf.TensorSpec(shape=[], dtype=tf.int32), tf.TensorSpec(shape=[], dtype=tf.int32)]

    def test_func(a, *, b):
        return a + b

    msg = "Since input_signature is defined, keyword-only parameter `b` must have a default value"
    with pytest.raises(TypeError, match=msg):
        tf.function(test_func, input_signature=signature)
    with pytest.raises(TypeError, match=msg):
        tf.function(lambda a, *, b: a + b, input_signature=signature)


def test_tensor_keyword_arguments():
    def foo(a, b):
        del a
        return b

    defined = tf.function(foo)
    a = tf.constant(2.0)
    b = tf.constant([1.0, 2.0])
    one = defined(a, b)
    two = defined(a=a, b=b)
    three = defined(b=b, a=a)
    four = defined(a, b=b)
    assert defined.experimental_get_tracing_count() == 1
    five = defined(b, a)
    assert defined.experimental_get_tracing_count() == 2
    six = defined(a=b, b=a)
    seven = defined(b=a, a=b)
    assert defined.experimental_get_tracing_count() == 2
    for r in (one, two, three, four):
        np.testing.assert_array_equal(r, [1.0, 2.0])
    for r in (five, six, seven):
        assert r.numpy() == 2.0
