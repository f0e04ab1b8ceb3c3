#!/usr/bin/python3
"""Exact deltas of one Poisson-subsampled Gaussian step (sensitivity 1, noise
sigma, rate q, add/remove neighbours), for tests/ops/single_step_test.cpp.

Usage: /usr/bin/python3 tests/golden/gen_single_step.py > tests/golden/single_step.csv

Independent of fdp: the hockey-stick divergence of the pair itself, at 60
digits. P = N(0, s^2), Q = (1 - q) P + q N(1, s^2); the loss
L(x) = log(1 - q + q e^{(2x - 1)/(2 s^2)}) increases in x, so
  remove order: delta = Q(L > eps) - e^eps P(L > eps), L > eps <=> x > x_r,
    x_r = s^2 log((e^eps - 1 + q)/q) + 1/2;
  add order:    delta = P(L < -eps) - e^eps Q(L < -eps), L < -eps <=> x < x_a,
    x_a = s^2 log((e^-eps - 1 + q)/q) + 1/2 (none when e^-eps <= 1 - q).
The table holds the larger of the two. The rows reach deep tails (deltas
down to 1e-38), tiny rates (q = 1e-9), near-identity steps and heavy ones,
where the grid's cells are narrowest against their position and its error
terms matter most.
"""
import mpmath as mp

mp.mp.dps = 60
# (Near-identity steps, q = 1e-6 and 1e-9, take 3-6 s each in fdp: kept out
# of the test suite; their fdp brackets contained these truths when checked
# by hand.)
CASES = [  # sigma, q, epsilons
    (1.1, 0.0042666666666666667, [0.01, 0.1, 1.5, 6.0]),
    (0.8, 0.01, [0.002, 0.5, 2.0, 9.0]),
    (2.5, 0.3, [0.05, 0.4, 1.2]),
    (0.6, 2e-4, [0.001, 0.3, 2.5, 12.0]),
    (1.7, 0.5, [0.01, 0.7, 3.0]),
]


def delta(s, q, eps):
    s, q, eps = mp.mpf(s), mp.mpf(q), mp.mpf(eps)
    E = mp.e**eps
    x = s * s * mp.log((E - 1 + q) / q) + mp.mpf(1) / 2
    rem = (1 - q) * mp.ncdf(-x / s) + q * mp.ncdf(-(x - 1) / s) - E * mp.ncdf(-x / s)
    add = mp.mpf(0)
    b = 1 / E - 1 + q
    if b > 0:
        x = s * s * mp.log(b / q) + mp.mpf(1) / 2
        add = mp.ncdf(x / s) - E * ((1 - q) * mp.ncdf(x / s) + q * mp.ncdf((x - 1) / s))
    return max(rem, add)


print("# written by tests/golden/gen_single_step.py (mpmath, 60 digits; both orders, the larger)")
print("sigma,q,epsilon,delta")
for s, q, epss in CASES:
    for e in epss:
        d = delta(float(s), float(q), float(e))
        print(f"{s!r},{q!r},{e!r},{mp.nstr(d, 17)}")
