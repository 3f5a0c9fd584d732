#!/usr/bin/env bash
# The sanitizer job: builds the extension with -fsanitize=address,undefined (build/asan, its own
# CMake tree), then runs pytest and the fuzz test against it. Any ASan or UBSan report fails
# the run (UBSan halts on its first report; ASan always does).
#
#   bash tools/sanitize.sh                 # pytest (minus slow folders) + FN_FUZZ_CASES fuzz cases
#   bash tools/sanitize.sh core/ function/ # pytest on these paths (relative to tests_py) only
#
# Python is not built with ASan, so libasan (and libstdc++, so exceptions thrown across the
# interposed runtime keep working) are preloaded; CPython's own allocations are not leaks.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${FN_TEST_VENV:-.venv-test}
PY="$PWD/$VENV/bin/python"
BUILD=build/asan
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  "$VENV/bin/cmake" -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
    -DCMAKE_CXX_FLAGS="-O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize=vptr" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF \
    -DFN_BUILD_PYTHON=ON -DFN_BUILD_TESTS=OFF -DPython_EXECUTABLE="$PY" >/dev/null
fi
echo "== sanitizer build ($BUILD)"
"$VENV/bin/cmake" --build "$BUILD" -j"${FN_JOBS:-2}"

# A copy of the package whose _core is the sanitized extension (the source tree keeps its own).
PKG="$BUILD/pkg"
rm -rf "$PKG" && mkdir -p "$PKG"
cp -r python/fn "$PKG/fn"
rm -f "$PKG"/fn/_core*.so
ln -sf "$PWD/$(ls "$BUILD"/_core*.so)" "$PKG/fn/"

export LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(g++ -print-file-name=libstdc++.so)"
# Reports go to files (pytest captures stderr, and a halted process loses its capture).
REPORTS="$PWD/$BUILD/reports"
rm -rf "$REPORTS" && mkdir -p "$REPORTS"
# Allocations past 4 GB fail (as RLIMIT_AS makes them fail in the fuzz test without ASan):
# filling a 16 GB tensor under ASan takes minutes.
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=4096:handle_segv=1:print_summary=1:log_path=$REPORTS/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$REPORTS/ubsan"
export PYTHONPATH="$PWD/$PKG"
export FN_FUZZ_NO_RLIMIT=1   # ASan reserves terabytes of address space: no RLIMIT_AS
export FN_FUZZ_CASES="${FN_FUZZ_CASES:-1000}"
cd tests_py
if [ $# -gt 0 ]; then
  paths=("$@")
else
  # CI's representative subset: the folders that drive the C++ core (kernels, graphs, executor,
  # tapes, control flow, shape rules, the new linalg/random ops) and the fuzz test. The rest
  # (guide, notebooks, tnp, ExtensionTypes, tf.data, real Keras, mpirun tests) is Python over the
  # same ops: `bash tools/sanitize.sh .` runs everything before stopping.
  paths=(core function control_flow math nn shape autodiff linalg random variables sparse ragged fuzz)
fi
echo "== pytest under ASan/UBSan"
status=0
"$PY" -m pytest -q -p no:cacheprovider -x "${paths[@]}" || status=$?
# Real reports only (ASan also logs warnings, e.g. when it refuses a 2**62-byte allocation).
if grep -lE "ERROR: AddressSanitizer|runtime error:" "$REPORTS"/* >/dev/null 2>&1; then
  echo "== sanitizer reports"
  grep -lE "ERROR: AddressSanitizer|runtime error:" "$REPORTS"/* | xargs cat
  status=1
fi
exit $status
