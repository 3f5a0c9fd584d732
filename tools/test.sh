#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs Catch2 (ctest), pytest and
# the notebooks. Used by the README and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! dpkg -s catch2 >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq catch2 >/dev/null
fi
if ! command -v dot >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq graphviz >/dev/null || true
fi

VENV=${FN_TEST_VENV:-.venv-test}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
PY="$VENV/bin/python"
"$PY" -m pip install -q --upgrade pip
"$PY" -m pip install -q -r requirements-test.txt
"$PY" -m pip install -q .

echo "== Catch2 (ctest)"
cmake -S . -B build/tests -DFN_BUILD_TESTS=ON -DFN_BUILD_PYTHON=OFF \
  -DPython_EXECUTABLE="$(realpath "$PY")" >/dev/null
cmake --build build/tests -j2 >/dev/null
ctest --test-dir build/tests --output-on-failure

echo "== pytest"
# Run from a folder outside the source tree so `import fn` is the installed package.
cd tests_py
"../$PY" -m pytest -q -p no:cacheprovider "$@"
