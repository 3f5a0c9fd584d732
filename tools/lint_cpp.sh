#!/usr/bin/env bash
# C++ linters over cpp/ and tests_cpp/: clang-format (.clang-format; whitespace only) and
# clang-tidy (the small set in .clang-tidy, e.g. no function over 150 lines). Both come from
# Debian (clang-format, clang-tidy; tools/test.sh installs them). clang-tidy reads the compile
# commands of a configured build tree: tools/lint_cpp.sh [BUILD_DIR] (default build/test).
# tools/lint_cpp.sh --fix rewrites the sources in the project's format instead of checking.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t sources < <(find cpp tests_cpp -name '*.cpp' -o -name '*.h' | sort)
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${sources[@]}"
  exit 0
fi
echo "== clang-format"
clang-format --dry-run --Werror "${sources[@]}"
BUILD=${1:-build/test}
echo "== clang-tidy ($BUILD/compile_commands.json)"
mapfile -t units < <(find "$PWD/cpp" -name '*.cpp' | sort)
run-clang-tidy -quiet -p "$BUILD" -j "$(nproc)" "${units[@]}" > "$BUILD/clang-tidy.log" 2>&1 || {
  grep -E 'error:|warning:' -A3 "$BUILD/clang-tidy.log" | head -100
  echo "clang-tidy found problems (full log: $BUILD/clang-tidy.log)"
  exit 1
}
