"""CentralStorageStrategy over several compute devices (two virtual CPUs, or a CPU and a GPU name,
which both TF and fn place on the CPU): one AggregatingVariable per variable on the parameter
device, PerReplica results of ``run``, replica-context updates aggregated over the replicas as the
variable's aggregation says and applied once. Virtual devices must be configured before the
runtime starts, so each case runs in a child process of the same backend. Expected values are
TF 2.21's."""


import pytest

from _child_case import run_case

pytestmark = pytest.mark.tf_oracle

_PRELUDE = """
import json, os, sys
import numpy as np
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
if os.environ.get("FN_TEST_BACKEND") == "tf":
    import tensorflow as tf
else:
    import fn as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
out = {}
def val(t):
    return [float(x) for x in tf.reshape(t, [-1]).numpy()]
def rid():
    return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
def error(f):
    try:
        f()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return None
"""


def _run(body: str, tmp_path) -> dict:
    return run_case(_PRELUDE, body, tmp_path)


CPU = "/job:localhost/replica:0/task:0/device:%s:%d"


def test_devices_and_aggregating_variables(tmp_path):
    r = _run(
        """
        s = tf.distribute.experimental.CentralStorageStrategy(compute_devices=["/cpu:0", "/gpu:0"])
        out["workers"] = list(s.extended.worker_devices)
        out["params"] = list(s.extended.parameter_devices)
        out["n"] = s.num_replicas_in_sync
        s2 = tf.distribute.experimental.CentralStorageStrategy(["cpu:0", "cpu:1"], parameter_device="/cpu:1")
        out["params2"] = list(s2.extended.parameter_devices)
        with s2.scope():
            q = tf.Variable(1.0)
        out["q_device"] = q.device
        with s.scope():
            v = tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM)
            m = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                            aggregation=tf.VariableAggregation.SUM)
        out["types"] = [type(v).__name__, type(m).__name__]
        out["sync"] = [str(v.synchronization), str(m.synchronization)]
        out["agg"] = str(v.aggregation)
        out["trainable"] = [v.trainable, m.trainable]
        out["device"] = v.device
        out["is"] = [isinstance(v, tf.Variable), isinstance(v, tf.distribute.DistributedValues),
                     s.extended.variable_created_in_scope(v)]
        local = s.experimental_local_results(v)
        out["local"] = [len(local), local[0] is v]
        out["ops"] = [float(v + 1), float(v * 2), float(tf.convert_to_tensor(v)), float(v.value())]
        """,
        tmp_path,
    )
    assert r["workers"] == [CPU % ("CPU", 0), CPU % ("GPU", 0)]
    assert r["params"] == ["/device:CPU:0"] and r["n"] == 2
    assert r["params2"] == ["/cpu:1"] and r["q_device"] == CPU % ("CPU", 1)
    assert r["types"] == ["AggregatingVariable", "AggregatingVariable"]
    assert r["sync"] == ["VariableSynchronization.AUTO", "VariableSynchronization.ON_READ"]
    assert r["agg"].endswith(".SUM") and r["trainable"] == [True, False]
    assert r["device"] == CPU % ("CPU", 0)
    assert r["is"] == [True, False, True] and r["local"] == [1, True]
    assert r["ops"] == [2.0, 2.0, 1.0, 1.0]


