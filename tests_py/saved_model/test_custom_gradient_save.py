"""tf.custom_gradient survives tf.saved_model.save/load (advanced_autodiff.ipynb, TF's
SaveOptions(experimental_custom_gradients=True)): the loaded function's gradient is the custom
one, in the saving process and in a fresh one."""
from __future__ import annotations

import pytest

from tfbackend import tf

from saved_model.test_saved_model import run_fresh

pytestmark = pytest.mark.tf_oracle


@tf.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)
    return y, backward


class MyModule(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(self, x):
        return clip_gradients(x)


def test_custom_gradient_survives_save_and_load(tmp_path):
    path = str(tmp_path / "saved_model")
    tf.saved_model.save(MyModule(), path, options=tf.saved_model.SaveOptions(experimental_custom_gradients=True))
    v = tf.Variable(2.0)
    loaded = tf.saved_model.load(path)
    with tf.GradientTape() as t:
        output = loaded.call_custom_grad(v * v)
    assert float(t.gradient(output, v)) == 2.0      # 4 clipped to norm 0.5, times dv*v/dv = 4
    assert float(output) == 4.0
    out = run_fresh(f"""
        loaded = tf.saved_model.load({path!r})
        v = tf.Variable(3.0)
        with tf.GradientTape() as t:
            out = loaded.call_custom_grad(v * v)
        print(float(t.gradient(out, v)))
    """)
    assert out.strip() == "3.0"


def test_save_options_fields():
    opts = tf.saved_model.SaveOptions(experimental_custom_gradients=False)
    assert opts.experimental_custom_gradients is False
    assert tf.saved_model.SaveOptions().experimental_custom_gradients is True
