import os, sys, time, statistics
import numpy as np
from mpi4py import MPI
import fn as tf
from fn import _mpi
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
strategy = tf.distribute.MultiWorkerMirroredStrategy()
size = int(sys.argv[2]) if len(sys.argv) > 2 else 16 << 20
buf = np.random.RandomState(rank).rand(size // 4).astype(np.float32)
out = np.empty_like(buf)
x = tf.constant(buf)
@tf.function
def fn_allreduce(t):
    return strategy.run(lambda v: tf.distribute.get_replica_context().all_reduce("SUM", tf.identity(v)), args=(t,))
held = fn_allreduce(x); xn, yn = x.numpy(), held.numpy()
def noguard():
    os.environ["FNX_NOGUARD"] = "1"; fn_allreduce(x); del os.environ["FNX_NOGUARD"]
calls = {"mpi": lambda: comm.Allreduce(buf, out, op=MPI.SUM), "fn": lambda: fn_allreduce(x), "fn-noguard": noguard,
         "mpi-fnbufs": lambda: comm.Allreduce(xn, yn, op=MPI.SUM)}
for c in calls.values(): c()
times = {k: [] for k in calls}
prof = {k: [0, 0, 0] for k in calls}
for _ in range(int(sys.argv[1])):
    for k, c in calls.items():
        comm.Barrier(); _mpi.prof(); t0 = time.perf_counter()
        for _ in range(3): c()
        times[k].append((time.perf_counter() - t0) / 3)
        p = _mpi.prof()
        for i in range(3): prof[k][i] += p[i]
med = {k: comm.allreduce(statistics.median(v), op=MPI.MAX) for k, v in times.items()}
mean = {k: statistics.mean(v) for k, v in times.items()}
if rank == 0:
    print(" ".join(f"{k}={med['mpi']/v:.2f}" for k, v in med.items()), f"mpi {med['mpi']*1e3:.2f} ms")
for k in ("fn", "fn-noguard"):
    n, b, r = prof[k]
    print(f"rank {rank} {k}: mean call {mean[k]*1e3:.2f} ms = barrier {b/n/1e6:.2f} + MPI_Allreduce {r/n/1e6:.2f} + rest {(mean[k] - (b + r)/n/1e9)*1e3:.2f} ms;  mpi4py on fn bufs mean {mean['mpi-fnbufs']*1e3:.2f}, on buf/out {mean['mpi']*1e3:.2f}")
