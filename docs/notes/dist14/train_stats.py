import atexit, sys
sys.argv = ["bench_distribute.py"] + sys.argv[1:]
sys.path.insert(0, "/work/wt/dist14/benchmarks")
def report():
    from fn import _mpi
    print("POOL", _mpi.output_pool_stats(), file=sys.stderr)
atexit.register(report)
import runpy
runpy.run_path("/work/wt/dist14/benchmarks/bench_distribute.py", run_name="__main__")
