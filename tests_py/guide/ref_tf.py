"""Run the guide snippets with real TensorFlow, to check expected lines.

Usage: ``python tests_py/guide/ref_tf.py [--python ~/.cache/fn/tfref/bin/python] [IDS...]``

Each example runs in its own TensorFlow process with ``import fn as tf``
replaced by ``import tensorflow as tf``; stdout and stderr are merged at the
file-descriptor level (TensorFlow's ``tf.print`` writes to the C++ stderr),
the process runs unbuffered, and a marker line separates cells. The output is
normalised with the harness rules and printed per cell, for a human to compare
with the SPEC and the expected lines in the tests. Not used by the tests.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MARK = "@@cell@@"


def child(ex_id: str) -> None:
    """Run one example in this (TensorFlow) process, marking cells."""
    sys.path.insert(0, str(HERE))
    import harness
    import snippets

    setup, own = snippets.cells_with_needs(ex_id)
    probe = list(snippets.EXAMPLES[ex_id].probe)
    ns: dict[str, object] = {"__name__": "__main__"}
    for kind, cells in (("setup", setup), ("cell", own), ("probe", probe)):
        for k, code in enumerate(cells):
            code = code.replace("import fn as tf", "import tensorflow as tf")
            path = harness._write_snippet(code, f"ref_{ex_id}_{kind}_{k}")
            print(f"{MARK} {kind} {k}", flush=True)
            harness.exec_cell(code, ns, path)
            sys.stdout.flush()
            sys.stderr.flush()
    print(f"{MARK} end", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=os.path.expanduser("~/.cache/fn/tfref/bin/python"))
    ap.add_argument("--child")
    ap.add_argument("--raw", action="store_true", help="do not normalise")
    ap.add_argument("ids", nargs="*")
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    sys.path.insert(0, str(HERE))
    import harness
    import snippets

    ids = args.ids or [e.id for e in snippets.guide_examples()]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONUNBUFFERED="1")
    for ex_id in ids:
        proc = subprocess.run([args.python, "-u", __file__, "--child", ex_id],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env=env)
        print(f"===== {ex_id} (exit {proc.returncode})")
        chunks: list[tuple[str, list[str]]] = []
        for line in proc.stdout.split("\n"):
            if line.startswith(MARK):
                chunks.append((line[len(MARK):].strip(), []))
            elif chunks:
                chunks[-1][1].append(line)
            else:
                chunks.append(("preamble", [line]))
        for name, lines in chunks:
            if name.startswith("setup"):
                continue
            if name == "end" and lines == [""]:
                continue
            print(f"--- {name}")
            for ln in (lines if args.raw else harness.normalise(lines)):
                print(ln)


if __name__ == "__main__":
    main()
