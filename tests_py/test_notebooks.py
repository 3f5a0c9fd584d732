"""Execute the guide notebooks headlessly and check every cell's output.

Each notebook in ``notebooks/`` is run with ``nbclient`` on the ``python3``
kernel. Code cells carry ``metadata.fn_guide.example``; the outputs of an
example's cells are normalised with the guide harness and checked against the
same expected lines as ``tests_py/guide`` (``EXPECTED`` in ``test_[1-5]_*.py``).
A kernel keeps stdout and stderr in separate buffers, so here the order is
checked within each stream (see ``harness.check_notebook_example``). The set-up
cells (``0.x``) must run without error; their output is not checked.

The notebook tests are xfail-strict through ``tests_py/guide/xfail.txt``
(ids ``test_notebook_<stem>``), like the guide tests. The kernel is
``python3`` unless ``FN_NOTEBOOK_KERNEL`` names another kernelspec.
"""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "tests_py" / "guide"
NOTEBOOKS = ROOT / "notebooks"
for _p in (GUIDE, NOTEBOOKS):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import harness  # noqa: E402
import snippets  # noqa: E402

GUIDE_TEST_MODULES = ("test_1_basics", "test_2_tracing", "test_3_autograph",
                      "test_4_limitations", "test_5_blog")
XFAIL = harness.load_xfail_ids(GUIDE / "xfail.txt")


def expected_by_example() -> dict[str, harness.Expected]:
    """The guide tests' ``EXPECTED`` tables, merged (they never import fn)."""
    table: dict[str, harness.Expected] = {}
    for name in GUIDE_TEST_MODULES:
        table.update(importlib.import_module(name).EXPECTED)
    return table


def _xfail_if_listed(test_id: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        if test_id in XFAIL:
            return pytest.mark.xfail(strict=True, reason="not implemented yet")(fn)
        return fn
    return mark


def run_notebook(stem: str) -> None:
    """Execute ``notebooks/<stem>.ipynb`` and check each example's output."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    # allow_errors: run every cell, so one run reports every example that fails.
    NotebookClient(nb, timeout=900, kernel_name=os.environ.get("FN_NOTEBOOK_KERNEL", "python3"),
                   allow_errors=True,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    per_example: dict[str, list[tuple[list[str], list[str]]]] = {}
    failures: list[str] = []
    for cell in nb.cells:
        picture = cell.get("metadata", {}).get("fn_picture")
        if cell.cell_type == "code" and picture:
            # A graph shown as a picture: the cell's result must be rendered as SVG.
            if not any("image/svg+xml" in o.get("data", {}) for o in cell.get("outputs", [])):
                failures.append(f"{stem}: the picture after example {picture['after']} made no SVG: "
                                f"{cell.get('outputs')}")
            continue
        meta = cell.get("metadata", {}).get("fn_guide")
        if cell.cell_type != "code" or not meta:
            continue
        outputs = cell.get("outputs", [])
        for o in outputs:
            if o.get("output_type") == "error":
                failures.append(f"{stem}: example {meta['example']} cell {meta['cell']} raised "
                                f"{o.get('ename')}: {o.get('evalue')}")
        per_example.setdefault(meta["example"], []).append(harness.notebook_cell_streams(outputs))
    expected = expected_by_example()
    checked = 0
    for ex_id, cells in per_example.items():
        if ex_id.startswith("0.") or any(f": example {ex_id} cell " in f for f in failures):
            continue
        try:
            harness.check_notebook_example(cells, expected[ex_id], f"{stem}: example {ex_id}")
            checked += 1
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "\n\n".join(failures)
    assert checked > 0, f"{stem}: no example was checked"


@_xfail_if_listed("test_notebook_01_basics_and_tracing")
def test_notebook_01_basics_and_tracing() -> None:
    run_notebook("01_basics_and_tracing")


@_xfail_if_listed("test_notebook_02_autograph")
def test_notebook_02_autograph() -> None:
    run_notebook("02_autograph")


@_xfail_if_listed("test_notebook_03_limitations")
def test_notebook_03_limitations() -> None:
    run_notebook("03_limitations")


def test_notebooks_are_built_from_the_snippets() -> None:
    """The committed notebooks equal what ``build_notebooks.py`` makes, hold no
    outputs, cover every SPEC example once, and order each example after the
    examples it needs."""
    import build_notebooks
    import nbformat

    seen: list[str] = []
    for stem in build_notebooks.NOTEBOOKS:
        path = NOTEBOOKS / f"{stem}.ipynb"
        assert path.read_text(encoding="utf-8") == build_notebooks.render(stem), \
            f"{path.name} is stale: run notebooks/build_notebooks.py"
        nb = nbformat.read(path, as_version=4)
        order: list[str] = []
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            assert cell.outputs == [] and cell.execution_count is None
            if "fn_picture" in cell.metadata:
                continue
            ex_id = cell.metadata["fn_guide"]["example"]
            if ex_id not in order:
                for dep in snippets.EXAMPLES[ex_id].needs:
                    assert dep in order, f"{stem}: {ex_id} needs {dep} earlier"
                order.append(ex_id)
        seen += [i for i in order if not i.startswith("0.")]
    assert seen == [e.id for e in snippets.guide_examples()]
    assert set(seen) <= set(expected_by_example())


def test_notebook_outputs_are_read_like_the_harness_output() -> None:
    """A plain-Python notebook (no fn) through the same pipeline: streams,
    displayed values, condensed tracebacks, cross-stream order not required."""
    import nbformat
    from nbclient import NotebookClient

    helper = snippets.EXAMPLES["0.2"].cells[0]
    code = ("import sys\nprint('out 1')\nprint('err 1', file=sys.stderr)\n"
            "with assert_raises(ValueError):\n  raise ValueError('bad ' + 'value')\n"
            "print('tf.Tensor(1, shape=(), dtype=int32)')\n40 + 2\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(helper), nbformat.v4.new_code_cell(code)]
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    out, err = harness.notebook_cell_streams(nb.cells[1].outputs)
    assert out == ["out 1", "Caught expected exception", "  <class 'ValueError'>:",
                   "fn.Tensor(1, shape=(), dtype=int32)", "42"]
    assert err == ["err 1", "ValueError: bad value"]
    harness.check_notebook_example([(out, err)], [
        "out 1", "err 1", "Caught expected exception", "  <class 'ValueError'>:",
        harness.Raises("ValueError", "bad value"), "fn.Tensor(1, shape=(), dtype=int32)", "42",
    ], "plain notebook")
    with pytest.raises(AssertionError):
        harness.check_notebook_example([(out, err)], ["out 1"], "plain notebook")
