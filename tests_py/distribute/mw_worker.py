"""One worker of the multi-worker tests (launched by test_multi_worker.py: under fn by
``mpirun -np N``, under TensorFlow as N processes with TF_CONFIG on localhost ports).

    python mw_worker.py SCENARIO OUT_DIR [ARGS...]

Each worker writes OUT_DIR/<scenario>.<worker index>.json (and .npz for the training run).
"""
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tfbackend import tf, IS_TF  # noqa: E402


def make_strategy(timeout=None, bytes_per_pack=0):
    options = None
    if timeout or bytes_per_pack:
        options = tf.distribute.experimental.CommunicationOptions(timeout_seconds=timeout,
                                                                  bytes_per_pack=bytes_per_pack)
    return tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)


def worker_index(strategy):
    r = strategy.cluster_resolver
    if r is None or r.task_type is None:
        return 0
    return r.task_id + (1 if r.task_type == "worker" and "chief" in r.cluster_spec().jobs else 0)


def data(n=96, features=5, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, features).astype(np.float32)
    y = (x @ rng.randn(features, 1) + 0.1 * rng.randn(n, 1)).astype(np.float32)
    return x, y


def initial_weights(features=5, hidden=8, seed=1):
    rng = np.random.RandomState(seed)
    return [rng.randn(features, hidden).astype(np.float32) * 0.5, np.zeros(hidden, np.float32),
            rng.randn(hidden, 1).astype(np.float32) * 0.5, np.zeros(1, np.float32)]


def train(out, per_worker_batch, steps, bytes_per_pack=0):
    """The key property's run: an MLP trained by a custom loop (TF's distributed custom-training
    tutorial): strategy.run, compute_average_loss, all-reduced gradients, SGD. With
    ``bytes_per_pack`` the gradients are all-reduced in several packs (fn: split all-reduces that
    overlap backprop)."""
    strategy = make_strategy(bytes_per_pack=bytes_per_pack)
    n = strategy.num_replicas_in_sync
    global_batch = per_worker_batch * n
    x, y = data()
    with strategy.scope():
        # Worker 0's values are the ones all workers start from (broadcast); others start elsewhere
        # on purpose, so the test sees that the broadcast happened.
        shift = 0.0 if worker_index(strategy) == 0 else 1.0
        weights = [tf.Variable(w + shift) for w in initial_weights()]
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch, drop_remainder=True).repeat()
    dist = iter(strategy.experimental_distribute_dataset(dataset))
    lr = 0.05

    def step(xb, yb):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(xb, weights[0]) + weights[1])
            pred = tf.matmul(h, weights[2]) + weights[3]
            per_example = tf.reduce_sum(tf.square(pred - yb), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)
        grads = tape.gradient(loss, weights)
        grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
        for w, g in zip(weights, grads):
            w.assign_sub(lr * g)
        return loss

    @tf.function
    def train_step(it):
        per_replica = strategy.run(step, args=next(it))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    losses = [float(train_step(dist)) for _ in range(steps)]
    idx = worker_index(strategy)
    np.savez(os.path.join(out, f"train.{idx}.npz"), *[w.numpy() for w in weights])
    return {"losses": losses, "replicas": n}


