"""RaggedTensors through tf.function (RaggedTensorSpec trace types, input_signature, retracing)
and GradientTape (gradients reach flat_values), checked under TensorFlow 2.21."""
import pytest

from tfbackend import tf, IS_TF

pytestmark = pytest.mark.tf_oracle


def _r(x):
    return repr(x).replace("fn.", "tf.")


def test_ragged_argument_and_result():
    @tf.function
    def make_palindrome(x, axis):
        return tf.concat([x, tf.reverse(x, [axis])], axis)
    assert _r(make_palindrome(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]), axis=1)) == \
        "<tf.RaggedTensor [[1, 2, 2, 1], [3, 3], [4, 5, 6, 6, 5, 4]]>"
    # Same spec (3 rows), other flat_values length: the trace is reused and still right.
    assert _r(make_palindrome(tf.ragged.constant([[1, 2, 7], [3], [4, 5, 6]]), axis=1)) == \
        "<tf.RaggedTensor [[1, 2, 7, 7, 2, 1], [3, 3], [4, 5, 6, 6, 5, 4]]>"
    assert make_palindrome.experimental_get_tracing_count() == 1


def test_trace_types():
    traced = []

    @tf.function
    def k(x):
        traced.append(tuple(x.shape.as_list()))
        return x.row_lengths()
    k(tf.ragged.constant([[1, 2], [3]]))
    k(tf.ragged.constant([[1, 2, 5], [3]]))              # same spec
    k(tf.ragged.constant([[1, 2, 5], [3], [4]]))         # nrows differ
    k(tf.ragged.constant([[1.0]]))                       # dtype
    k(tf.ragged.constant([[[1]]]))                       # ragged_rank
    k(tf.ragged.constant([[1]], row_splits_dtype=tf.int32))
    assert traced == [(2, None), (3, None), (1, None), (1, None, None), (1, None)]
    assert k.experimental_get_tracing_count() == 5


def test_reduce_retracing():
    traced = []

    @tf.function(reduce_retracing=True)
    def k(x):
        traced.append(tuple(x.shape.as_list()))
        return x.row_lengths()
    k(tf.ragged.constant([[1, 2], [3]]))
    k(tf.ragged.constant([[1, 2, 5], [3], [4]]))
    assert tf.reduce_sum(k(tf.ragged.constant([[1, 2, 5], [3], [4], []]))).numpy() == 5
    assert traced == [(2, None), (None, None)]


def test_input_signature():
    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
    def max_and_min(rt):
        return (tf.math.reduce_max(rt, axis=-1), tf.math.reduce_min(rt, axis=-1))
    mx, mn = max_and_min(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    assert mx.numpy().tolist() == [2, 3, 6] and mn.numpy().tolist() == [1, 3, 4]
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        max_and_min(tf.ragged.constant([[1.0]]))
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        max_and_min(tf.constant([[1]]))


def test_concrete_function():
    @tf.function
    def increment(x):
        return x + 1
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    cf = increment.get_concrete_function(rt)
    assert _r(cf(rt)) == "<tf.RaggedTensor [[2, 3], [4], [5, 6, 7]]>"
    assert _r(cf.structured_input_signature) == \
        "((RaggedTensorSpec(TensorShape([3, None]), tf.int32, 1, tf.int64),), {})"
    spec = increment.get_concrete_function(tf.RaggedTensorSpec([None, None], tf.float32))
    assert _r(spec(tf.ragged.constant([[1.0], []]))) == "<tf.RaggedTensor [[2.0], []]>"


def test_created_inside_function():
    @tf.function
    def g(x):
        return tf.ragged.constant([[1, 2], [3]]) * x
    assert _r(g(tf.constant(3))) == "<tf.RaggedTensor [[3, 6], [9]]>"

    @tf.function
    def h(x):
        return tf.RaggedTensor.from_row_lengths(x, [2, 1])
    assert _r(h(tf.constant([1, 2, 3]))) == "<tf.RaggedTensor [[1, 2], [3]]>"

    @tf.function
    def s(x):
        return tf.strings.split(x)
    assert _r(s(tf.constant(["a b", "c"]))) == "<tf.RaggedTensor [[b'a', b'b'], [b'c']]>"


def test_gradient_through_ragged_ops():
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])
    with tf.GradientTape() as tape:
        rt = tf.RaggedTensor.from_row_lengths(v * 1.0, [3, 0, 1])
        y = (tf.reduce_sum(tf.reduce_max(rt, axis=1) * 2.0) + tf.reduce_sum(rt.to_tensor())
             + tf.reduce_sum(tf.reduce_mean(rt * rt, axis=1)[:1]))
    assert tape.gradient(y, v).numpy().tolist() == pytest.approx([5 / 3, 7 / 3, 5.0, 3.0])


