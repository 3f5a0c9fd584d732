"""Ragged and sparse elements through ``map``, ``batch`` and ``unbatch``, as TF 2.21 gives them
(the expectations were read off TF; the same test runs under TF with ``--against-tf``)."""

from __future__ import annotations

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_map_may_return_ragged_tensors_alone_or_in_a_structure():
    ds = tf.data.Dataset.range(3).map(lambda i: tf.RaggedTensor.from_row_lengths(tf.range(i + 1), [i + 1]))
    spec = ds.element_spec
    assert isinstance(spec, tf.RaggedTensorSpec)
    assert (spec.shape.as_list(), spec.ragged_rank, spec.dtype) == ([1, None], 1, tf.int64)
    assert [x.to_list() for x in ds] == [[[0]], [[0, 1]], [[0, 1, 2]]]
    ds = tf.data.Dataset.range(4).map(lambda i: ({"r": tf.ragged.range(tf.stack([i, 1]))}, i))
    assert [x["r"].to_list() for x, _ in ds] == [[[], [0]], [[0], [0]], [[0, 1], [0]], [[0, 1, 2], [0]]]


def test_batching_ragged_rows_adds_a_ragged_dimension_and_keeps_uniform_ones():
    ds = tf.data.Dataset.range(4).map(lambda i: ({"r": tf.ragged.range(tf.stack([i, 1]))}, i)).batch(2)
    r_spec = ds.element_spec[0]["r"]
    assert (r_spec.shape.as_list(), r_spec.ragged_rank) == ([None, 2, None], 2)
    got = [(x["r"].shape.as_list(), x["r"].to_list(), y.numpy().tolist()) for x, y in ds]
    assert got == [([2, 2, None], [[[], [0]], [[0], [0]]], [0, 1]),
                   ([2, 2, None], [[[0, 1], [0]], [[0, 1, 2], [0]]], [2, 3])]


def test_slices_of_a_ragged_tensor_batch_back_into_ragged_tensors():
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6], []])
    ds = tf.data.Dataset.from_tensor_slices(rt)
    assert ds.element_spec.ragged_rank == 0
    b = ds.batch(3)
    assert (b.element_spec.shape.as_list(), b.element_spec.ragged_rank) == ([None, None], 1)
    assert [x.to_list() for x in b] == [[[1, 2], [3], [4, 5, 6]], [[]]]
    assert [x.tolist() for x in b.unbatch().as_numpy_iterator()] == [[1, 2], [3], [4, 5, 6], []]
    assert [x.to_list() for x in ds.batch(2, drop_remainder=True).rebatch(1)] == [[[1, 2]], [[3]], [[4, 5, 6]], [[]]]


def test_batching_sparse_tensors_gives_one_sparse_tensor_with_the_largest_dense_shape():
    st = tf.sparse.from_dense(tf.constant([[1, 0], [0, 2], [3, 0]]))
    ds = tf.data.Dataset.from_tensor_slices(st)
    b = ds.batch(2)
    assert b.element_spec.shape.as_list() == [None, 2]
    got = [(x.indices.numpy().tolist(), x.values.numpy().tolist(), x.dense_shape.numpy().tolist()) for x in b]
    assert got == [([[0, 0], [1, 1]], [1, 2], [2, 2]), ([[0, 0]], [3], [1, 2])]
    # as_numpy_iterator gives a SparseTensor's dense array (TF's SparseTensor._numpy)
    assert [x.tolist() for x in b.unbatch().as_numpy_iterator()] == [[1, 0], [0, 2], [3, 0]]


@pytest.mark.parametrize("args, lead, want", [
    ((3,), None, [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]),
    ((3, True), 3, [[0, 1, 2], [3, 4, 5], [6, 7, 8]]),
    (([1, 2, 3],), None, [[0], [1, 2], [3, 4, 5], [6], [7, 8], [9]]),
    (([1, 2, 3], True), None, [[0], [1, 2], [3, 4, 5], [6], [7, 8]]),
    (([2, 2], True), 2, [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]),
])
def test_rebatch_cuts_the_rows_again_with_one_size_or_sizes_in_turn(args, lead, want):
    ds = tf.data.Dataset.range(10).batch(4).rebatch(*args)
    assert ds.element_spec.shape.as_list() == [lead]
    assert [x.numpy().tolist() for x in ds] == want
    assert int(ds.cardinality()) == int(tf.data.UNKNOWN_CARDINALITY)


@pytest.mark.fn_only
def test_rebatch_refuses_a_size_of_zero():   # TF 2.21 loops forever on it
    with pytest.raises(tf.errors.InvalidArgumentError, match="positive"):
        tf.data.Dataset.range(10).batch(4).rebatch(0)


def test_map_over_ragged_and_sparse_elements_sees_them_whole():
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6], []])
    ds = tf.data.Dataset.from_tensor_slices(rt).batch(2)
    m = ds.map(lambda r: (r * 2, r.row_lengths()))
    assert [(a.to_list(), b.numpy().tolist()) for a, b in m] == [([[2, 4], [6]], [2, 1]), ([[8, 10, 12], []], [3, 0])]
    m2 = ds.map(lambda r: {"s": tf.reduce_sum(r, axis=1), "r": r + 1}, num_parallel_calls=2)
    assert [(d["s"].numpy().tolist(), d["r"].to_list()) for d in m2] == [([3, 3], [[2, 3], [4]]), ([15, 0], [[5, 6, 7], []])]
    rows = tf.data.Dataset.from_tensor_slices(rt).map(lambda r: tf.reduce_sum(r))   # a ragged_rank-0 row is a tensor
    assert [x.numpy().tolist() for x in rows] == [3, 3, 15, 0]
    st = tf.sparse.from_dense(tf.constant([[1, 0], [0, 2], [3, 0]]))
    s = tf.data.Dataset.from_tensor_slices(st).batch(2).map(lambda x: tf.sparse.to_dense(x) * 10)
    assert [x.numpy().tolist() for x in s] == [[[10, 0], [0, 20]], [[30, 0]]]
