"""``v[spec].assign(value)`` writes the slice into the variable (TF's strided_slice_assign),
eagerly and inside a Function; a Function that returns a generator raises TF's TypeError."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_sliced_assign_eager():
    v = tf.Variable([1.0, 2.0, 3.0])
    out = v[0].assign(5.0)
    assert re.fullmatch(r"<\w+\.Variable 'UnreadVariable' shape=\(3,\) dtype=float32, numpy=array\(\[5\., 2\., 3\.\], "
                        r"dtype=float32\)>", repr(out))
    v[1:].assign([7.0, 8.0])
    np.testing.assert_array_equal(v.numpy(), [5.0, 7.0, 8.0])
    m = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    m[:, 0].assign([9.0, 9.0])
    np.testing.assert_array_equal(m.numpy(), [[9.0, 2.0], [9.0, 4.0]])
    m[1].assign(0.0)    # broadcast to the slice
    np.testing.assert_array_equal(m.numpy(), [[9.0, 2.0], [0.0, 0.0]])


def test_sliced_assign_in_a_function():
    v = tf.Variable([1.0, 2.0, 3.0])

    @tf.function
    def f(x):
        v[0].assign(x)
        v[::2].assign(v[::2] * 2)
        return v.read_value()
    np.testing.assert_array_equal(f(tf.constant(10.0)).numpy(), [20.0, 2.0, 6.0])


def test_a_plain_slice_has_no_assign():
    assert not hasattr(tf.constant([1.0, 2.0])[0], "assign")


def test_generator_returned_from_a_function_raises():
    @tf.function
    def gen(x):
        yield x
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match=r"To be compatible with tf.function, Python functions must return zero or "
                                            r"more Tensors or ExtensionTypes or None values; in compilation of "
                                            r"<function .*gen at 0x\w+>, found return value of type generator, "
                                            r"which is not a Tensor or ExtensionType."):
            gen(tf.constant(1))


def test_variable_from_an_argument_when_traced_from_a_spec():
    class Scale(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(tf.ones_like(x) * 2.0)
            return self.v * x
    m = Scale()
    concrete = m.__call__.get_concrete_function(tf.TensorSpec([2], tf.float32))
    np.testing.assert_array_equal(concrete(tf.constant([1.0, 3.0])).numpy(), [2.0, 6.0])
    np.testing.assert_array_equal(m.v.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(m(tf.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
