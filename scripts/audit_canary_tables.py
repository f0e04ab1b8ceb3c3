#!/usr/bin/env python3
"""Measured tables for the canary-score audits (docs/cli.md, section 3.10):
simulated scores with a known truth (fdp sample --gdp-scores MU: out ~ N(0,1),
in ~ N(MU,1), exactly MU-GDP per canary), audited by fdp audit --one-run and
--scores. Prints markdown tables; takes a few minutes on 2 cores.

Usage: scripts/audit_canary_tables.py PATH_TO_fdp [SEEDS] [one-run|many-runs]
(default 20 seeds, both tables)
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

FDP = sys.argv[1] if len(sys.argv) > 1 else "fdp"
SEEDS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
ONLY = sys.argv[3] if len(sys.argv) > 3 else ""
TMP = tempfile.mkdtemp(prefix="fdp_canary_tables_")
DELTA = 1e-5


def fdp(*args):
    p = subprocess.run([FDP, *args], capture_output=True, text=True, check=False)
    if p.returncode not in (0, 3):
        sys.exit("fdp %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def simulate(mu, runs, canaries, seed):
    path = os.path.join(TMP, "s.csv")
    fdp("sample", "--gdp-scores", str(mu), "--runs", str(runs), "--canaries", str(canaries),
        "--seed", str(seed), "--out", path)
    return path


def one_run_table():
    print("One run (Steinke, Nasr & Jagielski 2023: eps_lower; Mahloujifar, Melis & Chaudhuri"
          " 2024: mu_lower), delta = %g, confidence 0.95, %d seeds; guesses r = m/5; claim"
          " gdp:mu=MU (true): violations = false alarms (both tests, each at 0.025)"
          % (DELTA, SEEDS))
    print("| mu | m | r | median eps_lower | max eps_lower | true eps(delta) | median mu_lower "
          "| max mu_lower | false violations |")
    print("|---|---|---|---|---|---|---|---|---|")
    for mu in (0.5, 1, 2, 4):
        for m in (100, 1000, 10000):
            r = m // 5
            eps, mus, viol = [], [], 0
            for seed in range(1, SEEDS + 1):
                d = json.loads(fdp("audit", "--one-run", simulate(mu, 1, m, seed), "--guesses", str(r),
                                   "--delta", str(DELTA), "--claim", "gdp:mu=%g" % mu, "--json"))
                eps.append(d["queries"][0]["epsilon"]["lower"])
                mus.append(d["mu_lower"])
                viol += d["verdict"] == "violation"
                true_eps = d["claim_epsilon"]
            print("| %g | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %d/%d |" % (
                mu, m, r, statistics.median(eps), max(eps), true_eps, statistics.median(mus),
                max(mus), viol, SEEDS), flush=True)


def many_runs_table():
    print()
    print("Many runs (--scores), one canary, delta = %g, confidence 0.95, %d seeds;"
          " claim gdp:mu=MU (true)" % (DELTA, SEEDS))
    print("| mu | runs | median mu_lower | max mu_lower | median eps_lower | median GDP fit (estimate) | false violations |")
    print("|---|---|---|---|---|---|---|")
    for mu in (1, 2):
        for runs in (200, 1000, 10000):
            ml, el, fit, viol = [], [], [], 0
            for seed in range(1, SEEDS + 1):
                d = json.loads(fdp("audit", "--scores", simulate(mu, runs, 1, seed), "--delta",
                                   str(DELTA), "--claim", "gdp:mu=%g" % mu, "--json"))
                ml.append(d["mu"]["lower"])
                el.append(d["queries"][0]["epsilon"]["lower"])
                fit.append(d["gdp_fit"]["estimate"])
                viol += d["verdict"] == "violation"
            print("| %g | %d | %.3f | %.3f | %.3f | %.3f | %d/%d |" % (
                mu, runs, statistics.median(ml), max(ml), statistics.median(el),
                statistics.median(fit), viol, SEEDS))


if ONLY in ("", "one-run"):
    one_run_table()
if ONLY in ("", "many-runs"):
    many_runs_table()
