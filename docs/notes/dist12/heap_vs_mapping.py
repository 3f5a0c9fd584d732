import sys, time, statistics, mmap
import numpy as np
from mpi4py import MPI
import fn as tf
sys.path.insert(0, "/work/wt/dist12/benchmarks")
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
strategy = tf.distribute.MultiWorkerMirroredStrategy()
size = 16 << 20; n = size // 4
buf = np.random.RandomState(rank).rand(n).astype(np.float32); out = np.zeros_like(buf)
x = tf.constant(buf)
@tf.function
def fn_allreduce(t):
    return strategy.run(lambda v: tf.distribute.get_replica_context().all_reduce("SUM", tf.identity(v)), args=(t,))
for _ in range(3): fn_allreduce(x)
buf2, out2 = buf.copy(), np.zeros_like(out)
H = 2 << 20; keep = []
def mm(fill):
    m = mmap.mmap(-1, size + H, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS); m.madvise(mmap.MADV_HUGEPAGE)
    a = np.frombuffer(m, np.uint8); s0 = (-a.ctypes.data) % H + 64
    v = a[s0:s0 + size].view(np.float32); v[:] = fill; keep.append(m); return v
mb, mo = mm(buf), mm(0)
import ctypes
libc = ctypes.CDLL("libc.so.6"); libc.aligned_alloc.restype = ctypes.c_void_p
def ha(fill, align):
    p = libc.aligned_alloc(ctypes.c_size_t(align), ctypes.c_size_t(size))
    libc.madvise(ctypes.c_void_p((p + 4095) // 4096 * 4096), ctypes.c_size_t(size - 4096), 14)
    v = np.ctypeslib.as_array((ctypes.c_float * n).from_address(p)); v[:] = fill; return v
hb, ho = ha(buf, H), ha(0, H)
h64b, h64o = ha(buf, 64), ha(0, 64)
if rank == 0: print("addr", {k: hex(v.ctypes.data) for k, v in dict(buf=buf, buf2=buf2, mb=mb, hb=hb, ho=ho, h64b=h64b).items()})
calls = {"first": lambda: comm.Allreduce(buf, out, op=MPI.SUM), "second(heap?)": lambda: comm.Allreduce(buf2, out2, op=MPI.SUM),
         "mmap pair": lambda: comm.Allreduce(mb, mo, op=MPI.SUM),          "heap 2M-aligned": lambda: comm.Allreduce(hb, ho, op=MPI.SUM), "heap 64-aligned": lambda: comm.Allreduce(h64b, h64o, op=MPI.SUM), "fn": lambda: fn_allreduce(x)}
for c in calls.values(): c()
times = {k: [] for k in calls}
for _ in range(int(sys.argv[1])):
    for k, c in calls.items():
        comm.Barrier(); t0 = time.perf_counter()
        for _ in range(3): c()
        times[k].append((time.perf_counter() - t0) / 3)
med = {k: comm.allreduce(statistics.median(v), op=MPI.MAX) for k, v in times.items()}
if rank == 0:
    print(" | ".join(f"{k}={med['first']/v:.2f}" for k, v in med.items()), f"first {med['first']*1e3:.2f} ms")
