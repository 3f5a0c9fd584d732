"""tf.print of RaggedTensors (TF's ragged_tensor_to_string), eagerly and inside a Function."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _printed(capfd, *values, **kwargs):
    tf.print(*values, **kwargs)
    out = capfd.readouterr()
    return out.err


def test_print_values(capfd):
    assert _printed(capfd, tf.ragged.constant([[1.5, 2.25], [3.0]])) == "[[1.500000, 2.250000], [3.000000]]\n"
    assert _printed(capfd, tf.ragged.constant([[1, 2, 3, 4, 5, 6, 7], [3]])) == "[[1, 2, 3, ..., 5, 6, 7], [3]]\n"
    assert _printed(capfd, tf.ragged.constant([[[1], [2, 3]], []])) == "[[[1], [2, 3]], []]\n"
    assert _printed(capfd, tf.ragged.constant([[True], []])) == "[[true], []]\n"
    assert _printed(capfd, tf.RaggedTensor.from_row_splits([[1, 3], [0, 0], [1, 3]], [0, 2, 3])) == \
        "[[[1, 3], [0, 0]], [[1, 3]]]\n"
    assert _printed(capfd, "x:", tf.ragged.constant([["a", "b'c"], []]), tf.constant(1)) == \
        "x: [['a', 'b\\'c'], []] 1\n"
    assert _printed(capfd, {"a": tf.ragged.constant([[1]])}) == "{'a': [[1]]}\n"
    assert _printed(capfd, tf.ragged.constant([[1, 2, 3]]), summarize=1) == "[[1, ..., 3]]\n"


def test_print_in_function(capfd):
    @tf.function
    def f(x):
        tf.print(x)
        return x
    f(tf.ragged.constant([[1, 2], [3]]))
    f(tf.ragged.constant([[4], [5, 6]]))
    assert capfd.readouterr().err == "[[1, 2], [3]]\n[[4], [5, 6]]\n"
