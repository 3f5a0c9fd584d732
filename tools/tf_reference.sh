#!/usr/bin/env bash
# Makes the TensorFlow reference venv once (tensorflow-cpu 2.21, separate from fn's venvs) and
# prints its python. Behaviour tests run under it with `bash tools/test.sh --against-tf`.
# Location: $FN_TF_VENV, default ~/.cache/fn/tfref (shared by every clone on the machine).
set -euo pipefail
VENV=${FN_TF_VENV:-$HOME/.cache/fn/tfref}
if ! "$VENV/bin/python" -c "import tensorflow" >/dev/null 2>&1; then
  mkdir -p "$(dirname "$VENV")"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip >&2
  "$VENV/bin/python" -m pip install -q "tensorflow-cpu==2.21.*" pytest hypothesis nbformat nbclient ipykernel >&2
fi
echo "$VENV/bin/python"