def api(out):
    """Cross-worker reduce / gather / all_reduce / datasets, each value made from the worker index."""
    strategy = make_strategy()
    n = strategy.num_replicas_in_sync
    idx = worker_index(strategy)
    res = {"n": n, "index": idx, "multi": bool(strategy.extended._in_multi_worker_mode())}
    v = strategy.run(lambda: tf.constant([float(idx + 1), 10.0 * (idx + 1)]))
    res["reduce_sum"] = strategy.reduce("SUM", v, axis=None).numpy().tolist()
    res["reduce_mean"] = strategy.reduce("MEAN", v, axis=None).numpy().tolist()
    res["reduce_mean_axis0"] = float(strategy.reduce("MEAN", v, axis=0))
    m = strategy.run(lambda: tf.fill([idx + 1, 2], float(idx)))
    res["gather0"] = strategy.gather(m, axis=0).numpy().tolist()
    res["gather1"] = strategy.gather(tf.fill([2, 1], float(idx)), axis=1).numpy().tolist()

    @tf.function
    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        a = ctx.all_reduce("SUM", tf.constant([1.0, 2.0]) * tf.cast(ctx.replica_id_in_sync_group + 1, tf.float32))
        b = ctx.all_reduce("MEAN", tf.constant(float(idx)))
        c = ctx.all_gather(tf.reshape(tf.cast(ctx.replica_id_in_sync_group, tf.float32), [1]), axis=0)
        return a, b, c, ctx.replica_id_in_sync_group

    a, b, c, rid = strategy.run(replica_fn)
    res.update(all_reduce_sum=a.numpy().tolist(), all_reduce_mean=float(b), all_gather=c.numpy().tolist(),
               replica_id=int(rid))
    ds = tf.data.Dataset.range(4 * n * 3).batch(4 * n)
    elements = list(strategy.experimental_distribute_dataset(ds))
    res["dataset_type"] = type(elements[0]).__name__                  # PerReplica across workers
    res["dataset"] = [strategy.experimental_local_results(e)[0].numpy().tolist() for e in elements]
    res["dataset_run"] = [strategy.run(lambda b: b * 2, args=(e,)).numpy().tolist() for e in elements[:1]]

    @tf.function
    def total(e):
        return strategy.reduce("SUM", strategy.run(tf.reduce_sum, args=(e,)), axis=None)

    res["dataset_fn_sum"] = int(total(elements[0]))

    def dataset_fn(ctx):
        batch = ctx.get_per_replica_batch_size(2 * n)
        k, i = ctx.num_input_pipelines, ctx.input_pipeline_id      # (Dataset.shard, for a range)
        return tf.data.Dataset.range(6 * n).filter(lambda x: x % k == i).batch(batch)

    res["from_function"] = [strategy.experimental_local_results(e)[0].numpy().tolist()
                            for e in strategy.distribute_datasets_from_function(dataset_fn)]
    r = strategy.cluster_resolver
    res["resolver"] = [r.task_type, r.task_id, sorted(r.cluster_spec().jobs),
                       sum(r.cluster_spec().num_tasks(j) for j in r.cluster_spec().jobs)]
    res["should_checkpoint"] = bool(strategy.extended.should_checkpoint)
    with strategy.scope():
        var = tf.Variable(float(idx) + 5.0)
    res["variable"] = float(var.numpy())
    return res


def mismatch(out):
    """Rank 1 traces a different program (a different gradient shape): every rank must fail."""
    strategy = make_strategy(timeout=20)
    idx = worker_index(strategy)
    size = 3 if idx == 1 else 2

    @tf.function
    def f():
        return tf.distribute.get_replica_context().all_reduce("SUM", tf.ones([size]))

    try:
        strategy.run(f)
        return {"error": None}
    except Exception as e:  # noqa: BLE001  (the test reads the class and message)
        return {"error": type(e).__name__, "message": str(e)}


def stall(out):
    """Rank 1 stalls (sleeps) instead of reaching the collective: the others must fail in time."""
    strategy = make_strategy(timeout=3)
    idx = worker_index(strategy)
    if idx == 1:
        time.sleep(60)
    t0 = time.time()
    try:
        strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)
        return {"error": None}
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__, "message": str(e), "seconds": time.time() - t0}


def _keras():
    """tf.keras; under TensorFlow with keras-team/keras#20585's fix, which fn's Keras glue applies
    (Keras 3.15's trainer cannot run a multi-worker fit on TF 2.21 unpatched: it reduces the whole
    (x, y) PerReplica batch in one ``strategy.reduce`` and each scalar log with ``axis=0``)."""
    keras = tf.keras
    if IS_TF:
        from keras.src import tree
        from keras.src.backend.tensorflow import trainer as tr

        def maybe_symbolic_build(self, iterator=None, data_batch=None):
            strategy = self._distribute_strategy
            if strategy is None:
                return
            if iterator is not None:
                for _, _, it in iterator:
                    data_batch = tree.map_structure(lambda v: strategy.experimental_local_results(v)[0], next(it))
                    break
            with strategy.scope():
                self._symbolic_build(data_batch=data_batch)

        original = tr.reduce_per_replica

        def reduce_per_replica(values, strategy, reduction):
            if reduction in ("auto", "mean") and tr._collective_all_reduce_multi_worker(strategy):
                return tree.map_structure(lambda v: strategy.reduce("MEAN", v, axis=None), values)
            return original(values, strategy, reduction)

        tr.TensorFlowTrainer._maybe_symbolic_build = maybe_symbolic_build
        tr.reduce_per_replica = reduce_per_replica
    return keras


def _keras_model(keras, strategy, steps_per_execution=1):
    with strategy.scope():
        model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
        model.set_weights(initial_weights())
        model.compile(keras.optimizers.Adam(0.02), "mse", metrics=["mae"], steps_per_execution=steps_per_execution)
    return model


