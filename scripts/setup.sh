#!/usr/bin/env bash
# One command on a fresh machine: install dependencies (Debian packages),
# build fdp in ./build (with the Python package in ./build/python, made
# importable by /usr/bin/python3 through a .pth file), and run the demo (a
# composed budget and a trade-off plot in ./out). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j"$(nproc)" >> build.log 2>&1 || { tail -50 build.log; exit 1; }
if [ -d build/python/fdp ]; then
  ./scripts/install-python-path.sh
  (cd / && /usr/bin/python3 -c "import fdp") || { echo "setup: import fdp failed" >&2; exit 1; }
fi
./scripts/demo.sh
