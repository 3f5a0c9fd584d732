#!/usr/bin/env python3
"""Runs a notebook's code cells under TensorFlow and under fn and diffs the output cell by cell.

    python tools/nb_diff.py [--show] [--json OUT] NOTEBOOK.ipynb ...

Each backend executes all code cells of a notebook in one process (as one Jupyter kernel would),
with ``import tensorflow as tf`` replaced by ``import fn as tf`` for fn (and ``import tensorflow.X``
by ``import fn.X``). Per cell it records
stdout, stderr (fd-level, so TensorFlow's C++ ``tf.print`` is seen), the repr of the last
expression (Jupyter's display, suppressed by a trailing ``;``) and the exception, if any.
Before comparing, memory addresses are masked everywhere, floating-point numbers in cells whose
values depend on random ops (data flow through assigned names), and all numbers in cells that
time things (or call what a timing cell defined). Shell and magic lines (``!pip install ...``, ``%matplotlib``) are dropped and the
rest of their cell runs; cells that still download or install (or are ``%%`` cell magics) are
skipped; matplotlib is a stub that draws nothing.

Interpreters: ``--tf-python`` (default ``~/.cache/fn/tfref/bin/python``) and ``--fn-python``
(default ``.venv-test/bin/python`` of this checkout, with ``python/`` on ``PYTHONPATH``).
With ``--fn-run`` the fn side runs the cells unchanged under ``python -m fn.run`` (``import
tensorflow`` is fn), as an unmodified TensorFlow program would run.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_SKIP = re.compile(r"^\s*[!%]|get_file\(|tensorflow_datasets|pip install|urlretrieve|"
                   r"tf\.keras\.utils\.plot_model|IPython\.display|tensorboard", re.M)
_RANDOM = re.compile(r"\brandom\b|\bdropout\b|initializers?\.|keras\.layers\.|keras\.Sequential|"
                     r"\.shuffle\(|glorot|Random|Generator")
_TIMING = re.compile(r"\btimeit\b|\btime\.|datetime")
_ADDR = re.compile(r"0x[0-9a-fA-F]+")
# fn prints its objects as TensorFlow does with ``fn`` for ``tf`` (ARCHITECTURE.md).
_FN_PREFIX = re.compile(r"(?<![\w.])fn\.(?=[A-Za-z_])")
_TMP = re.compile(r"/tmp/tmp\w+/")
_FLOAT = re.compile(r"-?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+|\bnan\b|-?\binf\b")
_KEEP = re.compile(r"shape=\([\d, ]*\)|TensorShape\(\[[\d, ]*\]\)|\b(?:u?int|float|complex|bfloat)\d+\b")
_BACKSPACES = re.compile("\b+")
_PROGBAR_TIME = re.compile(r"(?<=\d)(?:m|u|\u00b5)?s/step")
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")
_STDERR_NOISE = re.compile(r"^(?:.*Warning: .*|\s+warnings\.warn\(.*|WARNING: All log messages.*|"
                           r"I0000 .*|E0000 .*|W0000 .*|"
                           # TF's jacobians retrace pfor's own functions; fn has no pfor.
                           r"WARNING:tensorflow:\d+ out of the last \d+ calls to <function pfor\.<locals>.*)$",
                           re.M)


_SHELL_LINE = re.compile(r"^\s*[!%].*(?:\n|$)", re.M)


def strip_shell_lines(src: str) -> str:
    """A cell without its ``!``/``%`` lines (a ``%%`` cell magic keeps them: the cell is skipped)."""
    if src.lstrip().startswith("%%"):
        return src
    return _SHELL_LINE.sub("", src)


def code_cells(path: str) -> list[str]:
    with open(path) as f:
        nb = json.load(f)
    cells = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = cell["source"]
        cells.append(strip_shell_lines("".join(src) if isinstance(src, list) else src))
    return cells


def _names(src: str) -> tuple[set, set]:
    """(names read, names assigned) by a cell, for the random-value data flow."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return set(), set()
    loads, stores = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (stores if isinstance(node.ctx, ast.Store) else loads).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            stores.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and isinstance(node.ctx, ast.Store):
            stores.add(node.value.id)  # `v.x = ...` mutates v
    return loads, stores


