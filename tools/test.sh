#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs Catch2 (ctest), pytest and
# the notebooks. Used by the README and by .ci/run. Arguments are passed to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
dpkg -s catch2 >/dev/null 2>&1 || need_apt+=(catch2)
command -v dot >/dev/null 2>&1 || need_apt+=(graphviz)
command -v clang-format >/dev/null 2>&1 || need_apt+=(clang-format)
command -v run-clang-tidy >/dev/null 2>&1 || need_apt+=(clang-tidy)
# Open MPI: fn._mpi is built where its headers are found; the multi-worker tests run mpirun.
command -v mpirun >/dev/null 2>&1 || need_apt+=(openmpi-bin)
dpkg -s libopenmpi-dev >/dev/null 2>&1 || need_apt+=(libopenmpi-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ "${1:-}" = "--against-tf" ]; then
  # The differential layer: the tf_oracle behaviour tests under TensorFlow 2.21 (own venv).
  shift
  TFPY=$(bash tools/tf_reference.sh)
  cd tests_py
  exec "$TFPY" -m pytest -q -p no:cacheprovider --against-tf "$@"
fi

VENV=${FN_TEST_VENV:-.venv-test}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
# The venv's own interpreter, not its symlink target: the build must see the venv's packages.
PY="$VENV/bin/python"
"$PY" -m pip install -q --upgrade pip
"$PY" -m pip install -q -r requirements-build.txt -r requirements-test.txt

echo "== lint (ruff, mypy)"
# Configured in pyproject.toml: ruff's rules and formatter, mypy on python/fn.
"$VENV/bin/ruff" check python/fn
"$VENV/bin/ruff" format --check python/fn
"$VENV/bin/mypy"

# One CMake tree builds the extension and the Catch2 tests (the cpp/ layer libraries compiled once); pip's build
# isolation is off so the tests' rpath names the venv's libdnnl, which outlives the build.
BUILD=build/test
echo "== build ($BUILD)"
"$PY" -m pip install -q --no-build-isolation --force-reinstall --no-deps \
  -C build-dir="$BUILD" -C cmake.define.FN_BUILD_TESTS=ON .

echo "== C++ linters"
bash tools/lint_cpp.sh "$BUILD"

echo "== Catch2 (ctest)"
"$VENV/bin/ctest" --test-dir "$BUILD" --output-on-failure

echo "== pytest"
# Run from a folder outside the source tree so `import fn` is the installed package.
cd tests_py
"../$PY" -m pytest -q -p no:cacheprovider "$@"

# The sanitizer job (issue 12): the extension built with ASan/UBSan (build/asan), pytest and the
# fuzz test under it. Full CI runs only (no pytest arguments); FN_SKIP_SANITIZE=1 skips it.
if [ $# -eq 0 ] && [ -z "${FN_SKIP_SANITIZE:-}" ]; then
  cd .. && bash tools/sanitize.sh
fi
