"""tf.distribute on one process: the default strategy, OneDeviceStrategy and MirroredStrategy on
one CPU, replica contexts, reduce/gather/local results, distributed datasets, InputContext,
CommunicationOptions and the loss helpers of tf.nn (each checked under TensorFlow 2.21)."""
import numpy as np
import pytest

from tfbackend import tf, IS_TF

pytestmark = pytest.mark.tf_oracle

STRATEGIES = {
    "default": lambda: tf.distribute.get_strategy(),
    "one_device": lambda: tf.distribute.OneDeviceStrategy("/cpu:0"),
    "mirrored": lambda: tf.distribute.MirroredStrategy(),
}


def test_default_strategy_outside_every_scope():
    s = tf.distribute.get_strategy()
    assert type(s).__name__ == "_DefaultDistributionStrategy"
    assert s.num_replicas_in_sync == 1
    assert not tf.distribute.has_strategy()
    assert not tf.distribute.in_cross_replica_context()
    ctx = tf.distribute.get_replica_context()
    assert type(ctx).__name__ == "_DefaultReplicaContext"
    assert ctx.replica_id_in_sync_group == 0
    assert ctx.num_replicas_in_sync == 1
    assert ctx.strategy is s
    assert tf.distribute.get_strategy() is s       # a singleton
    with pytest.raises(RuntimeError, match="unsupported by default"):
        s.extended.worker_devices


@pytest.mark.parametrize("name", ["one_device", "mirrored"])
def test_scope_sets_strategy_and_cross_replica_context(name):
    s = STRATEGIES[name]()
    assert s.num_replicas_in_sync == 1
    assert s.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",)
    with s.scope() as entered:
        assert entered is s
        assert tf.distribute.has_strategy()
        assert tf.distribute.get_strategy() is s
        assert tf.distribute.in_cross_replica_context()
        assert tf.distribute.get_replica_context() is None
        with s.scope():                                   # re-entering the same scope is allowed
            assert tf.distribute.get_strategy() is s
        v = tf.Variable(1.0)
        assert s.extended.variable_created_in_scope(v)
    assert not tf.distribute.has_strategy()
    assert not tf.distribute.get_strategy().extended.variable_created_in_scope(v)
    w = tf.Variable(2.0)
    assert not s.extended.variable_created_in_scope(w)
    assert tf.distribute.get_strategy().extended.variable_created_in_scope(w)


def test_mixing_strategies_is_an_error():
    a, b = tf.distribute.OneDeviceStrategy("/cpu:0"), tf.distribute.MirroredStrategy()
    default = tf.distribute.get_strategy()
    with a.scope():
        with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy objects"):
            with b.scope():
                pass
        with pytest.raises(RuntimeError, match="Must not nest tf.distribute.Strategy scopes"):
            with default.scope():
                pass


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_run_in_replica_context(name):
    s = STRATEGIES[name]()
    seen = {}

    def step(x, scale=1.0):
        ctx = tf.distribute.get_replica_context()
        seen["cross"] = tf.distribute.in_cross_replica_context()
        seen["id"] = int(ctx.replica_id_in_sync_group)
        seen["n"] = ctx.num_replicas_in_sync
        seen["strategy"] = tf.distribute.get_strategy()
        return x * scale, {"sum": tf.reduce_sum(x)}

    out, d = s.run(step, args=(tf.constant([1.0, 2.0]),), kwargs={"scale": 3.0})
    np.testing.assert_allclose(out.numpy(), [3.0, 6.0])
    assert float(d["sum"]) == 3.0
    assert seen == {"cross": False, "id": 0, "n": 1, "strategy": s}
    with pytest.raises(ValueError, match="positional args must be a list or tuple"):
        s.run(step, args=tf.constant(1.0))


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_reduce_and_local_results(name):
    s = STRATEGIES[name]()
    x = s.run(lambda: tf.constant([[1.0, 2.0], [3.0, 5.0]]))
    np.testing.assert_allclose(s.reduce(tf.distribute.ReduceOp.SUM, x, axis=None).numpy(), [[1, 2], [3, 5]])
    np.testing.assert_allclose(s.reduce("sum", x, axis=0).numpy(), [4.0, 7.0])
    np.testing.assert_allclose(s.reduce("MEAN", x, axis=0).numpy(), [2.0, 3.5])
    np.testing.assert_allclose(float(s.reduce("MEAN", x, axis=(0, 1))), 2.75)
    with pytest.raises(TypeError, match="unhashable type"):
        s.reduce("MEAN", x, axis=[0, 1])
    np.testing.assert_allclose(s.reduce("MEAN", x, axis=-1).numpy(), [1.5, 4.0])
    with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2 dimensions"):
        s.reduce("MEAN", x, axis=2)
    with pytest.raises(ValueError, match="Invalid reduction dimension -3 for input with 2 dimensions"):
        s.reduce("SUM", x, axis=-3)
    with pytest.raises(TypeError, match="reduction_indices"):
        s.reduce("MEAN", x, axis="0")
    with pytest.raises(ValueError):
        s.reduce("MAX", x, axis=None)
    local = s.experimental_local_results(x)
    assert isinstance(local, tuple) and len(local) == 1
    np.testing.assert_allclose(local[0].numpy(), x.numpy())
    np.testing.assert_allclose(s.gather(x, axis=0).numpy(), x.numpy())


