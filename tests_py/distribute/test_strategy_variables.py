"""Variables created in a strategy's scope (MirroredVariable / SyncOnReadVariable semantics) and
Keras 3's compile/fit/evaluate under MirroredStrategy, OneDeviceStrategy and a one-worker
MultiWorkerMirroredStrategy, in one process (each checked under TensorFlow 2.21)."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

AGG, SYNC = tf.VariableAggregation, tf.VariableSynchronization


def test_mirrored_strategy_variable_classes():
    s = tf.distribute.MirroredStrategy()
    with s.scope():
        a = tf.Variable(1.0)
        b = tf.Variable(2.0, synchronization=SYNC.ON_READ, aggregation=AGG.SUM)
        d = tf.Variable(4.0, synchronization=SYNC.ON_READ)
    assert (type(a).__name__, type(b).__name__) == ("MirroredVariable", "SyncOnReadVariable")
    assert a.synchronization == SYNC.ON_WRITE and b.synchronization == SYNC.ON_READ    # AUTO -> ON_WRITE
    assert a.trainable and not b.trainable and not d.trainable     # ON_READ: not trainable by default
    assert isinstance(a, tf.distribute.DistributedValues) and isinstance(b, tf.distribute.DistributedValues)
    assert [type(v).__name__ for v in s.experimental_local_results(a)] == ["ResourceVariable"]
    assert a.distribute_strategy is s
    assert b.numpy() == 2.0
    with pytest.raises(ValueError, match="Could not convert from `tf.VariableAggregation`"):
        d.numpy()                             # ON_READ without aggregation: no cross-replica value
    one = tf.distribute.OneDeviceStrategy("/cpu:0")
    with one.scope():
        e = tf.Variable(1.0, synchronization=SYNC.ON_READ, aggregation=AGG.SUM)
    assert type(e).__name__ == "ResourceVariable" and e.synchronization == SYNC.ON_READ


def test_distributed_variable_creation_errors():
    s = tf.distribute.MirroredStrategy()
    with s.scope():
        with pytest.raises(ValueError, match="`NONE` variable synchronization mode is not supported"):
            tf.Variable(1.0, synchronization=SYNC.NONE)
        with pytest.raises(ValueError, match="aggregation=MEAN and a non-floating dtype is not supported"):
            tf.Variable(1, aggregation=AGG.MEAN)


def test_sync_on_read_and_aggregated_updates():
    s = tf.distribute.MirroredStrategy()
    with s.scope():
        total = tf.Variable(2.0, synchronization=SYNC.ON_READ, aggregation=AGG.SUM)
        mean = tf.Variable(3.0, aggregation=AGG.MEAN)
        first = tf.Variable(0, aggregation=AGG.ONLY_FIRST_REPLICA)
    with pytest.raises(ValueError, match="does not support `assign_add` in cross-replica context"):
        total.assign_add(1.0)
    with pytest.raises(ValueError, match="does not support `assign_sub` in cross-replica context"):
        total.assign_sub(1.0)
    total.assign(5.0)                        # cross-replica: value / num_replicas on each replica
    assert total.numpy() == 5.0

    @tf.function
    def step():
        total.assign_add(1.0)
        mean.assign_add(2.0)
        first.assign_add(1)
        return total.read_value()

    assert s.experimental_local_results(s.run(step))[0].numpy() == 6.0
    assert (total.numpy(), mean.numpy(), first.numpy()) == (6.0, 5.0, 1)
    with pytest.raises(NotImplementedError, match="doesn't support `scatter_add`"):
        total.scatter_add(tf.IndexedSlices(tf.constant([1.0]), tf.constant([0])))
    other = tf.distribute.OneDeviceStrategy("/cpu:0")
    with other.scope():
        with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy objects"):
            total.numpy()


def _data():
    rng = np.random.RandomState(0)
    x = rng.randn(64, 5).astype(np.float32)
    y = (x @ rng.randn(5, 1)).astype(np.float32)
    w = [rng.randn(5, 8).astype(np.float32) * 0.5, np.zeros(8, np.float32),
         rng.randn(8, 1).astype(np.float32) * 0.5, np.zeros(1, np.float32)]
    return x, y, w


def _fit(strategy):
    keras = tf.keras
    x, y, w = _data()
    scope = strategy.scope() if strategy is not None else tf.distribute.get_strategy().scope()
    with scope:
        model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
        model.set_weights(w)
        model.compile(keras.optimizers.Adam(0.02), "mse", metrics=["mae"])
    history = model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(16), epochs=2, verbose=0)
    evaluation = model.evaluate(x, y, batch_size=16, verbose=0)
    types = {type(v.value).__name__ for v in model.weights}, {type(v.value).__name__ for m in model.metrics
                                                            for v in m.variables}
    return model.get_weights(), history.history, evaluation, types


@pytest.mark.parametrize("name,make,types", [
    ("mirrored", lambda: tf.distribute.MirroredStrategy(), ({"MirroredVariable"}, {"SyncOnReadVariable"})),
    ("one_device", lambda: tf.distribute.OneDeviceStrategy("/cpu:0"), ({"ResourceVariable"}, {"ResourceVariable"})),
    ("multi_worker_local", lambda: tf.distribute.MultiWorkerMirroredStrategy(),
     ({"MirroredVariable"}, {"SyncOnReadVariable"})),
])
def test_keras_fit_under_a_strategy_scope_trains_as_without(name, make, types):
    ref_w, ref_h, ref_e, _ = _fit(None)
    w, h, e, got_types = _fit(make())
    assert got_types == types
    for a, b in zip(w, ref_w):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    for k in ("loss", "mae"):
        np.testing.assert_allclose(h[k], ref_h[k], rtol=1e-6)
    np.testing.assert_allclose(e, ref_e, rtol=1e-6)
