"""Iterator.get_next_as_optional, eagerly and inside a Function (checked under TensorFlow 2.21)."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_get_next_as_optional_eagerly_and_in_a_function():
    ds = tf.data.Dataset.range(3).map(lambda x: (x, tf.fill([2], tf.cast(x, tf.float32))))
    it = iter(ds)
    opts = [it.get_next_as_optional() for _ in range(3)]
    assert [(bool(o.has_value()), int(o.get_value()[0])) for o in opts] == [(True, 0), (True, 1), (True, 2)]
    end = it.get_next_as_optional()                  # at the end: empty, no OutOfRangeError
    assert not bool(end.has_value())
    assert end.element_spec == ds.element_spec
    with pytest.raises(tf.errors.InvalidArgumentError):
        end.get_value()

    @tf.function
    def f(iterator):
        o = iterator.get_next_as_optional()
        return o.has_value(), tf.cond(o.has_value(), lambda: o.get_value()[1], lambda: -tf.ones([2]))

    it2 = iter(ds)
    got = [(bool(a), b.numpy().tolist()) for a, b in [f(it2) for _ in range(4)]]
    assert got == [(True, [0.0, 0.0]), (True, [1.0, 1.0]), (True, [2.0, 2.0]), (False, [-1.0, -1.0])]
