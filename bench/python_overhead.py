#!/usr/bin/env python3
"""Overhead of the Python package (issue 25's targets), a benchmark, not a test.

  1. a closed-form call from Python (fdp.gdp.eps on floats): target < 20 us;
  2. beta on 10^6 alphas of a composed DP-SGD curve (Composition.curve):
     target < 50 ms (the composition and its envelopes built beforehand);
  3. a DP-SGD epsilon query from scratch (compose + epsilon) against the CLI:
     the whole process, and the CLI's own computing time (its JSON "seconds",
     i.e. the CLI minus process start): target no slower than the latter.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [build/tools/fdp]
"""

import json
import os
import statistics
import subprocess
import sys
import time
import timeit

import numpy as np

import fdp

SPEC = "subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062"


def per_call_us(stmt, number):
    runs = timeit.repeat(stmt, number=number, repeat=5, globals=globals())
    return min(runs) / number * 1e6


def closed_form():
    us = per_call_us("fdp.gdp.eps(1.0, 1e-5)", 20000)
    raw = per_call_us("fdp._fdp.gdp_eps(1.0, 1e-5)", 20000)
    print(f"closed form fdp.gdp.eps(1, 1e-5): {us:.2f} us per call "
          f"(compiled function alone {raw:.2f} us; target < 20 us)")


def curve_1e6():
    c = fdp.compose([SPEC])
    alphas = np.linspace(0.0, 1.0, 1_000_000)
    t0 = time.perf_counter()
    c.curve(alphas[:10])  # builds the beta envelopes once
    first = time.perf_counter() - t0
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        c.curve(alphas)
        times.append(time.perf_counter() - t0)
    print(f"beta on 10^6 alphas of the DP-SGD composition: {min(times) * 1e3:.1f} ms "
          f"(median {statistics.median(times) * 1e3:.1f} ms; envelopes built once in "
          f"{first * 1e3:.1f} ms; target < 50 ms)")


def dpsgd_query(cli):
    py = []
    for _ in range(5):
        t0 = time.perf_counter()
        fdp.compose([SPEC]).epsilon(1e-5)
        py.append(time.perf_counter() - t0)
    print(f"DP-SGD epsilon at 1e-5 from Python (compose + query): {min(py) * 1e3:.1f} ms")
    if not cli or not os.path.exists(cli):
        print("  (CLI not found: pass build/tools/fdp to compare)")
        return
    wall, inner = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        out = subprocess.run([cli, "compose", SPEC, "--delta", "1e-5", "--json"],
                             capture_output=True, text=True, check=True)
        wall.append(time.perf_counter() - t0)
        inner.append(json.loads(out.stdout)["timing"]["seconds"])
    print(f"  CLI: {min(wall) * 1e3:.1f} ms whole process, {min(inner) * 1e3:.1f} ms "
          f"computing (its JSON seconds)")


if __name__ == "__main__":
    closed_form()
    curve_1e6()
    dpsgd_query(sys.argv[1] if len(sys.argv) > 1 else "build/tools/fdp")