def keras_fit(out, per_worker_batch, epochs, steps_per_execution=1):
    """compile/fit/evaluate under strategy.scope(): the global batch is split across workers (with
    ``steps_per_execution`` steps per call of the train Function)."""
    keras = _keras()
    strategy = make_strategy(timeout=120)
    n = strategy.num_replicas_in_sync
    idx = worker_index(strategy)
    global_batch = per_worker_batch * n
    x, y = data()
    model = _keras_model(keras, strategy, steps_per_execution)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch)
    history = model.fit(dataset, epochs=epochs, verbose=0)
    evaluation = model.evaluate(x, y, batch_size=global_batch, verbose=0, return_dict=True)
    np.savez(os.path.join(out, f"keras_fit.{idx}.npz"), *model.get_weights())
    types = sorted({type(v.value).__name__ for v in model.weights + model.optimizer.variables})
    metric_types = sorted({type(v.value).__name__ for m in model.metrics for v in m.variables})
    return {"replicas": n, "history": history.history, "evaluate": evaluation, "variable_types": types,
            "metric_variable_types": metric_types,
            "iterations": int(model.optimizer.iterations.numpy())}


class _Interrupt(Exception):
    pass


def keras_backup(out, phase, epochs):
    """BackupAndRestore (TF's multi-worker tutorial): phase 0 is interrupted when epoch 2 begins,
    phase 1 reruns the same fit and resumes; phase 2 trains without interruption."""
    keras = _keras()
    strategy = make_strategy(timeout=120)
    idx = worker_index(strategy)
    n = strategy.num_replicas_in_sync
    x, y = data()
    model = _keras_model(keras, strategy)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(4 * n)

    class InterruptAt(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            if epoch == 2:
                raise _Interrupt()

    # One backup directory per worker (as /tmp/backup on separate machines).
    callbacks = [keras.callbacks.BackupAndRestore(backup_dir=os.path.join(out, f"backup{0 if phase < 2 else 2}.{idx}"))]
    if phase == 0:
        callbacks.append(InterruptAt())
    try:
        history = model.fit(dataset, epochs=epochs, verbose=0, callbacks=callbacks)
    except _Interrupt:
        return {"interrupted": True, "iterations": int(model.optimizer.iterations.numpy())}
    np.savez(os.path.join(out, f"keras_backup{phase}.{idx}.npz"), *model.get_weights())
    return {"interrupted": False, "epochs": history.epoch, "loss": history.history["loss"],
            "iterations": int(model.optimizer.iterations.numpy())}


def state(out):
    """Variables created in scope (mirrored / sync-on-read, aggregation) and checkpoints as TF's
    multi-worker tutorial writes them."""
    strategy = make_strategy(timeout=120)
    idx = worker_index(strategy)
    agg, sync = tf.VariableAggregation, tf.VariableSynchronization
    with strategy.scope():
        m_sum = tf.Variable(0.0, aggregation=agg.SUM)
        m_mean = tf.Variable(0.0, aggregation=agg.MEAN)
        m_none = tf.Variable(0.0)
        m_first = tf.Variable(0, aggregation=agg.ONLY_FIRST_REPLICA)
        r_sum = tf.Variable(0.0, synchronization=sync.ON_READ, aggregation=agg.SUM)
        r_mean = tf.Variable(0.0, synchronization=sync.ON_READ, aggregation=agg.MEAN)
    local = lambda v: float(strategy.experimental_local_results(v)[0].numpy())  # noqa: E731
    res = {"types": [type(v).__name__ for v in (m_sum, r_sum)],
           "distributed_values": isinstance(r_sum, tf.distribute.DistributedValues),
           "sync": [v.synchronization.name for v in (m_sum, r_sum)], "trainable": [m_sum.trainable, r_sum.trainable]}

    @tf.function
    def step():
        k = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
        m_sum.assign_add(k + 1.0)
        m_mean.assign(10.0 * k)
        m_none.assign_add(k + 1.0)
        m_first.assign_add(1)
        r_sum.assign_add(k + 1.0)
        r_mean.assign(10.0 * k)
        return r_sum.read_value()          # in the replica: this replica's copy

    in_replica = strategy.run(step)
    res.update(m_sum=float(m_sum.numpy()), m_mean=float(m_mean.numpy()), m_none=float(m_none.numpy()),
               m_first=int(m_first.numpy()), r_sum=float(r_sum.numpy()), r_sum_local=local(r_sum),
               r_sum_in_replica=float(strategy.experimental_local_results(in_replica)[0].numpy()),
               r_mean=float(r_mean.numpy()), r_mean_local=local(r_mean),
               reduce_r_sum=float(strategy.reduce("SUM", r_sum, axis=None).numpy()))
    try:
        r_sum.assign_add(1.0)
        res["assign_add_error"] = None
    except ValueError as e:
        res["assign_add_error"] = str(e)

    # Checkpoints: every worker saves, the chief to the real directory, the others to a temporary
    # one they delete; every worker restores the chief's (the tutorial's write_filepath).
    ckpt = tf.train.Checkpoint(m_sum=m_sum, r_sum=r_sum, r_mean=r_mean)
    checkpoint_dir = os.path.join(out, "ckpt")
    chief = strategy.extended.should_checkpoint
    write_dir = checkpoint_dir if chief else os.path.join(out, f"workertemp_{idx}", "ckpt")
    manager = tf.train.CheckpointManager(ckpt, directory=write_dir, max_to_keep=1)
    manager.save()
    if not chief:
        tf.io.gfile.rmtree(write_dir)
    strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)   # all have saved
    with strategy.scope():
        m_sum2 = tf.Variable(-1.0, aggregation=agg.SUM)
        r_sum2 = tf.Variable(-1.0, synchronization=sync.ON_READ, aggregation=agg.SUM)
        r_mean2 = tf.Variable(-1.0, synchronization=sync.ON_READ, aggregation=agg.MEAN)
    latest = tf.train.latest_checkpoint(checkpoint_dir)
    tf.train.Checkpoint(m_sum=m_sum2, r_sum=r_sum2, r_mean=r_mean2).restore(latest)
    res.update(latest=os.path.relpath(latest, out), restored_m_sum=float(m_sum2.numpy()),
               restored_r_sum=float(r_sum2.numpy()), restored_r_sum_local=local(r_sum2),
               restored_r_mean=float(r_mean2.numpy()), restored_r_mean_local=local(r_mean2),
               temp_dirs=sorted(d for d in os.listdir(out) if d.startswith("workertemp_") and
                                os.listdir(os.path.join(out, d))))
    r_sum2.assign(6.0)                      # cross-replica: each copy holds 6 / n
    res.update(assigned_r_sum=float(r_sum2.numpy()), assigned_r_sum_local=local(r_sum2))
    return res


