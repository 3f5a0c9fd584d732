"""Cells of TF's ragged_tensor guide (and tensor.ipynb's ragged cells): what TF 2.21 prints."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _r(x):
    return (x if isinstance(x, str) else repr(x)).replace("fn.", "tf.")


def test_tensor_guide_cells():
    ragged_tensor = tf.ragged.constant([[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]])
    assert _r(str(ragged_tensor)) == "<tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>"
    assert str(ragged_tensor.shape) == "(4, None)"
    s = tf.strings.split(tf.constant(["Gray wolf", "Quick brown fox", "Lazy dog"]))
    assert _r(str(s)) == "<tf.RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox'], [b'Lazy', b'dog']]>"


def test_broadcasting():
    assert _r(tf.ragged.constant([[1, 2], [3]]) + 3) == "<tf.RaggedTensor [[4, 5], [6]]>"
    x = tf.ragged.constant([[10, 87, 12], [19, 53], [12, 32]])
    assert _r(x + [[1000], [2000], [3000]]) == "<tf.RaggedTensor [[1010, 1087, 1012], [2019, 2053], [3012, 3032]]>"
    x = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    assert _r(x + tf.constant([[10]])) == "<tf.RaggedTensor [[[11, 12],\n  [13, 14],\n  [15, 16]], [[17, 18]]]>"
    x = tf.ragged.constant([[[[1], [2]], [], [[3]], [[4]]], [[[5], [6]], [[7]]]], ragged_rank=2)
    assert _r(x + tf.constant([10, 20, 30])) == (
        "<tf.RaggedTensor [[[[11, 21, 31],\n   [12, 22, 32]], [], [[13, 23, 33]], [[14, 24, 34]]],\n"
        " [[[15, 25, 35],\n   [16, 26, 36]], [[17, 27, 37]]]]>")


@pytest.mark.parametrize("x,y,first", [
    ([[1, 2], [3, 4, 5, 6], [7]], "dense", "[ 4  8 12]"),
    ([[1, 2, 3], [4], [5, 6]], [[10, 20], [30, 40], [50]], "[3 6]"),
    ([[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10]]],
     [[[1, 2, 0], [3, 4, 0], [5, 6, 0]], [[7, 8, 0], [9, 10, 0]]], "[2 4 6]"),
])
def test_broadcasting_errors(x, y, first):
    x = tf.ragged.constant(x)
    y = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]) if y == "dense" else tf.ragged.constant(y)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Condition x == y did not hold") as e:
        x + y
    assert f"Corresponding x values:\n{first}" in str(e.value)


def test_nested_partitions():
    rt = tf.RaggedTensor.from_row_splits(
        values=tf.RaggedTensor.from_row_splits(values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
                                               row_splits=[0, 3, 3, 5, 9, 10]),
        row_splits=[0, 1, 1, 5])
    assert _r(rt) == "<tf.RaggedTensor [[[10, 11, 12]], [], [[], [13, 14], [15, 16, 17, 18], [19]]]>"
    assert str(rt.shape) == "(3, None, None)" and rt.ragged_rank == 2
    rt2 = tf.RaggedTensor.from_nested_row_splits(flat_values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
                                                 nested_row_splits=([0, 1, 1, 5], [0, 3, 3, 5, 9, 10]))
    assert _r(rt2) == _r(rt)
    rt = tf.RaggedTensor.from_row_splits(values=[[1, 3], [0, 0], [1, 3], [5, 3], [3, 3], [1, 2]],
                                         row_splits=[0, 3, 4, 6])
    assert _r(rt) == "<tf.RaggedTensor [[[1, 3],\n  [0, 0],\n  [1, 3]], [[5, 3]], [[3, 3],\n                      [1, 2]]]>"
    assert str(rt.shape) == "(3, None, 2)" and str(rt.flat_values.shape) == "(6, 2)"
    rt = tf.RaggedTensor.from_uniform_row_length(
        values=tf.RaggedTensor.from_row_splits(values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
                                               row_splits=[0, 3, 5, 9, 10]),
        uniform_row_length=2)
    assert _r(rt) == "<tf.RaggedTensor [[[10, 11, 12], [13, 14]],\n [[15, 16, 17, 18], [19]]]>"
    assert str(rt.shape) == "(2, 2, None)" and rt.ragged_rank == 2


def test_strings_and_indexing():
    queries = tf.ragged.constant([['Who', 'is', 'George', 'Washington'],
                                  ['What', 'is', 'the', 'weather', 'tomorrow'], ['Goodnight']])
    assert _r(str(queries[1, 2])) == "tf.Tensor(b'the', shape=(), dtype=string)"
    assert _r(queries[:, -2:]) == \
        "<tf.RaggedTensor [[b'George', b'Washington'], [b'weather', b'tomorrow'], [b'Goodnight']]>"
    rt = tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]])
    assert _r(rt[:, -1:]) == "<tf.RaggedTensor [[[4]],\n\n [[6]],\n\n [[7]],\n\n [[10]]]>"
    s = tf.ragged.constant([['Hi'], ['Welcome', 'to', 'the', 'fair'], ['Have', 'fun']])
    assert s.to_tensor(default_value='', shape=[None, 10]).shape == (3, 10)
    assert _r(tf.concat([tf.ragged.constant([["John"], ["a", "big"]]), tf.ragged.constant([["x"], ["y"]])], 1)) \
        == "<tf.RaggedTensor [[b'John', b'x'], [b'a', b'big', b'y']]>"
    with pytest.raises(ValueError, match="^Can't convert Python sequence with mixed types to Tensor.$"):
        tf.ragged.constant([["one", "two"], [3, 4]])
    with pytest.raises(ValueError, match="^all scalar values must have the same nesting depth$"):
        tf.ragged.constant(["A", ["B", "C"]])
