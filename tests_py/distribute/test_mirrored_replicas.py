"""MirroredStrategy over virtual CPUs (several replicas in one process): the random-numbers guide's
uses. Virtual devices must be configured before the runtime starts, so each case runs in a child
process of the same backend. Expected numbers are TF 2.21's (the random guide's outputs)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tfbackend import IS_TF, fn_import_root

pytestmark = pytest.mark.tf_oracle

_PRELUDE = """
import json, os, sys
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
if os.environ.get("FN_TEST_BACKEND") == "tf":
    import tensorflow as tf
else:
    import fn as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
out = {}
def val(t):
    return [float(x) for x in tf.reshape(t, [-1]).numpy()]
def per_replica(v):
    return [val(x) for x in strat.experimental_local_results(v)]
"""


def _run(body: str, tmp_path) -> dict:
    script = _PRELUDE + textwrap.dedent(body) + "\nprint('RESULT' + json.dumps(out))\n"
    env = dict(os.environ)
    if not IS_TF:
        env["PYTHONPATH"] = fn_import_root() + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")][-1]
    return json.loads(line[len("RESULT") :])


def _close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == pytest.approx(w, rel=2e-6, abs=2e-6)


def test_virtual_cpus_and_replica_streams(tmp_path):
    r = _run(
        """
        out["devices"] = [d.name for d in tf.config.list_logical_devices("CPU")]
        try:
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        except RuntimeError as e:
            out["reconfig"] = str(e)
        try:
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration(memory_limit=10)])
        except ValueError as e:
            out["memlimit"] = str(e)
        g = tf.random.Generator.from_seed(1)          # outside the scope: one shared stream
        strat = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
        out["n"] = strat.num_replicas_in_sync
        seen = []
        strat.run(lambda: seen.append(float(g.normal([]))))
        out["shared"] = seen
        with strat.scope():
            g = tf.random.Generator.from_seed(1)      # in the scope: keyed by replica id
            out["r1"] = per_replica(strat.run(lambda: g.normal([])))
            out["r2"] = per_replica(strat.run(lambda: g.normal([])))
            out["state"] = g.state.numpy().tolist()
            out["cross"] = val(g.normal([]))          # cross-replica: every copy moves on
            out["after_cross"] = per_replica(strat.run(lambda: g.state.read_value()))
            def f():
                g = tf.random.Generator.from_seed(1)
                return tf.stack([g.normal([]), g.normal([])])
            out["inner"] = per_replica(strat.run(f))
            ctx = strat.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
            out["ids"] = per_replica(ctx)
            red = strat.run(lambda: tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32) + 1.0)
            out["sum"] = float(strat.reduce("SUM", red, axis=None))
            out["mean"] = float(strat.reduce("MEAN", red, axis=None))
            allr = strat.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(2.0)))
            out["all_reduce"] = per_replica(allr)
        """,
        tmp_path,
    )
    assert r["devices"] == ["/device:CPU:0", "/device:CPU:1", "/device:CPU:2"]
    assert r["reconfig"] == "Virtual devices cannot be modified after being initialized"
    assert r["memlimit"] == "Setting memory limit on CPU virtual devices is currently not supported"
    assert r["n"] == 2
    _close(r["shared"], [0.43842274, 1.6272374])
    _close([x[0] for x in r["r1"]], [-0.87930447, 0.020661574])
    _close([x[0] for x in r["r2"]], [-1.5822568, 0.77539235])
    assert r["state"] == [513, 0, 0]
    assert [x[0] for x in r["after_cross"]] == [769, 769]
    _close(r["inner"][0], [-0.87930447, -1.5822568])
    _close(r["inner"][1], [0.02066157, 0.77539235])
    assert r["ids"] == [[0.0], [1.0]]
    assert r["sum"] == 3.0 and r["mean"] == 1.5
    assert r["all_reduce"] == [[4.0], [4.0]]


def test_checkpoint_and_saved_model_of_replica_generators(tmp_path):
    r = _run(
        """
        strat1 = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
        with strat1.scope():
            g1 = tf.random.Generator.from_seed(1)
            cp1 = tf.train.Checkpoint(my_generator=g1)
            strat = strat1
            per_replica(strat1.run(lambda: g1.normal([])))
            cp1.write("ckpt")
            out["saved"] = per_replica(strat1.run(lambda: g1.normal([])))
        strat = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1", "cpu:2"])
        with strat.scope():
            g2 = tf.random.Generator.from_seed(1)
            tf.train.Checkpoint(my_generator=g2).restore("ckpt")
            out["restored"] = per_replica(strat.run(lambda: g2.normal([])))

        class MyModule(tf.Module):
            def __init__(self):
                super().__init__()
                self.g = tf.random.Generator.from_seed(0)

            @tf.function
            def __call__(self):
                return self.g.normal([])

            @tf.function
            def state(self):
                return self.g.state

        strat = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
        with strat.scope():
            m = MyModule()
            out["call"] = per_replica(strat.run(m))
            out["state1"] = m.state().numpy().tolist()
            tf.saved_model.save(m, "sm")
            out["call2"] = per_replica(strat.run(m))
        imported = tf.saved_model.load("sm")
        out["loaded_state"] = imported.state().numpy().tolist()
        out["loaded"] = val(imported())
        out["loaded_state2"] = imported.state().numpy().tolist()
        """,
        tmp_path,
    )
    _close([x[0] for x in r["saved"]], [-1.5822568, 0.77539235])
    _close([x[0] for x in r["restored"]], [-1.5822568, 0.77539235, 0.6851049])
    _close([x[0] for x in r["call"]], [-1.4154755, -0.11388441])
    assert r["state1"] == [256, 0, 0]
    _close([x[0] for x in r["call2"]], [-0.68758255, 0.8084062])
    assert r["loaded_state"] == [256, 0, 0]
    _close(r["loaded"], [-1.0359411])
    assert r["loaded_state2"] == [512, 0, 0]


@pytest.mark.fn_only
def test_unknown_device_is_refused():
    with pytest.raises(ValueError):
        from tfbackend import tf

        tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:7"])
