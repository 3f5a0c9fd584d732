import sys
import numpy as np
from mpi4py import MPI
sys.path.insert(0, "/work/wt/dist14/benchmarks")
import bench_distribute as bd
import fn as tf
comm = MPI.COMM_WORLD
strategy = tf.distribute.MultiWorkerMirroredStrategy()
size = 16 << 20
buf, out, x, number, fn_allreduce = bd._allreduce_case(tf, comm, strategy, size)
held = fn_allreduce(x)
for _ in range(3): fn_allreduce(x)
addrs = []
for _ in range(3):
    e = np.empty_like(buf); comm.Allreduce(buf, e, op=MPI.SUM); addrs.append(e.ctypes.data); del e
if comm.rank == 0:
    f = lambda a: f"{a:x} (mod4k {a % 4096}, mod2M {a % (2<<20)})"
    print("buf", f(buf.ctypes.data), "out", f(out.ctypes.data), "x", f(x.numpy().ctypes.data), "held", f(held.numpy().ctypes.data))
    print("fresh", [f(a) for a in addrs])
