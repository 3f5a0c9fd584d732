"""Multi-worker benchmarks: allreduce throughput and a 2-worker MLP training step.

    mpirun --allow-run-as-root --oversubscribe -np 2 python benchmarks/bench_distribute.py allreduce
    python benchmarks/bench_distribute.py train --workers 2 [--model transformer] [--compare ~/.cache/fn/tfref/bin/python]

``allreduce``: the same float32 buffers summed across the ranks by (a) fn's CollectiveAllReduce
op inside an fn.function (the C++ executor, GIL released, fn._mpi's transport), (b) mpi4py's
``Comm.Allreduce`` called from Python (the floor: one MPI call), (c) an fn.function whose
all-reduce is a ``py_function`` calling mpi4py (the "mpi4py only" design); and, as ratios to (b),
mpi4py writing a fresh output per call (what a tensor-returning op pays) and mpi4py's
``MPI_IN_PLACE`` (a buffer the caller owns). Reported as the algorithm bandwidth (bytes / time) per
message size. The last column compares a chain of CHAIN all-reduces, each of the previous result,
in one fn.function (fn reduces a value that dies in its all-reduce in place, as it does gradient
packs) with the same chain in mpi4py (one Allreduce, then MPI_IN_PLACE ones). The two after it:
mpi4py's Allreduce on fn's own memory (the input tensor's storage in, an fn output out) against
mpi4py on ``buf``/``out``, and fn against that like-for-like call (benchmarks/README.md, "Which
buffers").

``train``: one step of an MLP (or, ``--model transformer``, of the transformer block of
``models_tf_train.py``) under MultiWorkerMirroredStrategy (fn on MPI, TF with TF_CONFIG on
localhost ports), split into compute (the same step without the all-reduce) and communication
(the all-reduce of the gradients alone). The launcher starts the workers itself.

``transformer``: correctness, not time. A small Keras transformer encoder (embedding, multi-head
attention, layer norm, feed-forward; sparse embedding gradients) trained by ``model.fit`` under
MultiWorkerMirroredStrategy on N workers must end with the weights one process reaches with the
N-times-larger global batch (rel 1e-5), bit-identical on every worker; the row reports it.

    python benchmarks/bench_distribute.py transformer --workers 2 [--compare ~/.cache/fn/tfref/bin/python]
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time

import numpy as np

from models_tf_train import transformer_block  # the same block as bench_models' training row

HERE = os.path.dirname(os.path.abspath(__file__))
CHAIN = 4   # all-reduces per call in the in-place rows


def _timeit(call, repeats, number):
    call()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            call()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def _barrier_timeit(comm, call, repeats, number):
    """Median per-call seconds, every repeat started together on all ranks; the slowest rank's."""
    return _interleaved_timeit(comm, [call], repeats, number)[0]


def _interleaved_timeit(comm, calls, repeats, number):
    """Like _barrier_timeit for several calls, their repeats interleaved (call 1, call 2, ..., call 1,
    ...) so a slow spell of the shared machine hits each of them alike."""
    for call in calls:
        call()
    times = [[] for _ in calls]
    for _ in range(repeats):
        for i, call in enumerate(calls):
            comm.Barrier()
            t0 = time.perf_counter()
            for _ in range(number):
                call()
            times[i].append((time.perf_counter() - t0) / number)
    op = __import__("mpi4py").MPI.MAX
    return [comm.allreduce(statistics.median(t), op=op) for t in times]


