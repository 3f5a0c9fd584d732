"""tf.nn.embedding_lookup_sparse / safe_embedding_lookup_sparse (combiners, weights, empty rows,
invalid ids, higher-rank ids) against a NumPy reference, tf.cast of a SparseTensor."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

S = tf.sparse.SparseTensor
PARAMS = np.arange(12, dtype=np.float32).reshape(6, 2) / 4.0


def _reference(rows, n_rows, combiner, weights=None, skip_empty=False):
    out = np.zeros((n_rows, 2), np.float32)
    for r in range(n_rows):
        items = [(i, (weights[r][k] if weights else 1.0)) for k, i in enumerate(rows[r])]
        if not items:
            continue
        total = sum(w * PARAMS[i] for i, w in items)
        ws = [w for _, w in items]
        if combiner == "mean":
            total = total / sum(ws)
        elif combiner == "sqrtn":
            total = total / np.sqrt(sum(w * w for w in ws))
        out[r] = total
    return out


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_lookup_sparse_combiners_and_weights(combiner):
    rows = [[1, 3], [5], [0, 0, 2]]
    idx = [[r, k] for r, row in enumerate(rows) for k in range(len(row))]
    ids = S(idx, np.array([i for row in rows for i in row], np.int64), [3, 3])
    got = tf.nn.embedding_lookup_sparse(PARAMS, ids, None, combiner=combiner)
    np.testing.assert_allclose(got.numpy(), _reference(rows, 3, combiner), rtol=1e-6)
    w = [[0.5, 2.0], [3.0], [1.0, 1.0, 0.25]]
    weights = S(idx, np.array([x for row in w for x in row], np.float32), [3, 3])
    got = tf.nn.embedding_lookup_sparse(PARAMS, ids, weights, combiner=combiner)
    np.testing.assert_allclose(got.numpy(), _reference(rows, 3, combiner, w), rtol=1e-6)


def test_lookup_sparse_bad_combiner_and_ids():
    ids = S([[0, 0]], np.array([1], np.int64), [1, 1])
    with pytest.raises(ValueError, match="combiner must be one of 'mean', 'sqrtn' or 'sum'"):
        tf.nn.embedding_lookup_sparse(PARAMS, ids, None, combiner="max")
    with pytest.raises(TypeError, match="sp_ids must be SparseTensor"):
        tf.nn.embedding_lookup_sparse(PARAMS, tf.constant([[1]]), None)


def test_safe_lookup_empty_rows_invalid_ids_and_rank3():
    # Row 1 is empty, row 2 holds only an invalid id (-1): both give zeros (default_id None).
    ids = S([[0, 0], [0, 1], [2, 0], [3, 0]], np.array([4, 1, -1, 2], np.int64), [4, 2])
    got = tf.nn.safe_embedding_lookup_sparse(PARAMS, ids, combiner="sum")
    np.testing.assert_allclose(got.numpy(), _reference([[4, 1], [], [], [2]], 4, "sum"), rtol=1e-6)
    # With a default id, empty rows take that id's embedding.
    got = tf.nn.safe_embedding_lookup_sparse(PARAMS, ids, combiner="mean", default_id=5)
    want = _reference([[4, 1], [5], [5], [2]], 4, "mean")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    # Rank-3 ids: all but the last dimension are rows of the result.
    ids3 = S([[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 1]], np.array([1, 2, 3, 4], np.int64), [2, 2, 2])
    got = tf.nn.safe_embedding_lookup_sparse(PARAMS, ids3, combiner="mean")
    assert got.shape == (2, 2, 2)
    want = _reference([[1], [2, 3], [4], []], 4, "mean").reshape(2, 2, 2)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_cast_of_sparse_tensor_keeps_structure():
    st = S([[0, 1], [1, 0]], [1.5, -2.5], [2, 3])
    c = tf.cast(st, tf.int32)
    assert isinstance(c, tf.sparse.SparseTensor) and c.dtype == tf.int32
    assert c.values.numpy().tolist() == [1, -2] and c.dense_shape.numpy().tolist() == [2, 3]
    assert c.indices.numpy().tolist() == [[0, 1], [1, 0]] and c.shape == (2, 3)
