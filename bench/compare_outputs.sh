#!/usr/bin/env bash
# Runs the same fdp command lines with two binaries and prints every answer
# that differs (JSON output, timing fields removed): the check that a
# restructuring keeps fdp's brackets bit-identical. The command lines are the
# README's examples, the accounting scenarios (bench/scenarios.sh) and a set
# of queries that reach every path of the engine (asymmetric terms, tilted
# small-delta compositions, staged long repetitions, exact lattices, beta,
# mu, group, calibrate, dpsgd, compare).
# Usage: bench/compare_outputs.sh OLD_FDP NEW_FDP [more command lines file]
# (COMPARE_IGNORE=key1,key2 also drops those JSON keys, e.g. fields one side
# does not print yet)
# Exit 0 when every output is identical, 1 otherwise.
set -uo pipefail
OLD=${1:?usage: compare_outputs.sh OLD_FDP NEW_FDP [file]}
NEW=${2:?usage: compare_outputs.sh OLD_FDP NEW_FDP [file]}
EXTRA=${3:-}
lines=(
  "compose subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062 --delta 1e-5"
  "compose gaussian:sigma=2,times=50 laplace:b=5,times=50 subsampled-gaussian:sigma=1,q=0.01,times=50 --delta 1e-5 --eps 20 --alpha 0.01"
  "compose gdp:mu=1 --alpha 0.05"
  "compose epsdelta:eps=0.1,delta=1e-6,times=100 --delta 1e-3"
  "compose laplace:b=10,times=100 --delta 1e-6 --mu"
  "compose gaussian:sigma=1,times=100 --delta 1e-5"
  "compose laplace:b=10,times=1000 --delta 1e-6"
  "compose subsampled-gaussian:sigma=0.8,q=0.01,times=10000 --delta 1e-5"
  "compose subsampled-gaussian:sigma=1,q=0.01,times=1000 --delta 1e-8 --eps 2.7"
  "compose subsampled-gaussian:sigma=1,q=0.003,times=100 --delta 1e-12"
  "compose subsampled-gaussian:sigma=1,q=0.0003162,times=1000000 --delta 1e-5"
  "compose laplace:b=316.2,times=1000000 --delta 1e-5"
  "compose subsampled-laplace:b=2,q=0.02,times=1000003 --delta 1e-5"
  "compose subsampled-laplace:b=1,q=0.05,times=20 gdp:mu=0.5 --delta 1e-5 --delta 0.5 --eps -1 --eps 3 --alpha 0.3 --alpha 0.999 --mu"
  "compose laplace:b=5,times=3 epsdelta:eps=0.3,delta=1e-7 subsampled-laplace:b=2,q=0.02,times=10000 --delta 1e-3 --delta 1e-10"
  "compose epsdelta:eps=1,delta=1e-5"
  "compose epsdelta:eps=0.1,times=100 --delta 1e-14"
  "compose gdp:mu=1 epsdelta:eps=1,delta=1e-6,times=10 subsampled-gaussian:sigma=1,q=0.01,times=1000 --delta 1e-5 --mu"
  "curve subsampled-gaussian:sigma=1,q=0.05,times=20 --points 21"
  "group gaussian:sigma=1 --k 2 --method pld --delta 1e-14"
  "group laplace:b=10,times=100 --k 2 --delta 1e-5"
  "group epsdelta:eps=0.1 --k 10 --delta 1e-5"
  "calibrate subsampled-gaussian:q=0.01,times=1000 --solve sigma --eps 2 --delta 1e-5"
  "dpsgd --q 0.01 --sigma 1 --steps 1000 --delta 1e-5"
  "compare subsampled-gaussian:sigma=1,q=0.01,times=1000 --delta 1e-5"
)
if [[ -n $EXTRA ]]; then mapfile -t more < "$EXTRA"; lines+=("${more[@]}"); fi
strip() { /usr/bin/python3 -c '
import json, os, sys
drop = {"seconds", "timing", "ms"} | set(filter(None, os.environ.get("COMPARE_IGNORE", "").split(",")))
def clean(x):
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items() if k not in drop}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x
try:
    print(json.dumps(clean(json.load(sys.stdin)), sort_keys=True, indent=1))
except Exception:
    print("(not JSON)")
'; }
diffs=0
for l in "${lines[@]}"; do
  # shellcheck disable=SC2086
  a=$("$OLD" $l --json 2>&1 | strip)
  # shellcheck disable=SC2086
  b=$("$NEW" $l --json 2>&1 | strip)
  if [[ "$a" != "$b" ]]; then
    diffs=$((diffs + 1))
    echo "== differs: fdp $l"
    diff <(echo "$a") <(echo "$b") | head -20
  fi
done
echo "compare_outputs: ${#lines[@]} command lines, $diffs differ"
[[ $diffs == 0 ]]
