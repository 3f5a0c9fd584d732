"""fn's threading choices on the model workloads (issue 13): GNU OpenMP waiting passively (the
default), GNU OpenMP spinning (OMP_WAIT_POLICY=active), and the TBB build of the same oneDNN
(onednn-cpu-tbb 2023.2.0, which needs libtbb and Intel's libimf), idle and with one competing
busy process. `--spincounts 1000,10000` adds GNU OpenMP spinning that many times before sleeping.

    python3 -m venv /tmp/tbbvenv && /tmp/tbbvenv/bin/pip install onednn-cpu-tbb==2023.2.0 intel-cmplr-lib-rt
    .venv-test/bin/python benchmarks/bench_threads.py --tbb-lib /tmp/tbbvenv/lib [--rounds 2]

The extension's RUNPATH names the venv's lib, so LD_LIBRARY_PATH swaps in the TBB libdnnl.so.3
(same soname and API). Each cell is the best of --rounds runs of bench_models.py (median ms).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = "mlp_train,cnn_infer,rnn_infer,rnn_train,transformer"


def run(env_extra: dict, load: bool, repeats: int) -> dict:
    env = dict(os.environ, **env_extra)
    cmd = [sys.executable, os.path.join(HERE, "bench_models.py"), "--systems", "fn", "--only", NAMES,
           "--repeats", str(repeats), "--json"] + (["--competing-load"] if load else [])
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["fn"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tbb-lib", help="lib folder holding the TBB build's libdnnl.so.3, libtbb, libimf")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--spincounts", default="", help="comma-separated GOMP_SPINCOUNT values to add")
    p.add_argument("--no-active", action="store_true", help="leave out OMP_WAIT_POLICY=active")
    args = p.parse_args()
    configs = {"GOMP passive (default)": {}}
    if not args.no_active:
        configs["GOMP active"] = {"OMP_WAIT_POLICY": "active"}
    for n in filter(None, args.spincounts.split(",")):   # spin n times, then sleep
        configs[f"GOMP_SPINCOUNT={n}"] = {"GOMP_SPINCOUNT": n}
    if args.tbb_lib:
        configs["TBB"] = {"LD_LIBRARY_PATH": args.tbb_lib}
    cells = {}
    for load in (False, True):
        for _ in range(args.rounds):   # configs interleaved, so drifting load hits each alike
            for name, extra in configs.items():
                res = run(extra, load, args.repeats)
                for w, r in res.items():
                    key = (name, load, w)
                    if "ms" in r:
                        cells[key] = min(cells.get(key, float("inf")), r["ms"])
    names = NAMES.split(",")
    print("| threading | load | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for load in (False, True):
        for name in configs:
            row = [f"{cells[(name, load, w)]:.3g}" if (name, load, w) in cells else "-" for w in names]
            print(f"| {name} | {'1 busy process' if load else 'none added'} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
