#!/usr/bin/env bash
# Whole-process timings of `fdp compose` on the accounting scenarios of
# the published accounting scenarios (bench/scenarios.sh), against the fastest existing
# accountant's in-process time there (Google PLD h=1e-4 or PRV eps_err=0.01).
# Usage: bench/scenarios.sh [path/to/fdp] [repetitions]
# (SPAWN_TIME=path overrides the spawn timer, default build/bench/fdp_spawn_time)
set -euo pipefail
FDP=${1:-./build/tools/fdp}
REPS=${2:-20}
SPAWN=${SPAWN_TIME:-$(dirname "$FDP")/../bench/fdp_spawn_time}
printf "%-4s %-10s %-27s %-9s %-8s %-8s %-8s %-9s %-9s %s\n" id anchor_ms bracket width_% wall_ms p90_ms cpu_ms target_ms x_faster reference
# Wall time: bench/spawn_time.cpp (posix_spawn to waitpid, median of REPS,
# stdout to /dev/null); without it, perf stat's elapsed time (~0.4 ms more).
# The fastest process this machine can start is a floor under every figure:
floor() {
  if [[ -x $SPAWN ]]; then "$SPAWN" "$REPS" /bin/true | awk '{print $1}'
  else { perf stat -r "$REPS" /bin/true; } 2>&1 | awk '/seconds time elapsed/ {print $1 * 1000}'; fi
}
echo "(floor: /bin/true takes $(floor) ms wall here; load average $(cut -d' ' -f1-3 /proc/loadavg);" \
     "wall by $([[ -x $SPAWN ]] && echo spawn_time || echo 'perf stat'))"
run() {
  local id=$1 anchor=$2 ref=$3 delta=$4; shift 4
  local out; out=$("$FDP" compose "$@" --delta "$delta" --json)
  local lo hi; lo=$(echo "$out" | /usr/bin/python3 -c 'import json,sys; e=json.load(sys.stdin)["queries"][0]["epsilon"]; print(e["lower"])')
  hi=$(echo "$out" | /usr/bin/python3 -c 'import json,sys; e=json.load(sys.stdin)["queries"][0]["epsilon"]; print(e["upper"])')
  local med p90=- cpu=-
  if [[ -x $SPAWN ]]; then
    read -r med _ p90 < <("$SPAWN" "$REPS" "$FDP" compose "$@" --delta "$delta")
  else
    med=$( { perf stat -r "$REPS" "$FDP" compose "$@" --delta "$delta" >/dev/null; } 2>&1 \
          | awk '/seconds time elapsed/ {print $1 * 1000}')
  fi
  if perf stat -r 1 true >/dev/null 2>&1; then
    cpu=$(perf stat -r "$REPS" -x, -e task-clock "$FDP" compose "$@" --delta "$delta" 2>&1 >/dev/null \
          | awk -F, '/task-clock/ {t=$1} END {printf "%.2f", t}')
  fi
  /usr/bin/python3 - "$id" "$anchor" "$lo" "$hi" "$med" "$ref" "$cpu" "$p90" <<'PY'
import sys
i, anchor, lo, hi, med, ref, cpu, p90 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), sys.argv[6], sys.argv[7], sys.argv[8]
w = 100 * (hi - lo) / hi if hi > 0 else 0.0
print(f"{i:<4} {anchor:<10g} [{lo:.9g}, {hi:.9g}]".ljust(43) + f" {w:<9.4f} {med:<8.2f} {p90:<8.8s} {cpu:<8.8s} {anchor/10:<9.3g} {anchor/med:<9.1f} {ref}")
PY
}
run S1  360  "91.8172896247"             1e-5 gaussian:sigma=1,times=100
run S2a 34   "[4.692646,4.692667]"       1e-6 laplace:b=10,times=100
run S2b 134  "[18.950052,18.950287]"     1e-6 laplace:b=10,times=1000
run S3a 350  "[2.367535,2.381598]"       1e-5 subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062
run S3b 790  "[10.043635,10.053635]"     1e-5 subsampled-gaussian:sigma=0.8,q=0.01,times=10000
run S4  19   "3.1452818981"              1e-3 epsdelta:eps=0.1,delta=1e-6,times=100
run S5  470  "[22.671560,22.671647]"     1e-5 gaussian:sigma=2,times=50 laplace:b=5,times=50 subsampled-gaussian:sigma=1,q=0.01,times=50
