#!/usr/bin/env bash
# Fails when a C++ file of the repository is not formatted by .clang-format
# (clang-format from scripts/install-deps.sh). Fix with:
#   git ls-files '*.cpp' '*.hpp' '*.h' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
CF=${CLANG_FORMAT:-clang-format}
if ! command -v "$CF" >/dev/null; then
  echo "check-format: $CF not found (scripts/install-deps.sh installs it); skipped" >&2
  exit 0
fi
bad=$(git ls-files '*.cpp' '*.hpp' '*.h' | while read -r f; do
  "$CF" --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"
done)
if [ -n "$bad" ]; then
  echo "check-format: not formatted by .clang-format:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "check-format: every C++ file is formatted"
