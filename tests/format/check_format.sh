#!/usr/bin/env bash
# Every C++ and CUDA source of the repository against .clang-format (DEVELOPERS.md, "Style").
# Prints the files that clang-format would change and exits 1 if there are any.
# Usage: check_format.sh SOURCE_DIR [CLANG_FORMAT]
set -uo pipefail
source_dir="$1"
clang_format="${2:-clang-format}"
cd "$source_dir" || exit 2
if ! command -v "$clang_format" > /dev/null; then
  echo "check_format: $clang_format is not installed (scripts/setup.sh installs it)" >&2
  exit 2
fi
# The tracked files where this is a git checkout, else every source outside build folders.
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.h' '*.cpp' '*.cu' '*.cuh')
else
  mapfile -t files < <(find core app views plugins tests bench -type f \
    \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) | sort)
fi
unformatted=()
for file in "${files[@]}"; do
  [[ -f "$file" ]] || continue
  if ! "$clang_format" --dry-run -Werror "$file" > /dev/null 2>&1; then unformatted+=("$file"); fi
done
if (( ${#unformatted[@]} )); then
  echo "${#unformatted[@]} of ${#files[@]} files are not formatted; run: clang-format -i FILE" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files match .clang-format ($("$clang_format" --version))"
