#!/usr/bin/env bash
# Whole-process time and bracket width of `fdp dpsgd` under every batch
# sampler, on the two settings of the batch-sampler targets: MNIST-like (N =
# 60000, B = 256, sigma 1.1, 60 epochs, delta 1e-5) and S3b-like (q = 0.01,
# sigma 0.8, 10000 steps, delta 1e-5). Targets: each sampler that has a
# bound answers the MNIST-like run in under 1 s, brackets at most 1% wide
# (or the reason printed). The anchors for balls-in-bins and shuffling are
# Monte Carlo accountants (Chua et al. 2024, 2025), published as estimates,
# not bounds, at minutes of GPU/CPU time; no certified accountant exists.
# Usage: bench/samplers.sh [path/to/fdp] [repetitions]
set -euo pipefail
FDP=${1:-./build/tools/fdp}
REPS=${2:-3}
MNIST="--dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5"
S3B="--q 0.01 --sigma 0.8 --steps 10000 --steps-per-epoch 100 --delta 1e-5"
printf "%-10s %-20s %-12s %-30s %8s %10s\n" setting sampler neighbours epsilon width% seconds
for setting in MNIST S3B; do
  args=${!setting}
  for sampler in poisson truncated-poisson without-replacement shuffle balls-in-bins random-allocation; do
    for n in add-remove zero-out replace-one; do
      extra=""
      if [ "$sampler" = truncated-poisson ]; then
        [ "$setting" = MNIST ] && extra="--max-batch-size 300" || extra="--max-batch-size 120 --dataset-size 10000"
      fi
      best=""
      for _ in $(seq "$REPS"); do
        t0=$(date +%s.%N)
        out=$("$FDP" dpsgd $args --sampling "$sampler" --neighbours "$n" $extra --json 2>&1) || true
        t1=$(date +%s.%N)
        s=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then best=$s; fi
      done
      eps=$(echo "$out" | /usr/bin/python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
    e = d["queries"][0]["epsilon"]
    lo, up = e["lower"], e["upper"]
    w = "" if up is None else "%.3f" % (100 * (up / lo - 1))
    print("[%.6g, %s]|%s" % (lo, "none" if up is None else "%.6g" % up, w))
except Exception as ex:
    print("error|")')
      printf "%-10s %-20s %-12s %-30s %8s %10.3f\n" "$setting" "$sampler" "$n" "${eps%%|*}" "${eps##*|}" "$best"
    done
  done
done
