"""MirroredStrategy over virtual CPUs (several replicas in one process): the random-numbers guide's
uses. Virtual devices must be configured before the runtime starts, so each case runs in a child
process of the same backend. Expected numbers are TF 2.21's (the random guide's outputs)."""


import pytest

from _child_case import run_case

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
    return run_case(_PRELUDE, body, tmp_path)


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


def test_default_devices_are_every_logical_cpu(tmp_path):
    # TF's all_local_devices(): every GPU, else every logical CPU (the input tutorial's two virtual
    # CPUs give two replicas and a global batch split in two).
    r = _run(
        """
        strat = tf.distribute.MirroredStrategy()
        out["n"] = strat.num_replicas_in_sync
        out["devices"] = list(strat.extended.worker_devices)
        ds = tf.data.Dataset.from_tensors(([1.0], [1.0])).repeat(12).batch(6)
        x = next(iter(strat.experimental_distribute_dataset(ds)))
        out["shapes"] = [list(t.shape) for t in strat.experimental_local_results(x[0])]
        """,
        tmp_path,
    )
    assert r["n"] == 3
    assert r["devices"] == ["/job:localhost/replica:0/task:0/device:CPU:%d" % i for i in range(3)]
    assert r["shapes"] == [[2, 1], [2, 1], [2, 1]]


def test_distributed_dataset_over_local_replicas_in_a_function(tmp_path):
    # The input tutorial's loops: get_next_as_optional in a tf.range loop of a Function taking the
    # iterator, and `for x in dist_dataset` inside a Function; each batch of b rows splits into
    # contiguous pieces of ceil(b / n) rows in order, a replica with no rows gets an empty piece.
    r = _run(
        """
        strat = tf.distribute.MirroredStrategy()
        ds = tf.data.Dataset.range(11).batch(5)
        it = iter(strat.experimental_distribute_dataset(ds))

        @tf.function
        def steps(iterator):
            got = tf.TensorArray(tf.int64, size=0, dynamic_size=True, infer_shape=False)
            for i in tf.range(5):
                opt = iterator.get_next_as_optional()
                if not opt.has_value():
                    break
                res = strat.run(lambda x: x * 10, args=(opt.get_value(),))
                for k, part in enumerate(strat.experimental_local_results(res)):
                    got = got.write(3 * i + k, tf.concat([[tf.size(part, out_type=tf.int64)], part], 0))
            return got.concat()

        out["optional"] = [int(v) for v in steps(it).numpy()]

        dist = strat.experimental_distribute_dataset(tf.data.Dataset.range(7).batch(4))

        @tf.function
        def total():
            s = tf.constant(0, tf.int64)
            for x in dist:
                s += tf.add_n([tf.reduce_sum(p) * (k + 1) for k, p in enumerate(strat.experimental_local_results(x))])
            return s

        out["loop"] = int(total())
        out["spec"] = repr(dist.element_spec)
        """,
        tmp_path,
    )
    # pieces (size, values...): [0 1][2 3][4] | [5 6][7 8][9] | [10][][]
    assert r["optional"] == [2, 0, 10, 2, 20, 30, 1, 40, 2, 50, 60, 2, 70, 80, 1, 90, 1, 100, 0, 0]
    # TF's pieces: [0 1][2 3][] (ceil(4 / 3) rows each, in order), then [4][5][6]
    assert r["loop"] == (1 + 5 * 2) + (4 + 5 * 2 + 6 * 3)
    assert r["spec"].replace("fn.", "tf.") == "PerReplicaSpec(" + ", ".join(["TensorSpec(shape=(None,), dtype=tf.int64, name=None)"] * 3) + ")"


