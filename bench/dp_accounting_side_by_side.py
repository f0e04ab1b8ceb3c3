#!/usr/bin/python3
"""fdp against Google's dp_accounting PLD accountant, side by side, on the
spec kinds both account: every kind composed 1, 100 and 10,000 times.

For each row: dp_accounting's epsilon (pessimistic, default discretization
1e-4) and its time in process (median of REPS runs, accountant built and
composed each time); fdp's certified bracket, its relative width, the
whole-process time of `fdp compose SPEC --delta D --json` (median of REPS
runs, process spawn included), and the in-process time of the same query
through fdp's Python module (`fdp.compose([SPEC]).epsilon(D)`, composed each
time; the same digits as the CLI), the like-for-like comparison with
dp_accounting's in-process time. Needs an installed dp_accounting (this
script does not fetch or build it) and fdp's module on the path:

    PYTHONPATH=build/python:<dp_accounting> /usr/bin/python3 \
        bench/dp_accounting_side_by_side.py build/tools/fdp [REPS] [NAME-PREFIX]

(NAME-PREFIX: only the rows whose name starts with it.)
"""

import json
import math
import statistics
import subprocess
import sys
import time

import dp_accounting
import fdp as fdp_module
from dp_accounting import dp_event as E
from dp_accounting.pld import pld_privacy_accountant as pld

R = dp_accounting.NeighboringRelation
AR, R1, RS = R.ADD_OR_REMOVE_ONE, R.REPLACE_ONE, R.REPLACE_SPECIAL

# (name, fdp spec without times, dp_accounting event, relation, delta)
ROWS = [
    ("Gaussian", "gaussian:sigma=20", E.GaussianDpEvent(20.0), AR, 1e-5),
    ("Laplace", "laplace:b=100", E.LaplaceDpEvent(100.0), AR, 1e-6),
    ("discrete Laplace", "discrete-laplace:t=100", E.DiscreteLaplaceDpEvent(0.01, 1), AR, 1e-6),
    # (noise parameter p = 0.9, k = 4: e^eps = 1 + k (1 - p) / p)
    ("randomized response", "randomized-response:eps=%r,k=4" % math.log1p(4 * 0.1 / 0.9),
     E.RandomizedResponseDpEvent(0.9, 4), R1, 1e-6),
    ("mixture of Gaussians", "mixture-gaussian:sigma=20,sensitivities=0;1;2,weights=0.9;0.09;0.01",
     E.MixtureOfGaussiansDpEvent(20.0, [0.0, 1.0, 2.0], [0.9, 0.09, 0.01]), AR, 1e-5),
    ("(eps, delta)", "epsdelta:eps=0.01,delta=1e-9", E.EpsilonDeltaDpEvent(0.01, 1e-9), AR, 1e-5),
    ("Poisson Gaussian, add-remove", "subsampled-gaussian:sigma=1.1,q=0.001",
     E.PoissonSampledDpEvent(0.001, E.GaussianDpEvent(1.1)), AR, 1e-5),
    ("Poisson Gaussian, zero-out", "subsampled-gaussian:sigma=1.1,q=0.001,neighbours=zero-out",
     E.PoissonSampledDpEvent(0.001, E.GaussianDpEvent(1.1)), RS, 1e-5),
    ("Poisson Gaussian, replace-one", "subsampled-gaussian:sigma=1.1,q=0.001,neighbours=replace-one",
     E.PoissonSampledDpEvent(0.001, E.GaussianDpEvent(1.1)), R1, 1e-5),
    ("Poisson Laplace", "subsampled-laplace:b=2,q=0.001",
     E.PoissonSampledDpEvent(0.001, E.LaplaceDpEvent(2.0)), AR, 1e-5),
    # (an MNIST-like step, batches of mean 256 cut at 300; dp_accounting
    # puts the mirrored pair on the cut branch under every relation, fdp the
    # add/remove pair under add-remove: its number is lower there)
    ("truncated Poisson Gaussian, add-remove",
     "subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,sampling=truncated-poisson,"
     "max-batch=300,dataset-size=60000",
     E.TruncatedSubsampledGaussianDpEvent(60000, 0.0042666666666666667, 300, 1.1), AR, 1e-5),
    ("truncated Poisson Gaussian, replace-one",
     "subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,sampling=truncated-poisson,"
     "max-batch=300,dataset-size=60000,neighbours=replace-one",
     E.TruncatedSubsampledGaussianDpEvent(60000, 0.0042666666666666667, 300, 1.1), R1, 1e-5),
]
COUNTS = [1, 100, 10000]


def theirs(event, relation, n, delta, reps):
    times, eps = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        acc = pld.PLDAccountant(relation)
        acc.compose(event if n == 1 else E.SelfComposedDpEvent(event, n))
        eps = acc.get_epsilon(delta)
        times.append(time.perf_counter() - t0)
    return eps, statistics.median(times)


def ours(fdp, spec, delta, reps):
    times, out = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = subprocess.run([fdp, "compose", spec, "--delta", repr(delta), "--json"],
                             capture_output=True, text=True, check=True).stdout
        times.append(time.perf_counter() - t0)
    e = json.loads(out)["queries"][0]["epsilon"]
    return e["lower"], e["upper"], statistics.median(times)


def ours_in_process(spec, delta, reps):
    times, e = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        e = fdp_module.compose([spec]).epsilon(delta)
        times.append(time.perf_counter() - t0)
    return e.lower, e.upper, statistics.median(times)


def main():
    fdp = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print("| mechanism | T | dp_accounting eps | time | fdp bracket | width | CLI time | ratio "
          "| in-process time | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    only = sys.argv[3] if len(sys.argv) > 3 else ""
    for name, spec, event, relation, delta in ROWS:
        if not name.startswith(only):
            continue
        for n in COUNTS:
            # (dp_accounting 0.6.0 composes a RandomizedResponseDpEvent once,
            # whatever its count: no valid anchor beyond T = 1)
            if isinstance(event, E.RandomizedResponseDpEvent) and n > 1:
                their_eps, their_t = float("nan"), float("nan")
            else:
                their_eps, their_t = theirs(event, relation, n, delta, reps)
            text = spec + (",times=%d" % n if n > 1 else "")
            lo, hi, our_t = ours(fdp, text, delta, reps)
            plo, phi, in_t = ours_in_process(text, delta, reps)
            if (plo, phi) != (lo, hi):
                print("  (in-process bracket [%r, %r] differs from the CLI's)" % (plo, phi))
            width = (hi - lo) / hi if hi > 0 else 0.0
            print("| %s | %d | %.6f | %.1f ms | [%.6f, %.6f] | %.3f%% | %.0f ms | %.1fx "
                  "| %.2f ms | %.0fx |" % (
                      name, n, their_eps, their_t * 1e3, lo, hi, 100 * width, our_t * 1e3,
                      their_t / our_t, in_t * 1e3, their_t / in_t), flush=True)


if __name__ == "__main__":
    main()
