"""tf.size of a SparseTensor: the number of elements of its dense shape (TF's Prod of dense_shape),
eagerly and in a Function, in the requested dtype."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_size_of_sparse_is_dense_element_count():
    sp = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    n = tf.size(sp)
    assert n.shape == () and n.dtype == tf.int32 and int(n) == 6
    n64 = tf.size(sp, out_type=tf.int64)
    assert n64.dtype == tf.int64 and int(n64) == 6
    assert int(tf.function(lambda s: tf.size(s))(sp)) == 6
    empty = tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0]), [4, 0])
    assert int(tf.size(empty)) == 0
