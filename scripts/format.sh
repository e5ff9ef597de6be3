#!/usr/bin/env bash
# Formats weir's C++ sources with .clang-format (clang-format 14, Debian 12's: other versions
# format some constructs differently, so CI and developers use the same one).
#   bash scripts/format.sh          rewrite every tracked .cpp/.h in place
#   bash scripts/format.sh --check  list the files that are not formatted; exit 1 if any
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fmt="${CLANG_FORMAT:-clang-format-14}"
command -v "$fmt" >/dev/null || { echo "format.sh: $fmt not found (apt-get install clang-format-14)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh')
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in "${files[@]}"; do
    if ! "$fmt" --style=file "$f" | cmp -s - "$f"; then echo "not formatted: $f"; bad=1; fi
  done
  [ $bad -eq 0 ] && echo "format.sh: ${#files[@]} files formatted"
  exit $bad
fi
printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$fmt" --style=file -i
