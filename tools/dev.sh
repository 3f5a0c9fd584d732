#!/usr/bin/env bash
# Development build: a venv (.venv-test, shared with tools/test.sh), one CMake tree (build/dev) holding the extension and the
# Catch2 tests, and python/fn/_core*.so linked to the built extension, so that
#   PYTHONPATH=python .venv-test/bin/python -m pytest tests_py
# tests the source tree without reinstalling. Run again after changing C++ (incremental).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${FN_DEV_VENV:-.venv-test}
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -r requirements-build.txt -r requirements-test.txt
fi
BUILD=build/dev
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  "$VENV/bin/cmake" -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DFN_BUILD_PYTHON=ON -DFN_BUILD_TESTS="${FN_DEV_TESTS:-ON}" \
    -DPython_EXECUTABLE="$PWD/$VENV/bin/python" >/dev/null
fi
"$VENV/bin/cmake" --build "$BUILD" -j"${FN_JOBS:-2}"
so=$(ls "$BUILD"/_core*.so)
ln -sf "$PWD/$so" "python/fn/$(basename "$so")"
# fn._mpi exists where MPI's headers were found (multi-worker collectives).
for mpi_so in "$BUILD"/_mpi*.so; do
  [ -e "$mpi_so" ] && ln -sf "$PWD/$mpi_so" "python/fn/$(basename "$mpi_so")"
done
echo "built $so; run: PYTHONPATH=python $VENV/bin/python -m pytest tests_py"
