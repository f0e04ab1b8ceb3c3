#!/usr/bin/env bash
# Builds fdp with AddressSanitizer + UndefinedBehaviorSanitizer (./build-asan,
# -DFDP_SANITIZE=ON: every finding aborts the process, so the test fails) and
# runs the whole test suite under them: every test binary, the CLI tests on
# the sanitized fdp binary, the find_package consumer. Called by .ci/run
# after ./scripts/test.sh.
#
# To stay within CI time on 2 cores: -O1 (the usual sanitizer setting),
# benchmarks not built, and the size knobs of the long sweeps turned down
# (FDP_SWEEP_CASES, FDP_SWEEP_QUICK); each sweep still runs, on fewer cases.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs="${JOBS:-$(nproc)}"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1" \
  -DFDP_SANITIZE=ON -DFDP_BUILD_BENCH=OFF > /dev/null
if ! cmake --build build-asan -j"$jobs" > build-asan/build.log 2>&1; then
  grep -E "error|Error" build-asan/build.log | head -40
  exit 1
fi
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:check_initialization_order=1:strict_init_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0"  # (the CLI tests expect one line on stderr)
export FDP_SWEEP_CASES="${FDP_SWEEP_CASES:-100}"  # compose_soundness_test (default 300)
export FDP_SWEEP_QUICK=1                              # extreme_sweep_test: fewer compositions
export FDP_SUBSAMPLED_CASES="${FDP_SUBSAMPLED_CASES:-20}"  # subsampled_sweep_test (default 60)
export FDP_LEDGER_TEST_ADDS="${FDP_LEDGER_TEST_ADDS:-500}"  # budget_ledger_test (default 1500)
cd build-asan
# The six longest CLI tests run in the Release pass (scripts/test.sh) only:
# here they took 500 s of the 30-minute budget, and the library code they
# drive (every spec kind, compose, the budgets, the ledger, JSON output)
# runs under the sanitizers in the library tests and the other CLI tests.
# plots and json_contract are Python work around fdp's output; spec_table,
# compose, budget and ledger_concurrency repeat commands the other CLI
# tests and the budget_* library tests run.
ctest -j"$jobs" --output-on-failure --timeout 900 \
  -E '^cli\.test_(spec_table|plots|json_contract|ledger_concurrency|compose|budget)$'
