#!/usr/bin/env bash
# Whole-process timings and widths of `fdp compose` on the second set of
# accounting workloads (P1-P8: long DP-SGD runs, many distinct terms, tiny
# deltas, delta queries), against the fastest valid existing accountant's
# in-process time there (Google dp_accounting's PLD at h = 1e-4, or where
# that answer is invalid its valid setting; Microsoft's PRV accountant),
# measured on this machine kind on 2026-11-26. Targets: every queried
# bracket at most 0.3% wide (relative), the time at most a tenth of the
# anchor.
# Usage: bench/perf_scenarios.sh [path/to/fdp] [repetitions]
set -euo pipefail
FDP=${1:-./build/tools/fdp}
REPS=${2:-5}
SPAWN=${SPAWN_TIME:-$(dirname "$FDP")/../bench/fdp_spawn_time}
laplaces() { for b in $(seq 1 30); do printf "laplace:b=%s " "$b"; done; }
phases() {
  for i in $(seq 0 49); do
    printf "subsampled-gaussian:sigma=%s,q=0.02,times=200 " "$(awk -v i="$i" 'BEGIN {printf "%.2f", 0.8 + 0.05 * i}')"
  done
}
# id | anchor ms | what the anchors say (valid bounds; the truth lies in them) | queries | specs
ROWS=(
  "P1|1710|PLD U 3.346058; truth >= 3.343957|--delta 1e-7|subsampled-gaussian:sigma=0.6,q=2e-4,times=500000"
  "P2|330|PLD [opt 3.520140, U 3.520303]|--delta 1e-6|$(laplaces)"
  "P3|1430|truth >= 16.762625|--delta 1e-12|subsampled-gaussian:sigma=0.8,q=0.01,times=10000"
  "P4|580|PLD h=1e-5 U 1.81863e-3 / 1.19043e-4 / 8.76119e-8|--eps 1.5 --eps 2 --eps 3|subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062"
  "P5|23700|PLD U 7.673802|--delta 1e-5|$(phases)"
  "P6|1240|PLD [opt 12.219117, U 12.528357]|--delta 1e-6|subsampled-laplace:b=0.5,q=0.005,times=50000"
  "P7|42000|PLD h=1e-5 U 1.017647; truth >= 0.950313|--delta 1e-9|subsampled-gaussian:sigma=0.5,q=1e-6,times=10000000"
  "P8|1150|PLD [opt 3.012620, U 3.027646]|--delta 1e-6|subsampled-gaussian:sigma=1.2,q=0.003,times=3000 laplace:b=20,times=100 gaussian:sigma=10,times=5 epsdelta:eps=0.5,delta=1e-7"
)
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg); wall: median of $REPS by $([[ -x $SPAWN ]] && echo fdp_spawn_time || echo date))"
printf "%-3s %-9s %-9s %-8s %-8s %-10s %s\n" id anchor_ms wall_ms x_faster widest_% targets_met brackets
for row in "${ROWS[@]}"; do
  IFS='|' read -r id anchor note queries specs <<< "$row"
  # shellcheck disable=SC2086
  out=$("$FDP" compose $specs $queries)
  if [[ -x $SPAWN ]]; then
    # shellcheck disable=SC2086
    read -r wall _ < <("$SPAWN" "$REPS" "$FDP" compose $specs $queries)
  else
    s=$(date +%s.%N); "$FDP" compose $specs $queries > /dev/null; e=$(date +%s.%N)
    wall=$(awk -v s="$s" -v e="$e" 'BEGIN {printf "%.1f", (e - s) * 1000}')
  fi
  brackets=$(echo "$out" | grep -E "^  (epsilon|delta) at" | sed -E 's/^  //; s/ +/ /g' | paste -sd ';' -)
  widest=$(echo "$out" | grep -oE "\[[^]]+\]" | tr -d '[]' |
           awk -F', ' '{w = ($2 > 0) ? ($2 - $1) / $2 * 100 : 0; if (w > m) m = w} END {printf "%.3f", m}')
  awk -v id="$id" -v a="$anchor" -v w="$wall" -v wd="$widest" -v b="$brackets" -v n="$note" 'BEGIN {
    met = (wd <= 0.3 && w <= a / 10) ? "both" : (wd <= 0.3 ? "width-only" : (w <= a / 10 ? "time-only" : "neither"));
    printf "%-3s %-9d %-9.1f %-8.1f %-8s %-10s %s   (%s)\n", id, a, w, a / w, wd, met, b, n }'
done
