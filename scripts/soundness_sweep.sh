#!/usr/bin/env bash
# The large soundness sweep (issue: hardening): random heterogeneous
# compositions of gdp / gaussian / epsdelta terms with exact answers (GDP closed
# forms, binomial k-fold f_{eps,0}) run through the PLD engine under many seeds,
# with staged long repetitions and asymmetric discrete laws (exact by enumeration);
# every bracket (delta, epsilon, beta, curves, mu) must contain the truth.
# CI runs one seed with 600 cases (tests/ops/compose_soundness_test.cpp); the
# exact Laplace compositions (tests/golden/compose_golden.csv, mpmath) run in
# CI in full. Each seed also runs as many compositions of a Poisson-subsampled
# Gaussian or Laplace term (per-step loss 0.1-50, q 1e-8..1-1e-8) with 1-3
# other terms against a quadrature truth (tests/ops/subsampled_sweep_test.cpp;
# CI: 60 cases; ~0.4 s a case), as many exact k-fold f_{eps,delta} at their
# edges (alpha near 1, delta below the double range; lattice_edges_test.cpp)
# and a twentieth as many subsampled Gaussian GDP summaries. And one case per
# 10 mixes of group privacy of a random asymmetric or steep piecewise-linear
# curve, k = 1..5, both routes, against the exact rational power of its
# symmetrization (tests/ops/group_sweep_test.cpp; CI: 16 cases with the PLD
# route at one k each; ~0.5 s a case here, where the PLD route runs at every k).
# Usage: scripts/soundness_sweep.sh [seeds=10] [cases-per-seed=1000] [build dir=build]
set -euo pipefail
SEEDS=${1:-10}
CASES=${2:-1000}
BUILD=${3:-build}
BIN="$BUILD/tests/fdp_ops_tests"
[ -x "$BIN" ] || { echo "soundness_sweep: $BIN not built (run ./scripts/test.sh first)" >&2; exit 2; }
fail=0
for s in $(seq 1 "$SEEDS"); do
  rc=0
  # (and staged compositions, n = 2^17 .. 10^6: one per 20 mixes)
  # (and asymmetric discrete laws against their exact composition: one per 10 mixes)
  # (and subsampled Gaussian / Laplace terms with 1-3 others against quadrature: one per mix)
  # (and group powers of random curves against exact rationals: one per 10 mixes)
  out=$(FDP_SWEEP_SEED=$s FDP_SWEEP_CASES=$CASES FDP_STAGED_CASES=$((CASES / 20 + 1)) FDP_ASYM_CASES=$((CASES / 10 + 1)) \
        FDP_SUBSAMPLED_SEED=$s FDP_SUBSAMPLED_CASES=$CASES FDP_LATTICE_SEED=$s FDP_LATTICE_CASES=$CASES \
        FDP_SUMMARY_CASES=$((CASES / 20 + 1)) FDP_GROUP_SEED=$s FDP_GROUP_CASES=$((CASES / 10 + 1)) "$BIN" \
        --gtest_filter='ComposeSweep.RandomMixesBracketTheTruth:ComposeStaged.LongRepetitionsBracketTheTruth:ComposeAsymmetric.*:SubsampledSweep.CompositionsBracketTheQuadratureTruth:LatticeEdges.*:GroupSweep.PowersOfRandomCurvesBracketTheExactTruth' 2>&1) || rc=$?
  echo "$out" | grep -E '^\[soundness\]' || true
  if [ $rc != 0 ]; then echo "$out" | grep -E 'miss|FAILED' | head -20; fail=1; fi
done
if [ $fail = 0 ]; then echo "soundness sweep: $SEEDS seeds x $CASES cases, no bracket missed the truth"; else echo "soundness sweep: FAILURES above" >&2; exit 1; fi
