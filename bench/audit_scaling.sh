#!/usr/bin/env bash
# Thread scaling of a scalar-output audit (issue 27): the Laplace mechanism,
# eps = 1, on inputs 0 and 1, N samples per side, for each thread count T.
# Per row: wall time of the whole process (best of R runs, to keep the other
# users of a shared machine out of it), the audit's own phase times from its
# --json "timing" (of that best run), the speed-up over T = 1, and the
# Amdahl serial fraction s that explains it, from S = 1 / (s + (1 - s) / T).
# Also checks that every T prints the same result (results do not depend on
# --threads). Prints a Markdown table.
#
#   bench/audit_scaling.sh [FDP] [N] [R] [T...]   (defaults: build/tools/fdp, 2e7, 3, 1 2)
set -euo pipefail
cd "$(dirname "$0")/.."
FDP=${1:-build/tools/fdp}
N=${2:-20000000}
R=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
THREADS=("$@")
[ ${#THREADS[@]} -gt 0 ] || THREADS=(1 2)
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT

# One run: "wall_s|select_sampling|selection|evaluation|statistics|epsilon_lower"
run_once() {
  local t=$1 t0 t1
  t0=$(date +%s.%N)
  "$FDP" audit --mechanism laplace:eps=1 --input0 0 --input1 1 --samples "$N" --seed 1 \
    --threads "$t" --json > "$TMPD/out.json" || [ $? -eq 3 ]
  t1=$(date +%s.%N)
  python3 - "$TMPD/out.json" "$t0" "$t1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["timing"]["phases"]
lo = d["queries"][0]["epsilon"]["lower"]
print(f'{float(sys.argv[3]) - float(sys.argv[2]):.3f}|{p["selection_sampling"]:.3f}|'
      f'{p["selection"]:.3f}|{p["evaluation"]:.3f}|{p["statistics"]:.3f}|{lo!r}')
PY
}

echo "fdp audit --mechanism laplace:eps=1 --input0 0 --input1 1 --samples $N --seed 1;"
echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), fdp at $(git rev-parse --short HEAD),"
echo "best of $R runs per row (phase times in seconds, from --json)."
echo
echo "| threads | wall s | selection sampling | selection (sort, tests) | evaluation | statistics | speed-up | Amdahl serial fraction |"
echo "|---|---|---|---|---|---|---|---|"
base=""
result=""
for t in "${THREADS[@]}"; do
  best=""
  for _ in $(seq "$R"); do
    line=$(run_once "$t")
    if [ -z "$best" ] || awk -v a="${line%%|*}" -v b="${best%%|*}" 'BEGIN{exit !(a < b)}'; then
      best=$line
    fi
  done
  IFS='|' read -r wall ss sel ev st eps <<< "$best"
  if [ -z "$result" ]; then result=$eps; elif [ "$eps" != "$result" ]; then
    echo "audit_scaling: --threads $t gave epsilon >= $eps, --threads ${THREADS[0]} gave $result" >&2
    exit 1
  fi
  [ -n "$base" ] || base=$wall
  awk -v t="$t" -v w="$wall" -v b="$base" -v ss="$ss" -v sel="$sel" -v ev="$ev" -v st="$st" 'BEGIN {
    s = b / w
    f = (t > 1) ? sprintf("%.3f", (1 / s - 1 / t) / (1 - 1 / t)) : "-"
    printf "| %d | %.2f | %.2f | %.2f | %.2f | %.3f | %.2fx | %s |\n", t, w, ss, sel, ev, st, s, f
  }'
done
echo
echo "epsilon >= $result for every thread count."
