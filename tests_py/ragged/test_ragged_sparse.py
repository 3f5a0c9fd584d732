"""RaggedTensor <-> SparseTensor (needs fn.SparseTensor from fn.sparse; skipped without it)."""
import pytest

from tfbackend import tf

pytestmark = [pytest.mark.tf_oracle,
              pytest.mark.skipif(not hasattr(tf, "SparseTensor"), reason="fn.SparseTensor not merged yet")]


def _parts(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


def test_to_sparse():
    rt = tf.ragged.constant([['Hi'], ['Welcome', 'to', 'the', 'fair'], ['Have', 'fun']])
    assert _parts(rt.to_sparse()) == ([[0, 0], [1, 0], [1, 1], [1, 2], [1, 3], [2, 0], [2, 1]],
                                      [b'Hi', b'Welcome', b'to', b'the', b'fair', b'Have', b'fun'], [3, 4])
    st = tf.ragged.constant([[[1, 2], [3]], [[4]]]).to_sparse()
    assert _parts(st) == ([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0]], [1, 2, 3, 4], [2, 2, 2])
    st = tf.RaggedTensor.from_row_splits([[1, 3], [0, 0], [1, 3]], [0, 2, 3]).to_sparse()
    assert _parts(st) == ([[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1]],
                          [1, 3, 0, 0, 1, 3], [2, 2, 2])


def test_from_sparse():
    st = tf.SparseTensor(indices=[[0, 0], [2, 0], [2, 1]], values=['a', 'b', 'c'], dense_shape=[3, 3])
    assert tf.RaggedTensor.from_sparse(st).to_list() == [[b'a'], [], [b'b', b'c']]
    with pytest.raises(tf.errors.InvalidArgumentError, match="SparseTensor is not right-ragged"):
        tf.RaggedTensor.from_sparse(tf.SparseTensor(indices=[[0, 1]], values=[1], dense_shape=[3, 3]))
    with pytest.raises(ValueError, match=r"rank\(st_input\) must be 2."):
        tf.RaggedTensor.from_sparse(tf.SparseTensor(indices=[[0, 0, 0]], values=[1], dense_shape=[3, 3, 3]))