@pytest.mark.parametrize("name", ["one_device", "mirrored"])
def test_reduce_inside_run_needs_cross_replica_context(name):
    s = STRATEGIES[name]()
    with pytest.raises(RuntimeError, match="Method requires being in cross-replica context"):
        s.run(lambda: s.reduce("SUM", tf.constant(1.0), axis=None))
    with pytest.raises(RuntimeError, match="requires cross-replica context"):
        s.run(lambda: s.gather(tf.constant([1.0]), axis=0))


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_all_reduce_and_its_gradient(name):
    s = STRATEGIES[name]()
    v = tf.Variable([1.0, 2.0])

    def step():
        with tf.GradientTape() as tape:
            y = tf.distribute.get_replica_context().all_reduce("SUM", v * v)
            loss = tf.reduce_sum(y)
        return y, tape.gradient(loss, v)

    y, g = s.run(step)
    np.testing.assert_allclose(y.numpy(), [1.0, 4.0])
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])
    structure = s.run(lambda: tf.distribute.get_replica_context().all_reduce(
        tf.distribute.ReduceOp.MEAN, {"a": tf.constant(1.0), "b": [tf.constant([2.0, 3.0])]}))
    assert float(structure["a"]) == 1.0
    np.testing.assert_allclose(structure["b"][0].numpy(), [2.0, 3.0])
    gathered = s.run(lambda: tf.distribute.get_replica_context().all_gather(tf.constant([[1.0], [2.0]]), axis=0))
    np.testing.assert_allclose(gathered.numpy(), [[1.0], [2.0]])


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_merge_call_runs_in_cross_replica_context(name):
    s = STRATEGIES[name]()

    def merge_fn(strategy, x, y=0.0):
        assert strategy is s
        assert tf.distribute.in_cross_replica_context()
        return strategy.reduce("SUM", x + y, axis=None)

    out = s.run(lambda: tf.distribute.get_replica_context().merge_call(merge_fn, args=(tf.constant(2.0),),
                                                                       kwargs={"y": 1.0}))
    assert float(out) == 3.0


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_run_inside_function(name):
    s = STRATEGIES[name]()
    with s.scope():
        w = tf.Variable([[1.0], [2.0]])
    lr = 0.1

    @tf.function
    def train_step(x, y):
        def step(x, y):
            with tf.GradientTape() as tape:
                per_example = tf.square(tf.matmul(x, w)[:, 0] - y)
                loss = tf.nn.compute_average_loss(per_example)
            grads = tape.gradient(loss, [w])
            grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
            w.assign_sub(lr * grads[0])
            return loss
        per_replica = s.run(step, args=(x, y))
        return s.reduce("SUM", per_replica, axis=None)

    x = tf.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = tf.constant([0.0, 1.0, 2.0])
    first = float(train_step(x, y))
    np.testing.assert_allclose(first, (1.0 + 1.0 + 1.0) / 3, rtol=1e-6)
    err = (x.numpy() @ np.array([[1.0], [2.0]]))[:, 0] - y.numpy()
    expected = np.array([[1.0], [2.0]]) - lr * (2 * x.numpy().T @ err / 3)[:, None]
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_distributed_datasets(name):
    s = STRATEGIES[name]()
    ds = tf.data.Dataset.range(6).batch(4)
    dist = s.experimental_distribute_dataset(ds)
    got = [b.numpy().tolist() for b in dist]
    assert got == [[0, 1, 2, 3], [4, 5]]
    it = iter(dist)
    assert next(it).numpy().tolist() == [0, 1, 2, 3]
    contexts = []

    def dataset_fn(ctx):
        contexts.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync,
                         ctx.get_per_replica_batch_size(8), str(ctx)))
        return tf.data.Dataset.range(3)

    from_fn = s.distribute_datasets_from_function(dataset_fn)
    assert [int(e) for e in from_fn] == [0, 1, 2]
    assert contexts == [(1, 0, 1, 8, "tf.distribute.InputContext(input pipeline id 0, total: 1)")]
    if name != "default":
        assert type(dist).__name__ == "DistributedDataset"
        assert type(from_fn).__name__ == "DistributedDatasetsFromFunction"
        assert isinstance(dist, tf.distribute.DistributedDataset)
        assert isinstance(iter(dist), tf.distribute.DistributedIterator)
        with pytest.raises(NotImplementedError, match="PER_REPLICA is only supported"):
            s.experimental_distribute_dataset(ds, tf.distribute.InputOptions(
                experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA))


