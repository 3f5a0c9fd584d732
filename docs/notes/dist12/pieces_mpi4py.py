import sys, time, statistics
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
size = int(sys.argv[1]) if len(sys.argv) > 1 else 16 << 20
n = size // 4
buf = np.random.RandomState(rank).rand(n).astype(np.float32)
out = np.empty_like(buf)
outs = {}
def chunked(cb):
    o = outs.setdefault(cb, np.zeros_like(buf))
    e = cb // 4
    def run():
        for i in range(0, n, e):
            comm.Allreduce(buf[i:i + e], o[i:i + e], op=MPI.SUM)
    return run
calls = {"whole": lambda: comm.Allreduce(buf, out, op=MPI.SUM)}
for cb in (1 << 20, 2 << 20, 4 << 20, 8 << 20):
    if cb < size: calls[f"c{cb >> 20}M"] = chunked(cb)
for c in calls.values(): c()
for k in outs: assert np.array_equal(outs[k], out)
times = {k: [] for k in calls}
for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 20):
    for k, c in calls.items():
        comm.Barrier(); t0 = time.perf_counter()
        for _ in range(3): c()
        times[k].append((time.perf_counter() - t0) / 3)
med = {k: comm.allreduce(statistics.median(v), op=MPI.MAX) for k, v in times.items()}
if rank == 0:
    print(size, " ".join(f"{k}={med['whole']/v:.2f}({v*1e3:.2f})" for k, v in med.items()))
