"""Runs one bench_models workload under fn (or TF with --tf) in a loop, for profilers:

    perf record -D 2000 -g -- .venv-test/bin/python benchmarks/profile_step.py resnet_train --calls 200
    perf stat -e instructions,cycles -- .venv-test/bin/python benchmarks/profile_step.py lstm_train --calls 50
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect='fn::Plan::run_consuming*' \
        .venv-test/bin/python benchmarks/profile_step.py cnn_nobias_infer --calls 3
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect='TFE_Execute*' \
        ~/.cache/fn/tfref/bin/python benchmarks/profile_step.py lstm_train --tf --threads 1 --calls 3

Builds the workload, makes `--warmup` calls (tracing, plan, oneDNN primitive creation), prints
`ready` to stderr, then makes `--calls` calls and prints the mean wall and CPU (all threads)
ms per call.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workload")
    p.add_argument("--calls", type=int, default=100)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--tf", action="store_true", help="TensorFlow instead of fn")
    p.add_argument("--threads", type=int, default=0,
                   help="threads for both systems (OMP_NUM_THREADS; TF's intra- and inter-op pools); 0: default")
    args = p.parse_args()
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import bench_models
    if args.tf and args.threads:
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    call = bench_models.builder("tf" if args.tf else "fn")(args.workload, bench_models.make_data())
    for _ in range(args.warmup):
        call()
    print("ready", file=sys.stderr, flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(args.calls):
        call()
    wall, cpu = (time.perf_counter() - t0) / args.calls * 1e3, (time.process_time() - c0) / args.calls * 1e3
    # CPU time (all threads) depends less on other processes than wall time on a shared machine
    print(f"{args.workload}: {wall:.3f} ms per call, {cpu:.3f} CPU ms per call", file=sys.stderr)


if __name__ == "__main__":
    main()
