"""Staged ``if`` statements as TensorFlow's AutoGraph converts them: variables deleted in a
branch, None outputs, imbalanced definitions (tf_oracle)."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _deleted_in_both(c):
    i = 1
    if c:
        del i
    else:
        del i
    return i


def _deleted_in_one(c):
    i = 1
    if c:
        del i
    return i


@pytest.mark.parametrize('c', [True, False])
def test_variable_deleted_in_both_branches(c):
    with pytest.raises(UnboundLocalError, match="'i' is used before assignment"):
        tf.function(_deleted_in_both)(c)
    with pytest.raises(ValueError, match="'i' must also be initialized in the main branch"):
        tf.function(_deleted_in_both)(tf.constant(c))


def test_variable_deleted_in_a_python_branch_not_taken():
    assert tf.function(_deleted_in_one)(False) == 1


@pytest.mark.parametrize('c', [True, False])
def test_none_output_of_a_staged_if(c):
    def main_none(c):
        i, j = 0, 1
        if c:
            i = None
            j = 2
        return i, j

    def else_none(c):
        i, j = 1, 1
        if c:
            pass
        else:
            i = None
            j = 2
        return i, j

    with pytest.raises(ValueError, match="'i' is None at the end of the main branch"):
        tf.function(main_none)(tf.constant(c))
    with pytest.raises(ValueError, match="'i' is None at the end of the else branch"):
        tf.function(else_none)(tf.constant(c))


def test_none_in_python_if_is_fine():
    def f(c):
        i, j = 0, 1
        if c:
            i = None
            j = 2
        return i, j
    i, j = tf.function(f)(True)
    assert i is None and int(j) == 2


@pytest.mark.parametrize('args,expected', [((1, 1, 2), False), ((1, 1, 1), True), ((1, 2, 3), True)])
def test_chained_comparison_of_tensors(args, expected):
    def equal3(x, y, z):
        return x == y == z

    def increasing(x, y, z):
        return x < y < z

    f = equal3 if args != (1, 2, 3) else increasing
    assert bool(tf.function(f)(*[tf.constant(a) for a in args])) is expected
