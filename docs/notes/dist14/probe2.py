import mmap, sys, os
import numpy as np
from mpi4py import MPI
sys.path.insert(0, "/work/wt/dist14/benchmarks")
import bench_distribute as bd
comm = MPI.COMM_WORLD
size = int(sys.argv[1]); order = sys.argv[2]
keep = []
def mapped(n, huge=True, align=2 << 20):
    m = mmap.mmap(-1, n + align, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if huge: m.madvise(mmap.MADV_HUGEPAGE)
    keep.append(m)
    a = np.frombuffer(m, np.uint8)
    off = (-a.ctypes.data) % align
    return a[off:off + n].view(np.float32)
def mk_np():
    b = np.random.RandomState(comm.rank).rand(size // 4).astype(np.float32); o = np.empty_like(b); o[:] = 0
    return b, o
def mk_map():
    b = mapped(size); b[:] = np.random.RandomState(comm.rank).rand(size // 4).astype(np.float32); o = mapped(size); o[:] = 0
    return b, o
pairs = {}
for k in order.split(","):
    pairs[k + str(len(pairs))] = mk_np() if k == "np" else mk_map()
import re
def huge_kb(arr):
    a = arr.ctypes.data; e = a + arr.nbytes; tot = 0
    with open("/proc/self/smaps") as f:
        cur = False
        for line in f:
            fl = line.split()
            if re.match(r"^[0-9a-f]+-[0-9a-f]+$", fl[0]):
                lo, hi = (int(v, 16) for v in fl[0].split("-")); cur = lo < e and hi > a
            elif cur and fl[0] == "AnonHugePages:":
                tot += int(fl[1])
    return tot
calls = [(lambda b=b, o=o: comm.Allreduce(b, o, op=MPI.SUM)) for b, o in pairs.values()]
number = max(3, min(200, int(2e7 // size)))
times = bd._interleaved_timeit(comm, calls, 15, number)
if comm.rank == 0:
    print(order, ", ".join(f"{k} {times[0]/t:.2f} (huge {huge_kb(b)}/{huge_kb(o)} kB)" for (k, (b, o)), t in zip(pairs.items(), times)), f"first {times[0]*1e3:.2f} ms")
