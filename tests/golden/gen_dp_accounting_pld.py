#!/usr/bin/python3
"""Upper bounds from Google's dp_accounting (its PLD accountant, pessimistic
estimate, default discretization 1e-4) for events fdp also accounts, kept as
data for a consistency test: a valid upper bound can never lie below fdp's
certified lower bound, so fdp's lower end must be <= every value here.

This script calls an installed dp_accounting; it does not fetch or build
it. The values in dp_accounting_pld.csv were made with dp_accounting 0.6.0
(github.com/google/differential-privacy, python/dp_accounting at commit
b5b0286e313b64a692abfc8c528d54ef47d960a0) on Debian's python3 (numpy 1.24,
scipy 1.10):

    /usr/bin/python3 tests/golden/gen_dp_accounting_pld.py [OUTDIR]

Each row: the fdp spec (';' for ','), the relation dp_accounting was given,
delta, and dp_accounting's get_epsilon(delta) for the event.
"""

import math
import os
import sys

import dp_accounting
from dp_accounting import dp_event as E
from dp_accounting.pld import pld_privacy_accountant as pld

R = dp_accounting.NeighboringRelation
AR, R1, RS = R.ADD_OR_REMOVE_ONE, R.REPLACE_ONE, R.REPLACE_SPECIAL


def poisson_gaussian(sigma, q):
    return E.PoissonSampledDpEvent(q, E.GaussianDpEvent(sigma))


def times(event, n):
    return event if n == 1 else E.SelfComposedDpEvent(event, n)


# (fdp spec without times, dp_accounting event, relation, [counts], delta)
CASES = [
    ("gaussian:sigma=2", E.GaussianDpEvent(2.0), AR, [1, 100], 1e-5),
    ("gaussian:sigma=2,sensitivity=2", E.GaussianDpEvent(2.0), R1, [1, 100], 1e-5),
    ("laplace:b=10", E.LaplaceDpEvent(10.0), AR, [1, 100], 1e-6),
    ("discrete-laplace:t=5", E.DiscreteLaplaceDpEvent(0.2, 1), AR, [1, 100], 1e-6),
    ("discrete-laplace:t=4,sensitivity=3", E.DiscreteLaplaceDpEvent(0.25, 3), AR, [1, 30], 1e-6),
    # (one application only: dp_accounting 0.6.0's PLDAccountant composes a
    # RandomizedResponseDpEvent once whatever its SelfComposedDpEvent count is —
    # it prints 1.6095 for 100 applications of a log(5)-DP mechanism, below the
    # truth; not a valid reference)
    ("randomized-response:eps=%r,k=4" % math.log(5.0), E.RandomizedResponseDpEvent(0.5, 4), R1,
     [1], 1e-6),
    ("mixture-gaussian:sigma=2;sensitivities=0_1_2;weights=0.9_0.09_0.01",
     E.MixtureOfGaussiansDpEvent(2.0, [0.0, 1.0, 2.0], [0.9, 0.09, 0.01]), AR, [1, 100], 1e-5),
    ("epsdelta:eps=0.5,delta=1e-7", E.EpsilonDeltaDpEvent(0.5, 1e-7), AR, [1, 10], 1e-5),
    ("subsampled-gaussian:sigma=1.1,q=0.01", poisson_gaussian(1.1, 0.01), AR, [1, 100, 10000], 1e-5),
    ("subsampled-gaussian:sigma=1.1,q=0.01,neighbours=zero-out", poisson_gaussian(1.1, 0.01), RS,
     [1000], 1e-5),
    ("subsampled-gaussian:sigma=1.1,q=0.01,neighbours=replace-one", poisson_gaussian(1.1, 0.01), R1,
     [1, 100, 10000], 1e-5),
    ("subsampled-gaussian:sigma=0.8,q=0.05,neighbours=replace-one", poisson_gaussian(0.8, 0.05), R1,
     [100], 1e-6),
    ("subsampled-laplace:b=2,q=0.02", E.PoissonSampledDpEvent(0.02, E.LaplaceDpEvent(2.0)), AR,
     [1, 100], 1e-5),
    ("subsampled-laplace:b=2,q=0.02,neighbours=zero-out",
     E.PoissonSampledDpEvent(0.02, E.LaplaceDpEvent(2.0)), RS, [100], 1e-5),
]


def their_epsilon(event, relation, n, delta):
    acc = pld.PLDAccountant(relation)
    acc.compose(times(event, n))
    return acc.get_epsilon(delta)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rows = []
    for spec, event, relation, counts, delta in CASES:
        for n in counts:
            text = spec.replace(",", ";") + (";times=%d" % n if n > 1 else "")
            eps = their_epsilon(event, relation, n, delta)
            rows.append("%s,%s,%r,%r" % (text, relation.name, delta, eps))
            print(rows[-1], flush=True)
    with open(os.path.join(outdir, "dp_accounting_pld.csv"), "w") as f:
        f.write("# dp_accounting %s PLDAccountant upper bounds (tests/golden/gen_dp_accounting_pld.py).\n"
                % getattr(dp_accounting, "__version__", "0.6.0"))
        f.write("# In spec: ';' stands for ',' and '_' for ';'. epsilon: get_epsilon(delta).\n")
        f.write("spec,relation,delta,epsilon\n")
        for r in rows:
            f.write(r + "\n")


if __name__ == "__main__":
    main()
