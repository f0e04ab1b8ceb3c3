#!/usr/bin/env bash
# Ledger replay: every `fdp ledger` command reloads the file and replays its
# entries (each distinct guarantee is discretized once, then its transform
# is multiplied into the products). This times `fdp ledger status` on
# ledgers of G distinct subsampled Gaussians (sigma = 0.8 + i/1000 or
# + 3i/1000, q = 0.01, a few applications each), whole process, with
# perf stat -r R (task-clock counts all threads).
#
#   bench/ledger_replay.sh [FDP] [R]      (defaults: build/tools/fdp, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
FDP=${1:-build/tools/fdp}
R=${2:-3}
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
for spec in "100 0.003 10 10" "500 0.001 2 20"; do
  read -r G STEP TIMES BUDGET <<< "$spec"
  L="$TMPD/ledger_$G.json"
  "$FDP" ledger init --budget-eps "$BUDGET" --delta 1e-5 "$L" > /dev/null
  specs=()
  for i in $(seq "$G"); do
    specs+=("subsampled-gaussian:sigma=$(awk -v i="$i" -v s="$STEP" 'BEGIN { printf "%.4f", 0.8 + i * s }'),q=0.01,times=$TIMES")
  done
  "$FDP" ledger add "$L" "${specs[@]}" > /dev/null
  echo "== $G distinct guarantees x $TIMES applications"
  "$FDP" ledger status "$L" | grep spent
  perf stat -r "$R" -e task-clock,page-faults "$FDP" ledger status "$L" 2>&1 > /dev/null |
    grep -E "task-clock|page-faults|elapsed"
done
