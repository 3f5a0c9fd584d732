"""Which signatures tf.saved_model.save writes and how the loaded ones take their inputs, as TF:
the default signature is the one input_signature function that returns tensors, the loaded
``signatures`` keep the given order, a nested argument's tensors are named ``x``, ``x_1``, ...,
a function saved before it was traced raises on call, and mappings in an input_signature nest."""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(1.0)

    @tf.function
    def __call__(self, x):
        return x * self.v

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def mutate(self, new_v):   # no outputs: cannot be a signature
        self.v.assign(new_v)

    @tf.function
    def never_traced(self, x):
        return x + x


def test_function_without_outputs_is_no_default_signature(tmp_path):
    m = Model()
    m(tf.constant(2.0))
    tf.saved_model.save(m, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert list(loaded.signatures.keys()) == []
    loaded.mutate(tf.constant(3.0))
    assert float(loaded(tf.constant(2.0))) == 6.0
    with pytest.raises(ValueError, match="zero restored functions"):
        loaded.never_traced(tf.constant(1.0))


def test_signatures_keep_their_order(tmp_path):
    m = Model()
    sigs = {"serving_default": m.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32)),
            "array_input": m.__call__.get_concrete_function(tf.TensorSpec([None], tf.float32))}
    tf.saved_model.save(m, str(tmp_path), signatures=sigs)
    loaded = tf.saved_model.load(str(tmp_path))
    assert list(loaded.signatures.keys()) == ["serving_default", "array_input"]


@pytest.mark.parametrize("kind", ["tuple", "dict"])
def test_nested_signature_inputs_are_numbered(tmp_path, kind):
    class Nested(tf.Module):
        @tf.function
        def f(self, inputs):
            x, y = (inputs["x"], inputs["y"]) if kind == "dict" else inputs
            return x + tf.reduce_sum(y, axis=1)

    m = Nested()
    spec = ({"x": tf.TensorSpec([None], tf.float32), "y": tf.TensorSpec([None, 3], tf.float32)} if kind == "dict"
            else (tf.TensorSpec([None], tf.float32), tf.TensorSpec([None, 3], tf.float32)))
    tf.saved_model.save(m, str(tmp_path), signatures=m.f.get_concrete_function(spec))
    sig = tf.saved_model.load(str(tmp_path)).signatures["serving_default"]
    out = sig(inputs=tf.constant([1.0]), inputs_1=tf.constant([[1.0, 2.0, 3.0]]))
    np.testing.assert_allclose(out["output_0"].numpy(), [7.0])
    assert sorted(sig.structured_input_signature[1]) == ["inputs", "inputs_1"]


def test_dict_subclass_in_input_signature_nests():
    class Tracked(dict):
        pass

    f = tf.function(lambda d: d["a"] * 2.0, input_signature=(Tracked(a=tf.TensorSpec([2], tf.float32)),))
    np.testing.assert_allclose(f({"a": tf.constant([1.0, 2.0])}).numpy(), [2.0, 4.0])
