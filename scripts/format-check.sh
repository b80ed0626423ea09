#!/usr/bin/env bash
# format-check.sh [ROOT]: fails when a C file of the tree is not clang-formatted (.clang-format).
# `make test` and the ctest test `format_check` run it; `make format` fixes what it reports.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.c' '*.h')
else
    mapfile -t files < <(find src include tests tools bench fuzz examples -name '*.[ch]' 2>/dev/null)
fi
if ! clang-format --dry-run --Werror "${files[@]}"; then
    echo "format-check: run 'make format' (clang-format -i on the files above)" >&2
    exit 1
fi
