"""Executes notebooks/04_train_save_serve.ipynb: fit with a visible progress bar, checkpoint
and restore, a SavedModel served by a fresh process, and ONNX Runtime agreeing with fn."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def test_notebook_is_current() -> None:
    sys.path.insert(0, str(NOTEBOOKS))
    import build_04_train_save_serve as build
    assert (NOTEBOOKS / f"{build.STEM}.ipynb").read_text(encoding="utf-8") == build.render(), \
        "04_train_save_serve.ipynb is stale: run notebooks/build_04_train_save_serve.py"


def test_notebook_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("onnxruntime")
    import nbformat
    from nbclient import NotebookClient
    nb = nbformat.read(NOTEBOOKS / "04_train_save_serve.ipynb", as_version=4)
    import fn   # the kernel imports the fn these tests import (source tree or installed)
    env_path = os.path.dirname(os.path.dirname(fn.__file__))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([env_path, os.environ.get("PYTHONPATH", "")]))
    NotebookClient(nb, timeout=900, kernel_name=os.environ.get("FN_NOTEBOOK_KERNEL", "python3"),
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    text = []
    for cell in nb.cells:
        # A busy kernel may split one print into several stream outputs: join streams as written.
        streams = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        text.append(streams)
        for o in cell.get("outputs", []):
            if o.get("output_type") != "stream":
                text.append("".join(o.get("data", {}).get("text/plain", "")))
    out = "\n".join(text)
    assert "Epoch 1/8" in out and "━" in out and "val_accuracy" in out      # progress was visible
    assert 'Model: "moons"' in out
    assert "traces of the train step: 1" in out
    assert "restored model agrees: True" in out
    assert "fresh process agrees: True" in out
    assert "served ['output_0'] from a process without the model's code" in out
    assert "onnxruntime agrees: True" in out
    acc = float(out.split("final accuracy:")[1].split()[0])
    assert acc > 0.9
