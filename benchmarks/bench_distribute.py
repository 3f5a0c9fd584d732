"""Multi-worker benchmarks: allreduce throughput and a 2-worker MLP training step.

    mpirun --allow-run-as-root --oversubscribe -np 2 python benchmarks/bench_distribute.py allreduce
    python benchmarks/bench_distribute.py train --workers 2 [--compare ~/.cache/fn/tfref/bin/python]

``allreduce``: the same float32 buffers summed across the ranks by (a) fn's CollectiveAllReduce
op inside an fn.function (the C++ executor, GIL released, fn._mpi's transport), (b) mpi4py's
``Comm.Allreduce`` called from Python (the floor: one MPI call), (c) an fn.function whose
all-reduce is a ``py_function`` calling mpi4py (the "mpi4py only" design). Reported as the
algorithm bandwidth (bytes / time) per message size.

``train``: one step of an MLP under MultiWorkerMirroredStrategy (fn on MPI, TF with TF_CONFIG on
localhost ports), split into compute (the same step without the all-reduce) and communication
(the all-reduce of the gradients alone). The launcher starts the workers itself.
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

HERE = os.path.dirname(os.path.abspath(__file__))


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
    call()
    times = []
    for _ in range(repeats):
        comm.Barrier()
        t0 = time.perf_counter()
        for _ in range(number):
            call()
        times.append((time.perf_counter() - t0) / number)
    return comm.allreduce(statistics.median(times), op=__import__("mpi4py").MPI.MAX)


def bench_allreduce(args):
    from mpi4py import MPI
    import fn as tf
    comm = MPI.COMM_WORLD
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rows = []
    for size in args.sizes:
        n = size // 4
        buf = np.random.RandomState(comm.Get_rank()).rand(n).astype(np.float32)
        out = np.empty_like(buf)
        x = tf.constant(buf)
        number = max(3, min(200, int(2e7 // max(size, 1))))

        @tf.function
        def fn_allreduce(t):
            return strategy.run(lambda v: tf.distribute.get_replica_context().all_reduce("SUM", v), args=(t,))

        def py_allreduce(v):
            r = np.empty_like(v.numpy())
            comm.Allreduce(v.numpy(), r, op=MPI.SUM)
            return r

        @tf.function
        def pyfunc_allreduce(t):
            return tf.py_function(py_allreduce, [t], tf.float32)

        expect = np.empty_like(buf)
        comm.Allreduce(buf, expect, op=MPI.SUM)
        np.testing.assert_allclose(fn_allreduce(x).numpy(), expect, rtol=1e-6)
        t_fn = _barrier_timeit(comm, lambda: fn_allreduce(x), args.repeats, number)
        t_mpi = _barrier_timeit(comm, lambda: comm.Allreduce(buf, out, op=MPI.SUM), args.repeats, number)
        t_py = _barrier_timeit(comm, lambda: pyfunc_allreduce(x), args.repeats, number)
        rows.append({"bytes": size, "fn_us": t_fn * 1e6, "mpi4py_us": t_mpi * 1e6, "py_function_us": t_py * 1e6})
    if comm.Get_rank() == 0:
        print(f"allreduce, {comm.Get_size()} ranks ({MPI.Get_library_version().splitlines()[0].strip()})")
        print(f"{'bytes':>10} {'fn MB/s':>10} {'mpi4py MB/s':>12} {'fn/mpi4py':>10} {'py_function MB/s':>17}")
        for r in rows:
            bw = lambda us: r["bytes"] / us   # bytes per microsecond == MB/s
            print(f"{r['bytes']:>10} {bw(r['fn_us']):>10.1f} {bw(r['mpi4py_us']):>12.1f} "
                  f"{r['mpi4py_us'] / r['fn_us']:>10.2f} {bw(r['py_function_us']):>17.1f}")
        if args.json:
            print(json.dumps(rows))


# ---------------------------------------------------------------------------- training step
def _mlp_worker(args):
    """One worker of `train` (fn under mpirun, or TF with TF_CONFIG)."""
    if args.tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    else:
        import fn as tf
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.RandomState(0)
    dims = [args.features] + [args.hidden] * args.layers + [10]
    with strategy.scope():
        ws = [tf.Variable(rng.randn(a, b).astype(np.float32) * 0.05) for a, b in zip(dims[:-1], dims[1:])]
        bs = [tf.Variable(np.zeros(b, np.float32)) for b in dims[1:]]
    params = ws + bs
    x = tf.constant(rng.randn(args.batch, args.features).astype(np.float32))
    y = tf.constant(rng.randint(0, 10, args.batch).astype(np.int64))
    gb = args.batch * strategy.num_replicas_in_sync

    def grads_of(xb, yb):
        with tf.GradientTape() as tape:
            h = xb
            for i, (w, b) in enumerate(zip(ws, bs)):
                h = tf.matmul(h, w) + b
                if i < len(ws) - 1:
                    h = tf.nn.relu(h)
            per = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=h)
            loss = tf.nn.compute_average_loss(per, global_batch_size=gb)
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
        return tf.distribute.get_replica_context().all_reduce("SUM", grads)

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


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _launch(python, tf_mode, args):
    base = [python, os.path.abspath(__file__), "train-worker", "--batch", str(args.batch), "--hidden",
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
    print(f"MLP {args.layers}x{args.hidden}, per-worker batch {args.batch}, {args.workers} workers on one machine")
    print(f"{'lib':>4} {'step ms':>9} {'compute ms':>11} {'allreduce ms':>13} {'grad MB':>8}")
    for r in rows:
        print(f"{r['lib']:>4} {r['step_ms']:>9.3f} {r['compute_ms']:>11.3f} {r['comm_ms']:>13.3f} "
              f"{r['grad_bytes'] / 1e6:>8.2f}")
    if args.json:
        print(json.dumps(rows))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["allreduce", "train", "train-worker"])
    p.add_argument("--sizes", type=int, nargs="*", default=[4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--number", type=int, default=20)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--layers", type=int, default=3)
    p.add_argument("--features", type=int, default=784)
    p.add_argument("--tf", action="store_true")
    p.add_argument("--compare", metavar="PYTHON", help="also run TensorFlow's MWMS under this interpreter")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    {"allreduce": bench_allreduce, "train": bench_train, "train-worker": _mlp_worker}[args.what](args)


if __name__ == "__main__":
    main()