def test_cross_device_ops(tmp_path):
    # Every implementation reduces the replicas' values; results land on each destination device
    # (Mirrored for several, the tensor for one); a plain value reduces to itself.
    r = _run(
        """
        strat = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"],
                                               cross_device_ops=tf.distribute.HierarchicalCopyAllReduce(num_packs=2))
        pr = strat.run(lambda: tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32) + 1.0)
        SUM, MEAN = tf.distribute.ReduceOp.SUM, tf.distribute.ReduceOp.MEAN
        out["strategy_sum"] = val(strat.reduce("SUM", pr, axis=None))
        for name in ("ReductionToOneDevice", "HierarchicalCopyAllReduce", "NcclAllReduce"):
            ops = getattr(tf.distribute, name)()
            out[name] = [isinstance(ops, tf.distribute.CrossDeviceOps), type(ops.reduce(SUM, pr, pr)).__name__,
                         [val(v) for v in strat.experimental_local_results(ops.reduce(SUM, pr, pr))],
                         val(ops.reduce(MEAN, pr, "/cpu:0")), val(ops.reduce(SUM, tf.constant(2.0), "/cpu:0"))]
        one = tf.distribute.ReductionToOneDevice(reduce_to_device="/cpu:0", accumulation_fn=tf.math.add_n)
        out["broadcast"] = [val(v) for v in strat.experimental_local_results(one.broadcast(tf.constant(3.0), pr))]
        out["batch"] = [len(strat.experimental_local_results(v)) for v in one.batch_reduce(SUM, [(pr, pr), (pr, "/cpu:0")])]
        errors = []
        for bad in (lambda: one.reduce("SUM", pr, pr), lambda: tf.distribute.NcclAllReduce(num_packs=-1),
                    lambda: one.reduce(SUM, pr, destinations=None)):
            try:
                bad()
            except ValueError as e:
                errors.append(str(e))
        out["errors"] = errors
        """,
        tmp_path,
    )
    assert r["strategy_sum"] == [3.0]
    for name in ("ReductionToOneDevice", "HierarchicalCopyAllReduce", "NcclAllReduce"):
        assert r[name] == [True, "Mirrored", [[3.0], [3.0]], [1.5], [2.0]]
    assert r["broadcast"] == [[3.0], [3.0]] and r["batch"] == [2, 1]
    assert r["errors"] == [
        "`reduce_op` must be Reduce.SUM or Reduce.MEAN.",
        "NCCL all-reduce requires num_packs >= 0, but -1 is specified",
        "destinations must be one of a `DistributedValues` object, a tf.Variable object, or a device string.",
    ]


def test_gpu_device_names_run_on_the_cpu(tmp_path):
    # TF's soft placement on a machine without GPUs: the replicas keep their GPU names, variables
    # live on CPU:0, and the work runs on the CPU.
    r = _run(
        """
        strat = tf.distribute.MirroredStrategy(devices=["/gpu:0", "/gpu:1"])
        out["devices"] = list(strat.extended.worker_devices)
        with strat.scope():
            v = tf.Variable(1.0)
        out["variable"] = [type(v).__name__, v.device]
        out["run"] = per_replica(strat.run(lambda: v * 2))
        ds = strat.experimental_distribute_dataset(tf.data.Dataset.range(4).map(lambda i: tf.cast(i, tf.float32)).batch(4))
        out["data"] = [per_replica(strat.run(lambda x: x * v, args=(x,))) for x in ds]
        out["one"] = val(tf.distribute.OneDeviceStrategy("/gpu:0").run(lambda: tf.constant(1.0) + 1))
        """,
        tmp_path,
    )
    assert r["devices"] == ["/job:localhost/replica:0/task:0/device:GPU:%d" % i for i in range(2)]
    assert r["variable"] == ["MirroredVariable", "/job:localhost/replica:0/task:0/device:CPU:0"]
    assert r["run"] == [[2.0], [2.0]] and r["data"] == [[[0.0, 1.0], [2.0, 3.0]]] and r["one"] == [2.0]


def test_datasets_from_function_over_local_replicas(tmp_path):
    # One input pipeline; replica i gets element i of each group of n consecutive per-replica
    # batches, a short last group is filled with empty batches (TF's partial-batch handling).
    r = _run(
        """
        strat = tf.distribute.MirroredStrategy()
        seen = []

        def dataset_fn(ctx):
            seen.append([ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync,
                         ctx.get_per_replica_batch_size(6)])
            return tf.data.Dataset.range(7).batch(2)

        dd = strat.distribute_datasets_from_function(dataset_fn)
        out["ctx"] = seen
        out["spec"] = repr(dd.element_spec)
        out["eager"] = [[t.numpy().tolist() for t in strat.experimental_local_results(x)] for x in dd]

        @tf.function
        def total(it):
            s = tf.constant(0, tf.int64)
            for x in it:
                s += tf.add_n([tf.reduce_sum(t) * (k + 1) for k, t in enumerate(strat.experimental_local_results(x))])
            return s

        out["loop"] = int(total(iter(dd)))
        scalars = strat.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(6))
        out["scalars"] = [[int(t) for t in strat.experimental_local_results(x)] for x in scalars]
        """,
        tmp_path,
    )
    assert r["scalars"] == [[0, 1, 2], [3, 4, 5]]  # unbatched elements: one per replica
    assert r["ctx"] == [[1, 0, 3, 2]]
    assert r["spec"].replace("fn.", "tf.") == "PerReplicaSpec(" + ", ".join(["TensorSpec(shape=(None,), dtype=tf.int64, name=None)"] * 3) + ")"
    assert r["eager"] == [[[0, 1], [2, 3], [4, 5]], [[6], [], []]]
    assert r["loop"] == (1 + 5 * 2 + 9 * 3) + 6