def optional_uneven(out):
    """``DistributedIterator.get_next_as_optional`` when the workers' datasets have different
    lengths (worker i: i + 2 batches of 2): it has a value while any worker has one, so every
    worker runs n + 1 steps, a worker whose data ended on an empty batch (TF's dummy)."""
    strategy = make_strategy(timeout=120)
    idx = worker_index(strategy)

    def dataset_fn(ctx):
        i = ctx.input_pipeline_id
        return tf.data.Dataset.range(2 * (i + 2)).map(lambda x: tf.cast(x + 100 * i, tf.float32)).batch(2)

    def local(x):
        return strategy.experimental_local_results(x)[0]

    res = {"_index": idx}
    it = iter(strategy.distribute_datasets_from_function(dataset_fn))
    rows, total = [], 0.0
    while True:
        opt = it.get_next_as_optional()
        if not bool(opt.has_value()):
            break
        x = local(opt.get_value())
        rows.append(int(x.shape[0]))
        total += float(tf.reduce_sum(x))
    res.update(eager_rows=rows, eager_total=total)
    # next() / get_next(): the same agreement (TF's partial-batch handling), then OutOfRangeError.
    it = iter(strategy.distribute_datasets_from_function(dataset_fn))
    res["next_rows"] = [int(local(x).shape[0]) for x in it]
    it = iter(strategy.distribute_datasets_from_function(dataset_fn))
    got = []
    try:
        while True:
            got.append(int(local(it.get_next()).shape[0]))
    except tf.errors.OutOfRangeError:
        res["get_next_rows"] = got

    @tf.function
    def loop(iterator):
        def cond(step, rows, total, opt):
            return opt.has_value()

        def body(step, rows, total, opt):
            x = local(opt.get_value())
            rows = rows + tf.shape(x)[0] * 10 ** step
            return step + 1, rows, total + tf.reduce_sum(x), iterator.get_next_as_optional()

        return tf.while_loop(cond, body, [0, 0, 0.0, iterator.get_next_as_optional()])[:3]

    steps, rows, total = loop(iter(strategy.distribute_datasets_from_function(dataset_fn)))
    res.update(fn_steps=int(steps), fn_rows=int(rows), fn_total=float(total))
    res.update(_uneven_in_functions(strategy, dataset_fn, local))
    return res


