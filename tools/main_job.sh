#!/usr/bin/env bash
# Installs fn into a fresh virtualenv and runs the main job: the guide's examples.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${FN_VENV:-.venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q .
cd examples && "../$VENV/bin/python" main_job.py
