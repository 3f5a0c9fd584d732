"""ExtensionTypes with tf.function (arguments, results, input_signature with their Spec,
get_concrete_function, retracing), tf.nest, cond/while_loop, AutoGraph, map_fn, tf.data and
SavedModel; and type-based dispatch (dispatch_for_api, elementwise dispatch, unregistering)."""
from typing import List, Mapping, Union

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


class MaskedTensor(tf.experimental.BatchableExtensionType):
    __name__ = "fn_tests.MaskedTensor"
    values: tf.Tensor
    mask: tf.Tensor

    def with_values(self, v):
        return MaskedTensor(v, self.mask)

    def with_default(self, default):
        return tf.where(self.mask, self.values, default)


class Player(tf.experimental.ExtensionType):
    name: tf.Tensor
    attributes: Mapping[str, tf.Tensor]


class Network(tf.experimental.BatchableExtensionType):
    shape: tf.TensorShape
    work: tf.Tensor
    bandwidth: tf.Tensor

    def __init__(self, work, bandwidth):
        self.work = tf.convert_to_tensor(work)
        self.bandwidth = tf.convert_to_tensor(bandwidth)
        self.shape = self.work.shape[:-1].merge_with(self.bandwidth.shape[:-2])


def _mt(values, mask):
    return MaskedTensor(values, mask)


def test_function_arguments_results_and_retracing():
    traces = []

    @tf.function
    def anonymize(player):
        traces.append(1)
        return Player("<anonymous>", player.attributes)

    out = anonymize(Player("Anne", {"height": 8.3, "speed": 28.1}))
    assert isinstance(out, Player) and out.name.numpy() == b"<anonymous>"
    anonymize(Player("Bart", {"height": 8.1, "speed": 25.3}))
    assert len(traces) == 1
    anonymize(Player("Chuck", {"height": 11.0, "jump": 5.3}))
    assert len(traces) == 2
    np.testing.assert_allclose(float(out.attributes["speed"]), 28.1, rtol=1e-6)


def test_input_signature_and_concrete_function():
    spec = MaskedTensor.Spec(tf.TensorSpec([None]), tf.TensorSpec([None], tf.bool))

    @tf.function(input_signature=[spec])
    def double(x):
        return x.with_values(x.values * 2)

    r = double(_mt([1.0, 2.0], [True, False]))
    assert r.values.numpy().tolist() == [2.0, 4.0] and r.mask.numpy().tolist() == [True, False]
    assert double(_mt([1.0, 2.0, 3.0], [True, False, True])).values.shape == (3,)
    with pytest.raises(TypeError):
        double(_mt([1, 2], [True, False]))   # int32 values do not match the float32 spec

    @tf.function
    def total(x):
        return tf.reduce_sum(x.with_default(0.0))
    cf = total.get_concrete_function(spec)
    assert float(cf(_mt([1.0, 5.0], [False, True]))) == 5.0


def test_nest_and_control_flow():
    a = _mt([1.0, 2.0, 3.0], [True, False, True])
    flat = tf.nest.flatten(a, expand_composites=True)
    assert len(flat) == 2 and flat[0].numpy().tolist() == [1.0, 2.0, 3.0]
    assert tf.nest.flatten(a)[0] is a
    back = tf.nest.pack_sequence_as(a, [tf.constant([5.0, 6.0, 7.0]), tf.constant([True, True, False])],
                                    expand_composites=True)
    assert isinstance(back, MaskedTensor) and back.values.numpy().tolist() == [5.0, 6.0, 7.0]
    b = _mt([22.0, 33.0, 108.0, 55.0], [True, True, True, False])
    r = tf.while_loop(lambda i, _: i < 10, lambda i, mt: (i + 1, mt.with_values(mt.values + 3 / 7)), [0, b])[1]
    np.testing.assert_allclose(r.values.numpy(), [26.285717, 37.285698, 112.285736, 59.285698], rtol=1e-6)

    @tf.function
    def f(x, flag):
        if flag:
            x = MaskedTensor(x, tf.less(x, 0))
        else:
            x = MaskedTensor(x, tf.greater(x, 0))
        for _ in tf.range(5 if flag else 7):
            x = x.with_values(x.values + 1 / 2)
        return x
    r1 = f(tf.constant([1.0, -2, 3]), tf.constant(True))
    assert r1.values.numpy().tolist() == [3.5, 0.5, 5.5] and r1.mask.numpy().tolist() == [False, True, False]
    r2 = f(tf.constant([1.0, -2, 3]), tf.constant(False))
    assert r2.values.numpy().tolist() == [4.5, 1.5, 6.5]


