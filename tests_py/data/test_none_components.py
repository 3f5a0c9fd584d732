"""``None`` components of tf.data elements (TF's NoneTensor / ``NoneTensorSpec``) and Optional
components yielded by generators (``tf.OptionalSpec``): Keras feeds optional model inputs this way
(``fit(x={"x": x, "o": None})``)."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_from_tensors_keeps_none():
    ds = tf.data.Dataset.from_tensors({"a": 1, "b": None})
    assert repr(ds.element_spec["b"]) == "NoneTensorSpec()"
    assert ds.element_spec["a"] == tf.TensorSpec((), tf.int32)
    (el,) = list(ds)
    assert el["b"] is None and int(el["a"]) == 1


def test_slices_batch_and_map_pass_none_through():
    ds = tf.data.Dataset.from_tensor_slices((np.arange(5), None))
    assert repr(ds.element_spec[1]) == "NoneTensorSpec()"
    ds = ds.map(lambda x, n: (x * 2, n, n is None)).batch(2)
    assert repr(ds.element_spec[1]) == "NoneTensorSpec()"
    got = list(ds)
    assert [list(x.numpy()) for x, _, _ in got] == [[0, 2], [4, 6], [8]]
    assert all(n is None for _, n, _ in got)
    assert all(bool(b.numpy().all()) for _, _, b in got)


def test_map_may_return_none():
    ds = tf.data.Dataset.range(3).map(lambda x: {"x": x, "nothing": None})
    assert repr(ds.element_spec["nothing"]) == "NoneTensorSpec()"
    assert [e["nothing"] for e in ds] == [None, None, None]


def test_none_inside_a_function_over_an_iterator():
    ds = tf.data.Dataset.from_tensors((np.ones((2, 2), np.float32), None)).repeat(3)

    @tf.function
    def total(it):
        s = tf.constant(0.0)
        for _ in tf.range(3):
            x, n = next(it)
            s += tf.reduce_sum(x) if n is None else -1.0
        return s

    assert float(total(iter(ds))) == 12.0

    @tf.function
    def first(it):
        opt = it.get_next_as_optional()
        x, n = opt.get_value()
        return x, n is None, opt.has_value()

    x, is_none, has = first(iter(ds))
    assert bool(is_none) and bool(has) and x.shape == (2, 2)


def test_optional_from_value_with_none():
    opt = tf.experimental.Optional.from_value((tf.constant([1, 2]), None))
    assert repr(opt.element_spec[1]) == "NoneTensorSpec()"
    v = opt.get_value()
    assert v[1] is None and list(v[0].numpy()) == [1, 2]


def test_generator_yielding_empty_optionals():
    def gen():
        for i in range(3):
            yield np.float32(i), tf.experimental.Optional.empty(None)

    ds = tf.data.Dataset.from_generator(
        gen, output_signature=(tf.TensorSpec((), tf.float32), tf.OptionalSpec(None)))
    got = list(ds)
    assert [float(x) for x, _ in got] == [0.0, 1.0, 2.0]
    assert all(not bool(o.has_value()) for _, o in got)

    @tf.function
    def count(it):
        n = tf.constant(0)
        for _x, o in it:
            n += tf.cast(o.has_value(), tf.int32) + 1
        return n

    assert int(count(ds)) == 3