@pytest.mark.parametrize("name", ["one_device", "mirrored"])
def test_iterate_distributed_dataset_in_function(name):
    s = STRATEGIES[name]()
    dist = s.experimental_distribute_dataset(tf.data.Dataset.range(10).batch(3))

    @tf.function
    def total(it):
        acc = tf.constant(0, tf.int64)
        for _ in tf.range(2):
            acc += tf.reduce_sum(s.run(lambda b: b, args=(next(it),)))
        return acc

    it = iter(dist)
    assert int(total(it)) == 0 + 1 + 2 + 3 + 4 + 5
    assert int(total(it)) == 6 + 7 + 8 + 9


def test_input_context():
    ctx = tf.distribute.InputContext(num_input_pipelines=2, input_pipeline_id=1, num_replicas_in_sync=4)
    assert (ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync) == (2, 1, 4)
    assert ctx.get_per_replica_batch_size(64) == 16
    with pytest.raises(ValueError, match="The `global_batch_size` 10 is not divisible by `num_replicas_in_sync` 4"):
        ctx.get_per_replica_batch_size(10)
    assert str(ctx) == "tf.distribute.InputContext(input pipeline id 1, total: 2)"
    default = tf.distribute.InputContext()
    assert (default.num_input_pipelines, default.input_pipeline_id, default.num_replicas_in_sync) == (1, 0, 1)


def test_enums_and_options():
    assert tf.distribute.ReduceOp("SUM") is tf.distribute.ReduceOp.SUM
    assert [m.value for m in tf.distribute.ReduceOp] == ["SUM", "MEAN"]
    assert [m.value for m in tf.distribute.InputReplicationMode] == ["PER_WORKER", "PER_REPLICA"]
    impl = tf.distribute.experimental.CommunicationImplementation
    assert [m.value for m in impl] == ["AUTO", "RING", "NCCL"]
    assert tf.distribute.experimental.CollectiveCommunication is impl
    o = tf.distribute.experimental.CommunicationOptions()
    assert (o.bytes_per_pack, o.timeout_seconds, o.implementation) == (0, None, impl.AUTO)
    o = tf.distribute.experimental.CommunicationOptions(bytes_per_pack=1024, timeout_seconds=5.0, implementation="ring")
    assert (o.bytes_per_pack, o.timeout_seconds, o.implementation) == (1024, 5.0, impl.RING)
    with pytest.raises(ValueError, match="`bytes_per_pack` must be >=0"):
        tf.distribute.experimental.CommunicationOptions(bytes_per_pack=-1)
    with pytest.raises(ValueError):
        tf.distribute.experimental.CommunicationOptions(implementation="MPI")
    with pytest.raises(ValueError, match="must be instance of"):
        tf.distribute.experimental.CommunicationOptions(implementation=3)
    opts = tf.distribute.InputOptions()
    assert opts.experimental_replication_mode == tf.distribute.InputReplicationMode.PER_WORKER
    assert opts.experimental_fetch_to_device is True
    vc = tf.distribute.experimental.ValueContext(1, 2)
    assert (vc.replica_id_in_sync_group, vc.num_replicas_in_sync) == (1, 2)


