"""``strategy.run`` of several local replicas inside a Function (MirroredStrategy and
CentralStorageStrategy over two virtual CPUs): as TF's mirrored_run, each replica traces on its own
thread into the Function's graph, so ``merge_call`` (all_reduce, aggregated variable updates,
optimizers) works there; tensors keep their replica's device across a merge and replica ``i > 0``
traces under the name scope ``replica_i``. Each case runs in a child process (virtual devices
must be set before the runtime starts). Expected values are TF 2.21's."""


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
def rid():
    return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
def local(strategy, x):
    return [float(t) for t in strategy.experimental_local_results(x)]
def error(f):
    try:
        f()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return None
"""


def _run(body: str, tmp_path) -> dict:
    return run_case(_PRELUDE, body, tmp_path)


# TF 2.21's results of the training loop (two epochs of two global batches of 8, Adam)
MEAN_LOSS = 0.9631015
KERNEL = [0.06920943] * 4
CPU = "/job:localhost/replica:0/task:0/device:CPU:%d"


def test_merge_calls_in_a_function_of_a_mirrored_strategy(tmp_path):
    r = _run(
        """
        s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with s.scope():
            v = tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM)
            w = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN)
        seen = []

        @tf.function
        def step(x):
            def replica(x):
                a = x * (rid() + 1.0)
                with tf.name_scope("inner"):
                    b = tf.distribute.get_replica_context().all_reduce("SUM", a) * 2.0
                seen.append([a.device, b.device, b.name.split("/")[-2]])
                v.assign_add(a)
                w.assign(a)
                ctx = tf.distribute.get_replica_context()
                merged = ctx.merge_call(lambda st, t: st.reduce("MEAN", t, axis=None), args=(a,))
                return b, merged
            return s.run(replica, args=(x,))

        b, merged = step(tf.constant(2.0))
        out["b"], out["merged"] = local(s, b), local(s, merged)
        out["v"], out["w"] = local(s, v), local(s, w)
        out["seen"] = seen
        step(tf.constant(1.0))
        out["v2"] = float(v.numpy())

        @tf.function
        def loop():
            t = tf.constant(0.0)
            for i in tf.range(3):
                per_replica = s.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", rid() + 1.0))
                t += s.reduce("SUM", per_replica, axis=None)
            return t

        out["loop"] = float(loop())
        out["plain_sum"] = error(tf.function(lambda: s.run(lambda: v.assign_add(1.0))))

        @tf.function
        def gather():
            return s.run(lambda: tf.distribute.get_replica_context().all_gather(tf.reshape(rid(), [1]), 0))

        out["gather"] = [t.numpy().tolist() for t in s.experimental_local_results(gather())]

        @tf.function
        def in_a_loop_body():
            def replica():
                body = lambda i, x: (i + 1, tf.distribute.get_replica_context().all_reduce("SUM", x))
                return tf.while_loop(lambda i, x: i < 2, body, (0, rid() + 1.0))[1]
            return s.run(replica)

        out["body"] = error(in_a_loop_body)[0]
        """,
        tmp_path,
    )
    assert r["b"] == [12.0, 12.0] and r["merged"] == [3.0]  # (2 + 4) * 2; MEAN of 2 and 4
    assert r["v"] == [7.0, 7.0] and r["w"] == [3.0, 3.0] and r["v2"] == 10.0
    # each replica's tensors keep its device across the all-reduce; replica 1 under replica_1/
    assert r["seen"] == [[CPU % 0, CPU % 0, "inner"], [CPU % 1, CPU % 1, "inner"]]
    assert r["loop"] == 18.0 and r["gather"] == [[0.0, 1.0], [0.0, 1.0]]
    assert r["plain_sum"][0] == "ValueError"
    assert (
        r["plain_sum"][1]
        .rstrip()
        .endswith("A non-DistributedValues value 1.0 cannot be reduced with the given reduce op ReduceOp.SUM.")
    )
    assert r["body"] == "RuntimeError"  # TF's merge_call refusal in a loop body


def test_central_storage_training_in_a_function_and_fit(tmp_path):
    r = _run(
        """
        s = tf.distribute.experimental.CentralStorageStrategy(["/cpu:0", "/cpu:1"])
        rng = np.random.RandomState(0)
        X = rng.randn(16, 3).astype("float32")
        Y = rng.randn(16, 1).astype("float32")
        with s.scope():
            v = tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM)
            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4, activation="relu"),
                                         tf.keras.layers.Dense(1)])
            model.set_weights([np.full(w.shape, 0.1 * (i + 1), "float32") for i, w in enumerate(model.get_weights())])
            opt = tf.keras.optimizers.Adam(0.01)
            mean_loss = tf.keras.metrics.Mean()
        out["assign"] = float(tf.function(lambda: s.run(lambda: v.assign_add(rid() + 1.0)))())
        out["v"] = float(v.numpy())
        ds = s.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((X, Y)).batch(8))

        @tf.function
        def train_step(batch):
            def step(x, y):
                with tf.GradientTape() as tape:
                    pred = model(x, training=True)
                    per_example = tf.reduce_sum(tf.square(pred - y), axis=1)
                    loss = tf.nn.compute_average_loss(per_example, global_batch_size=8)
                grads = tape.gradient(loss, model.trainable_variables)
                opt.apply_gradients(zip(grads, model.trainable_variables))
                mean_loss.update_state(loss)
                return loss
            return s.reduce("SUM", s.run(step, args=batch), axis=None)

        out["losses"] = [[float(train_step(b)) for b in ds] for _ in range(2)]
        out["mean_loss"] = float(mean_loss.result())
        out["kernel"] = model.get_weights()[0].ravel()[:4].tolist()
        out["iterations"] = int(opt.iterations.numpy())
        with s.scope():
            m2 = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
            m2.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
        h = m2.fit(X, Y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        out["fit"] = h.history
        out["evaluate"] = m2.evaluate(X, Y, batch_size=8, verbose=0)
        out["fit_kernel"] = m2.get_weights()[0].ravel().tolist()
        """,
        tmp_path,
    )
    assert r["assign"] == 4.0 and r["v"] == 4.0  # 1 + (1 + 2)
    close = lambda got, want: got == pytest.approx(want, rel=1e-5, abs=1e-6)  # noqa: E731
    assert close(sum(r["losses"], []), [2.1688313, 1.5702521, 1.9065363, 1.4483147])
    assert close(r["mean_loss"], MEAN_LOSS) and r["iterations"] == 4
    assert close(r["kernel"], KERNEL)
    assert r["fit"]["loss"] == pytest.approx([5.6234, 3.1275], abs=2e-4)
    assert r["fit"]["mae"] == pytest.approx([2.004, 1.4552], abs=2e-4)
    assert r["evaluate"] == pytest.approx([1.9712, 1.164], abs=2e-4)
    assert r["fit_kernel"] == pytest.approx([0.4813, 0.5128, 0.6248], abs=2e-4)


def test_on_read_variables_of_a_mirrored_strategy_and_fit(tmp_path):
    # A metric's total and count (synchronization ON_READ, aggregation SUM) keep one copy per
    # replica: a replica writes its own copy (Keras assigns `total + value`), a read outside the
    # replicas sums the copies, a cross-replica assign gives each copy value / n. So fit's and
    # evaluate's logs are the true means (TF's MirroredStrategy; its CentralStorageStrategy
    # aggregates such writes instead, as fn's does too).
    r = _run(
        """
        s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with s.scope():
            m = tf.keras.metrics.Mean()
            c = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                            aggregation=tf.VariableAggregation.SUM)

        @tf.function
        def step(x):
            s.run(lambda: m.update_state(x + rid(), sample_weight=4.0))

        step(tf.constant(1.0))
        out["after1"] = [float(m.result())] + [float(v.numpy()) for v in m.variables]
        step(tf.constant(10.0))
        out["after2"] = [float(m.result())] + [float(v.numpy()) for v in m.variables]
        s.run(lambda: m.update_state(rid() + 100.0, sample_weight=4.0))
        out["eager"] = [float(m.result())] + [float(v.numpy()) for v in m.variables]
        c.assign(6.0)
        out["assigned"] = [float(c.numpy()), local(s, c.read_value())]
        out["assign_add"] = error(lambda: c.assign_add(1.0))
        m.reset_state()
        out["reset"] = [float(v.numpy()) for v in m.variables]
        rng = np.random.RandomState(0)
        X = rng.randn(16, 3).astype("float32")
        Y = rng.randn(16, 1).astype("float32")
        with s.scope():
            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
            model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
        h = model.fit(X, Y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        out["fit"] = h.history
        out["evaluate"] = model.evaluate(X, Y, batch_size=8, verbose=0)
        W, B = model.get_weights()
        pred = X @ W + B
        out["true"] = [float(np.mean((pred - Y) ** 2)), float(np.mean(np.abs(pred - Y)))]
        out["kernel"] = W.ravel().tolist()
        """,
        tmp_path,
    )
    assert r["after1"] == [1.5, 12.0, 8.0]  # 4 * (1 + 2) over 4 + 4
    assert r["after2"] == [6.0, 96.0, 16.0]
    assert r["eager"] == [37.5, 900.0, 24.0]
    assert r["assigned"] == [6.0, [6.0]]  # each copy 3: summed back to 6
    assert r["assign_add"] == [
        "ValueError",
        "SyncOnReadVariable does not support `assign_add` in cross-replica context when aggregation is set "
        "to `tf.VariableAggregation.SUM`.",
    ]
    assert r["reset"] == [0.0, 0.0]
    assert r["fit"]["loss"] == pytest.approx([4.7022, 2.6118], abs=2e-4)
    assert r["fit"]["mae"] == pytest.approx([1.7955, 1.3034], abs=2e-4)
    assert r["evaluate"] == pytest.approx(r["true"], rel=1e-5)
    assert r["evaluate"] == pytest.approx([1.7052, 1.0689], abs=2e-4)
    assert r["kernel"] == pytest.approx([0.4813, 0.5128, 0.6248], abs=2e-4)
