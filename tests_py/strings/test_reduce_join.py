"""``tf.strings.reduce_join``: axes, their order, keepdims, empty axes, bad axes (tf_oracle)."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

X = [["a", "b", "c"], ["d", "e", "f"]]


def _py(t):
    v = t.numpy()
    return v.tolist() if hasattr(v, "tolist") else v


@pytest.mark.parametrize("kw, expected", [
    (dict(), b"abcdef"),
    (dict(separator=","), b"a,b,c,d,e,f"),
    (dict(axis=0), [b"ad", b"be", b"cf"]),
    (dict(axis=1, separator="-"), [b"a-b-c", b"d-e-f"]),
    (dict(axis=-1, keepdims=True), [[b"abc"], [b"def"]]),
    (dict(axis=[0, 1], separator=","), b"a,d,b,e,c,f"),   # the first listed axis varies fastest
    (dict(axis=[1, 0], separator=","), b"a,b,c,d,e,f"),
    (dict(axis=None, keepdims=True), [[b"abcdef"]]),
])
def test_reduce_join_axes(kw, expected):
    assert _py(tf.strings.reduce_join(tf.constant(X), **kw)) == expected


def test_reduce_join_rank3_and_in_function():
    y = tf.reshape(tf.strings.as_string(tf.range(8)), [2, 2, 2])
    assert _py(tf.strings.reduce_join(y, axis=[2, 0], separator=",")) == [b"0,1,4,5", b"2,3,6,7"]
    assert _py(tf.strings.reduce_join(y, axis=[0, 2], separator=",", keepdims=True)) == [[[b"0,4,1,5"],
                                                                                         [b"2,6,3,7"]]]
    f = tf.function(lambda t: tf.strings.reduce_join(t, axis=1, separator="+"))
    assert _py(f(tf.constant(X))) == [b"a+b+c", b"d+e+f"]


def test_reduce_join_empty_and_scalar():
    assert _py(tf.strings.reduce_join(tf.zeros([2, 0], tf.string), axis=1, separator=",")) == [b"", b""]
    assert _py(tf.strings.reduce_join(tf.constant("abc"))) == b"abc"


def test_reduce_join_bad_axis():
    with pytest.raises(tf.errors.OutOfRangeError, match=r"Invalid reduction dimension 2 for input with 2 dimension"):
        tf.strings.reduce_join(tf.constant(X), axis=2)
