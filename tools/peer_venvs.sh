#!/usr/bin/env bash
# Makes the peer venvs the model benchmarks compare against (benchmarks/bench_models.py):
#   ~/.cache/fn/jax    JAX (jax + jaxlib, CPU)
#   ~/.cache/fn/torch  PyTorch 2.13.0 CPU (pinned: plain `torch` pulls GPU packages)
# TensorFlow's venv (~/.cache/fn/tfref) comes from tools/tf_reference.sh. Idempotent: a venv whose
# import works is left alone. Usage: bash tools/peer_venvs.sh [jax|torch ...]
set -euo pipefail
root="${FN_CACHE:-$HOME/.cache/fn}"
py="${PYTHON:-python3}"
want=("$@")
[ ${#want[@]} -eq 0 ] && want=(jax torch)

make_venv() {   # name, import check, pip args...
  local name="$1" check="$2"; shift 2
  local dir="$root/$name"
  if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "$check" >/dev/null 2>&1; then
    echo "$name: ready ($dir)"; return
  fi
  "$py" -m venv "$dir"
  "$dir/bin/python" -m pip install -q --upgrade pip
  "$dir/bin/python" -m pip install -q "$@" numpy
  "$dir/bin/python" -c "$check"
  echo "$name: installed ($dir)"
}

for w in "${want[@]}"; do
  case "$w" in
    jax) make_venv jax "import jax, jax.numpy" jax jaxlib ;;
    torch) make_venv torch "import torch" torch==2.13.0 ;;
    *) echo "unknown peer: $w" >&2; exit 2 ;;
  esac
done