def classify(cells: list[str]) -> list[dict]:
    """Per cell: skip (reason or None), random (mask floats), timing (mask numbers)."""
    tainted: set = set()
    timed: set = set()  # names whose values (or calls) depend on the clock
    out = []
    for src in cells:
        body = [ln for ln in src.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        skip = None
        if not body:
            skip = "no code"
        elif _SKIP.search(src):
            skip = "download/install/shell"
        loads, stores = _names(src)
        rnd = bool(_RANDOM.search(src)) or bool(loads & tainted)
        # Calls that mutate their receiver (v.assign(...), list.append) taint it too.
        if rnd:
            tainted |= stores
            for m in re.finditer(r"\b(\w+)\.(?:assign\w*|append|fit|apply_gradients)\(", src):
                tainted.add(m.group(1))
        # A cell calling a function defined in a timing cell (`benchmark(ds)`) prints times too.
        timing = bool(_TIMING.search(src)) or bool(loads & timed)
        if timing:
            timed |= stores
        out.append({"skip": skip, "random": rnd, "timing": timing})
    return out


# --------------------------------------------------------------------------------------------
# The kernel: runs in the backend's interpreter, writes one JSON line per cell.

_KERNEL = r'''
import ast, io, json, os, signal, sys, types, traceback

class _Dummy:
    def __call__(self, *a, **k): return _Dummy()
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Dummy()
    def __iter__(self): return iter((0.0, 1.0))
    def __repr__(self): return "<matplotlib stub>"
_mpl = types.ModuleType("matplotlib"); _plt = types.ModuleType("matplotlib.pyplot")
def _stub_attr(name):
    if name.startswith("__"):  # inspect and AutoGraph probe modules' __file__ and friends
        raise AttributeError(name)
    return _Dummy()
_mpl.__getattr__ = _stub_attr; _plt.__getattr__ = _stub_attr
_mpl.pyplot = _plt
sys.modules["matplotlib"] = _mpl; sys.modules["matplotlib.pyplot"] = _plt

def _alarm(signum, frame):
    raise TimeoutError("cell timed out")
signal.signal(signal.SIGALRM, _alarm)

cells, backend, out_path, timeout = json.load(open(sys.argv[1]))
ns = {"__name__": "__main__"}
out = open(out_path, "w")
tmp = os.path.join(os.path.dirname(out_path), "cap")

def run(i, src):
    # A real file per cell, as Jupyter registers cell sources: AutoGraph reads functions' source.
    fname = os.path.join(os.path.dirname(out_path), "cell_%d.py" % i)
    with open(fname, "w") as f:
        f.write(src)
    tree = ast.parse(src, fname)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not src.rstrip().endswith(";"):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, fname, "exec"), ns)
    if last is not None:
        value = eval(compile(last, fname, "eval"), ns)
        if value is not None:
            return repr(value)
    return None

for i, src in enumerate(cells):
    if src is None:
        continue
    if backend == "fn":
        src = src.replace("import tensorflow as tf", "import fn as tf")
        # `import tensorflow.experimental.numpy as tnp`: fn's module of the same path.
        src = src.replace("import tensorflow.", "import fn.")
    sys.stdout.flush(); sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    fo, fe = open(tmp + ".1", "w+b"), open(tmp + ".2", "w+b")
    os.dup2(fo.fileno(), 1); os.dup2(fe.fileno(), 2)
    display = error = None
    signal.alarm(timeout)
    try:
        display = run(i, src)
    except BaseException as e:  # noqa: B902  (a cell's exception is its output)
        error = "%s: %s" % (type(e).__name__, str(e).strip())
    finally:
        signal.alarm(0)
        sys.stdout.flush(); sys.stderr.flush()
        os.dup2(saved[0], 1); os.dup2(saved[1], 2)
        os.close(saved[0]); os.close(saved[1])
    fo.seek(0); fe.seek(0)
    rec = {"i": i, "stdout": fo.read().decode("utf-8", "replace"),
           "stderr": fe.read().decode("utf-8", "replace"), "display": display, "error": error}
    fo.close(); fe.close()
    out.write(json.dumps(rec) + "\n"); out.flush()
'''


def run_backend(python: str, backend: str, cells: list, timeout: int, env: dict,
                fn_run: bool = False) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        spec = os.path.join(tmp, "spec.json")
        out = os.path.join(tmp, "out.jsonl")
        kernel = os.path.join(tmp, "kernel.py")
        with open(spec, "w") as f:
            # Under `python -m fn.run` the cells keep `import tensorflow`: no rewriting.
            json.dump([cells, "fn-run" if fn_run else backend, out, timeout], f)
        with open(kernel, "w") as f:
            f.write(_KERNEL)
        work = os.path.join(tmp, "cwd")
        os.mkdir(work)
        try:
            head = [python, "-m", "fn.run"] if fn_run else [python]
            proc = subprocess.run(head + [kernel, spec], cwd=work, env=env, capture_output=True,
                                  text=True, timeout=timeout * 4 + 600)
        except subprocess.TimeoutExpired as e:
            proc = subprocess.CompletedProcess(e.cmd, -9, "", "timed out")
        results = {}
        if os.path.exists(out):
            with open(out) as f:
                for line in f:
                    rec = json.loads(line)
                    results[rec["i"]] = rec
        if proc.returncode != 0:
            results["crash"] = "exit %d: %s" % (proc.returncode, proc.stderr[-2000:])
        return results


# AutoGraph code (tf.autograph.to_code): TensorFlow writes `nonlocal` names and the
# `x = ag__.Undefined('x')` lines in set-iteration order (it depends on the hash seed): sort both.
_NONLOCAL = re.compile(r"(?m)^(\s*nonlocal )([\w, ]+)$")
_UNDEFINED_RUN = re.compile(r"(?m)(?:^\s*\w+ = ag__\.Undefined\('\w+'\)\n)+")


# TensorFlow numbers graph functions with a process-wide uid (`__inference_double_202`,
# `cond_true_30`): the count depends on everything that ran before, so it is masked.
_FUNCTION_UID = re.compile(r"\b((?:__inference|__forward|__backward)_\w+?|cond_true|cond_false|"
                           r"while_body|while_cond)_\d+\b")


def _autograph_order(text: str) -> str:
    text = _NONLOCAL.sub(lambda m: m.group(1) + ", ".join(sorted(m.group(2).split(", "))), text)
    return _UNDEFINED_RUN.sub(lambda m: "".join(sorted(m.group(0).splitlines(True))), text)


def normalize(rec: dict | None, cls: dict, backend: str) -> str:
    if rec is None:
        return "<not run>"
    parts = []
    if rec["stdout"]:
        parts.append(rec["stdout"].rstrip("\n"))
    err = _STDERR_NOISE.sub("", rec["stderr"]).strip("\n")
    if err:
        parts.append("[stderr] " + err)
    if rec["display"] is not None:
        parts.append("[out] " + rec["display"])
    if rec["error"] is not None:
        parts.append("[error] " + rec["error"])
    text = _autograph_order("\n".join(parts))
    text = _FUNCTION_UID.sub(r"\1_N", _TMP.sub("<tmp>/", _ADDR.sub("0x?", text)))
    # Keras' progress bar erases its line with as many backspaces as it was wide, and shows its
    # step time in s, ms or us: widths and units follow the timings
    text = _PROGBAR_TIME.sub(r"/step", _BACKSPACES.sub("\b", text))
    if backend == "fn":
        text = _FN_PREFIX.sub("tf.", text)
        text = re.sub(r"(?m)^(\[stderr\] )?(WARNING|INFO|ERROR):fn:", r"\1\2:tensorflow:", text)
    if cls["timing"]:
        text = _NUMBER.sub("N", text)
    elif cls["random"]:
        # Random values aside: every number except shapes and dtypes ("shape=(3, 2)", "int32").
        keep: list = []
        text = _KEEP.sub(lambda m: keep.append(m.group(0)) or "\0" + chr(0x100 + len(keep) - 1), text)
        text = _NUMBER.sub("N", _FLOAT.sub("F", text))
        text = re.sub("\0(.)", lambda m: keep[ord(m.group(1)) - 0x100], text)
        text = re.sub(r"\s+", "", text)  # NumPy pads and wraps by the values' widths
    return text


def diff_notebook(path: str, args, envs: dict) -> dict:
    cells = code_cells(path)
    classes = classify(cells)
    runnable = [None if c["skip"] else s for s, c in zip(cells, classes)]
    res = {}
    for b, py in (("tf", args.tf_python), ("fn", args.fn_python)):
        cache = None
        if b == "tf" and args.cache:
            # TensorFlow's outputs depend only on the notebook and this tool: keep them.
            key = hashlib.sha1((json.dumps(runnable) + _KERNEL).encode()).hexdigest()[:16]
            cache = os.path.join(args.cache, f"{os.path.basename(path)}.{key}.json")
            if os.path.exists(cache):
                with open(cache) as f:
                    res[b] = {int(k) if k.isdigit() else k: v for k, v in json.load(f).items()}
                continue
        res[b] = run_backend(py, b, runnable, args.timeout, envs[b],
                             fn_run=b == "fn" and getattr(args, "fn_run", False))
        if cache and "crash" not in res[b]:
            os.makedirs(args.cache, exist_ok=True)
            with open(cache, "w") as f:
                json.dump({str(k): v for k, v in res[b].items()}, f)
    report = []
    for i, (src, cls) in enumerate(zip(cells, classes)):
        if cls["skip"]:
            continue
        a = normalize(res["tf"].get(i), cls, "tf")
        b = normalize(res["fn"].get(i), cls, "fn")
        report.append({"cell": i, "match": a == b, "source": src, "tf": a, "fn": b})
    for b in ("tf", "fn"):
        if "crash" in res[b]:
            print("  %s kernel crashed: %s" % (b, res[b]["crash"][-500:]), file=sys.stderr)
    return {"notebook": os.path.basename(path), "cells": report,
            "match": sum(r["match"] for r in report), "total": len(report)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("notebooks", nargs="+")
    p.add_argument("--tf-python", default=os.path.expanduser("~/.cache/fn/tfref/bin/python"))
    p.add_argument("--fn-python", default=os.path.join(ROOT, ".venv-test", "bin", "python"))
    p.add_argument("--fn-path", default=os.path.join(ROOT, "python"),
                   help="the folder holding the fn package")
    p.add_argument("--timeout", type=int, default=120, help="seconds per cell")
    p.add_argument("--cache", default=os.path.expanduser("~/.cache/fn/nb_diff"),
                   help="where TensorFlow's outputs are kept between runs ('' to disable)")
    p.add_argument("--fn-run", action="store_true",
                   help="run fn's side unchanged under `python -m fn.run` (import tensorflow is fn)")
    p.add_argument("--show", action="store_true", help="print the differing cells")
    p.add_argument("--json", help="write the full report here")
    args = p.parse_args(argv)

    base = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONHASHSEED="0")
    envs = {"tf": dict(base),
            "fn": dict(base, PYTHONPATH=args.fn_path + os.pathsep
                       + base.get("PYTHONPATH", ""))}
    reports = []
    for nb in args.notebooks:
        r = diff_notebook(nb, args, envs)
        reports.append(r)
        print("%-28s %3d / %3d cells match" % (r["notebook"], r["match"], r["total"]))
        if args.show:
            for c in r["cells"]:
                if not c["match"]:
                    print("---- cell %d\n%s\n-- tf:\n%s\n-- fn:\n%s\n" % (
                        c["cell"], c["source"], c["tf"], c["fn"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(reports, f, indent=1)
    total = sum(r["match"] for r in reports), sum(r["total"] for r in reports)
    print("%-28s %3d / %3d" % ("total", *total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
