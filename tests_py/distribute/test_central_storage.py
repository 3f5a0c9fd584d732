"""``tf.distribute.experimental.CentralStorageStrategy`` on a CPU-only machine: one replica on
CPU:0, plain variables, a training step under ``run`` and ``reduce`` (TF 2.21's values)."""

from __future__ import annotations

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def test_one_replica_with_plain_variables_and_a_training_step():
    s = tf.distribute.experimental.CentralStorageStrategy()
    assert s.num_replicas_in_sync == 1
    assert s.extended.worker_devices == [CPU0] and s.extended.parameter_devices == (CPU0,)
    with s.scope():
        v = tf.Variable(1.0)
        opt = tf.keras.optimizers.SGD(0.5)
    assert type(v).__name__ == "ResourceVariable"
    assert s.run(lambda: v * 2).numpy() == 2.0

    @tf.function
    def step():
        def replica():
            with tf.GradientTape() as tape:
                loss = v * v
            opt.apply_gradients([(tape.gradient(loss, v), v)])
            return loss

        return s.reduce("SUM", s.run(replica), axis=None)

    assert step().numpy() == 1.0 and v.numpy() == 0.0
    results = s.experimental_local_results(s.run(lambda: tf.constant(3)))
    assert isinstance(results, tuple) and [r.numpy() for r in results] == [3]
    np.testing.assert_allclose(s.reduce("MEAN", tf.constant([1.0, 3.0]), axis=0).numpy(), 2.0)