def test_replica_updates_are_aggregated_once(tmp_path):
    r = _run(
        """
        s = tf.distribute.experimental.CentralStorageStrategy(compute_devices=["/cpu:0", "/cpu:1"])
        with s.scope():
            v = tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM)
            w = tf.Variable(2.0, aggregation=tf.VariableAggregation.MEAN)
            f = tf.Variable(0.0, aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
            m = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                            aggregation=tf.VariableAggregation.SUM)
            u = tf.Variable([0.0, 0.0])
        res = s.run(lambda: v.assign_add(rid() + 1.0))
        out["sum"] = [type(res).__name__, float(res), float(v)]
        out["mean"] = [float(s.run(lambda: w.assign(rid() + 10.0))), float(w)]
        out["first"] = [float(s.run(lambda: f.assign(rid() + 5.0))), float(f)]
        out["on_read"] = [float(s.run(lambda: m.assign_add(rid() + 1.0))), float(m)]
        out["sub"] = [float(s.run(lambda: v.assign_sub(rid()))), float(v)]
        out["none"] = error(lambda: s.run(lambda: u.assign_add([1.0, 1.0])))
        out["plain_sum"] = error(lambda: s.run(lambda: v.assign_add(1.0)))
        out["plain_mean"] = float(s.run(lambda: w.assign_add(1.0)))
        out["zero_np"] = float(s.run(lambda: v.assign_add(np.zeros((), np.float32))))
        out["zero_py"] = error(lambda: s.run(lambda: v.assign_add(0.0)))
        out["cross"] = [val(u.assign([3.0, 4.0])), val(u)]
        upd = s.extended.update(u, lambda var, x: var.assign_add(x), args=([1.0, 2.0],))
        out["update"] = [val(upd), val(u)]
        ungrouped = s.extended.update(u, lambda var, x: var.assign_add(x), args=([1.0, 2.0],), group=False)
        out["ungrouped"] = [type(ungrouped).__name__, len(ungrouped), val(u)]
        out["read"] = [val(x) for x in s.experimental_local_results(s.run(lambda: v.read_value() + rid()))]
        """,
        tmp_path,
    )
    assert r["sum"] == ["_UnreadVariable", 4.0, 4.0]  # 1 + (1 + 2): the replicas' values summed, added once
    assert r["mean"] == [10.5, 10.5] and r["first"] == [5.0, 5.0] and r["on_read"] == [3.0, 3.0]
    assert r["sub"] == [3.0, 3.0]
    assert r["none"][0] == "ValueError"
    assert r["none"][1].startswith("You must specify an aggregation method to update a AggregatingVariable")
    assert r["plain_sum"] == [
        "ValueError",
        "A non-DistributedValues value 1.0 cannot be reduced with the given reduce op ReduceOp.SUM.",
    ]
    assert r["plain_mean"] == 11.5 and r["zero_np"] == 3.0
    assert r["zero_py"] == ["AttributeError", "'float' object has no attribute 'shape'"]  # TF's
    assert r["cross"] == [[3.0, 4.0], [3.0, 4.0]]
    assert r["update"] == [[4.0, 6.0], [4.0, 6.0]]
    assert r["ungrouped"] == ["tuple", 1, [5.0, 8.0]]
    assert r["read"] == [[3.0], [4.0]]


def test_run_reduce_input_and_an_eager_training_step(tmp_path):
    r = _run(
        """
        s = tf.distribute.experimental.CentralStorageStrategy(compute_devices=["/cpu:0", "/cpu:1"])
        res = s.run(lambda: rid() * 2.0)
        out["type"] = type(res).__name__
        out["local"] = [val(x) for x in s.experimental_local_results(res)]
        out["sum"] = float(s.reduce("SUM", res, axis=None))
        out["mean"] = float(s.reduce("MEAN", res, axis=None))
        out["gather"] = val(s.gather(s.run(lambda: tf.reshape(rid(), [1])), axis=0))
        ctx_sum = s.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", rid() + 1.0))
        out["all_reduce"] = [val(x) for x in s.experimental_local_results(ctx_sum)]
        merged = s.run(lambda: tf.distribute.get_replica_context().merge_call(
            lambda st, a: st.reduce("SUM", a, axis=None), args=(rid() + 1.0,)))
        out["merge"] = val(merged)
        dd = s.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4))
        out["data"] = [[val(x) for x in s.experimental_local_results(b)] for b in dd]
        with s.scope():
            opt = tf.keras.optimizers.SGD(0.1)
            k = tf.Variable([1.0, 2.0])
            metric = tf.keras.metrics.Mean()
        def step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(k * x)
            opt.apply_gradients([(tape.gradient(loss, k), k)])
            metric.update_state(loss)
            return loss
        x = s.experimental_distribute_values_from_function(
            lambda c: tf.constant([1.0, 2.0]) * float(c.replica_id_in_sync_group + 1))
        losses = s.run(step, args=(x,))
        out["losses"] = [val(l) for l in s.experimental_local_results(losses)]
        out["k"] = val(k)
        out["iterations"] = int(opt.iterations.numpy())
        out["metric"] = float(metric.result())
        ckpt = tf.train.Checkpoint(k=k)
        path = ckpt.save("ckpt")
        k.assign([0.0, 0.0])
        ckpt.restore(path)
        out["restored"] = val(k)
        """,
        tmp_path,
    )
    assert r["type"] == "PerReplica" and r["local"] == [[0.0], [2.0]]
    assert r["sum"] == 2.0 and r["mean"] == 1.0 and r["gather"] == [0.0, 1.0]
    assert r["all_reduce"] == [[3.0], [3.0]] and r["merge"] == [3.0]
    assert r["data"] == [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]
    # the gradients [1, 2] and [2, 4] summed over the replicas, one SGD step
    assert r["losses"] == [[5.0], [10.0]]
    assert r["k"] == pytest.approx([0.7, 1.4]) and r["iterations"] == 1
    assert r["metric"] == 7.5 and r["restored"] == pytest.approx([0.7, 1.4])
