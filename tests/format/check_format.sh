#!/usr/bin/env bash
# The C sources follow .clang-format: lists every file clang-format would
# change. Usage: check_format.sh SOURCE_DIR   (exit 77 when clang-format is absent)
set -u
cd "$1" || exit 2
command -v clang-format >/dev/null || { echo "skip: clang-format is not installed"; exit 77; }
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find src include tests examples bench -name '*.[ch]')
bad=0
for f in $files; do
    if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "not formatted: $f (run: clang-format -i $f)"
        bad=$((bad + 1))
    fi
done
echo "clang-format: $bad file(s) to format"
[ "$bad" -eq 0 ]
