"""One worker of test_collective_output_pool.py (under fn ``mpirun -np N``, under TensorFlow N
processes with TF_CONFIG): all-reduces and all-gathers of outputs of 1 MiB and more, whose storage
fn takes from fn._mpi's pool of mapped blocks (cpp/mpi/mapped_pool.h), reused when an output dies.

    python pool_worker.py OUT_DIR

Writes OUT_DIR/pool.<worker index>.json: the results (checked under both), and under fn the
pool's counters and the outputs' addresses at each point.
"""
import gc
import json
import os
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tfbackend import tf, IS_TF
from mw_worker import make_strategy, worker_index

MiB = 1 << 20
# (dtype, elements): exactly 1 MiB, not a multiple of the page size, above one huge page, below
# the pool's minimum, and the integer dtypes.
CASES = [("float32", MiB // 4), ("float32", (3 * MiB) // 4 + 7), ("float64", (5 * MiB) // 8 + 3),
         ("float32", 1000), ("int32", (2 * MiB) // 4 + 1), ("int64", (MiB // 8) * 3 + 5)]


def values(dtype, count, idx):
    """Small integers (exact sums in every dtype), different on every worker."""
    return ((np.arange(count) % 1009) * (idx + 1)).astype(dtype)


def stats():
    if IS_TF:
        return {}
    from fn import _mpi
    return dict(_mpi.output_pool_stats())


def address(t):
    return 0 if IS_TF else int(t.numpy().ctypes.data)


def main(out):
    strategy = make_strategy(timeout=120)
    idx = worker_index(strategy)
    ctx = tf.distribute.get_replica_context

    @tf.function
    def reduce_sum(t):    # the caller holds t: a fresh output
        return strategy.run(lambda v: ctx().all_reduce("SUM", tf.identity(v)), args=(t,))

    @tf.function
    def reduce_mean(t):
        return strategy.run(lambda v: ctx().all_reduce("MEAN", tf.identity(v)), args=(t,))

    @tf.function
    def chain(t):         # one fresh output, then three all-reduces of a value that dies in them
        def replica(v):
            v = ctx().all_reduce("SUM", tf.identity(v))
            for _ in range(3):
                v = ctx().all_reduce("SUM", v)
            return v
        return strategy.run(replica, args=(t,))

    @tf.function
    def gather(t):
        return strategy.run(lambda v: ctx().all_gather(tf.identity(v), axis=0), args=(t,))

    res = {"_index": idx, "sums": [], "means": [], "addresses": [], "inputs_kept": []}
    for dtype, count in CASES:
        x = tf.constant(values(dtype, count, idx))
        s = reduce_sum(x)
        res["sums"].append([int(v) for v in s.numpy()[[0, 1, 500, 999, count - 1]]] + [float(s.numpy().astype(np.float64).sum())])
        res["addresses"].append(address(s))
        if dtype.startswith("float"):
            m = reduce_mean(x)
            res["means"].append(float(m.numpy().astype(np.float64).sum()))
        res["inputs_kept"].append(bool(np.array_equal(x.numpy(), values(dtype, count, idx))))
        del s
    gc.collect()

    # Reuse: an output's block goes back to the pool when the output dies and serves the next one.
    x = tf.constant(values("float32", 4 * MiB // 4 + 11, idx))
    res["reuse"] = {"start": stats()}
    held = reduce_sum(x)
    res["reuse"]["held"] = stats()
    first = address(held)
    del held
    gc.collect()
    res["reuse"]["dropped"] = stats()
    again = reduce_sum(x)
    res["reuse"]["again"] = stats()
    res["reuse"]["same_block"] = address(again) == first
    del again
    gc.collect()

    # In place after the first output: the chain leases one block, not four.
    before = stats()
    c = chain(x)
    res["chain_sum"] = float(c.numpy().astype(np.float64).sum())
    res["chain"] = {"before": before, "held": stats()}
    del c
    gc.collect()

    g = gather(tf.constant(values("float32", (3 * MiB) // 8 + 1, idx)))
    res["gather_sum"] = float(g.numpy().astype(np.float64).sum())
    res["gather_shape"] = list(g.shape)
    del g
    gc.collect()

    # Concurrency: while this thread runs all-reduces, another drops their outputs (each output's
    # block returns from that thread) and leases blocks of the same pool from 3 threads of its own.
    outputs, lock, done = [], threading.Lock(), threading.Event()
    stress_ok = []

    def other():
        while not done.is_set():
            with lock:
                dropped = outputs[:-1]
                del outputs[:-1]
            del dropped
            if not IS_TF:
                from fn import _mpi
                stress_ok.append(_mpi._output_pool_stress(3, 5, [MiB, 3 * MiB + 5, 6 * MiB - 1]))
    t = threading.Thread(target=other)
    t.start()
    sums = []
    for _ in range(12):
        y = reduce_sum(x)
        sums.append(float(y.numpy()[-1]))
        with lock:
            outputs.append(y)
        del y
    done.set()
    t.join()
    res["concurrent_sums"] = sums
    res["stress_ok"] = all(stress_ok)
    outputs.clear()
    gc.collect()

    # The bound: 20 outputs of 4 MiB alive at once, then dropped: at most 16 blocks are kept.
    held = [reduce_sum(x) for _ in range(20)]
    res["bound"] = {"held": stats()}
    del held
    gc.collect()
    res["bound"]["dropped"] = stats()
    res["end"] = stats()

    with open(os.path.join(out, f"pool.{idx}.json"), "w") as f:
        json.dump(res, f)


if __name__ == "__main__":
    main(sys.argv[1])
