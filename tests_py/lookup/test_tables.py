"""``tf.lookup``: StaticHashTable over KeyValueTensorInitializer / TextFileInitializer and
``tf.lookup.experimental.MutableHashTable``, eagerly, inside Functions and in ``Dataset.map``,
with TF 2.21's values and errors; and the Keras lookup layers built on them."""
from __future__ import annotations

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def table():
    init = tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], [7, 8, 9])
    return tf.lookup.StaticHashTable(init, default_value=-1)


def test_static_table_lookup_size_export():
    t = table()
    assert (t.key_dtype, t.value_dtype) == (tf.string, tf.int32)
    assert t.default_value.numpy() == -1
    np.testing.assert_array_equal(t.lookup(tf.constant([["a", "z"], ["c", "b"]])).numpy(), [[7, -1], [9, 8]])
    assert t[tf.constant("b")].numpy() == 8
    size = t.size()
    assert size.dtype == tf.int64 and size.numpy() == 3
    keys, values = t.export()
    order = np.argsort(keys.numpy())
    assert keys.numpy()[order].tolist() == [b"a", b"b", b"c"] and values.numpy()[order].tolist() == [7, 8, 9]


def test_lookup_inside_a_function_keeps_the_keys_shape():
    t = table()

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.string)])
    def f(x):
        out = t.lookup(x)
        assert out.shape.as_list() == [None, 2]
        return out

    np.testing.assert_array_equal(f(tf.constant([["c", "q"], ["a", "a"]])).numpy(), [[9, -1], [7, 7]])
    np.testing.assert_array_equal(f(tf.constant([["b", "b"]])).numpy(), [[8, 8]])


def test_lookup_in_dataset_map_and_of_integer_keys():
    t = table()
    assert list(tf.data.Dataset.from_tensor_slices(["b", "x"]).map(t.lookup).as_numpy_iterator()) == [8, -1]
    init = tf.lookup.KeyValueTensorInitializer(tf.constant([1, 2], tf.int64), tf.constant([0.5, 1.5]))
    t2 = tf.lookup.StaticHashTable(init, 0.0)
    np.testing.assert_array_equal(t2.lookup(tf.constant([2, 3], tf.int64)).numpy(), [1.5, 0.0])


def test_sparse_and_ragged_keys_map_their_values():
    t = table()
    sp = tf.sparse.SparseTensor([[0, 0], [1, 2]], ["c", "x"], [2, 3])
    out = t.lookup(sp)
    assert out.values.numpy().tolist() == [9, -1] and out.indices.numpy().tolist() == [[0, 0], [1, 2]]
    rt = tf.ragged.constant([["a"], ["b", "c", "z"]])
    assert t.lookup(rt).to_list() == [[7], [8, 9, -1]]


def test_static_table_errors():
    t = table()
    with pytest.raises(TypeError, match=r"Dtype of argument `keys` must be <dtype: 'string'>, received: <dtype: 'int32'>"):
        t.lookup(tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected shape \[2\] for value, got \[1\]"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [1]), -1)
    with pytest.raises(TypeError, match="Cannot convert 'x' to EagerTensor of dtype int32"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), "x")


def test_text_file_initializer(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("emerson\nlake\npalmer\n")
    init = tf.lookup.TextFileInitializer(str(vocab), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
                                         tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)
    t = tf.lookup.StaticHashTable(init, -1)
    np.testing.assert_array_equal(t.lookup(tf.constant(["lake", "x", "palmer"])).numpy(), [1, -1, 2])
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("a\t10\nb\t20\n")
    init = tf.lookup.TextFileInitializer(str(pairs), tf.string, 0, tf.int64, 1)
    np.testing.assert_array_equal(tf.lookup.StaticHashTable(init, 0).lookup(tf.constant(["b", "a"])).numpy(), [20, 10])
    assert (tf.lookup.TextFileIndex.WHOLE_LINE, tf.lookup.TextFileIndex.LINE_NUMBER) == (-2, -1)


def test_mutable_hash_table_eagerly_and_in_a_function():
    m = tf.lookup.experimental.MutableHashTable(key_dtype=tf.string, value_dtype=tf.int64, default_value=-1)
    assert m.insert(["x", "y"], tf.constant([1, 2], tf.int64)) is None
    np.testing.assert_array_equal(m.lookup(["x", "z", "y"]).numpy(), [1, -1, 2])
    assert m.size().numpy() == 2
    m.remove(tf.constant(["x"]))
    np.testing.assert_array_equal(m.lookup(["x", "y"]).numpy(), [-1, 2])
    np.testing.assert_array_equal(m.lookup(["x", "y"], dynamic_default_values=tf.constant([5, 6], tf.int64)).numpy(), [5, 2])

    @tf.function
    def insert_then_read(k, v):
        m.insert(k, v)
        return m.lookup(k)

    np.testing.assert_array_equal(insert_then_read(tf.constant(["p"]), tf.constant([5], tf.int64)).numpy(), [5])
    assert m.size().numpy() == 2
    keys, values = m.export()
    assert sorted(zip(keys.numpy().tolist(), values.numpy().tolist())) == [(b"p", 5), (b"y", 2)]
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int64 for Tensor with dtype float32"):
        m.insert(["a"], tf.constant([1.0]))


def test_keras_lookup_layers():
    sl = tf.keras.layers.StringLookup(vocabulary=["a", "b", "c"])
    np.testing.assert_array_equal(sl(tf.constant(["a", "c", "e"])).numpy(), [1, 3, 0])
    f = tf.function(lambda x: sl(x))
    np.testing.assert_array_equal(f(tf.constant(["b", "q"])).numpy(), [2, 0])
    adapted = tf.keras.layers.StringLookup()
    adapted.adapt(["x", "y", "x", "z", "x"])
    assert [str(v) for v in adapted.get_vocabulary()] == ["[UNK]", "x", "z", "y"]
    il = tf.keras.layers.IntegerLookup(vocabulary=[5, 6])
    np.testing.assert_array_equal(il(tf.constant([6, 9])).numpy(), [2, 0])