def test_map_fn_over_batchable():
    batch = Network(work=[[5.0, 3, 8], [3, 4, 2]],
                    bandwidth=[[[0.0, 2, 0], [2, 0, 3], [0, 3, 0]], [[0.0, 2, 2], [2, 0, 2], [2, 2, 0]]])
    assert batch.shape.as_list() == [2]

    def balance(network):
        delta = (tf.expand_dims(network.work, -1) - tf.expand_dims(network.work, -2)) / 4
        delta = tf.maximum(tf.minimum(delta, network.bandwidth), -network.bandwidth)
        return Network(network.work + tf.reduce_sum(delta, -1), network.bandwidth)
    out = tf.map_fn(balance, batch)
    np.testing.assert_allclose(out.work.numpy(), [[5.5, 1.25, 9.25], [3.0, 4.75, 1.25]])
    assert out.shape.as_list() == [2]
    products = tf.map_fn(lambda n: tf.reduce_sum(n.work), batch, fn_output_signature=tf.float32)
    assert products.numpy().tolist() == [16.0, 9.0]


def test_data():
    mt = MaskedTensor(tf.reshape(tf.range(20), [5, 4]), tf.ones([5, 4], tf.bool))
    ds = tf.data.Dataset.from_tensor_slices(mt)
    assert ds.element_spec == MaskedTensor.Spec(tf.TensorSpec([4], tf.int32), tf.TensorSpec([4], tf.bool))
    rows = [v.values.numpy().tolist() for v in ds]
    assert rows[1] == [4, 5, 6, 7] and len(rows) == 5
    batched = ds.batch(2)
    got = [v.values.shape.as_list() for v in batched]
    assert got == [[2, 4], [2, 4], [1, 4]]
    assert [v.values.numpy().tolist() for v in batched.unbatch()] == rows
    mapped = ds.map(lambda m: m.with_values(m.values * 2))
    assert next(iter(mapped)).values.numpy().tolist() == [0, 2, 4, 6]
    one = next(iter(tf.data.Dataset.from_tensors(MaskedTensor([1, 2], [True, False]))))
    assert isinstance(one, MaskedTensor) and one.mask.numpy().tolist() == [True, False]

    def gen():
        for i in range(2, 5):
            yield MaskedTensor(list(range(4)), [j % i != 0 for j in range(4)])
    spec = MaskedTensor.Spec(tf.TensorSpec([4], tf.int32), tf.TensorSpec([4], tf.bool))
    g = tf.data.Dataset.from_generator(gen, output_signature=spec)
    assert [v.mask.numpy().tolist() for v in g][0] == [False, True, False, True]