def _uneven_in_functions(strategy, dataset_fn, local):
    """Inside Functions (TF's graph-mode input_lib): ``for x in dist_dataset``, ``for x in
    iterator``, ``dist_dataset.reduce``, ``next(iterator)`` and ``iter()`` + ``next()`` all step
    every worker until no worker has data; then ``next()`` raises OutOfRangeError on every worker."""
    res = {}

    def add(step, rows, total, x):
        x = local(x)
        return step + 1, rows + tf.shape(x)[0] * 10 ** step, total + tf.reduce_sum(x)

    @tf.function
    def over_dataset(dist):
        step, rows, total = 0, 0, 0.0
        for x in dist:
            step, rows, total = add(step, rows, total, x)
        return step, rows, total

    @tf.function
    def over_iterator(iterator):
        step, rows, total = 0, 0, 0.0
        for x in iterator:
            step, rows, total = add(step, rows, total, x)
        return step, rows, total

    @tf.function
    def reduced(dist):
        return dist.reduce((0, 0, 0.0), lambda s, x: add(s[0], s[1], s[2], x))

    for name, f, arg in [("for_dataset", over_dataset, "dataset"), ("for_iterator", over_iterator, "iterator"),
                         ("reduce", reduced, "dataset")]:
        dist = strategy.distribute_datasets_from_function(dataset_fn)
        step, rows, total = f(iter(dist) if arg == "iterator" else dist)
        res[name] = [int(step), int(rows), float(total)]

    @tf.function
    def one(iterator):
        return tf.shape(local(next(iterator)))[0]

    it = iter(strategy.distribute_datasets_from_function(dataset_fn))
    rows = []
    try:
        while len(rows) < 10:
            rows.append(int(one(it)))
    except tf.errors.OutOfRangeError:
        res["fn_next_rows"] = rows

    n = strategy.num_replicas_in_sync

    def made_inside(steps):
        @tf.function
        def f():
            iterator = iter(strategy.distribute_datasets_from_function(dataset_fn))
            return [tf.shape(local(next(iterator)))[0] for _ in range(steps)]
        return f

    res["iter_next_rows"] = [int(r) for r in made_inside(n + 1)()]
    try:
        made_inside(n + 2)()
        res["iter_next_past_end"] = "no error"
    except tf.errors.OutOfRangeError:
        res["iter_next_past_end"] = "OutOfRangeError"
    return res


def var_arg(out):
    """Distributed variables as Function arguments keep their class in the trace (TF's
    DistributedVariableTraceType): a Function traced for a plain variable is traced again for a
    mirrored one (whose replica-context update is aggregated) and for a sync-on-read one (whose
    cross-replica read is reduced)."""
    strategy = make_strategy(timeout=120)
    idx = worker_index(strategy)
    agg, sync = tf.VariableAggregation, tf.VariableSynchronization
    plain = tf.Variable(0.0)
    with strategy.scope():
        mirrored = tf.Variable(0.0, aggregation=agg.SUM)
        on_read = tf.Variable([0.0, 0.0], synchronization=sync.ON_READ, aggregation=agg.SUM)
    plain2 = tf.Variable([0.0, 0.0], trainable=False)   # the same VariableSpec as on_read's

    @tf.function
    def add(v, x):
        v.assign_add(x)
        return tf.constant(0.0)

    @tf.function
    def read(v):
        return v.read_value()

    strategy.run(add, args=(plain, tf.constant(idx + 1.0)))
    strategy.run(add, args=(mirrored, tf.constant(idx + 1.0)))
    plain2.assign([idx + 1.0, 1.0])
    try:
        on_read.assign([0.0, 0.0])   # a SUM sync-on-read assign divides the value by the replicas
        assign_list = None
    except TypeError as e:
        assign_list = type(e).__name__
    strategy.run(lambda: on_read.assign_add([idx + 1.0, 1.0]))
    return {"_index": idx, "assign_list": assign_list, "plain": float(plain.numpy()), "mirrored": float(mirrored.numpy()),
            "read_plain": read(plain2).numpy().tolist(), "read_on_read": read(on_read).numpy().tolist(),
            "read_plain_again": read(plain2).numpy().tolist()}


def stall_split(out):
    """As ``stall``, in a Function's second call: the gradients go in two packs (a split
    all-reduce, start then done, and the last pack's plain all-reduce queued behind it), which
    time out while rank 1 sleeps."""
    strategy = make_strategy(timeout=3, bytes_per_pack=4)
    idx = worker_index(strategy)
    with strategy.scope():
        w = tf.Variable([1.0, 2.0])
        v = tf.Variable([3.0])

    @tf.function
    def step():
        def replica():
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w * w) + tf.reduce_sum(v * v)
            grads = tape.gradient(loss, [w, v])
            return tf.distribute.get_replica_context().all_reduce("SUM", grads)
        return strategy.run(replica)

    step()                     # both workers: traced, plan compared
    if idx == 1:
        time.sleep(60)
    t0 = time.time()
    try:
        step()
        return {"error": None}
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__, "message": str(e), "seconds": time.time() - t0}


