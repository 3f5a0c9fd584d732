#!/usr/bin/env bash
# Installs fn into a fresh virtualenv and runs the main job: the guide's notebooks, executed
# headlessly; executed copies (with outputs) land in notebooks/executed/.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${FN_VENV:-.venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q ".[onnx,keras]" nbformat nbclient ipykernel   # onnx: notebook 04 serves on ONNX Runtime; keras: the guide's tf.keras
(cd examples && "../$VENV/bin/python" main_job.py)
"$VENV/bin/python" tools/run_notebooks.py
