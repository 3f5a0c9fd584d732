"""SparseTensors crossing graph boundaries: tf.shape of a SparseTensor (its dense_shape), and the
elements of a dataset of SparseTensors read by next() inside a tf.function."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_shape_of_sparse_tensor_is_dense_shape():
    st = tf.sparse.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 4])
    s = tf.shape(st)
    assert s.dtype == tf.int32 and s.numpy().tolist() == [3, 4]
    assert tf.shape(st, out_type=tf.int64).dtype == tf.int64

    @tf.function(input_signature=[tf.SparseTensorSpec([None, 4], tf.float32)])
    def f(x):
        return tf.shape(x)

    assert f(st).numpy().tolist() == [3, 4]


def test_sparse_dataset_elements_in_a_function():
    spec = (tf.SparseTensorSpec([None, 3], tf.float32), tf.TensorSpec([None, 2], tf.float32))

    def gen():
        for k in range(3):
            yield tf.sparse.from_dense(tf.constant([[1.0, 0, 2], [0, 0, 3.0 + k]])), tf.ones([2, 2])

    ds = tf.data.Dataset.from_generator(gen, output_signature=spec).prefetch(2)
    it = iter(ds)

    @tf.function
    def step(it):
        x, y = next(it)
        return tf.sparse.reduce_sum(x) + tf.reduce_sum(y), x.dense_shape

    totals = []
    for _ in range(3):
        total, shape = step(it)
        totals.append(float(total))
        assert shape.numpy().tolist() == [2, 3]
    assert totals == [10.0, 11.0, 12.0]

    @tf.function
    def loop(ds):
        total = tf.constant(0.0)
        for x, _ in ds:
            total += tf.sparse.reduce_sum(x)
        return total

    assert float(loop(ds)) == 21.0


def test_map_fn_unstacks_sparse_tensors():
    a = tf.sparse.from_dense(tf.constant([[[1.0, 0, 2]], [[0, 0, 3.0]]]))
    b = tf.constant([[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]]])

    def mm(a, b):
        return tf.map_fn(lambda x: tf.sparse.sparse_dense_matmul(x[0], x[1]), elems=(a, b),
                         fn_output_signature=tf.float32)

    assert mm(a, b).numpy().tolist() == [[[7.0]], [[18.0]]]
    assert tf.function(mm)(a, b).numpy().tolist() == [[[7.0]], [[18.0]]]
    rows = tf.map_fn(lambda x: tf.sparse.reduce_sum(x), elems=a, fn_output_signature=tf.float32)
    assert rows.numpy().tolist() == [3.0, 3.0]
