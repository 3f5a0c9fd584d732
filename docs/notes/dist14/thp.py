import sys, re
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
for _ in range(5): fn_allreduce(x)
def huge(a, n):
    tot = 0; cur = False; hp = 0
    for line in open("/proc/self/smaps"):
        f = line.split()
        if re.match(r"^[0-9a-f]+-[0-9a-f]+$", f[0]):
            lo, hi = (int(v, 16) for v in f[0].split("-")); cur = lo < a + n and hi > a
            ov = max(0, min(hi, a + n) - max(lo, a))
        elif cur and f[0] == "AnonHugePages:":
            # pro-rate the VMA's huge pages to the overlap (approximate)
            tot += int(f[1]) * 1024 * ov / max(1, (hi - lo)) / 1024
    return round(tot)
e = np.empty_like(buf); comm.Allreduce(buf, e, op=MPI.SUM)
y = fn_allreduce(x)
if comm.rank == 0:
    print("kB huge (prorated): buf", huge(buf.ctypes.data, size), "out", huge(out.ctypes.data, size),
          "fresh", huge(e.ctypes.data, size), "fn out", huge(y.numpy().ctypes.data, size), "x", huge(x.numpy().ctypes.data, size))