def stall_large(out):
    """As ``stall``, in a Function's second call, with a 4 MiB all-reduce (and one of 8 MiB in
    two packs: the split all-reduce): fn hands those to its communication thread, which calls MPI
    without a barrier first; every worker but the sleeping one still fails in time."""
    strategy = make_strategy(timeout=3, bytes_per_pack=4 << 20)
    idx = worker_index(strategy)
    with strategy.scope():
        w = tf.Variable(tf.ones([1 << 20]))
        v = tf.Variable(tf.ones([1 << 20]))

    @tf.function
    def step(t):
        def replica(x):
            big = tf.distribute.get_replica_context().all_reduce("SUM", x * 1.0)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w * w) + tf.reduce_sum(v * v)
            grads = tape.gradient(loss, [w, v])
            return big, tf.distribute.get_replica_context().all_reduce("SUM", grads)
        return strategy.run(replica, args=(t,))

    x = tf.ones([1 << 20])
    step(x)                    # every worker: traced, plan compared
    if idx == 1:
        time.sleep(60)
    t0 = time.time()
    try:
        step(x)
        return {"error": None}
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__, "message": str(e), "seconds": time.time() - t0}


def in_place(out):
    """All-reduces whose input dies there (fn reduces those in place, MPI_IN_PLACE) next to ones
    whose input is still seen afterwards (a Function argument, a value read again): every result
    and every input the program reads again must be as when each all-reduce has its own output."""
    strategy = make_strategy(timeout=120)
    idx = worker_index(strategy)
    ctx = tf.distribute.get_replica_context
    x = tf.constant([1.0, 2.0, 3.0]) * (idx + 1)

    @tf.function
    def of_argument(t):              # the caller still holds t (the identity is a view): not in place
        # (TF cannot all-reduce a Function argument itself: its placeholder has no device.)
        return strategy.run(lambda v: ctx().all_reduce("SUM", tf.identity(v)), args=(t,))

    @tf.function
    def chained(t):                  # t * 2 dies in the first all-reduce, its result in the second
        def replica(v):
            once = ctx().all_reduce("SUM", v * 2.0)
            twice = ctx().all_reduce("MEAN", once)
            kept = v * 3.0            # read again after the all-reduce: not in place
            summed = ctx().all_reduce("SUM", kept)
            return twice, summed, kept
        return strategy.run(replica, args=(t,))

    @tf.function
    def looped(t):                   # v + 1 of a loop variable dies in the all-reduce of the body's run
        # (strategy.run in the body: TF refuses a collective in a loop body of the replica function.)
        step = lambda v: strategy.run(lambda u: ctx().all_reduce("SUM", u + 1.0), args=(v,))  # noqa: E731
        return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, step(v)), [0, t])[1]

    res = {"_index": idx}
    res["argument"] = of_argument(x).numpy().tolist()
    res["argument_after"] = x.numpy().tolist()
    twice, summed, kept = chained(x)
    res.update(twice=twice.numpy().tolist(), summed=summed.numpy().tolist(), kept=kept.numpy().tolist())
    res["looped"] = looped(x).numpy().tolist()
    res["looped_after"] = x.numpy().tolist()
    return res


def optional_infinite(out):
    """``get_next_as_optional`` on an INFINITE distributed dataset: TF skips the all-reduce of the
    has-value count (no worker's data ends); the Optional always has the worker's next batch.
    Under fn the collectives completed meanwhile are counted (none)."""
    strategy = make_strategy(timeout=120)
    idx = worker_index(strategy)

    def dataset_fn(ctx):
        return tf.data.Dataset.range(3).map(lambda v: tf.cast(v + 10 * ctx.input_pipeline_id, tf.float32)).batch(
            2, drop_remainder=True).repeat()

    def local(v):
        return strategy.experimental_local_results(v)[0]

    def completed():
        if IS_TF:
            return 0
        from fn import _mpi
        return _mpi.completed()

    res = {"_index": idx}
    dist = strategy.distribute_datasets_from_function(dataset_fn)
    res["cardinality"] = int(dist.cardinality) if not hasattr(dist.cardinality, "numpy") else int(
        dist.cardinality.numpy())
    before = completed()
    it = iter(dist)
    eager = []
    for _ in range(3):
        opt = it.get_next_as_optional()
        eager.append([bool(opt.has_value()), local(opt.get_value()).numpy().tolist()])

    @tf.function
    def two(iterator):
        a, b = iterator.get_next_as_optional(), iterator.get_next_as_optional()
        return a.has_value(), local(a.get_value()), b.has_value(), local(b.get_value())

    got = two(it)
    res.update(eager=eager, fn=[bool(got[0]), got[1].numpy().tolist(), bool(got[2]), got[3].numpy().tolist()],
               collectives=completed() - before)
    return res