def test_gradient_inside_function():
    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x.flat_values)
            y = tf.reduce_sum(tf.square(x))
        return t.gradient(y, x.flat_values)
    assert f(tf.ragged.constant([[1.0, 2.0], [3.0]])).numpy().tolist() == [2.0, 4.0, 6.0]


def test_graph_repr():
    @tf.function
    def f(x):
        return repr(x).replace("fn.", "tf.")
    text = f(tf.ragged.constant([[1], [2, 3]])).numpy().decode()
    assert text.startswith("tf.RaggedTensor(values=") and "row_splits=" in text


def test_saved_model_roundtrip(tmp_path):
    class CustomModule(tf.Module):
        def __init__(self, value):
            super().__init__()
            self.v = tf.Variable(value)

        @tf.function
        def grow(self, x):
            return x * self.v
    module = CustomModule(100.0)
    module.grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32))
    tf.saved_model.save(module, str(tmp_path))
    imported = tf.saved_model.load(str(tmp_path))
    assert _r(imported.grow(tf.ragged.constant([[1.0, 4.0, 3.0], [2.0]]))) == \
        "<tf.RaggedTensor [[100.0, 400.0, 300.0], [200.0]]>"
    assert _r(imported.grow(tf.ragged.constant([[1.0], [2.0], []]))) == "<tf.RaggedTensor [[100.0], [200.0], []]>"
    with pytest.raises(ValueError):
        imported.grow(tf.constant([1.0]))


def test_cond_with_ragged_outputs():
    @tf.function
    def h(x, p):
        if p > 0:
            y = tf.concat([x, x], axis=1)
        else:
            y = x
        return y
    x = tf.ragged.constant([[1, 2], [3]])
    assert _r(h(x, tf.constant(1))) == "<tf.RaggedTensor [[1, 2, 1, 2], [3, 3]]>"
    assert _r(h(x, tf.constant(0))) == "<tf.RaggedTensor [[1, 2], [3]]>"

    @tf.function
    def k(x, p):
        if p > 0:
            y = x
        else:
            y = x.to_tensor()
        return y
    with pytest.raises(TypeError):
        k(x, tf.constant(1))
    assert _r(tf.cond(tf.constant(False), lambda: tf.ragged.constant([[1]]), lambda: tf.ragged.constant([[2, 3]]))) \
        == "<tf.RaggedTensor [[2, 3]]>"


def test_loops_with_ragged_loop_vars():
    @tf.function
    def f(rt, n):
        for i in tf.range(n):
            rt = tf.concat([rt, rt[:, :1]], axis=1)   # flat_values grow each iteration
        return rt
    assert _r(f(tf.ragged.constant([[1, 2], [3]]), tf.constant(2))) == "<tf.RaggedTensor [[1, 2, 1, 1], [3, 3, 3]]>"

    @tf.function
    def g(rt):
        s = tf.constant(0)
        i = tf.constant(0)
        while i < 3:
            rt = rt * 2
            s += tf.reduce_sum(rt)
            i += 1
        return rt, s
    assert _r(g(tf.ragged.constant([[1, 2], [3]]))) == \
        "(<tf.RaggedTensor [[8, 16], [24]]>, <tf.Tensor: shape=(), dtype=int32, numpy=84>)"
    out = tf.while_loop(lambda r: tf.reduce_sum(r) < 20, lambda r: [r * 2], [tf.ragged.constant([[1], [2]])])
    assert _r(out) == "[<tf.RaggedTensor [[8],\n [16]]>]"


def test_validation_inside_function():
    @tf.function
    def h(v, s):
        return tf.RaggedTensor.from_row_splits(v, s)
    with pytest.raises(tf.errors.InvalidArgumentError):
        h(tf.constant([1, 2, 3]), tf.constant([0, 2], tf.int64))
    assert _r(h(tf.constant([1, 2, 3]), tf.constant([0, 3], tf.int64))) == "<tf.RaggedTensor [[1, 2, 3]]>"

    @tf.function
    def f(x, y):
        return x + y
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.ragged.constant([[1, 2], [3]]), tf.ragged.constant([[1], [2, 3]]))
