"""TF 2.21's top-level aliases of Keras modules (``tf.metrics``, ``tf.losses``, ``tf.optimizers``,
``tf.initializers``), as TF's tutorials use them (``metrics=[tf.metrics.SparseCategoricalAccuracy()]``
in the distributed save-and-load tutorial). Under fn and TF."""

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


@pytest.mark.parametrize(
    "module, name",
    [
        ("metrics", "SparseCategoricalAccuracy"),
        ("metrics", "Mean"),
        ("losses", "SparseCategoricalCrossentropy"),
        ("optimizers", "Adam"),
        ("initializers", "GlorotUniform"),
    ],
)
def test_alias_names_the_keras_class(module, name):
    assert getattr(getattr(tf, module), name) is getattr(getattr(tf.keras, module), name)


def test_a_metric_from_the_alias_works():
    m = tf.metrics.SparseCategoricalAccuracy()
    m.update_state([1, 0], [[0.1, 0.9], [0.2, 0.8]])
    assert float(m.result()) == 0.5