def shard_policy(out):
    """``experimental_distribute_dataset`` under each auto-shard policy of the dataset's options:
    DATA (and AUTO, for data not read from files) keeps the worker's piece of every global batch,
    OFF gives every worker every piece in turn."""
    strategy = make_strategy(timeout=120)
    idx = worker_index(strategy)
    n = strategy.num_replicas_in_sync
    res = {"_index": idx}
    for name in ("OFF", "DATA", "AUTO"):
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = getattr(tf.data.experimental.AutoShardPolicy, name)
        ds = tf.data.Dataset.range(6 * n).batch(2 * n).with_options(options)
        dist = strategy.experimental_distribute_dataset(ds)
        res[name] = [strategy.experimental_local_results(e)[0].numpy().tolist() for e in dist]
    return res


def _text_files(out, folder, files):
    """A strategy, this worker's index, the replica count, the result dict, and ``files`` small
    text files (3 or 4 numbered lines each) that every worker writes identically."""
    strategy = make_strategy(timeout=120)
    res = {"_index": worker_index(strategy)}
    base = os.path.join(out, folder)
    os.makedirs(base, exist_ok=True)
    names = []
    for f in range(files):
        name = os.path.join(base, f"part{f}.txt")
        with open(name, "w") as fh:
            fh.write("".join(f"{10 * f + k}\n" for k in range(3 if f % 2 else 4)))
        names.append(name)
    time.sleep(1.0)  # every worker has written its (identical) files before any reads
    return strategy, strategy.num_replicas_in_sync, res, base, names


def _shard_under_each_policy(strategy, pipelines, n, res):
    """Each pipeline batched by 2n and distributed under AUTO, FILE and DATA: this worker's
    elements (or the error's class and message) into ``res`` as ``pipe_POLICY``."""
    for pipe, make in pipelines.items():
        for policy in ("AUTO", "FILE", "DATA"):
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = getattr(tf.data.experimental.AutoShardPolicy, policy)
            ds = make().batch(2 * n).with_options(options)
            key = f"{pipe}_{policy}"
            try:
                dist = strategy.experimental_distribute_dataset(ds)
                res[key] = [[v.decode() for v in strategy.experimental_local_results(e)[0].numpy().tolist()]
                            for e in dist]
            except Exception as e:  # noqa: BLE001 - the error class and message are the result
                res[key] = [type(e).__name__, str(e)[:300]]


def file_shard(out, files=4):
    """Auto-sharding of file-based datasets (TF's auto_shard rewrite): each policy's elements on
    this worker for text files read through list_files + flat_map/interleave and a list of names."""
    strategy, n, res, base, names = _text_files(out, f"files{files}", files)

    pipelines = {
        "flat_map": lambda: tf.data.Dataset.list_files(os.path.join(base, "*.txt"), shuffle=False)
        .flat_map(tf.data.TextLineDataset),
        "interleave": lambda: tf.data.Dataset.from_tensor_slices(names)
        .interleave(tf.data.TextLineDataset, cycle_length=2),
        "names": lambda: tf.data.TextLineDataset(names).map(lambda s: s + "!"),
        "memory": lambda: tf.data.Dataset.range(12 * n).map(lambda x: tf.strings.as_string(x)),
    }
    _shard_under_each_policy(strategy, pipelines, n, res)
    return res


def file_shard_multi(out, files=4):
    """Auto-sharding through Dataset.concatenate and Dataset.zip (TF walks every input of both):
    two file readers, and a file reader with an in-memory source, under each policy; and how often
    a flat_map's Python function runs while the dataset is built and distributed."""
    strategy, n, res, base, names = _text_files(out, f"multi{files}", files)
    half = files // 2
    text = tf.data.TextLineDataset
    memory = lambda: tf.data.Dataset.from_tensor_slices([f"m{k}" for k in range(6)])  # noqa: E731
    pipelines = {
        "concat": lambda: text(names[:half]).concatenate(text(names[half:])),
        "zip": lambda: tf.data.Dataset.zip((text(names[:half]), text(names[half:]))).map(lambda a, b: a + "|" + b),
        "concat_memory": lambda: text(names[:half]).concatenate(memory()),
        "zip_memory": lambda: tf.data.Dataset.zip((text(names[:half]), memory())).map(lambda a, b: a + "|" + b),
    }
    _shard_under_each_policy(strategy, pipelines, n, res)
    calls = []

    def read(name):
        calls.append(1)  # a Python side effect: runs when TF (or fn) calls the function in Python
        return tf.data.TextLineDataset(name)

    ds = tf.data.Dataset.from_tensor_slices(names).flat_map(read).batch(2 * n)
    built = len(calls)
    strategy.experimental_distribute_dataset(ds)  # distributing must not call read again
    res["flat_map_calls"] = [built, len(calls)]
    return res


