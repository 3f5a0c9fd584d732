#!/usr/bin/env bash
# C++ linters over cpp/ and tests_cpp/: clang-format (.clang-format; whitespace only) on every file
# and clang-tidy (the small set in .clang-tidy, e.g. no function over 150 lines). Both come from
# Debian (clang-format, clang-tidy; tools/test.sh installs them). clang-tidy reads the compile
# commands of a configured build tree.
#   tools/lint_cpp.sh [BUILD_DIR]        CI: clang-format everywhere, clang-tidy on a representative
#                                        subset (the passes, the executor, the autodiff and
#                                        function layers, the op registry and the While gradient)
#   tools/lint_cpp.sh --all [BUILD_DIR]  clang-tidy on every cpp/ file (run before stopping: ~20-40 s
#                                        a file on this 2-core machine, too slow for CI)
#   tools/lint_cpp.sh --fix              rewrites the sources in the project's format
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t sources < <(find cpp tests_cpp -name '*.cpp' -o -name '*.h' -o -name '*.inc' | sort)
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${sources[@]}"
  exit 0
fi
all=0
if [ "${1:-}" = "--all" ]; then
  all=1
  shift
fi
echo "== clang-format"
clang-format --dry-run --Werror "${sources[@]}"
BUILD=${1:-build/test}
if [ $all -eq 1 ]; then
  mapfile -t units < <(find "$PWD/cpp" -name '*.cpp' | sort)
else
  mapfile -t units < <(find "$PWD/cpp/passes" "$PWD/cpp/exec" "$PWD/cpp/autodiff" "$PWD/cpp/function" \
                         "$PWD/cpp/ops/registry.cpp" "$PWD/cpp/ops/while_grad.cpp" -name '*.cpp' | sort)
fi
echo "== clang-tidy (${#units[@]} files, $BUILD/compile_commands.json)"
run-clang-tidy -quiet -p "$BUILD" -j "$(nproc)" "${units[@]}" > "$BUILD/clang-tidy.log" 2>&1 || {
  grep -E 'error:|warning:' -A3 "$BUILD/clang-tidy.log" | head -100
  echo "clang-tidy found problems (full log: $BUILD/clang-tidy.log)"
  exit 1
}
