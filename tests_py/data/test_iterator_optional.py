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


def _sum_with_optional_loop(ds):
    """A Function looping while ``get_next_as_optional`` has a value: the Optional is a
    ``while_loop`` variable and a ``cond`` output (Keras' multi-step fit does the same)."""

    @tf.function
    def total(iterator):
        def cond(i, acc, opt):
            return opt.has_value()

        def body(i, acc, opt):
            acc = acc + tf.reduce_sum(opt.get_value())
            nxt = tf.cond(i < 100, iterator.get_next_as_optional, lambda: opt)
            return i + 1, acc, nxt

        return tf.while_loop(cond, body, [tf.constant(0), tf.constant(0.0), iterator.get_next_as_optional()])

    return total(iter(ds))


def test_optional_as_a_while_loop_variable_and_cond_output():
    ds = tf.data.Dataset.range(10).map(lambda x: tf.cast(x, tf.float32)).batch(3)
    steps, acc, last = _sum_with_optional_loop(ds)
    assert int(steps) == 4 and float(acc) == 45.0
    assert isinstance(last, tf.experimental.Optional) and not bool(last.has_value())
    assert last.element_spec == ds.element_spec


def test_optional_empty_none_gets_its_spec_in_the_loop_body():
    """Keras' ``multi_step_on_iterator``: the output Optional starts as ``Optional.empty(None)`` and
    its element spec is assigned while the body is traced."""
    ds = tf.data.Dataset.range(7).map(lambda x: tf.fill([2], tf.cast(x, tf.float32))).batch(2)

    @tf.function
    def run(iterator):
        empty = tf.experimental.Optional.empty(None)

        def cond(i, out, inp):
            return tf.logical_and(i < 3, inp.has_value())

        def body(i, out, inp):
            def has_next():
                nxt = tf.experimental.Optional.from_value({"sum": tf.reduce_sum(inp.get_value(), 0)})
                empty._element_spec = nxt.element_spec
                return nxt

            def no_next():
                out._element_spec = empty._element_spec
                return out

            out = tf.cond(inp.has_value(), has_next, no_next)
            return i + 1, out, tf.cond(i + 1 < 3, iterator.get_next_as_optional, lambda: inp)

        _, final, _ = tf.while_loop(cond, body, [tf.constant(0), empty, iterator.get_next_as_optional()])
        final._element_spec = empty.element_spec
        return final

    it = iter(ds)
    got = []
    for _ in range(3):
        opt = run(it)
        got.append(opt.get_value()["sum"].numpy().tolist() if bool(opt.has_value()) else None)
    # Batches [0,1] [2,3] [4,5] [6]: the first call runs three, the second one, the third none.
    assert got == [[9.0, 9.0], [6.0, 6.0], None]


def test_a_loop_body_returning_another_structure_for_an_optional_fails():
    ds = tf.data.Dataset.range(3)

    @tf.function
    def bad(iterator):
        return tf.while_loop(lambda o: o.has_value(), lambda o: o.get_value(), [iterator.get_next_as_optional()])

    with pytest.raises((ValueError, TypeError)):
        bad(iter(ds))


def test_optional_loop_variables_eagerly():
    # Eagerly an Optional is a leaf of the loop's structure (its spec may change, as in Keras'
    # run_eagerly multi-step fit).
    it = iter(tf.data.Dataset.range(3))

    def body(i, out, inp):
        return i + 1, tf.experimental.Optional.from_value(inp.get_value() * 2), it.get_next_as_optional()

    i, out, inp = tf.while_loop(lambda i, out, inp: inp.has_value(), body,
                                [0, tf.experimental.Optional.empty(None), it.get_next_as_optional()])
    assert int(i) == 3 and int(out.get_value()) == 4 and not bool(inp.has_value())