def data_uneven(out):
    """DATA sharding of global batches that do not divide by the workers (global batch 5, a final
    partial batch), by experimental_distribute_dataset under DATA and AUTO; and
    distribute_datasets_from_function with a pipeline of its own (no rewrite)."""
    strategy = make_strategy(timeout=120)
    idx = worker_index(strategy)
    res = {"_index": idx}
    for name in ("DATA", "AUTO"):
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = getattr(tf.data.experimental.AutoShardPolicy, name)
        for total in (13, 10, 3):
            ds = tf.data.Dataset.range(total).batch(5).with_options(options)
            dist = strategy.experimental_distribute_dataset(ds)
            res[f"{name}_{total}"] = [strategy.experimental_local_results(e)[0].numpy().tolist() for e in dist]

    def dataset_fn(ctx):
        return tf.data.Dataset.range(13).shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(2)

    dist = strategy.distribute_datasets_from_function(dataset_fn)
    res["from_function"] = [strategy.experimental_local_results(e)[0].numpy().tolist() for e in dist]
    return res


def _run_step(strategy, replica_fn):
    return tf.function(lambda t: strategy.run(replica_fn, args=(t,)))


def merge_graph(out):
    """A collective in a control-flow body or a nested Function of the replica function refuses
    (TF's mirrored_run: merge_call in another graph than strategy.run's); strategy.run itself
    inside a loop or a nested Function (Keras' steps_per_execution) all-reduces."""
    strategy = make_strategy(timeout=120)
    idx = worker_index(strategy)
    ar = lambda v: tf.distribute.get_replica_context().all_reduce("SUM", v)  # noqa: E731
    nested = tf.function(ar)

    # Explicit while_loops (the same graphs under both, whatever AutoGraph makes of a `for`).
    def in_loop(v):
        return tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, ar(v)), (0, v))[1]

    def nested_in_loop(v):
        return tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, nested(v)), (0, v))[1]

    res = {"_index": idx}
    x = tf.constant([idx + 1.0, 2.0])
    for name, replica_fn in [("in_loop", in_loop), ("nested", lambda v: nested(v)), ("nested_in_loop", nested_in_loop)]:

        try:
            res[name] = _run_step(strategy, replica_fn)(x).numpy().tolist()
        except RuntimeError as e:
            res[name] = "RuntimeError: " + str(e)
    with strategy.scope():
        w = tf.Variable([idx + 1.0, 2.0])

    def replica():
        return ar(w * 1.0)

    @tf.function
    def inner():
        return strategy.run(replica)

    @tf.function
    def steps():
        return tf.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, t + inner()), (0, tf.zeros([2])))[1]

    res["run_in_loop"] = steps().numpy().tolist()
    return res


def destinations(out):
    """An all-reduce of a tensor made outside strategy.run in a Function (an argument, a tf.range
    loop's variable) raises TF's `destinations can not be empty` on every worker, before any
    collective; tensors made inside strategy.run are all-reduced. The replica function is
    AutoGraph-converted (its Python `if` on a tensor works)."""
    strategy = make_strategy(timeout=120)
    idx = worker_index(strategy)
    ar = lambda v: tf.distribute.get_replica_context().all_reduce("SUM", v)  # noqa: E731
    res = {"_index": idx}
    x = tf.constant([idx + 1.0, 2.0])

    @tf.function
    def argument(t):
        return strategy.run(ar, args=(t,))

    @tf.function
    def range_loop(t):
        for _ in tf.range(2):
            t = strategy.run(ar, args=(t,))
        return t

    @tf.function
    def range_loop_inside(t):
        for _ in tf.range(2):
            t = strategy.run(lambda v: ar(v * 1.0), args=(t,))
        return t

    def converted(v):
        if tf.reduce_sum(v) > 2.5:  # worker 0: 3 (doubled), worker 1: 4 (doubled)
            v = v * 2.0
        return ar(v)

    for name, f in [("argument", argument), ("range_loop", range_loop), ("range_loop_inside", range_loop_inside),
                    ("converted", tf.function(lambda t: strategy.run(converted, args=(t,))))]:
        try:
            res[name] = f(x).numpy().tolist()
        except ValueError as e:
            res[name] = "ValueError: " + str(e).strip().splitlines()[-1].strip()
    return res


def main():
    scenario, out = sys.argv[1], sys.argv[2]
    args = [int(a) for a in sys.argv[3:]]
    result = globals()[scenario](out, *args)
    strategy_index = result.pop("_index", None)
    idx = strategy_index if strategy_index is not None else _index_from_env()
    with open(os.path.join(out, f"{scenario}.{idx}.json"), "w") as f:
        json.dump(result, f)
    sys.stdout.flush()


def _index_from_env():
    tf_config = json.loads(os.environ.get("TF_CONFIG", "{}"))
    if tf_config:
        return tf_config["task"]["index"]
    for var in ("OMPI_COMM_WORLD_RANK", "PMI_RANK"):
        if var in os.environ:
            return int(os.environ[var])
    return 0


if __name__ == "__main__":
    main()
