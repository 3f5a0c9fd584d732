import os, sys, time, statistics
import numpy as np
from mpi4py import MPI
import fn as tf
from fn import _mpi
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
strategy = tf.distribute.MultiWorkerMirroredStrategy()
size = 16 << 20
n = size // 4
buf = np.random.RandomState(rank).rand(n).astype(np.float32)
out = np.empty_like(buf)
x = tf.constant(buf)
@tf.function
def fn_allreduce(t):
    return strategy.run(lambda v: tf.distribute.get_replica_context().all_reduce("SUM", tf.identity(v)), args=(t,))
held = fn_allreduce(x); xn, yn = x.numpy(), held.numpy()
A = lambda a: a.ctypes.data
for _ in range(3): fn_allreduce(x)
r = fn_allreduce(x); pooled = r.numpy().ctypes.data; del r
r = fn_allreduce(x); assert r.numpy().ctypes.data == pooled; del r
calls = {"mpi4py buf/out": lambda: comm.Allreduce(buf, out, op=MPI.SUM),
         "raw world buf/out": lambda: _mpi.raw(A(buf), A(out), n, True),
         "raw dup buf/out": lambda: _mpi.raw(A(buf), A(out), n, False),
         "fn": lambda: fn_allreduce(x),
         "mpi4py fnbufs": lambda: comm.Allreduce(xn, yn, op=MPI.SUM),
         "raw dup fnbufs": lambda: _mpi.raw(A(xn), A(yn), n, False),
         "raw dup x->pooled": lambda: _mpi.raw(A(xn), pooled, n, False),
         "raw dup buf->pooled": lambda: _mpi.raw(A(buf), pooled, n, False)}
for c in calls.values(): c()
times = {k: [] for k in calls}
for _ in range(int(sys.argv[1])):
    for k, c in calls.items():
        comm.Barrier(); t0 = time.perf_counter()
        for _ in range(3): c()
        times[k].append((time.perf_counter() - t0) / 3)
med = {k: comm.allreduce(statistics.median(v), op=MPI.MAX) for k, v in times.items()}
if rank == 0:
    b = med["mpi4py buf/out"]
    print(" | ".join(f"{k}={b/v:.2f}" for k, v in med.items()), f"base {b*1e3:.2f} ms")
