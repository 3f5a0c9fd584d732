"""tf.function's API as TensorFlow 2.21 has it: input_signature binding, ConcreteFunction calls
and introspection, TF's binding messages. Every expectation here was checked under TF."""
import functools

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

DT = r"(fn|tf)"   # dtype prefix in reprs: fn.int32 / tf.int32


def _vector_fn():
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def collatz(x):
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)
    return collatz


def test_input_signature_mismatch_is_type_error_and_value_error():
    f = _vector_fn()
    assert f(tf.constant([1, 2])).numpy().tolist() == [4, 1]
    with pytest.raises(TypeError, match=rf"(?s)Binding inputs to tf.function failed due to `Can not cast "
                       rf"TensorSpec\(shape=\(2, 2\), dtype={DT}.int32, name=None\) to TensorSpec\(shape=\(None,\), "
                       rf"dtype={DT}.int32, name=None\)`. Received args: .* and kwargs: \{{\}} for signature: "
                       rf"\(x: TensorSpec\(shape=\(None,\), dtype={DT}.int32, name=None\)\)"):
        f(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(TypeError, match="too many positional arguments"):
        f(tf.constant([1]), tf.constant([1]))


@pytest.mark.fn_only  # the guide catches ValueError; TF 2.21 raises TypeError only
def test_input_signature_mismatch_is_also_value_error():
    with pytest.raises(ValueError, match="Python inputs incompatible with input_signature"):
        _vector_fn()(tf.constant([1.0]))


def test_input_signature_converts_lists_numpy_and_keywords():
    f = _vector_fn()
    assert f([4, 5]).numpy().tolist() == [2, 16]
    assert f(np.array([1, 2], dtype=np.int32)).numpy().tolist() == [4, 1]
    assert f(x=tf.constant([3])).numpy().tolist() == [10]
    assert f.experimental_get_tracing_count() == 1


def test_input_signature_with_defaults_beyond_it():
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def add(x, y=3):
        return x + y
    assert add(tf.constant([1])).numpy().tolist() == [4]
    assert add(tf.constant([1]), 3).numpy().tolist() == [4]
    with pytest.raises(TypeError, match=r"Can not cast 4 to Literal\[3\].*y: Literal\[3\] = <captured_default_value>"):
        add(tf.constant([1]), 4)


def test_input_signature_keyword_only_default():
    def scale(a, *, b=3):
        return a * b
    f = tf.function(scale, input_signature=[tf.TensorSpec([], tf.int32)])
    assert f(tf.constant(2)).numpy() == 6


def test_input_signature_dict():
    @tf.function(input_signature=({"a": tf.TensorSpec([], tf.float32), "b": tf.TensorSpec([2], tf.float32)},))
    def f(inp):
        return inp["a"] + inp["b"]
    assert f({"a": tf.constant(1.0), "b": tf.constant([1.0, 2.0])}).numpy().tolist() == [2.0, 3.0]
    assert f({"b": [0.0, 1.0], "a": 2.0}).numpy().tolist() == [2.0, 3.0]
    with pytest.raises(TypeError, match="has different keys with the TraceType"):
        f({"a": tf.constant(1.0)})
    assert f.experimental_get_tracing_count() == 1


def test_input_signature_functools_partial():
    def add(a, b):
        return a + b
    f = tf.function(functools.partial(add, tf.constant(2)), input_signature=[tf.TensorSpec([], tf.int32)])
    assert f(tf.constant(1)).numpy() == 3
    assert f(5).numpy() == 7


def test_input_signature_unknown_shapes():
    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def fixed(x):
        return x
    with pytest.raises(TypeError, match=rf"Can not cast TensorSpec\(shape=<unknown>, dtype={DT}.float32, name=None\) "
                       rf"to TensorSpec\(shape=\(2,\), dtype={DT}.float32, name=None\)"):
        fixed.get_concrete_function(tf.TensorSpec(None, tf.float32))

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def anything(x):
        return tf.shape(x)
    assert anything(tf.constant([[1.0]])).numpy().tolist() == [1, 1]
    assert anything(tf.constant(1.0)).numpy().tolist() == []
    assert anything.experimental_get_tracing_count() == 1


def _scale_concrete():
    @tf.function
    def scale(a, b=2):
        return a + a
    return scale.get_concrete_function(tf.TensorSpec([None], tf.float32, name="a"), 2)


def test_concrete_function_flat_and_structured_calls():
    c = _scale_concrete()
    assert c(tf.constant([1.0])).numpy().tolist() == [2.0]          # flat: tensors only
    assert c(a=tf.constant([1.0])).numpy().tolist() == [2.0]
    assert c(tf.constant([1.0]), 2).numpy().tolist() == [2.0]       # structured: every parameter


def test_concrete_function_binding_messages():
    c = _scale_concrete()
    sig = (rf"for signature: \(a: TensorSpec\(shape=\(None,\), dtype={DT}.float32, name='a'\), b: Literal\[2\]\) "
           rf"-> TensorSpec\(shape=\(None,\), dtype={DT}.float32, name=None\)")
    with pytest.raises(TypeError, match=r"Binding inputs to tf.function failed due to `Can not cast 3 to "
                       r"Literal\[2\]`. .*" + sig + r".\nFallback to flat signature also failed due to: "
                       r"scale\(a\) got unexpected keyword arguments: b."):
        c(tf.constant([1.0]), b=3)
    with pytest.raises(TypeError, match=r"`missing a required argument: 'a'`.*\nFallback to flat signature also "
                       r"failed due to: scale\(a\) missing required arguments: a."):
        c()
    with pytest.raises(TypeError, match=r"`too many positional arguments`.*\nFallback to flat signature also "
                       r"failed due to: scale\(a\) takes 1 positional arguments, got 3."):
        c(tf.constant([1.0]), 2, 3)
    with pytest.raises(TypeError, match=r"`missing a required argument: 'b'`.*\nFallback to flat signature also "
                       r"failed due to: scale\(a\) got unexpected keyword arguments: z."):
        c(tf.constant([1.0]), z=3)
    with pytest.raises(TypeError, match=r"(?s)`multiple values for argument 'a'`.*scale\(a\) got two values for 'a'."):
        c(tf.constant([1.0]), a=tf.constant([1.0]))
    with pytest.raises(TypeError, match=r"scale\(a\): expected argument #0\(zero-based\) to be a Tensor; got list "
                       r"\(\[1.0, 2.0\]\)."):
        c([1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float tensor but is a int32 tensor"):
        c(tf.constant([1]))


def test_concrete_function_keywords_by_tensor_spec_name():
    @tf.function
    def two(x, y):
        return x - y
    c = two.get_concrete_function(tf.TensorSpec([], tf.float32, name="first"),
                                  tf.TensorSpec([], tf.float32, name="second"))
    assert c(first=tf.constant(5.0), second=tf.constant(2.0)).numpy() == 3.0
    assert c(x=tf.constant(5.0), y=tf.constant(1.0)).numpy() == 4.0
    assert c(tf.constant(5.0), second=tf.constant(3.0)).numpy() == 2.0
    with pytest.raises(TypeError, match=r"two\(first, second\) missing required arguments: second."):
        c(tf.constant(1.0))


def test_concrete_function_inputs_outputs_variables():
    v = tf.Variable(3.0)
    w = tf.Variable(1.0, trainable=False)

    @tf.function
    def f(x):
        return x * v + w
    c = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    assert [t.dtype for t in c.inputs] == [tf.float32, tf.resource, tf.resource]
    assert c.inputs[0].name == "x:0"
    assert len(c.outputs) == 1 and c.outputs[0].name == "Identity:0"
    assert list(c.variables) == [v, w] or list(c.variables) == [w, v]
    assert len(c.variables) == 2 and c.trainable_variables[0] is v and len(c.trainable_variables) == 1


def test_concrete_function_with_variable_argument_called_flat():
    @tf.function
    def step(w, x):
        w.assign_add(x)
        return w.read_value()
    w = tf.Variable(1.0)
    c = step.get_concrete_function(w, tf.constant(1.0))
    assert c(w, tf.constant(2.0)).numpy() == 3.0
    other = tf.Variable(10.0)
    assert c(other, tf.constant(1.0)).numpy() == 11.0 and w.numpy() == 3.0   # the handle is an input
    assert [t.dtype for t in c.inputs] == [tf.resource, tf.float32] and len(c.variables) == 0


def test_numpy_arrays_are_tensors():
    traces = []

    @tf.function
    def f(x):
        traces.append(1)
        return x * 2
    r = f(np.array([1.0, 2.0]))
    assert r.dtype == tf.float64 and r.numpy().tolist() == [2.0, 4.0]
    assert f(np.array([3.0, 4.0])).numpy().tolist() == [6.0, 8.0]
    assert len(traces) == 1
    assert f(np.array([1, 2])).dtype == tf.int64
    assert len(traces) == 2
    c = f.get_concrete_function(np.array([1.0, 2.0]))
    assert c.structured_input_signature == ((tf.TensorSpec([2], tf.float64, name="x"),), {})
    assert f(np.zeros([3], np.float32)).shape == (3,)


def test_variable_created_on_first_call_from_the_arguments():
    traces = []

    class Scale(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = None

        @tf.function
        def __call__(self, x):
            traces.append(1)
            if self.w is None:
                self.w = tf.Variable(tf.ones_like(x) * 2.0)
            return self.w * x
    m = Scale()
    assert m(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert m(tf.constant([3.0, 4.0])).numpy().tolist() == [6.0, 8.0]
    assert len(traces) == 2          # TF traces twice on the first call when it creates variables
    assert m.w.numpy().tolist() == [2.0, 2.0] and len(m.variables) == 1


def test_lazy_build_variable_depends_on_the_first_call_values():
    @tf.function
    def f(x):
        if not hasattr(f, "acc"):
            f.acc = tf.Variable(x + 1.0)
        f.acc.assign_add(x)
        return f.acc.read_value()
    assert f(tf.constant(1.0)).numpy() == 3.0
    assert f(tf.constant(5.0)).numpy() == 8.0


def test_modifying_an_input_list_or_dict_is_an_error():
    @tf.function
    def append(items):
        items.append(tf.constant(1))
        return items[0]
    with pytest.raises(ValueError, match=r"append\(items\) should not modify its Python input arguments. "
                       "Modifying a copy is allowed. The following parameter\\(s\\) were modified: items"):
        append([tf.constant(0)])

    @tf.function
    def set_key(d):
        d["x"] = 1
        return d["a"]
    with pytest.raises(ValueError, match="The following parameter\\(s\\) were modified: d"):
        set_key({"a": tf.constant(0)})

    @tf.function
    def copy_ok(items):
        items = list(items)
        items.append(tf.constant(1))
        return tf.add_n(items)
    assert copy_ok([tf.constant(2)]).numpy() == 3


def test_weakref_argument_is_refused():
    import weakref

    class Obj:
        pass
    o = Obj()

    @tf.function
    def f(w):
        return tf.constant(1)
    with pytest.raises(TypeError, match="weakref input .* not supported for tf.function."):
        f(weakref.ref(o))


def test_keyword_collision_and_method_binding():
    @tf.function
    def f(x, **kwargs):
        return x
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        f(1, x=2)

    class Bar:
        def __init__(self):
            self.k = 7

        def m(self, x):
            return x + self.k
    b = Bar()
    assert tf.function(b.m)(1).numpy() == 8


class _Point:
    """A type with TF's __tf_flatten__/__tf_unflatten__ protocol."""

    def __init__(self, x, y, label):
        self.x, self.y, self.label = x, y, label

    def __tf_flatten__(self):
        return self.label, (self.x, self.y)

    @classmethod
    def __tf_unflatten__(cls, metadata, leaves):
        return cls(leaves[0], leaves[1], metadata)


def test_tf_flatten_types_as_arguments_and_results():
    traces = []

    @tf.function
    def f(p):
        traces.append(1)
        return _Point(p.x * 2, [p.y + 1, p.label], p.label)
    r = f(_Point(tf.constant(1.0), tf.constant(2.0), "a"))
    assert isinstance(r, _Point) and r.label == "a"
    assert r.x.numpy() == 2.0 and r.y[0].numpy() == 3.0 and r.y[1].numpy() == b"a"
    f(_Point(tf.constant(3.0), tf.constant(4.0), "a"))
    assert len(traces) == 1
    f(_Point(tf.constant(3.0), tf.constant(4.0), "b"))     # other metadata: another trace
    assert len(traces) == 2


def test_tf_flatten_types_in_concrete_functions():
    @tf.function
    def f(p):
        return p.x + tf.reduce_sum(p.y)
    c = f.get_concrete_function(_Point(tf.TensorSpec([], tf.float32), tf.TensorSpec([None], tf.float32), "a"))
    assert c(_Point(tf.constant(1.0), tf.constant([2.0, 3.0]), "a")).numpy() == 6.0
    assert f(_Point(tf.constant(1.0), tf.constant([2.0]), "a")).numpy() == 3.0
    assert f.experimental_get_tracing_count() == 1


def test_unhashable_argument_is_a_type_error():
    import dataclasses

    @dataclasses.dataclass
    class Config:
        a: object

    @tf.function
    def f(c):
        return c.a
    with pytest.raises(TypeError, match="Could not generate a generic TraceType for .*Please verify that it is "
                       "immutable/hashable"):
        f(Config(tf.constant(1)))


def test_lists_of_graph_tensors_are_packed():
    x = tf.constant([1.0, 2.0, 3.0, 4.0])

    def run(body):
        return tf.function(body)(x).numpy().tolist()
    assert run(lambda x: tf.convert_to_tensor([x[0], x[1] * 2])) == [1.0, 4.0]
    assert run(lambda x: tf.convert_to_tensor([[x[0], 1.0], [2.0, x[1]]])) == [[1.0, 1.0], [2.0, 2.0]]
    assert run(lambda x: tf.add(x[:2], [x[0], x[1]])) == [2.0, 4.0]
    assert run(lambda x: x[:2] * [x[0], 3.0]) == [1.0, 6.0]
    assert run(lambda x: tf.concat([x, [x[0]]], 0)) == [1.0, 2.0, 3.0, 4.0, 1.0]
    assert run(lambda x: tf.reshape(x, [tf.shape(x)[0] // 2, 2])) == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(TypeError, match="Expected any non-tensor type, but got a tensor instead."):
        tf.function(lambda x: tf.constant([x[0], 1.0]))(x)


def test_method_of_a_temporary_instance():
    class Foo:
        def __init__(self, k):
            self.k = k

        @tf.function
        def unused_self(self, x):
            return x + 1

        @tf.function
        def uses_self(self, x):
            return x + self.k
    assert Foo(1).unused_self(1).numpy() == 2      # self is gone (held weakly): None, as in TF
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'k'"):
        Foo(1).uses_self(1)
    foo = Foo(3)
    assert foo.uses_self(1).numpy() == 4


def test_binding_errors_of_a_function():
    @tf.function
    def f(x, y=1, *args, z, **kw):
        return x
    sig = r"for signature: \(x, y=<captured_default_value>, \*args, z, \*\*kw\)."
    with pytest.raises(TypeError, match=r"Binding inputs to tf.function failed due to `missing a required argument: "
                       r"'x'`. Received args: \(\) and kwargs: \{\} " + sig):
        f()
    with pytest.raises(TypeError, match=r"`multiple values for argument 'x'`. Received args: \(1,\) and kwargs: "
                       r"\{'x': 2, 'z': 1\} " + sig):
        f(1, x=2, z=1)

    @tf.function
    def g(x):
        return x
    with pytest.raises(TypeError, match=r"`got an unexpected keyword argument 'w'`.* for signature: \(x\)."):
        g(1, w=2)
    with pytest.raises(TypeError, match=r"`too many positional arguments`"):
        g(1, 2)


def test_returned_shapes():
    @tf.function
    def shapes(x):
        return x.shape, tf.shape(x)
    static, dynamic = shapes(tf.constant([1, 2]))
    assert static.dtype == tf.int32 and static.numpy().tolist() == [2] and dynamic.numpy().tolist() == [2]

    @tf.function
    def partial(x):
        return x.shape
    with pytest.raises(TypeError, match="found return value of type TensorShape, which is not a Tensor"):
        partial.get_concrete_function(tf.TensorSpec([None], tf.float32))


def test_recursion_while_tracing_is_a_staging_error():
    @tf.function
    def forever(x):
        return forever(x)
    with pytest.raises(Exception, match="maximum recursion depth exceeded") as info:
        forever(tf.constant(1))
    assert type(info.value).__name__ == "StagingError"

    @tf.function
    def countdown(n):
        return countdown(n - 1) if n > 0 else tf.constant(n)
    assert countdown(3).numpy() == 0      # Python recursion that ends is fine


def test_is_tensor_counts_tensor_like_values():
    # TF 2.21: tensors, variables, ragged and sparse tensors are "tensors"; arrays, specs are not.
    @tf.function
    def inside(x):
        return tf.is_tensor(x), tf.is_tensor(x * 2)

    assert inside(tf.constant(1)) == (True, True)
    yes = [tf.constant(1), tf.Variable(1.0), tf.ragged.constant([[1], [2, 3]]), tf.sparse.from_dense([[1, 0]])]
    no = [np.array(1), 1, [1.0], tf.TensorSpec([]), tf.TensorArray(tf.float32, 1)]
    assert [tf.is_tensor(v) for v in yes] == [True] * 4
    assert [tf.is_tensor(v) for v in no] == [False] * 5
