"""Model workloads (issue 13): fn vs TensorFlow, JAX, PyTorch eager and torch.compile, one table.

    .venv-test/bin/python benchmarks/bench_models.py                 # every system found
    .venv-test/bin/python benchmarks/bench_models.py --only rnn_infer,tanh_chain --systems fn,tf
    .venv-test/bin/python benchmarks/bench_models.py --competing-load   # one busy process beside

Each system runs in its own process (fn: this interpreter with the worktree's python/ on the
path; TF: ~/.cache/fn/tfref; JAX: ~/.cache/fn/jax; torch: ~/.cache/fn/torch, made by
tools/peer_venvs.sh). Times are medians over --repeats runs of the per-call time (ms; us for
the varargs rows), after warm-up calls (tracing / jit / torch.compile). Ratios are system/fn:
above 1 means fn is faster. `check` compares the first call's result sum across systems.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.expanduser(os.environ.get("FN_CACHE", "~/.cache/fn"))
SYSTEMS = {   # name -> interpreter (None: this one)
    "fn": None,
    "tf": os.path.join(CACHE, "tfref", "bin", "python"),
    "jax": os.path.join(CACHE, "jax", "bin", "python"),
    "torch": os.path.join(CACHE, "torch", "bin", "python"),
    "torch.compile": os.path.join(CACHE, "torch", "bin", "python"),
    "fn-before": None,   # --baseline: fn from another python/ directory
}
sys.path.insert(0, HERE)
import models_tf_train  # noqa: E402  (issue 24's workloads)

WORKLOADS = ["mlp_train", "cnn_infer", "rnn_infer", "rnn_train", "tanh_chain", "varargs_1", "varargs_100",
             "transformer"] + list(models_tf_train.WORKLOADS)
MICRO = {"varargs_1", "varargs_100"}   # reported in us
LABELS = {
    "mlp_train": "MLP train step (256x784-512-512-10, tape + SGD)",
    "cnn_infer": "CNN inference (32x28x28x1, 2 conv+relu+pool, 2 dense)",
    "rnn_infer": "RNN 100 steps tanh(x_t + s@W), 32x64, range loop",
    "rnn_train": "RNN training step: the same loop under a tape + SGD",
    "tanh_chain": "50 x tanh(t*1.01+0.01), 1000 floats",
    "varargs_1": "f(*args), 1 tensor (us)",
    "varargs_100": "f(*args), 100 tensors (us)",
    "transformer": "transformer encoder block (8x128x256, 4 heads)",
    **models_tf_train.LABELS,
}


def make_data() -> Dict[str, np.ndarray]:
    """The same float32 inputs for every system (seeded)."""
    r = np.random.default_rng(0)

    def n(*shape: int, scale: float = 1.0) -> np.ndarray:
        return (r.standard_normal(shape) * scale).astype(np.float32)

    d = {"mlp_x": n(256, 784), "mlp_w1": n(784, 512, scale=0.05), "mlp_w2": n(512, 512, scale=0.05),
         "mlp_w3": n(512, 10, scale=0.05), "mlp_b1": n(512, scale=0.1), "mlp_b2": n(512, scale=0.1),
         "mlp_b3": n(10, scale=0.1)}
    d["mlp_y"] = np.eye(10, dtype=np.float32)[r.integers(0, 10, 256)]
    d.update({"cnn_x": n(32, 28, 28, 1), "cnn_k1": n(3, 3, 1, 32, scale=0.3), "cnn_c1": n(32, scale=0.1),
              "cnn_k2": n(3, 3, 32, 64, scale=0.06), "cnn_c2": n(64, scale=0.1),
              "cnn_w1": n(7 * 7 * 64, 128, scale=0.02), "cnn_b1": n(128, scale=0.1),
              "cnn_w2": n(128, 10, scale=0.1), "cnn_b2": n(10, scale=0.1)})
    d.update({"rnn_x": n(100, 32, 64), "rnn_w": n(64, 64, scale=0.1), "rnn_s0": n(32, 64)})
    d["chain_x"] = n(1000)
    m = 256
    d.update({"tr_x": n(8, 128, m)})
    for k in ("wq", "wk", "wv", "wo"):
        d["tr_" + k] = n(m, m, scale=m ** -0.5)
    d.update({"tr_w1": n(m, 4 * m, scale=m ** -0.5), "tr_b1": n(4 * m, scale=0.1),
              "tr_w2": n(4 * m, m, scale=(4 * m) ** -0.5), "tr_b2": n(m, scale=0.1),
              "tr_g1": 1 + n(m, scale=0.1), "tr_n1": n(m, scale=0.1),
              "tr_g2": 1 + n(m, scale=0.1), "tr_n2": n(m, scale=0.1)})
    d.update(models_tf_train.make_train_data(r))
    return d


def builder(system: str) -> Callable[[str, Dict[str, np.ndarray]], Callable[[], Any]]:
    sys.path.insert(0, HERE)
    if system in ("fn", "tf"):
        import models_tf
        if system == "tf":
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            import tensorflow as lib
        else:
            import fn as lib
        table = {**models_tf.WORKLOADS, **models_tf_train.WORKLOADS}
        return lambda name, d: table[name](lib, d)
    if system == "jax":
        import models_jax

        def build_jax(name: str, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
            if name in models_tf_train.WORKLOADS:
                import models_jax_train
                f = models_jax_train.build(name, d)
            else:
                f = models_jax.build(name, d)
            return lambda: models_jax.block_on(f())
        return build_jax
    import models_torch
    import models_torch_train

    def build_torch(name: str, d: Dict[str, np.ndarray]) -> Callable[[], Any]:
        module = models_torch_train if name in models_tf_train.WORKLOADS else models_torch
        return module.build(name, d, compile=(system == "torch.compile"))
    return build_torch


def time_call(call: Callable[[], Any], repeats: int, budget: float) -> float:
    """Median per-call seconds over `repeats` runs of n calls, n chosen so a run takes ~budget s."""
    t0 = time.perf_counter()
    call()
    one = max(time.perf_counter() - t0, 1e-7)
    number = max(1, int(budget / one))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            call()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def measure(system: str, names: List[str], repeats: int, budget: float) -> Dict[str, Any]:
    build = builder(system)
    data = make_data()
    out: Dict[str, Any] = {}
    for name in names:
        try:
            call = build(name, data)
            t0 = time.perf_counter()
            first = call()
            warm = time.perf_counter() - t0
            check = float(np.sum(np.asarray(first, dtype=np.float64)))
            for _ in range(3):
                call()
            sec = time_call(call, repeats, budget)
            out[name] = {"ms": sec * 1e3, "check": check, "first_call_s": warm}
        except Exception as e:  # a system lacking an op still reports the others
            out[name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"}
    return out


def run_system(system: str, args: argparse.Namespace, names: List[str]) -> Dict[str, Any]:
    py = SYSTEMS[system] or sys.executable
    env = dict(os.environ)
    if system in ("fn", "fn-before"):
        fn_python = args.baseline if system == "fn-before" else args.fn_python or os.path.join(HERE, "..", "python")
        env["PYTHONPATH"] = fn_python + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [py, os.path.abspath(__file__), "--system", "fn" if system == "fn-before" else system, "--only", ",".join(names),
           "--repeats", str(args.repeats), "--budget", str(args.budget)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return {n: {"error": (p.stderr.strip().splitlines() or ["failed"])[-1][:120]} for n in names}
    return json.loads(p.stdout.strip().splitlines()[-1])


def table(results: Dict[str, Dict[str, Any]], names: List[str]) -> str:
    systems = list(results)
    head = "| workload | " + " | ".join(systems) + " | " + " | ".join(f"{s}/fn" for s in systems if s != "fn") + " |"
    lines = [head, "|" + "---|" * (1 + 2 * len(systems) - 1)]
    for n in names:
        scale = 1e3 if n in MICRO else 1.0
        cells, ratios = [], []
        base = results.get("fn", {}).get(n, {}).get("ms")
        for s in systems:
            r = results[s].get(n, {})
            cells.append(f"{r['ms'] * scale:.3g}" if "ms" in r else "-")
            if s != "fn":
                ratios.append(f"{r['ms'] / base:.2f}" if "ms" in r and base else "-")
        lines.append(f"| {LABELS[n]} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    return "\n".join(lines)


def best_round(rounds: List[Dict[str, dict]]) -> Dict[str, dict]:
    """Each workload's result from its fastest round (errors kept when every round failed)."""
    out = {}
    for n in rounds[0]:
        ok = [r[n] for r in rounds if "ms" in r.get(n, {})]
        out[n] = min(ok, key=lambda c: c["ms"]) if ok else rounds[0][n]
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--system", help=argparse.SUPPRESS)   # child mode: measure one system, print JSON
    p.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated subset of " + ",".join(SYSTEMS))
    p.add_argument("--only", default=",".join(WORKLOADS), help="comma-separated workloads")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--budget", type=float, default=0.1, help="seconds per timed run")
    p.add_argument("--competing-load", action="store_true", help="run one busy-looping process alongside")
    p.add_argument("--rounds", type=int, default=1,
                   help="run every system this many times, interleaved, and report each cell's fastest round "
                        "(a disturbance of the shared host slows a round, never speeds one up)")
    p.add_argument("--json", action="store_true", help="print the raw results as JSON too")
    p.add_argument("--baseline", metavar="PYTHON_DIR",
                   help="also run fn imported from this python/ directory (column fn-before), interleaved")
    p.add_argument("--fn-python", help="the python/ directory fn is imported from (default: this checkout's), "
                                       "e.g. another build for an A/B")
    args = p.parse_args()
    names = args.only.split(",")
    if args.system:
        print(json.dumps(measure(args.system, names, args.repeats, args.budget)))
        return
    load = None
    if args.competing_load:
        load = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        runs = {}   # system -> one result dict per round
        systems = args.systems.split(",")
        if args.baseline:   # another fn build beside this one, e.g. the commit before a change
            systems.insert(1 if "fn" in systems else 0, "fn-before")
        for r in range(max(1, args.rounds)):   # interleaved: a passing disturbance hits one round of one system
            for s in systems:
                if SYSTEMS[s] and not os.path.exists(SYSTEMS[s]):
                    continue
                runs.setdefault(s, []).append(run_system(s, args, names))
                print(f"# {s} done (round {r + 1})", file=sys.stderr, flush=True)
        results = {s: best_round(rs) for s, rs in runs.items()}
    finally:
        if load:
            load.kill()
    rounds = f", fastest of {args.rounds} interleaved rounds" if args.rounds > 1 else ""
    print(f"median ms per call ({args.repeats} runs{rounds}){' with one competing busy process' if load else ''}")
    print(table(results, names))
    for s, res in results.items():
        for n, r in res.items():
            if "error" in r:
                print(f"{s} {n}: {r['error']}")
    base = results.get("fn", {})
    for s, res in results.items():
        for n, r in res.items():
            c0 = base.get(n, {}).get("check")
            if "check" in r and c0 is not None and not np.isclose(r["check"], c0, rtol=2e-3, atol=1e-2):
                print(f"check differs: {s} {n}: {r['check']:.6g} vs fn {c0:.6g}")
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
