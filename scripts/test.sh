#!/usr/bin/env bash
# Builds fdp (Release, ./build) and runs the whole test suite with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# (FDP_CMAKE_ARGS: extra configure flags; CI passes -DFDP_BUILD_BENCH=OFF,
# the benchmarks being no part of the tests)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${FDP_CMAKE_ARGS:-} > /dev/null
cmake --build build -j"$(nproc)" 2>&1 | grep -E "error|warning: unused|Error" || true
cmake --build build -j"$(nproc)" > /dev/null
cd build
ctest -j"$(nproc)" --output-on-failure --timeout 300
