import sys, time, statistics
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
n = (16 << 20) // 4
b1 = np.random.RandomState(rank).rand(n).astype(np.float32); o1 = np.zeros_like(b1)
b2 = b1.copy(); o2 = np.zeros_like(b1)
t = np.zeros_like(b1)
flip = len(sys.argv) > 2
ob, bb = (o2, b2) if flip else (o1, b1)   # the pair the extra calls touch
calls = {"pair1": lambda: comm.Allreduce(b1, o1, op=MPI.SUM), "pair2": lambda: comm.Allreduce(b2, o2, op=MPI.SUM),
         "inplace-on-touched": lambda: comm.Allreduce(MPI.IN_PLACE, ob, op=MPI.SUM),
         "touched->t": lambda: comm.Allreduce(bb, t, op=MPI.SUM)}
for c in calls.values(): c()
times = {k: [] for k in calls}
for _ in range(int(sys.argv[1])):
    for k, c in calls.items():
        comm.Barrier(); t0 = time.perf_counter()
        for _ in range(3): c()
        times[k].append((time.perf_counter() - t0) / 3)
med = {k: comm.allreduce(statistics.median(v), op=MPI.MAX) for k, v in times.items()}
if rank == 0:
    print("touched=" + ("pair2" if flip else "pair1"), f"pair2/pair1 speed = {med['pair1']/med['pair2']:.2f}", f"pair1 {med['pair1']*1e3:.2f} ms pair2 {med['pair2']*1e3:.2f} ms")