def test_saved_model(tmp_path):
    class Module(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(100.0)

        @tf.function
        def grow(self, x):
            return MaskedTensor(x.values * self.v, x.mask)

    m = Module()
    m.grow.get_concrete_function(MaskedTensor.Spec(tf.TensorSpec(None, tf.float32), tf.TensorSpec(None, tf.bool)))
    tf.saved_model.save(m, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    r = loaded.grow(MaskedTensor([1.0, 2, 3], [False, True, False]))
    assert isinstance(r, MaskedTensor) and r.values.numpy().tolist() == [100.0, 200.0, 300.0]


def test_dispatch_for_api():
    @tf.experimental.dispatch_for_api(tf.stack)
    def masked_stack(values: List[MaskedTensor], axis=0):
        return MaskedTensor(tf.stack([v.values for v in values], axis), tf.stack([v.mask for v in values], axis))
    try:
        x, y = _mt([1, 2, 3], [True, True, False]), _mt([4, 5, 6], [False, True, True])
        s = tf.stack([x, y])
        assert isinstance(s, MaskedTensor) and s.values.shape == (2, 3)
        assert tf.stack([tf.constant(1), tf.constant(2)]).numpy().tolist() == [1, 2]
        with pytest.raises((TypeError, ValueError)):
            tf.stack([x, tf.constant([4, 5, 6])])   # List[MaskedTensor] does not match: the plain op fails
    finally:
        tf.experimental.unregister_dispatch_for(masked_stack)

    @tf.experimental.dispatch_for_api(tf.stack)
    def masked_stack_v2(values: List[Union[MaskedTensor, tf.Tensor]], axis=0):
        values = [v if isinstance(v, MaskedTensor) else MaskedTensor(v, tf.ones_like(v, tf.bool)) for v in values]
        return MaskedTensor(tf.stack([v.values for v in values], axis), tf.stack([v.mask for v in values], axis))
    try:
        s = tf.stack([_mt([1, 2, 3], [True, True, False]), tf.constant([4, 5, 6])])
        assert s.mask.numpy().tolist() == [[True, True, False], [True, True, True]]
        assert not isinstance(tf.stack([tf.constant(1)]), MaskedTensor)
    finally:
        tf.experimental.unregister_dispatch_for(masked_stack_v2)


def test_elementwise_dispatch_and_errors():
    @tf.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
    def unary(api_func, x):
        return MaskedTensor(api_func(x.values), x.mask)

    @tf.experimental.dispatch_for_binary_elementwise_apis(MaskedTensor, MaskedTensor)
    def binary(api_func, x, y):
        return MaskedTensor(api_func(x.values, y.values), x.mask & y.mask)
    try:
        x = _mt([1, -2, -3], [True, False, True])
        assert tf.abs(x).values.numpy().tolist() == [1, 2, 3]
        assert tf.ones_like(x, dtype=tf.float32).values.dtype == tf.float32
        y = _mt([[4], [5]], [[True], [False]])
        s = tf.math.add(x, y)
        assert s.values.numpy().tolist() == [[5, 2, 1], [6, 3, 2]]
        assert tf.add(tf.constant(1), tf.constant(2)).numpy() == 3
    finally:
        tf.experimental.unregister_dispatch_for(unary)
        tf.experimental.unregister_dispatch_for(binary)
    with pytest.raises(ValueError, match="does not support dispatch"):
        tf.experimental.dispatch_for_api(tf.function)
    with pytest.raises(ValueError, match="Dispatch function's signature"):
        @tf.experimental.dispatch_for_api(tf.stack)
        def bad(vals: List[MaskedTensor], axis=0, name=None):
            return None
    with pytest.raises(ValueError, match="was not registered using a `@dispatch_for_\\*` decorator"):
        tf.experimental.unregister_dispatch_for(lambda x: x)


def test_binary_assert_dispatch():
    class MT(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor

    @tf.experimental.dispatch_for_binary_elementwise_assert_apis(MT, MT)
    def handler(assert_func, x, y):
        merged = tf.logical_and(x.mask, y.mask)
        assert_func(tf.boolean_mask(x.values, merged), tf.boolean_mask(y.values, merged))
    # (left registered: TF 2.21's unregister_dispatch_for raises KeyError for assert handlers;
    # MT is local to this test, so nothing else dispatches to it)
    a = MT([1, 1, 0, 1, 1], [False, False, True, True, True])
    b = MT([2, 2, 0, 2, 2], [True, True, True, False, False])
    tf.debugging.assert_equal(a, b)
    c = MT([1, 1, 1, 1, 1], [True, True, True, True, True])
    d = MT([0, 0, 0, 0, 2], [True, True, True, True, True])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.debugging.assert_greater(c, d)
    assert tf.debugging.assert_less(tf.constant(1), tf.constant(2)) is None
