import sys, re, statistics
rows = {}
cur = None
for line in open(sys.argv[1]):
    if line.startswith("=="):
        f = line.split(); cur = (f[2], f[3], f[4], f[6]); continue
    f = line.split()
    if cur and len(f) == 10 and f[0].isdigit():
        rows.setdefault(cur, {})[int(f[0])] = [float(v) for v in f[1:]]
cols = {"fn/mpi4py": 2, "py_function MB/s": 3, "fresh/mpi4py": 4, "chain": 6, "fn-bufs/mpi4py": 7}
for size in (1048576, 4194304, 16777216):
    print(f"-- {size >> 20} MiB")
    for build in ("base", "new"):
        for mode in ("idle", "busy"):
            ks = [k for k in rows if k[1] == mode and k[2] == build and size in rows[k]]
            line = f"{build:4} {mode}: "
            for c, i in cols.items():
                v = [rows[k][size][i] for k in sorted(ks)]
                line += f"{c} " + "/".join(f"{x:.2f}" if x < 100 else f"{x:.0f}" for x in v) + f" (med {statistics.median(v):.2f})  "
            print(line)
