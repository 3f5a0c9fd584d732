"""``distribute_datasets_from_function`` with ``InputReplicationMode.PER_REPLICA`` over several
local replicas (MirroredStrategy over two virtual CPUs): one ``dataset_fn`` call per replica with
its own InputContext, replica ``i`` reads pipeline ``i``; pipelines of different lengths give empty
batches while others go on (unknown batch dimension) or end the iteration (known one, scalars);
eagerly, in a Function's loop and through an iterator argument. Each case runs in a child process
(virtual devices must be set before the runtime starts). Expected values are TF 2.21's."""


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
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
out = {}
PER_REPLICA = tf.distribute.InputReplicationMode.PER_REPLICA
OPTS = tf.distribute.InputOptions(experimental_replication_mode=PER_REPLICA, experimental_fetch_to_device=False)
def local(strategy, x):
    return [t.numpy().tolist() for t in strategy.experimental_local_results(x)]
def spec(d):
    return repr(d.element_spec).replace("tf.", "").replace("fn.", "")
def error(f):
    try:
        f()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return None
"""


def _run(body: str, tmp_path) -> dict:
    return run_case(_PRELUDE, body, tmp_path)


def test_one_pipeline_per_replica_eagerly_and_in_functions(tmp_path):
    r = _run(
        """
        s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        contexts = []
        def dataset_fn(ctx):
            contexts.append([ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync,
                             ctx.get_per_replica_batch_size(8)])
            start = ctx.input_pipeline_id * 100
            return tf.data.Dataset.range(start, start + 7).batch(2)
        d = s.distribute_datasets_from_function(dataset_fn, OPTS)
        out["contexts"] = contexts
        out["spec"] = spec(d)
        out["eager"] = [local(s, x) for x in d]

        @tf.function
        def loop():
            t = tf.constant(0, tf.int64)
            for x in d:
                t += s.reduce("SUM", s.run(lambda y: tf.reduce_sum(y), args=(x,)), axis=None)
            return t

        out["loop"] = int(loop())
        it = iter(d)
        out["next"] = local(s, next(it))
        out["has_value"] = bool(it.get_next_as_optional().has_value())

        @tf.function
        def step(it):
            return s.run(lambda y: y + 1, args=(next(it),))

        out["step"] = local(s, step(it))
        out["calls"] = len(contexts)
        """,
        tmp_path,
    )
    assert r["contexts"] == [[2, 0, 2, 4], [2, 1, 2, 4]]
    assert r["spec"] == (
        "PerReplicaSpec(TensorSpec(shape=(None,), dtype=int64, name=None), TensorSpec(shape=(None,), dtype=int64, name=None))"
    )
    assert r["eager"] == [[[0, 1], [100, 101]], [[2, 3], [102, 103]], [[4, 5], [104, 105]], [[6], [106]]]
    assert r["loop"] == 742
    assert r["next"] == [[0, 1], [100, 101]] and r["has_value"] is True
    assert r["step"] == [[5, 6], [105, 106]]
    assert r["calls"] == 2  # the pipelines are built once


def test_pipelines_of_different_lengths(tmp_path):
    r = _run(
        """
        s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        def partial(ctx):
            start = ctx.input_pipeline_id * 100
            return tf.data.Dataset.range(start, start + 3 + 2 * ctx.input_pipeline_id).batch(2)
        d = s.distribute_datasets_from_function(partial, OPTS)
        out["partial"] = [local(s, x) for x in d]

        @tf.function
        def loop():
            t = tf.constant(0, tf.int64)
            for x in d:
                t += s.reduce("SUM", s.run(lambda y: tf.reduce_sum(y), args=(x,)), axis=None)
            return t

        out["loop"] = int(loop())
        it = iter(d)
        opts = []
        for _ in range(4):
            o = it.get_next_as_optional()
            opts.append(local(s, o.get_value()) if o.has_value() else None)
        out["optional"] = opts
        def static(ctx):
            start = ctx.input_pipeline_id * 100
            return tf.data.Dataset.range(start, start + 2 + 2 * ctx.input_pipeline_id).batch(2, drop_remainder=True)
        d = s.distribute_datasets_from_function(static, OPTS)
        out["static_spec"] = spec(d)
        out["static"] = [local(s, x) for x in d]
        d = s.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(1 + ctx.input_pipeline_id), OPTS)
        out["scalars"] = [local(s, x) for x in d]
        def dicts(ctx):
            return tf.data.Dataset.range(3).map(lambda x: {"a": x + 10 * ctx.input_pipeline_id})
        d = s.distribute_datasets_from_function(dicts, OPTS)
        out["dicts"] = [local(s, x["a"]) for x in d]
        d = s.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(3).repeat(), OPTS)
        it = iter(d)
        out["infinite"] = [local(s, next(it)) for _ in range(4)]
        """,
        tmp_path,
    )
    assert r["partial"] == [[[0, 1], [100, 101]], [[2], [102, 103]], [[], [104]]]
    assert r["loop"] == 513
    assert r["optional"] == [[[0, 1], [100, 101]], [[2], [102, 103]], [[], [104]], None]
    assert r["static_spec"] == (
        "PerReplicaSpec(TensorSpec(shape=(2,), dtype=int64, name=None), TensorSpec(shape=(2,), dtype=int64, name=None))"
    )
    assert r["static"] == [[[0, 1], [100, 101]]]
    assert r["scalars"] == [[0, 0]]
    assert r["dicts"] == [[0, 10], [1, 11], [2, 12]]
    assert r["infinite"] == [[0, 0], [1, 1], [2, 2], [0, 0]]


def test_options_checked_and_central_storage(tmp_path):
    r = _run(
        """
        s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        fn = lambda ctx: tf.data.Dataset.range(4).batch(2)
        both = tf.distribute.InputOptions(experimental_replication_mode=PER_REPLICA,
                                          experimental_place_dataset_on_device=True,
                                          experimental_fetch_to_device=True)
        out["both"] = error(lambda: s.distribute_datasets_from_function(fn, both))
        worker = tf.distribute.InputOptions(experimental_place_dataset_on_device=True,
                                            experimental_fetch_to_device=False)
        out["worker"] = error(lambda: s.distribute_datasets_from_function(fn, worker))
        out["dataset"] = error(lambda: s.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(2), OPTS))
        placed = tf.distribute.InputOptions(experimental_replication_mode=PER_REPLICA,
                                            experimental_place_dataset_on_device=True,
                                            experimental_fetch_to_device=False)
        out["placed"] = [local(s, x) for x in s.distribute_datasets_from_function(fn, placed)]
        out["fetched"] = [local(s, x) for x in s.distribute_datasets_from_function(
            fn, tf.distribute.InputOptions(experimental_replication_mode=PER_REPLICA))]
        # CentralStorageStrategy builds one pipeline whatever the mode; its elements stay whole.
        cs = tf.distribute.experimental.CentralStorageStrategy(["/cpu:0", "/cpu:1"])
        contexts = []
        def cs_fn(ctx):
            contexts.append([ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync])
            return tf.data.Dataset.range(4).batch(2)
        out["cs"] = [local(cs, x) for x in cs.distribute_datasets_from_function(cs_fn, OPTS)]
        out["cs_contexts"] = contexts
        """,
        tmp_path,
    )
    assert r["both"] == [
        "ValueError",
        "`experimental_place_dataset_on_device` can not be set to True when experimental_fetch_to_device is "
        "True and replication mode is set to `PER_REPLICA`",
    ]
    assert r["worker"] == [
        "ValueError",
        "When `experimental_place_dataset_on_device` is set for dataset placement, you must also specify "
        "`PER_REPLICA` for the replication mode",
    ]
    assert r["dataset"] == [
        "NotImplementedError",
        "InputReplicationMode.PER_REPLICA is only supported in `distribute_datasets_from_function`.",
    ]
    assert r["placed"] == [[[0, 1], [0, 1]], [[2, 3], [2, 3]]]
    assert r["fetched"] == r["placed"]
    assert r["cs"] == [[[0, 1]], [[2, 3]]] and r["cs_contexts"] == [[1, 0, 2]]
