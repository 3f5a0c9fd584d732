"""Batching ragged and sparse components (the ragged-tensor guide's pipelines): Dataset.batch of
RaggedTensor elements (and their unbatch), Dataset.ragged_batch and
tf.data.experimental.dense_to_ragged_batch of dense elements of varying shape, batches of
SparseTensors; element specs and values as TF's."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def as_lists(x):
    if isinstance(x, tf.RaggedTensor):
        return x.to_list()
    if isinstance(x, tf.SparseTensor):
        return (x.indices.numpy().tolist(), x.values.numpy().tolist(), x.dense_shape.numpy().tolist())
    return np.asarray(x.numpy()).tolist()


def test_batch_and_unbatch_ragged_elements():
    rt = tf.ragged.constant([[1, 2], [3], [], [4, 5, 6], [7]])
    ds = tf.data.Dataset.from_tensor_slices(rt)
    assert ds.element_spec == tf.RaggedTensorSpec(tf.TensorShape([None]), tf.int32, 0, tf.int64)
    batched = ds.batch(2)
    assert batched.element_spec == tf.RaggedTensorSpec(tf.TensorShape([None, None]), tf.int32, 1, tf.int64)
    got = [as_lists(b) for b in batched]
    assert got == [[[1, 2], [3]], [[], [4, 5, 6]], [[7]]]
    assert all(isinstance(b, tf.RaggedTensor) for b in batched)
    assert [as_lists(e) for e in batched.unbatch()] == [[1, 2], [3], [], [4, 5, 6], [7]]
    dropped = ds.batch(2, drop_remainder=True)
    assert dropped.element_spec.shape.as_list() == [2, None]


def test_batch_of_dicts_with_ragged_features():
    features = {"colors": tf.ragged.constant([["red", "blue"], ["orange"], ["black", "yellow"]]),
                "lengths": tf.ragged.constant([[7], [], [1, 3]], dtype=tf.int64)}
    ds = tf.data.Dataset.from_tensor_slices(features).batch(2)
    out = [{k: as_lists(v) for k, v in e.items()} for e in ds]
    assert out == [{"colors": [[b"red", b"blue"], [b"orange"]], "lengths": [[7], []]},
                   {"colors": [[b"black", b"yellow"]], "lengths": [[1, 3]]}]


def test_batch_of_two_level_ragged():
    rt = tf.ragged.constant([[[1], [2, 3]], [[4, 5, 6]], [[], [7], [8]]])
    batched = tf.data.Dataset.from_tensor_slices(rt).batch(3)
    assert batched.element_spec.ragged_rank == 2
    assert [as_lists(b) for b in batched] == [rt.to_list()]


@pytest.mark.parametrize("via", ["method", "experimental"])
def test_ragged_batch_of_dense_elements(via):
    ds = tf.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8]).map(tf.range)
    if via == "method":
        batched = ds.ragged_batch(2)
    else:
        batched = ds.apply(tf.data.experimental.dense_to_ragged_batch(2))
    assert batched.element_spec == tf.RaggedTensorSpec(tf.TensorShape([None, None]), tf.int32, 1, tf.int64)
    assert [as_lists(b) for b in batched] == [[[0], [0, 1, 2, 3, 4]], [[0, 1, 2], [0, 1]],
                                              [[0, 1, 2, 3, 4, 5, 6, 7]]]


def test_ragged_batch_keeps_static_components_dense_and_int32_splits():
    ds = tf.data.Dataset.range(1, 4).map(lambda n: (tf.fill([n, 2], n), n))
    batched = ds.ragged_batch(3, row_splits_dtype=tf.int32)
    spec = batched.element_spec
    assert spec[0] == tf.RaggedTensorSpec(tf.TensorShape([None, None, 2]), tf.int64, 1, tf.int32)
    assert spec[1] == tf.TensorSpec([None], tf.int64)
    (rt, n), = list(batched)
    assert rt.row_splits.dtype == tf.int32
    assert rt.to_list() == [[[1, 1]], [[2, 2], [2, 2]], [[3, 3], [3, 3], [3, 3]]]
    assert n.numpy().tolist() == [1, 2, 3]


def test_ragged_batch_of_two_unknown_dimensions():
    ds = tf.data.Dataset.range(1, 3).map(lambda n: tf.zeros([n, n], tf.int32))
    batched = ds.ragged_batch(2)
    assert batched.element_spec.ragged_rank == 2
    (rt,) = list(batched)
    assert rt.to_list() == [[[0]], [[0, 0], [0, 0]]]


def test_batch_sparse_elements():
    st = tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], [1.0, 2.0, 3.0], [3, 4])
    ds = tf.data.Dataset.from_tensor_slices(st)
    batched = ds.batch(2)
    assert batched.element_spec == tf.SparseTensorSpec(tf.TensorShape([None, 4]), tf.float32)
    got = [as_lists(b) for b in batched]
    assert got == [([[0, 0], [1, 2]], [1.0, 2.0], [2, 4]), ([[0, 1]], [3.0], [1, 4])]