def test_values_from_function():
    s = tf.distribute.MirroredStrategy()
    v = s.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(float(ctx.replica_id_in_sync_group + 10 * ctx.num_replicas_in_sync)))
    assert float(s.experimental_local_results(v)[0]) == 10.0


def test_extended_update():
    s = tf.distribute.MirroredStrategy()
    with s.scope():
        v = tf.Variable(1.0)

    def add(var, x):
        return var.assign_add(x)

    with s.scope():
        s.extended.update(v, add, args=(2.0,))
    assert float(v.numpy()) == 3.0
    s.run(lambda: s.extended.update(v, add, args=(tf.constant(1.0),)))
    assert float(v.numpy()) == 4.0
    s.extended.update(v, add, args=(1.0,), group=False)
    assert float(v.numpy()) == 5.0


def test_compute_average_loss():
    loss = tf.constant([1.0, 2.0, 3.0, 4.0])
    assert float(tf.nn.compute_average_loss(loss)) == 2.5
    assert float(tf.nn.compute_average_loss(loss, global_batch_size=8)) == 1.25
    assert float(tf.nn.compute_average_loss(loss, sample_weight=[1.0, 0.0, 1.0, 0.0])) == 1.0
    assert float(tf.nn.compute_average_loss(loss, sample_weight=2.0)) == 5.0
    assert float(tf.nn.compute_average_loss(tf.constant([[1.0], [2.0]]), sample_weight=tf.constant([1.0, 2.0]))) == 2.5
    assert float(tf.nn.compute_average_loss(loss, global_batch_size=0)) == 0.0
    out = tf.nn.compute_average_loss(tf.constant([1, 2], tf.int32))
    assert out.dtype == tf.float64 and float(out) == 1.5
    with pytest.raises(ValueError, match="Expected a tensor with at least rank 1"):
        tf.nn.compute_average_loss(tf.constant(1.0))
    with pytest.raises(TypeError, match="global_batch_size must be an integer"):
        tf.nn.compute_average_loss(loss, global_batch_size=2.0)
    with pytest.raises(ValueError, match="global_batch_size must be scalar"):
        tf.nn.compute_average_loss(loss, global_batch_size=[4])
    with pytest.raises(tf.errors.InvalidArgumentError, match="global_batch_size must be non-negative"):
        tf.nn.compute_average_loss(loss, global_batch_size=-1)


def test_loss_helpers_need_replica_context_under_a_strategy():
    s = tf.distribute.MirroredStrategy()
    loss = tf.constant([1.0, 2.0, 3.0, 4.0])
    with s.scope():
        with pytest.raises(RuntimeError, match="calling `compute_average_loss` in cross replica context"):
            tf.nn.compute_average_loss(loss)
        with pytest.raises(RuntimeError, match="calling `scale_regularization_loss` in cross replica context"):
            tf.nn.scale_regularization_loss(1.0)
        assert float(tf.nn.compute_average_loss(loss, global_batch_size=2)) == 5.0
    assert float(s.run(lambda: tf.nn.compute_average_loss(loss))) == 2.5
    assert float(tf.nn.scale_regularization_loss([1.0, 2.0])) == 3.0
    assert float(s.run(lambda: tf.nn.scale_regularization_loss([1.0, 2.0]))) == 3.0


def test_compute_average_loss_in_function():
    @tf.function
    def f(x, n):
        return tf.nn.compute_average_loss(x, global_batch_size=n)

    assert float(f(tf.constant([1.0, 3.0]), tf.constant(4))) == 1.0
    assert float(f(tf.constant([1.0, 3.0]), tf.constant(0))) == 0.0
