"""MirroredStrategy over two virtual CPUs, what Keras' distribute tests rely on: a variable made in
the scope is a ``tf.distribute.DistributedValues`` with ON_WRITE synchronization, ``all_reduce``
of the same tensor in every replica returns it (TF's one-value PerReplica shortcut) while
per-replica values are summed, ``strategy.run`` results are
``tf.types.experimental.distributed.PerReplica``, and ``context._reset_context()`` lets the
virtual devices be configured again. Each case runs in a child process (devices are configured
once per runtime)."""

from _child_case import run_case

import pytest

pytestmark = pytest.mark.tf_oracle

_PRELUDE = """
import json, os
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
if os.environ.get("FN_TEST_BACKEND") == "tf":
    import tensorflow as tf
    from tensorflow.python.eager import context
else:
    import fn as tf
    from fn._tf_compat import _context as context
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strat = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
out = {}
def vals(v):
    return [[float(x) for x in tf.reshape(t, [-1]).numpy()] for t in strat.experimental_local_results(v)]
"""


def _run(body: str, tmp_path) -> dict:
    return run_case(_PRELUDE, body, tmp_path)


def test_mirrored_variable_is_distributed_values(tmp_path):
    out = _run("""
        with strat.scope():
            v = tf.Variable([1.0, 2.0])
            s = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_WRITE,
                            aggregation=tf.VariableAggregation.SUM)
        out["dv"] = isinstance(v, tf.distribute.DistributedValues)
        out["var"] = isinstance(v, tf.Variable)
        out["sync"] = [v.synchronization.name, s.synchronization.name]
        out["agg"] = [v.aggregation.name, s.aggregation.name]
        out["n"] = len(strat.experimental_local_results(v))
    """, tmp_path)
    assert out == {"dv": True, "var": True, "sync": ["ON_WRITE", "ON_WRITE"], "agg": ["NONE", "SUM"], "n": 2}


def test_all_reduce_of_a_shared_tensor_and_of_replica_values(tmp_path):
    out = _run("""
        g = tf.constant([1.0, 3.0])
        def shared():
            return tf.distribute.get_replica_context().all_reduce("SUM", g)
        def own():
            ctx = tf.distribute.get_replica_context()
            return ctx.all_reduce("SUM", tf.cast(ctx.replica_id_in_sync_group + 1, tf.float32) * g)
        out["shared"] = vals(strat.run(shared))
        out["own"] = vals(strat.run(own))
        res = strat.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group * 2)
        out["per_replica"] = isinstance(res, tf.types.experimental.distributed.PerReplica)
    """, tmp_path)
    assert out["shared"] == [[1.0, 3.0], [1.0, 3.0]]
    assert out["own"] == [[3.0, 9.0], [3.0, 9.0]]
    assert out["per_replica"] is True


def test_reset_context_allows_configuring_devices_again(tmp_path):
    out = _run("""
        out["before"] = len(tf.config.list_logical_devices("CPU"))
        try:
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
            out["changed"] = "no error"
        except RuntimeError:
            out["changed"] = "RuntimeError"
        context._reset_context()
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
        out["after"] = len(tf.config.list_logical_devices("CPU"))
    """, tmp_path)
    assert out == {"before": 2, "changed": "RuntimeError", "after": 3}
