"""Tracing and compiling cost by graph size: fn vs TensorFlow (same script, pick with --tf).

    python benchmarks/bench_trace.py                   # fn
    ~/.cache/fn/tfref/bin/python benchmarks/bench_trace.py --tf   # TensorFlow
    python benchmarks/bench_trace.py --compare ~/.cache/fn/tfref/bin/python   # both, as a table
    python benchmarks/bench_trace.py --instructions    # fn under callgrind: instructions per node

For each kind of graph and each target size (nodes), a fresh Function is traced
(`get_concrete_function`: the Python function runs and builds the graph) and then called once
(the first call: graph passes and the executor's plan; TF: grappler and its executor). Prints
medians over --repeats of both, in ms and in us per node, where nodes are the traced graph's
node count (`len(graph.as_graph_def().node)`, so each system counts its own graph); constant
us/node across sizes means linear cost.

Kinds: `chain` (`x = x * 1.0001 + 0.5`: two ops and two Python-float Consts a step), `mlp`
(`x = tanh(x @ w + b)` on a 4x8 input, captured w and b), `cond` (`x = tf.cond(x > 0, ...)`
then a call of a small inner tf.function, per step).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List

from _common import import_library, parser

SIZES = [1000, 2500, 5000, 10000, 20000]
KINDS = ["chain", "mlp", "cond"]


def make_step(tf: Any, kind: str) -> Callable[[Any], Any]:
    """One step of the graph of `kind`; the traced function applies it `reps` times."""
    if kind == "chain":
        return lambda x: x * 1.0001 + 0.5
    if kind == "mlp":
        w = tf.constant([[0.01 * (i - j) for j in range(8)] for i in range(8)])
        b = tf.constant([0.1] * 8)
        return lambda x: tf.tanh(tf.matmul(x, w) + b)

    @tf.function
    def inner(x):
        return x * 0.5 + 1.0

    return lambda x: inner(tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * 0.9, lambda: x + 1.0))


def make_input(tf: Any, kind: str) -> Any:
    return tf.constant([[1.0] * 8] * 4) if kind == "mlp" else tf.constant([1.0, 2.0])


def make_function(tf: Any, kind: str, reps: int) -> Any:
    step = make_step(tf, kind)

    def body(x):
        for _ in range(reps):   # a Python loop: unrolled while tracing
            x = step(x)
        return x

    return tf.function(body)


def node_count(concrete: Any) -> int:
    return len(concrete.graph.as_graph_def().node)


def trace_and_call(tf: Any, kind: str, reps: int) -> Dict[str, float]:
    f = make_function(tf, kind, reps)
    x = make_input(tf, kind)
    t0 = time.perf_counter()
    concrete = f.get_concrete_function(x)
    t1 = time.perf_counter()
    r = f(x)
    t2 = time.perf_counter()
    return {"trace": t1 - t0, "first_call": t2 - t1, "nodes": node_count(concrete),
            "result": float(tf.reduce_sum(r))}


def calibrate(tf: Any, kind: str) -> Callable[[int], int]:
    """reps for a target node count, from two small traces (nodes = base + per_rep * reps)."""
    n10 = trace_and_call(tf, kind, 10)["nodes"]
    n30 = trace_and_call(tf, kind, 30)["nodes"]
    per = (n30 - n10) / 20
    base = n10 - 10 * per
    return lambda target: max(1, round((target - base) / per))


def measure(use_tf: bool, repeats: int, sizes: List[int], kinds: List[str]) -> dict:
    tf = import_library(use_tf)
    trace_and_call(tf, "chain", 5)   # warm up imports and AutoGraph
    out: Dict[str, Any] = {}
    for kind in kinds:
        reps_for = calibrate(tf, kind)
        for size in sizes:
            runs = [trace_and_call(tf, kind, reps_for(size)) for _ in range(repeats)]
            nodes = runs[0]["nodes"]
            tr = statistics.median(r["trace"] for r in runs)
            fc = statistics.median(r["first_call"] for r in runs)
            out[f"{kind} {size}"] = {"nodes": nodes, "trace_ms": tr * 1e3, "call_ms": fc * 1e3,
                                     "trace_us_node": tr / nodes * 1e6, "call_us_node": fc / nodes * 1e6,
                                     "result": runs[0]["result"]}
    return out


# ---- callgrind: instructions per node (independent of machine load)

_TOGGLE_C = r"""
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; CALLGRIND_TOGGLE_COLLECT; }
void cg_stop(const char* name) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT(name); CALLGRIND_STOP_INSTRUMENTATION; }
"""


def _instructions_child(lib: str, kinds: List[str], size: int) -> None:
    """Runs under callgrind: one trace and one first call per kind, each its own dump."""
    import ctypes
    cg = ctypes.CDLL(lib)
    tf = import_library(False)
    trace_and_call(tf, "chain", 5)
    nodes = {}
    for kind in kinds:
        reps = calibrate(tf, kind)(size)
        f = make_function(tf, kind, reps)
        x = make_input(tf, kind)
        cg.cg_start()
        concrete = f.get_concrete_function(x)
        cg.cg_stop(f"{kind} trace".encode())
        cg.cg_start()
        f(x)
        cg.cg_stop(f"{kind} call".encode())
        nodes[kind] = node_count(concrete)
    print(json.dumps(nodes))


def instructions(kinds: List[str], size: int) -> dict:
    """Instructions (callgrind Ir) per node of tracing and of the first call, fn only."""
    with tempfile.TemporaryDirectory() as d:
        src, lib = os.path.join(d, "cgt.c"), os.path.join(d, "libcgt.so")
        with open(src, "w") as fh:
            fh.write(_TOGGLE_C)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", lib, src], check=True)
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--instr-atstart=no",
               f"--callgrind-out-file={d}/cg.out", sys.executable, os.path.abspath(__file__),
               "--_cg-child", lib, "--kinds", ",".join(kinds), "--sizes", str(size)]
        p = subprocess.run(cmd, check=True, capture_output=True, text=True)
        nodes = json.loads(p.stdout.strip().splitlines()[-1])
        totals = {}
        for name in sorted(os.listdir(d)):
            if not name.startswith("cg.out."):
                continue
            trigger, total = None, None
            with open(os.path.join(d, name)) as fh:
                for line in fh:
                    if line.startswith("desc: Trigger: Client Request: "):
                        trigger = line.split(": ", 3)[-1].strip()
                    elif line.startswith("totals:") or line.startswith("summary:"):
                        total = int(line.split()[1])
            if trigger:
                totals[trigger] = total
    out = {}
    for kind in kinds:
        n = nodes[kind]
        out[kind] = {"nodes": n, "trace_ir_node": totals[f"{kind} trace"] / n,
                     "call_ir_node": totals[f"{kind} call"] / n}
    return out


def main() -> None:
    p = parser(__doc__, number=0)
    p.set_defaults(repeats=3)
    p.add_argument("--sizes", default=",".join(map(str, SIZES)), help="target node counts")
    p.add_argument("--kinds", default=",".join(KINDS))
    p.add_argument("--instructions", action="store_true",
                   help="fn under callgrind: instructions per node at the first --sizes value")
    p.add_argument("--_cg-child", dest="cg_child", help=argparse_hidden())
    a = p.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    kinds = a.kinds.split(",")
    if a.cg_child:
        _instructions_child(a.cg_child, kinds, sizes[0])
        return
    if a.instructions:
        res = instructions(kinds, sizes[0])
        if a.json:
            print(json.dumps(res))
            return
        print(f"fn instructions per node (callgrind Ir), ~{sizes[0]} nodes")
        print(f"{'kind':8s} {'nodes':>7s} {'trace Ir/node':>14s} {'first call Ir/node':>19s}")
        for k, v in res.items():
            print(f"{k:8s} {v['nodes']:7d} {v['trace_ir_node']:14.0f} {v['call_ir_node']:19.0f}")
        return
    res = measure(a.tf, a.repeats, sizes, kinds)
    if a.json:
        print(json.dumps(res))
        return
    ref = None
    if a.compare:
        cmd = [a.compare, os.path.abspath(__file__), "--tf", "--json", "--repeats", str(a.repeats),
               "--sizes", a.sizes, "--kinds", a.kinds]
        ref = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    who = "TF" if a.tf else "fn"
    print(f"median of {a.repeats}; trace = get_concrete_function, call = first call (passes + plan)")
    head = f"{'case':12s} {'nodes':>6s} {who + ' trace ms':>12s} {'us/node':>8s} {who + ' call ms':>11s} {'us/node':>8s}"
    if ref:
        head += f" {'TF nodes':>8s} {'TF trace ms':>11s} {'us/node':>8s} {'TF call ms':>10s} {'us/node':>8s}"
    print(head)
    for k, v in res.items():
        line = (f"{k:12s} {v['nodes']:6d} {v['trace_ms']:12.1f} {v['trace_us_node']:8.2f} "
                f"{v['call_ms']:11.1f} {v['call_us_node']:8.2f}")
        if ref:
            r = ref[k]
            line += (f" {r['nodes']:8d} {r['trace_ms']:11.1f} {r['trace_us_node']:8.2f} {r['call_ms']:10.1f} "
                     f"{r['call_us_node']:8.2f}")
            if abs(r["result"] - v["result"]) > 1e-3 * max(1.0, abs(r["result"])):
                line += f"  (results differ: {v['result']} vs TF {r['result']})"
        print(line)


def argparse_hidden() -> str:
    import argparse
    return argparse.SUPPRESS


if __name__ == "__main__":
    main()
