"""``Dataset.get_single_element`` and ``tf.data.experimental.get_single_element``: the only element,
eagerly and inside a Function; InvalidArgumentError for an empty dataset or one of two elements."""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_single_element_of_nested_structure():
    x, d = tf.data.Dataset.from_tensors((1, {"a": [2.0, 3.0]})).get_single_element()
    assert int(x) == 1 and x.dtype == tf.int32
    np.testing.assert_array_equal(d["a"].numpy(), np.array([2.0, 3.0], np.float32))
    last = tf.data.experimental.get_single_element(tf.data.Dataset.range(5).skip(4))
    assert int(last) == 4


@pytest.mark.parametrize("n, message", [(0, "Dataset was empty."), (2, "Dataset had more than one element.")])
def test_not_one_element_raises(n, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.data.Dataset.range(n).get_single_element()


def test_inside_a_function_reads_the_dataset_when_the_graph_runs():
    @tf.function
    def f(n):
        return tf.data.Dataset.range(n).map(lambda x: x * 2).skip(n - 1).get_single_element()

    assert int(f(tf.constant(3, tf.int64))) == 4
    assert int(f(tf.constant(5, tf.int64))) == 8
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset was empty."):
        f(tf.constant(0, tf.int64))


def test_element_spec_shapes_carry_through_a_function():
    @tf.function
    def f(v):
        return tf.data.Dataset.from_tensors(v).map(lambda t: t + 1).get_single_element()

    out = f(tf.constant([[1, 2], [3, 4]]))
    assert out.shape == (2, 2)
    np.testing.assert_array_equal(out.numpy(), [[2, 3], [4, 5]])
