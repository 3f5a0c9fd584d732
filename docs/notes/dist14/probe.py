import mmap, sys, statistics, time
import numpy as np
from mpi4py import MPI
sys.path.insert(0, "/work/wt/dist14/benchmarks")
import bench_distribute as bd
import fn as tf
comm = MPI.COMM_WORLD
strategy = tf.distribute.MultiWorkerMirroredStrategy()
size = int(sys.argv[1]) if len(sys.argv) > 1 else 16 << 20
buf, out, x, number, fn_allreduce = bd._allreduce_case(tf, comm, strategy, size)
out[:] = 0
for _ in range(3):
    fn_allreduce(x)
held = fn_allreduce(x)
fn_in, fn_out = x.numpy(), held.numpy()
keep = []
def mapped(n, huge=True, align=2 << 20):
    m = mmap.mmap(-1, n + align, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if huge:
        m.madvise(mmap.MADV_HUGEPAGE)
    keep.append(m)
    a = np.frombuffer(m, np.uint8)
    off = (-a.ctypes.data) % align
    v = a[off:off + n].view(np.float32)
    v[:] = 0
    return v
mo = mapped(size); mo4k = mapped(size, huge=False, align=4096)
mi = mapped(size); mi[:] = buf
buf2, out2 = buf.copy(), np.zeros_like(out)
S = MPI.SUM
calls = {"buf->out": lambda: comm.Allreduce(buf, out, op=S),
         "buf->mapped": lambda: comm.Allreduce(buf, mo, op=S),
         "buf->mapped4k": lambda: comm.Allreduce(buf, mo4k, op=S),
         "fnin->mapped": lambda: comm.Allreduce(fn_in, mo, op=S),
         "mapped->mapped": lambda: comm.Allreduce(mi, mo, op=S),
         "fnin->fnout": lambda: comm.Allreduce(fn_in, fn_out, op=S),
         "heap2": lambda: comm.Allreduce(buf2, out2, op=S),
         "fn": lambda: fn_allreduce(x)}
times = bd._interleaved_timeit(comm, list(calls.values()), 15, number)
if comm.rank == 0:
    print(size, "addrs buf %x out %x fn_in %x fn_out %x buf2 %x" % (buf.ctypes.data, out.ctypes.data, fn_in.ctypes.data, fn_out.ctypes.data, buf2.ctypes.data))
    print("  " + ", ".join(f"{k} {times[0] / t:.2f}" for k, t in zip(calls, times)) + f" (first {times[0]*1e3:.2f} ms)")
