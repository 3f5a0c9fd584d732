"""tf.shape of a RaggedTensor (DynamicRaggedShape), RowPartition, and ops taking a ragged shape
(reshape, zeros, ones, fill); expected values printed by TensorFlow 2.21."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _r(x):
    return (repr(x) if not isinstance(x, str) else x).replace("fn.", "tf.")


def test_shape_of_ragged():
    rt = tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]])
    s = tf.shape(rt)
    assert _r(s) == "<DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>"
    assert _r(s[0]) == "<tf.Tensor: shape=(), dtype=int32, numpy=4>"
    with pytest.raises(ValueError, match="^Index 1 is not uniform$"):
        s[1]
    assert _r(s[:1]) == "<DynamicRaggedShape lengths=[4] num_row_partitions=0>"
    assert tf.shape(rt, out_type=tf.int64)[0].dtype == tf.int64


def test_nested_and_uniform():
    s = tf.shape(tf.ragged.constant([[[1], [2, 3]], [[4]]]))
    assert _r(s) == "<DynamicRaggedShape lengths=[2, (2, 1), (1, 2, 1)] num_row_partitions=2>"
    assert (s.rank, s.num_row_partitions, s.dtype) == (3, 2, tf.int32)
    assert _r(s[:2]) == "<DynamicRaggedShape lengths=[2, (2, 1)] num_row_partitions=1>"
    assert s.inner_shape.numpy().tolist() == [4]
    with pytest.raises(IndexError, match="Index is too big: 5>=3"):
        s[5]
    with pytest.raises(ValueError, match="All relevant dimensions must be uniform"):
        s[1:]
    u = tf.shape(tf.RaggedTensor.from_row_splits([[1, 3], [0, 0], [1, 3], [5, 3]], [0, 3, 4]))
    assert _r(u) == "<DynamicRaggedShape lengths=[2, (3, 1), 2] num_row_partitions=1>"
    w = tf.shape(tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4], 2))
    assert _r(w) == "<DynamicRaggedShape lengths=[2, 2] num_row_partitions=1>"
    assert _r(w[1]) == "<tf.Tensor: shape=(), dtype=int32, numpy=2>"


def test_constructors():
    s = tf.experimental.DynamicRaggedShape(
        row_partitions=[tf.experimental.RowPartition.from_row_lengths([5, 3, 2])], inner_shape=[10, 8])
    assert _r(s) == "<DynamicRaggedShape lengths=[3, (5, 3, 2), 8] num_row_partitions=1>"
    f = tf.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])
    assert _r(f) == "<DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>"
    assert _r(tf.experimental.DynamicRaggedShape.from_lengths([2, 3])) == \
        "<DynamicRaggedShape lengths=[2, 3] num_row_partitions=0>"
    assert tf.experimental.DynamicRaggedShape.from_lengths([2, (1, 2), 3]).inner_shape.numpy().tolist() == [3, 3]


def test_ops_with_ragged_shape():
    x = tf.constant([['a', 'b'], ['c', 'd'], ['e', 'f']])
    s = tf.shape(tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]]))
    assert _r(tf.reshape(x, s)) == "<tf.RaggedTensor [[b'a'], [b'b', b'c', b'd'], [], [b'e', b'f']]>"
    assert _r(tf.zeros(s)) == "<tf.RaggedTensor [[0.0], [0.0, 0.0, 0.0], [], [0.0, 0.0]]>"
    assert _r(tf.ones(s)) == "<tf.RaggedTensor [[1.0], [1.0, 1.0, 1.0], [], [1.0, 1.0]]>"
    assert _r(tf.fill(s, 'x')) == "<tf.RaggedTensor [[b'x'], [b'x', b'x', b'x'], [], [b'x', b'x']]>"