def _allreduce_case(tf, comm, strategy, size):
    """One size's buffers (this rank's data, an output), its tensor, the calls per timing, and
    fn's all-reduce Function."""
    buf = np.random.RandomState(comm.Get_rank()).rand(size // 4).astype(np.float32)
    number = max(3, min(200, int(2e7 // max(size, 1))))

    @tf.function
    def fn_allreduce(t):
        # tf.identity: TF refuses an all-reduce of the Function's argument itself (it has no
        # device: "destinations can not be empty"); the identity aliases it (no copy).
        return strategy.run(lambda v: tf.distribute.get_replica_context().all_reduce("SUM", tf.identity(v)),
                            args=(t,))

    return buf, np.empty_like(buf), tf.constant(buf), number, fn_allreduce


def bench_allreduce(args):
    from mpi4py import MPI
    import fn as tf
    comm = MPI.COMM_WORLD
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rows = []
    for size in args.sizes:
        buf, out, x, number, fn_allreduce = _allreduce_case(tf, comm, strategy, size)

        def py_allreduce(v):
            r = np.empty_like(v.numpy())
            comm.Allreduce(v.numpy(), r, op=MPI.SUM)
            return r

        @tf.function
        def pyfunc_allreduce(t):
            return tf.py_function(py_allreduce, [t], tf.float32)

        def mpi_fresh():   # a new output per call, as fn's op returns a new tensor
            comm.Allreduce(buf, np.empty_like(buf), op=MPI.SUM)

        def mpi_in_place():   # the floor of a design that reduces into a buffer it owns
            comm.Allreduce(MPI.IN_PLACE, out, op=MPI.SUM)

        # A chain of CHAIN all-reduces, each reducing the previous one's result: fn forwards a value
        # that dies in its all-reduce (the executor held its last reference) and reduces it in place,
        # as gradient packs are; the mpi4py counterpart does the same work (one copy, then in place).
        @tf.function
        def fn_chain(t):
            def replica(v):
                v = tf.identity(v)   # a tensor of the replica (see fn_allreduce)
                for _ in range(CHAIN):
                    v = tf.distribute.get_replica_context().all_reduce("SUM", v)
                return v
            return strategy.run(replica, args=(t,))

        def mpi_chain():
            comm.Allreduce(buf, out, op=MPI.SUM)
            for _ in range(CHAIN - 1):
                comm.Allreduce(MPI.IN_PLACE, out, op=MPI.SUM)

        expect = np.empty_like(buf)
        comm.Allreduce(buf, expect, op=MPI.SUM)
        held = fn_allreduce(x)
        np.testing.assert_allclose(held.numpy(), expect, rtol=1e-6)
        mpi_chain()
        np.testing.assert_allclose(fn_chain(x).numpy(), out, rtol=1e-5)
        # mpi4py's call on fn's own memory (x's storage in, an fn output out, both views without a
        # copy): the same call on other buffers than buf/out times differently (benchmarks/README.md,
        # "Which buffers"), so this is the like-for-like floor of fn's all-reduce.
        fn_in, fn_out = x.numpy(), held.numpy()
        t_fn, t_mpi, t_py, t_fresh, t_inplace, t_fn_chain, t_mpi_chain, t_fnbufs = _interleaved_timeit(
            comm, [lambda: fn_allreduce(x), lambda: comm.Allreduce(buf, out, op=MPI.SUM), lambda: pyfunc_allreduce(x),
                   mpi_fresh, mpi_in_place, lambda: fn_chain(x), mpi_chain,
                   lambda: comm.Allreduce(fn_in, fn_out, op=MPI.SUM)],
            args.repeats, number)
        rows.append({"bytes": size, "fn_us": t_fn * 1e6, "mpi4py_us": t_mpi * 1e6, "py_function_us": t_py * 1e6,
                     "mpi4py_fresh_us": t_fresh * 1e6, "mpi4py_in_place_us": t_inplace * 1e6,
                     "fn_chain_us": t_fn_chain * 1e6, "mpi4py_chain_us": t_mpi_chain * 1e6,
                     "mpi4py_fn_buffers_us": t_fnbufs * 1e6})
    if comm.Get_rank() == 0:
        print(f"allreduce, {comm.Get_size()} ranks ({MPI.Get_library_version().splitlines()[0].strip()})")
        print(f"{'bytes':>10} {'fn MB/s':>10} {'mpi4py MB/s':>12} {'fn/mpi4py':>10} {'py_function MB/s':>17} "
              f"{'fresh/mpi4py':>13} {'in-place/mpi4py':>16} {'chain fn/mpi4py':>16} {'fn-bufs/mpi4py':>15} "
              f"{'fn/fn-bufs':>11}")
        for r in rows:
            bw = lambda us: r["bytes"] / us   # bytes per microsecond == MB/s
            print(f"{r['bytes']:>10} {bw(r['fn_us']):>10.1f} {bw(r['mpi4py_us']):>12.1f} "
                  f"{r['mpi4py_us'] / r['fn_us']:>10.2f} {bw(r['py_function_us']):>17.1f} "
                  f"{r['mpi4py_us'] / r['mpi4py_fresh_us']:>13.2f} {r['mpi4py_us'] / r['mpi4py_in_place_us']:>16.2f} "
                  f"{r['mpi4py_chain_us'] / r['fn_chain_us']:>16.2f} {r['mpi4py_us'] / r['mpi4py_fn_buffers_us']:>15.2f} "
                  f"{r['mpi4py_fn_buffers_us'] / r['fn_us']:>11.2f}")
        if args.json:
            print(json.dumps(rows))


def bench_allreduce_paths(args):
    """Where fn's call path around the same MPI_Allreduce differs from mpi4py's, one factor at a
    time, interleaved: mpi4py on COMM_WORLD, on a duplicate (fn reduces on its own MPI_Comm_dup),
    behind a Barrier (fn's guard is an MPI_Ibarrier polled before the call), and fn's Function.
    Each thread's CPU ticks and context switches (/proc/self/task) during the fn loop show whether
    fn wakes or runs any thread besides the caller's."""
    from mpi4py import MPI
    import fn as tf
    comm = MPI.COMM_WORLD
    dup = comm.Dup()
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    for size in args.sizes:
        buf, out, x, number, fn_allreduce = _allreduce_case(tf, comm, strategy, size)

        calls = {"mpi4py world": lambda: comm.Allreduce(buf, out, op=MPI.SUM),
                 "mpi4py dup": lambda: dup.Allreduce(buf, out, op=MPI.SUM),
                 "barrier+world": lambda: (comm.Barrier(), comm.Allreduce(buf, out, op=MPI.SUM)),
                 "fn": lambda: fn_allreduce(x)}
        before = _task_stats()
        times = _interleaved_timeit(comm, list(calls.values()), args.repeats, number)
        after = _task_stats()
        if comm.Get_rank() == 0:
            print(f"{size} bytes: " + ", ".join(f"{k} {size / (t * 1e6):.0f} MB/s" for k, t in zip(calls, times)))
            for tid, (ticks, vol, invol) in after.items():
                b = before.get(tid, (0, 0, 0))
                print(f"  thread {tid}: {ticks - b[0]} ticks, {vol - b[1]} voluntary / {invol - b[2]} involuntary switches")


def bench_allreduce_buffers(args):
    """Whether the buffers, not the caller, set the time: mpi4py's Allreduce on the benchmark's first
    pair (allocated before anything else), on a second pair prepared the same way after fn ran, and
    on fn's own memory (the input tensor's storage, an fn output), interleaved with fn's
    all-reduce; ratios to the first pair (benchmarks/README.md, "Which buffers")."""
    from mpi4py import MPI
    import fn as tf
    comm = MPI.COMM_WORLD
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    for size in args.sizes:
        buf, out, x, number, fn_allreduce = _allreduce_case(tf, comm, strategy, size)
        out[:] = 0
        for _ in range(3):
            fn_allreduce(x)
        buf2, out2 = buf.copy(), np.zeros_like(out)
        held = fn_allreduce(x)
        fn_in, fn_out = x.numpy(), held.numpy()
        calls = {"first pair": lambda: comm.Allreduce(buf, out, op=MPI.SUM),
                 "second pair": lambda: comm.Allreduce(buf2, out2, op=MPI.SUM),
                 "fn's memory": lambda: comm.Allreduce(fn_in, fn_out, op=MPI.SUM),
                 "fn": lambda: fn_allreduce(x)}
        times = _interleaved_timeit(comm, list(calls.values()), args.repeats, number)
        if comm.Get_rank() == 0:
            print(f"{size} bytes, speed / first pair: " + ", ".join(f"{k} {times[0] / t:.2f}" for k, t in zip(calls, times))
                  + f" (first pair {times[0] * 1e3:.2f} ms)")


def _task_stats():
    """{thread id: (utime+stime ticks, voluntary, involuntary context switches)} of this process."""
    stats = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/self/task/{tid}/status") as f:
                cs = [int(line.split()[1]) for line in f if "ctxt_switches" in line]
        except FileNotFoundError:   # the thread ended
            continue
        stats[tid] = (int(fields[11]) + int(fields[12]), cs[0], cs[1])
    return stats


# ---------------------------------------------------------------------------- training step
def _mlp_worker(args):
    """One worker of `train` (fn under mpirun, or TF with TF_CONFIG)."""
    if args.tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    else:
        import fn as tf
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    gb = args.batch * strategy.num_replicas_in_sync
    model = _transformer_model if args.model == "transformer" else _mlp_model
    params, x, y, loss_of = model(tf, strategy, args, gb)

    def grads_of(xb, yb):
        with tf.GradientTape() as tape:
            loss = loss_of(xb, yb)
        return loss, tape.gradient(loss, params)

    def apply(grads):
        for p, g in zip(params, grads):
            p.assign_sub(0.01 * g)

    def full(xb, yb):
        loss, grads = grads_of(xb, yb)
        apply(tf.distribute.get_replica_context().all_reduce("SUM", grads))
        return loss

    def compute_only(xb, yb):
        loss, grads = grads_of(xb, yb)
        apply(grads)
        return loss

    def comm_only(grads):
        # Tensors of the replica (TF refuses to all-reduce captured ones: no device).
        return tf.distribute.get_replica_context().all_reduce("SUM", [tf.identity(g) for g in grads])

    step = tf.function(lambda: strategy.run(full, args=(x, y)))
    compute = tf.function(lambda: strategy.run(compute_only, args=(x, y)))
    grads = [tf.zeros_like(p) for p in params]
    comm = tf.function(lambda: strategy.run(comm_only, args=(grads,)))
    # Each call synchronises (a collective): times are comparable across workers.
    t_step = _timeit(lambda: step().numpy(), args.repeats, args.number)
    t_comm = _timeit(lambda: [g.numpy() for g in comm()], args.repeats, args.number)
    t_compute = _timeit(lambda: compute().numpy(), args.repeats, args.number)
    nbytes = sum(int(np.prod(p.shape)) * 4 for p in params)
    idx = strategy.cluster_resolver.task_id or 0
    if idx == 0:
        print(json.dumps({"step_ms": t_step * 1e3, "compute_ms": t_compute * 1e3, "comm_ms": t_comm * 1e3,
                          "grad_bytes": nbytes, "lib": "tf" if args.tf else "fn"}), flush=True)


def _mlp_model(tf, strategy, args, gb):
    """The MLP of `train`: (params, x, y, loss(x, y)), its variables made in the strategy's scope."""
    rng = np.random.RandomState(0)
    dims = [args.features] + [args.hidden] * args.layers + [10]
    with strategy.scope():
        ws = [tf.Variable(rng.randn(a, b).astype(np.float32) * 0.05) for a, b in zip(dims[:-1], dims[1:])]
        bs = [tf.Variable(np.zeros(b, np.float32)) for b in dims[1:]]
    x = tf.constant(rng.randn(args.batch, args.features).astype(np.float32))
    y = tf.constant(rng.randint(0, 10, args.batch).astype(np.int64))

    def loss_of(xb, yb):
        h = xb
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = tf.matmul(h, w) + b
            if i < len(ws) - 1:
                h = tf.nn.relu(h)
        per = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=h)
        return tf.nn.compute_average_loss(per, global_batch_size=gb)

    return ws + bs, x, y, loss_of


def _transformer_model(tf, strategy, args, gb):
    """The transformer block of benchmarks/models_tf_train.py (per-worker batch x seq 64 x d 128,
    4 heads, MLP 512, gelu-tanh), with a mean-squared loss averaged over the global batch."""
    b, s, m, nh = args.batch, 64, 128, 4
    rng = np.random.RandomState(0)

    def n(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    shapes = [(m, m)] * 4 + [(m,), (m,), (m, 4 * m), (4 * m,), (4 * m, m), (m,), (m,), (m,)]
    scales = [m ** -0.5] * 4 + [0.1, 0.1, m ** -0.5, 0.1, (4 * m) ** -0.5, 0.1, 0.1, 0.1]
    values = [n(*sh, scale=sc) for sh, sc in zip(shapes, scales)]
    values[4] += 1.0   # the layer norms' gains
    values[10] += 1.0
    with strategy.scope():
        ps = [tf.Variable(v) for v in values]
    x, y = tf.constant(n(b, s, m)), tf.constant(n(b, s, m, scale=0.5))

    def loss_of(xb, yb):
        out = transformer_block(tf, xb, ps, b, s, m, nh)
        per = tf.reduce_mean(tf.square(out - yb), axis=[1, 2])
        return tf.nn.compute_average_loss(per, global_batch_size=gb)

    return ps, x, y, loss_of


def _transformer_worker(args):
    """One process of `transformer`: fit, then the weights (and the history) into --out."""
    if args.tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        os.environ["FN_TEST_BACKEND"] = "tf"
        sys.path.insert(0, os.path.join(HERE, "..", "tests_py", "distribute"))
        from mw_worker import _keras  # keras-team/keras#20585's fix for TF's multi-worker fit

        keras = _keras()
    else:
        import fn as tf

        keras = tf.keras
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    n = strategy.num_replicas_in_sync
    vocab, seq, dim, heads, samples = 64, 12, 32, 4, 192
    rng = np.random.RandomState(0)
    tokens = rng.randint(0, vocab, (samples, seq)).astype(np.int32)
    labels = (tokens[:, : seq // 2].sum(1) > tokens[:, seq // 2 :].sum(1)).astype(np.int64)
    keras.utils.set_random_seed(1)
    with strategy.scope():
        inputs = keras.Input((seq,), dtype="int32")
        h = keras.layers.Embedding(vocab, dim)(inputs)
        a = keras.layers.MultiHeadAttention(heads, dim // heads)(h, h)
        h = keras.layers.LayerNormalization()(h + a)
        f = keras.layers.Dense(dim, activation="relu")(keras.layers.Dense(2 * dim, activation="relu")(h))
        h = keras.layers.LayerNormalization()(h + f)
        outputs = keras.layers.Dense(2)(keras.layers.GlobalAveragePooling1D()(h))
        model = keras.Model(inputs, outputs)
        model.compile(keras.optimizers.Adam(1e-3),
                      keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    # The same initial weights in every run (the multi-worker run broadcasts the chief's anyway).
    init = np.random.RandomState(2)
    model.set_weights([init.randn(*w.shape).astype(np.float32) * 0.1 for w in model.get_weights()])
    dataset = tf.data.Dataset.from_tensor_slices((tokens, labels)).batch(args.batch * n)
    history = model.fit(dataset, epochs=args.epochs, verbose=0)
    idx = strategy.cluster_resolver.task_id or 0
    np.savez(os.path.join(args.out, f"w{idx}.npz"), *model.get_weights())
    with open(os.path.join(args.out, f"h{idx}.json"), "w") as f:
        json.dump({k: [float(v) for v in vs] for k, vs in history.history.items()}, f)


def bench_transformer(args):
    """Runs `transformer-worker` on N workers and in one process; prints whether they agree."""
    import tempfile

    rows = []
    for python, tf_mode in [(sys.executable, False)] + ([(args.compare, True)] if args.compare else []):
        with tempfile.TemporaryDirectory() as multi, tempfile.TemporaryDirectory() as single:
            base = [python, os.path.abspath(__file__), "transformer-worker", "--epochs", str(args.epochs)]
            base += ["--tf"] if tf_mode else []
            env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
            _start_workers(base + ["--batch", str(args.batch), "--out", multi], tf_mode, args.workers)
            subprocess.run(base + ["--batch", str(args.batch * args.workers), "--out", single], env=env, check=True)
            ref = np.load(os.path.join(single, "w0.npz"))
            ranks = [np.load(os.path.join(multi, f"w{i}.npz")) for i in range(args.workers)]
            same = all(np.array_equal(r[k], ranks[0][k]) for r in ranks for k in ref.files)
            rel = max(float(np.max(np.abs(ranks[0][k] - ref[k])) / max(float(np.max(np.abs(ref[k]))), 1e-12))
                      for k in ref.files)
            with open(os.path.join(multi, "h0.json")) as f, open(os.path.join(single, "h0.json")) as g:
                loss, ref_loss = json.load(f)["loss"][-1], json.load(g)["loss"][-1]
            rows.append({"lib": "tf" if tf_mode else "fn", "workers_identical": same, "max_rel_vs_one": rel,
                         "loss": loss, "loss_one_process": ref_loss,
                         "ok": same and all(np.allclose(ranks[0][k], ref[k], rtol=1e-5, atol=1e-6) for k in ref.files)})
    print(f"transformer (fit, {args.epochs} epochs), per-worker batch {args.batch}, {args.workers} workers vs one "
          "process with the global batch: correctness only")
    print(f"{'lib':>4} {'ok':>5} {'ranks bit-identical':>20} {'max diff/max|w|':>16} {'loss':>9} {'loss (1 proc)':>14}")
    for r in rows:
        print(f"{r['lib']:>4} {str(r['ok']):>5} {str(r['workers_identical']):>20} {r['max_rel_vs_one']:>16.2e} "
              f"{r['loss']:>9.5f} {r['loss_one_process']:>14.5f}")
    if args.json:
        print(json.dumps(rows))
    if not all(r["ok"] for r in rows):
        sys.exit(1)


def _start_workers(cmd, tf_mode, workers):
    """``cmd`` on ``workers`` workers: mpirun for fn, TF_CONFIG on localhost ports for TF."""
    if tf_mode:
        ports = _free_ports(workers)
        cluster = {"worker": [f"localhost:{p}" for p in ports]}
        procs = []
        for i in range(workers):
            env = dict(os.environ, TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}}))
            procs.append(subprocess.Popen(cmd, env=env))
        if any(p.wait() for p in procs):
            raise RuntimeError("a TensorFlow worker failed")
        return
    mpirun = [shutil.which("mpirun"), "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", str(workers)]
    subprocess.run(mpirun + cmd, check=True)


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _launch(python, tf_mode, args):
    base = [python, os.path.abspath(__file__), "train-worker", "--model", args.model, "--batch", str(args.batch),
            "--hidden",
            str(args.hidden), "--layers", str(args.layers), "--features", str(args.features), "--repeats",
            str(args.repeats), "--number", str(args.number)]
    if tf_mode:
        ports = _free_ports(args.workers)
        cluster = {"worker": [f"localhost:{p}" for p in ports]}
        procs = []
        for i in range(args.workers):
            env = dict(os.environ, TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}}))
            procs.append(subprocess.Popen(base + ["--tf"], env=env, stdout=subprocess.PIPE, text=True))
        outs = [p.communicate()[0] for p in procs]
    else:
        mpirun = [shutil.which("mpirun"), "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
                  "-np", str(args.workers)]
        outs = [subprocess.run(mpirun + base, stdout=subprocess.PIPE, text=True, check=True).stdout]
    for o in outs:
        for line in o.splitlines():
            if line.startswith("{"):
                return json.loads(line)
    raise RuntimeError("no result from the workers")


def bench_train(args):
    rows = [_launch(sys.executable, False, args)]
    if args.compare:
        rows.append(_launch(args.compare, True, args))
    what = ("transformer block (seq 64, d 128, 4 heads, MLP 512)" if args.model == "transformer"
            else f"MLP {args.layers}x{args.hidden}")
    print(f"{what}, per-worker batch {args.batch}, {args.workers} workers on one machine")
    print(f"{'lib':>4} {'step ms':>9} {'compute ms':>11} {'allreduce ms':>13} {'grad MB':>8}")
    for r in rows:
        print(f"{r['lib']:>4} {r['step_ms']:>9.3f} {r['compute_ms']:>11.3f} {r['comm_ms']:>13.3f} "
              f"{r['grad_bytes'] / 1e6:>8.2f}")
    if args.json:
        print(json.dumps(rows))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["allreduce", "allreduce-paths", "allreduce-buffers", "train", "train-worker", "transformer", "transformer-worker"])
    p.add_argument("--sizes", type=int, nargs="*", default=[4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--number", type=int, default=20)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--layers", type=int, default=3)
    p.add_argument("--model", choices=["mlp", "transformer"], default="mlp", help="train: the workload")
    p.add_argument("--features", type=int, default=784)
    p.add_argument("--tf", action="store_true")
    p.add_argument("--compare", metavar="PYTHON", help="also run TensorFlow's MWMS under this interpreter")
    p.add_argument("--json", action="store_true")
    p.add_argument("--epochs", type=int, default=2, help="transformer: epochs of the fit")
    p.add_argument("--out", help="transformer-worker: where to write the weights")
    args = p.parse_args()
    if (args.what.startswith("transformer") or args.model == "transformer") and "--batch" not in sys.argv:
        args.batch = 8
    modes = {"allreduce": bench_allreduce, "allreduce-paths": bench_allreduce_paths,
             "allreduce-buffers": bench_allreduce_buffers, "train": bench_train, "train-worker": _mlp_worker,
             "transformer": bench_transformer, "transformer-worker": _transformer_worker}
    modes[args.what](args)


if __name__ == "__main__":
    main()
