#!/usr/bin/env bash
# format-check.sh [ROOT]: fails when a C file of the tree is not clang-formatted (.clang-format),
# which includes the one brace rule: every if/else/for/while/do body is braced (InsertBraces,
# clang-format 15 or newer; Debian 12 ships clang-format-16).
# `make test` and the ctest test `format_check` run it; `make format` fixes what it reports.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.c' '*.h')
else
    mapfile -t files < <(find src include tests tools bench fuzz examples -name '*.[ch]' 2>/dev/null)
fi
cf="${CLANG_FORMAT:-clang-format-16}"
command -v "$cf" >/dev/null || { echo "format-check: $cf not found (scripts/install-deps.sh)" >&2; exit 1; }
if ! "$cf" --dry-run --Werror "${files[@]}"; then
    echo "format-check: run 'make format' (clang-format-16 -i on the files above)" >&2
    exit 1
fi
