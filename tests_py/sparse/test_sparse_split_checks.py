"""tf.sparse.split checks num_split before building any piece (a huge num_split was a hang)."""
from __future__ import annotations

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _sp():
    return tf.sparse.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])


@pytest.mark.parametrize("n", [0, -1])
def test_num_split_below_one(n):
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be at least minimum 1"):
        tf.sparse.split(_sp(), num_split=n, axis=0)


@pytest.mark.parametrize("n", [3, 5])
def test_num_split_above_dimension(n):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=rf"splitting dimension size \(2\), got {n}"):
        tf.sparse.split(_sp(), num_split=n, axis=1)


def test_num_split_with_too_many_outputs_fails_at_once():
    with pytest.raises(ValueError, match="Number of outputs is too big: 6442450944"):
        tf.sparse.split(_sp(), num_split=2**31, axis=0)


def test_num_split_above_dimension_in_function():
    @tf.function
    def f(s):
        return tf.sparse.split(s, num_split=5, axis=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="splitting dimension size"):
        f(_sp())


def test_valid_split():
    parts = tf.sparse.split(_sp(), num_split=2, axis=0)
    assert [p.dense_shape.numpy().tolist() for p in parts] == [[1, 2], [1, 2]]
    assert [p.values.numpy().tolist() for p in parts] == [[1.0], [2.0]]


def test_reshape_in_function():
    @tf.function
    def f(s):
        return tf.sparse.reshape(s, [-1])
    r = f(_sp())
    assert r.dense_shape.numpy().tolist() == [4]
    assert r.indices.numpy().tolist() == [[0], [3]]
