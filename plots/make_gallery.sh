#!/usr/bin/env bash
# Regenerate plots/gallery/*.png (the pictures in plots/README.md) from real
# fdp output. Usage: plots/make_gallery.sh [PATH_TO_fdp [OUT_DIR]]
# (defaults: build/tools/fdp, plots/gallery). tests/cli/test_plots.py runs it
# into a temporary directory, so the gallery commands cannot rot.
set -euo pipefail
cd "$(dirname "$0")/.."
FDP=${1:-build/tools/fdp}
G=${2:-plots/gallery}
PY=/usr/bin/python3
mkdir -p "$G"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

$PY plots/plot_curves.py --fdp "$FDP" \
    gdp:mu=1 gdp:mu=0.5 epsdelta:eps=1 epsdelta:eps=1,delta=0.1 \
    -o "$G/tradeoffs.png"

$PY plots/plot_composition.py --fdp "$FDP" \
    gaussian:sigma=4,times=16 --method pld --exact-gdp 1 \
    -o "$G/composition.png"

$PY plots/plot_composition.py --fdp "$FDP" \
    laplace:b=10,times=100 --clt auto \
    -o "$G/composition_clt.png"

$PY plots/plot_group.py --fdp "$FDP" epsdelta:eps=0.5,delta=0.01 --k 6 \
    -o "$G/group.png"

$PY plots/plot_profile.py --fdp "$FDP" \
    gdp:mu=1 laplace:b=1,times=4 subsampled-gaussian:sigma=1,q=0.01,times=1000 \
    --eps-max 6 --delta 1e-5 \
    -o "$G/profile.png"

# A real audit: a Gaussian mechanism with sigma = 0.8 (truly G_1.25) claimed
# to be 1-GDP; fdp audit exits 3 on the violation it certifies.
"$FDP" audit --mechanism gaussian:sigma=0.8 --input0 0 --input1 1 --claim gdp:mu=1 \
    --seed 1 --curve-out "$WORK/audit.csv" --json > "$WORK/audit.json" || [ $? -eq 3 ]
$PY plots/plot_audit.py --fdp "$FDP" \
    --curve "$WORK/audit.csv" --json "$WORK/audit.json" --claim gdp:mu=1 \
    -o "$G/audit.png"
