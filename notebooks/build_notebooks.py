"""Build the guide notebooks from the test snippets (saved without outputs).

Usage: ``python notebooks/build_notebooks.py`` (write) or ``--check`` (exit 1
if a notebook on disk differs from what would be built).

The code cells are the cells of ``tests_py/guide/snippets.py`` (the guide's
code with ``import fn as tf``), so tests and notebooks never drift apart. Each
code cell carries ``metadata.fn_guide = {"example": "2.5", "cell": 0}`` so that
``tests_py/test_notebooks.py`` can check its output against the same expected
lines as the guide tests. Probe cells (test-only) are not included. The prose
is ours: a short note per example on what it shows.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import nbformat

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests_py" / "guide"))

import snippets  # noqa: E402

NOTEBOOKS: dict[str, dict[str, Any]] = {
    "01_basics_and_tracing": {
        "title": "fn.function, part 1: basics and tracing",
        "intro": ("This notebook walks through the first half of TensorFlow's guide *Better "
                  "performance with tf.function*, running every example on `fn`, a "
                  "reimplementation of `tf.function`. The code is the guide's own; only the "
                  "import changes (`import fn as tf`)."),
        "setup": ["0.1", "0.2"],
        "sections": ["1", "2"],
    },
    "02_autograph": {
        "title": "fn.function, part 2: AutoGraph",
        "intro": ("How Python control flow (`while`, `for`, `if`) on tensors becomes graph "
                  "control flow, and why loops over Python data grow the graph."),
        "setup": ["0.1"],
        "sections": ["3"],
    },
    "03_limitations": {
        "title": "fn.function, part 3: limitations and pitfalls",
        "intro": ("What does not behave like plain Python inside a Function: side effects, "
                  "iterators, leaked tensors, recursion, globals, mutable objects and "
                  "variables. The last section replays the examples of a short blog post on "
                  "the same rules."),
        "setup": ["0.1", "0.2"],
        "sections": ["4", "5"],
    },
}

# Cells that show a graph as a picture (beyond the guide): after the example named, the code
# runs and its output must be an SVG (checked by tests_py/test_notebooks.py).
PICTURES: dict[str, tuple[str, str]] = {
    "2.15": ("The same graph as a picture (fn renders a concrete function's graph as SVG):",
             "double_strings.graph"),
    "3.3": ("The traced `fizzbuzz`: the `for` loop is one `While` node whose body holds the "
            "`If` nodes of the branches, drawn as nested clusters:",
            "fizzbuzz.get_concrete_function(tf.constant(5)).graph"),
}

SECTIONS = {
    "0": "Setup",
    "1": "1. Basics",
    "2": "2. Tracing",
    "3": "3. AutoGraph",
    "4": "4. Limitations",
    "5": "5. Rules of thumb from a blog post",
}

ABOUT: dict[str, str] = {
    "0.1": "Import `fn` under the name the guide uses, so its code runs as written.",
    "0.2": ("A small context manager used below: it runs a block that is expected to fail, "
            "prints which error was caught and a short traceback."),
    "1.1": ("Decorating a Python function turns it into a `Function`. Calling it looks just "
            "like calling an eager op: tensors in, an eager tensor out."),
    "1.2": "Gradients flow through a `Function` as through any other op.",
    "1.3": "A `Function` may call another one; the inner one becomes part of the outer graph.",
    "1.4": ("A graph saves Python overhead per op. When a single heavy op (a convolution) "
            "dominates, the eager and graph timings are close."),
    "2.1": ("The first call with a new kind of input *traces* the Python body: `print` runs "
            "and sees symbolic tensors. Each dtype gets its own trace."),
    "2.2": "A call whose inputs match an existing trace skips Python entirely.",
    "2.3": "Every trace so far, with its argument and result types.",
    "2.4": ("How inputs are grouped into traces (these cells are ours: the guide states the "
            "rules in prose). Tensors by dtype and shape, Python values by value, containers "
            "by their contents, variables by identity, other objects by equality while they "
            "are alive; the most specific matching trace wins."),
    "2.5": ("An `input_signature` fixes the accepted inputs: one trace, and inputs that do "
            "not fit are rejected."),
    "2.6": "`None` in a signature's shape accepts any size along that axis, without retracing.",
    "2.7": ("Python numbers are part of the trace key, so every new value retraces. Passing "
            "tensors instead reuses one trace."),
    "2.8": "Each `tf.function(...)` call creates a fresh `Function` with its own traces.",
    "2.9": ("Plain objects are keyed through weak references, so new instances retrace. A "
            "class can instead describe its own trace type with `__tf_tracing_type__`."),
    "2.10": ("`get_concrete_function` returns one trace as a callable, from example values or "
             "from `TensorSpec`s."),
    "2.11": "Printing a concrete function summarises its signature.",
    "2.12": "The same signature, as structured input specs and output tensors.",
    "2.13": "A concrete function accepts only what it was traced for.",
    "2.14": ("Python arguments stay in a concrete function's signature, fixed to their traced "
             "value; a different value is an error."),
    "2.15": "The graph behind a concrete function, node by node.",
    "2.16": ("Two debugging switches (cells ours, the guide describes them): running every "
             "Function eagerly, and checking every op's output for NaN or infinity."),
    "3.1": ("A `while` whose condition is a tensor becomes a graph loop; `tf.print` inside it "
            "runs on every iteration. The start is random, so the numbers differ per run."),
    "3.2": "The Python source AutoGraph generated for that loop.",
    "3.3": ("A tensor-dependent `if` traces *every* branch once (all the `print`s appear on "
            "the first call); the graph then picks the branch at run time."),
    "3.4": ("A `for` over a Python list is unrolled while tracing, so the graph grows with the "
            "data. Over a dataset the loop stays a single graph loop."),
    "3.5": "Collect values produced inside a graph loop with a `TensorArray`, not a Python list.",
    "4.1": ("Python side effects happen only while tracing; `tf.print` runs on every call. "
            "`tf.py_function` runs Python on every call too."),
    "4.2": "Appending to a Python list from a Function happens once, at trace time.",
    "4.3": ("A Python counter is read once, while tracing, so the guarded op runs on every "
            "call. `tf.init_scope` runs the block outside the graph, once."),
    "4.4": ("`next()` on a Python iterator is a trace-time side effect; a dataset iterator "
            "advances on every call."),
    "4.5": ("Tensors created inside a Function and stored outside (a global, a list, an "
            "attribute) are graph tensors: they have no value and cannot be used elsewhere."),
    "4.6": ("Recursion on tensors does not terminate while tracing; recursion on Python "
            "values works but traces once per level."),
    "4.7": ("Globals are captured by value when tracing: later changes are not seen. Pass "
            "values as arguments, or keep the state in a Variable."),
    "4.8": ("Changing an attribute of an object that was passed in does not retrace. Rebuild "
            "the concrete function, or keep the state in Variables."),
    "4.9": ("A Function may create Variables only on its first call; create them once (for "
            "example lazily when still `None`)."),
    "4.10": ("An optimizer creates its slot variables on first use, so a second optimizer in "
             "the same Function fails. One concrete function per optimizer works."),
    "4.11": ("A concrete function does not keep captured Variables alive; calling it after "
             "the variable is gone is an error (from an older version of the guide)."),
    "5.1": ("NumPy runs at trace time, so its random numbers are frozen into the graph; "
            "`tf.random` ops give new numbers on every call."),
    "5.2": "Create Variables outside and update them inside: every call sees the new value.",
    "5.3": ("A Python list outside is appended to once, with a symbolic tensor; `tf.print` of "
            "it shows the current value on each call."),
    "5.4": ("Same input types reuse the graph (no `finish`); a new dtype retraces; Python "
            "strings retrace for every new value."),
}


def _cell_id(ex_id: str, k: int, kind: str) -> str:
    return f"{kind}-{ex_id.replace('.', '-')}-{k}"


def build(stem: str) -> nbformat.NotebookNode:
    """The notebook ``stem`` (cells only, no outputs)."""
    spec = NOTEBOOKS[stem]
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    cells = [nbformat.v4.new_markdown_cell(f"# {spec['title']}\n\n{spec['intro']}",
                                           id=f"md-{stem[:2]}-title")]
    examples = [snippets.EXAMPLES[i] for i in spec["setup"]]
    examples += [e for e in snippets.guide_examples() if e.id.split(".")[0] in spec["sections"]]
    section = None
    for ex in examples:
        sec = ex.id.split(".")[0]
        if sec != section:
            section = sec
            cells.append(nbformat.v4.new_markdown_cell(f"## {SECTIONS[sec]}",
                                                       id=f"md-section-{stem[:2]}-{sec}"))
        cells.append(nbformat.v4.new_markdown_cell(
            f"### {ex.id} {ex.title}\n\n{ABOUT[ex.id]}", id=_cell_id(ex.id, 0, "md")))
        for k, code in enumerate(ex.cells):
            cell = nbformat.v4.new_code_cell(code.rstrip("\n"), id=_cell_id(ex.id, k, "code"))
            cell.metadata = {"fn_guide": {"example": ex.id, "cell": k}}
            cells.append(cell)
        if ex.id in PICTURES:
            text, code = PICTURES[ex.id]
            cells.append(nbformat.v4.new_markdown_cell(text, id=_cell_id(ex.id, 0, "picture-md")))
            pic = nbformat.v4.new_code_cell(code, id=_cell_id(ex.id, 0, "picture"))
            pic.metadata = {"fn_picture": {"after": ex.id}}
            cells.append(pic)
    nb.cells = cells
    nbformat.validate(nb)
    return nb


def render(stem: str) -> str:
    """The notebook's file contents."""
    return nbformat.writes(build(stem)) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check the files are current")
    args = ap.parse_args()
    stale = []
    for stem in NOTEBOOKS:
        path = HERE / f"{stem}.ipynb"
        text = render(stem)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print("out of date (run notebooks/build_notebooks.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
