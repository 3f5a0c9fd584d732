"""Gaps the ragged-tensor guide showed: tf.strings.substr of a RaggedTensor (scalar pos/len; ragged
ones refused as TF), tf.ragged.range with empty vectors (eagerly, in functions, in Dataset.map),
serialized protos ending in NUL bytes converted from Python lists (tf.io.parse_example of them)."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_substr_of_ragged():
    words = tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
    assert tf.strings.substr(words, 0, 2).to_list() == [[b"So", b"lo"], [b"th", b"fo", b"al", b"th", b"fi"]]
    assert tf.strings.substr(words, 1, tf.constant(1)).to_list() == [[b"o", b"o"], [b"h", b"o", b"l", b"h", b"i"]]
    with pytest.raises(ValueError, match="object of type 'RaggedTensor' has no len"):
        tf.strings.substr(words, 1, tf.ragged.constant([[1, 2], [1, 1, 1, 1, 2]]))


def test_ragged_range_with_empty_vectors():
    assert tf.ragged.range(tf.constant([], tf.int64)).to_list() == []
    assert tf.ragged.range(0, tf.constant([], tf.int32)).to_list() == []
    assert tf.ragged.range(3).to_list() == [[0, 1, 2]]
    assert tf.ragged.range([1, 3], 5).to_list() == [[1, 2, 3, 4], [3, 4]]
    assert tf.ragged.range(0, [2, 0, 3], 1).to_list() == [[0, 1], [], [0, 1, 2]]

    @tf.function
    def f(x):
        return tf.ragged.range(x)

    assert f(tf.constant([], tf.int64)).to_list() == []
    assert f(tf.constant([2, 1], tf.int64)).to_list() == [[0, 1], [0]]


def test_ragged_range_in_dataset_map():
    ds = tf.data.Dataset.from_tensor_slices({"lengths": tf.ragged.constant([[7], [], [1, 3]], dtype=tf.int64)})
    out = [(int(e["m"]), e["r"].to_list())
           for e in ds.map(lambda f: {"m": tf.math.reduce_mean(f["lengths"]), "r": tf.ragged.range(f["lengths"])})]
    assert out == [(7, [[0, 1, 2, 3, 4, 5, 6]]), (0, []), (2, [[0], [0, 1, 2]])]


def test_bytes_with_trailing_nul_survive_conversion():
    assert tf.constant([b"a\x00", b"b"]).numpy().tolist() == [b"a\x00", b"b"]
    assert tf.constant([["x\x00\x00", "y"]]).numpy().tolist() == [[b"x\x00\x00", b"y"]]
    assert tf.convert_to_tensor([b"\x00"]).numpy().tolist() == [b"\x00"]
    empty_lengths = tf.train.Example(features=tf.train.Features(feature={
        "lengths": tf.train.Feature(int64_list=tf.train.Int64List(value=[]))})).SerializeToString()
    assert empty_lengths.endswith(b"\x00")
    other = tf.train.Example(features=tf.train.Features(feature={
        "lengths": tf.train.Feature(int64_list=tf.train.Int64List(value=[3, 5]))})).SerializeToString()
    parsed = tf.io.parse_example([other, empty_lengths], {"lengths": tf.io.RaggedFeature(tf.int64)})
    assert parsed["lengths"].to_list() == [[3, 5], []]


def test_row_partition_from_value_rowids():
    # what Keras' sparse data adapter calls (the sparse-tensor guide's Keras model)
    rp = tf.experimental.RowPartition.from_value_rowids(tf.constant([0, 0, 2, 2, 2], tf.int64), nrows=4)
    assert rp.row_splits().numpy().tolist() == [0, 2, 2, 5, 5]
    assert rp.row_splits().dtype == tf.int64
    assert tf.experimental.RowPartition.from_value_rowids([1, 1, 3]).row_splits().numpy().tolist() == [0, 0, 2, 2, 3]


def test_sparse_dense_shape_holding_int32_tensors():
    @tf.function
    def f(i):
        st = tf.SparseTensor([[0, 0]], [1.0], (tf.shape(i)[0], 4))
        return st.dense_shape

    got = f(tf.constant([1, 2, 3]))
    assert got.dtype == tf.int64 and got.numpy().tolist() == [3, 4]


def test_keras_predict_on_sparse_input():
    # the sparse-tensor guide's model: Keras slices the SparseTensor per batch in a Dataset.map
    x = tf.keras.Input(shape=(4,), sparse=True)
    model = tf.keras.Model(x, tf.keras.layers.Dense(4)(x))
    data = tf.sparse.SparseTensor([(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)], [1.0] * 6, (6, 4))
    direct = model(data)
    predicted = model.predict(data, verbose=0)
    assert predicted.shape == (6, 4)
    assert abs(direct.numpy() - predicted).max() < 1e-5
