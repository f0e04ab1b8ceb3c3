# Reference values for the max-statistic floor (fdp/ops/max_statistic.hpp):
# for the n-fold Poisson-subsampled Gaussian (noise s in units of the
# sensitivity, rate q), the largest hockey-stick divergence at eps of the
# laws of M = max of the n outputs, over the tests "M > t" (remove order:
# Q^n(M > t) - e^eps P^n(M > t)) and "M <= t" (add order: P^n(M <= t) -
# e^eps Q^n(M <= t)), with
#   P^n(M <= t) = Phi(t/s)^n,  Q^n(M <= t) = ((1 - q) Phi(t/s) + q Phi((t - 1)/s))^n.
# Independent of fdp: mpmath at 50 digits; the best t of each order is
# found by maximizing the test's value directly (golden-section search on a
# bracket found by scanning), not from the density ratio fdp solves for.
# For n = 1 the statistic is the output itself: the value is the pair's own
# delta(eps), the truth the floor must stay below.
# Usage: /usr/bin/python3 tests/golden/gen_max_statistic.py > tests/golden/max_statistic.csv
import mpmath as mp

mp.mp.dps = 50

ROWS = [  # s, q, n, eps
    (0.5, 1e-6, 10_000_000, 0.9),
    (0.5, 1e-6, 10_000_000, 0.95),
    (0.3, 1e-9, 10_000_000, 0.003),
    (0.3, 1e-9, 10_000_000, 0.0),
    (1.1, 0.0042666666666666667, 14062, 1.5),
    (1.1, 0.0042666666666666667, 14062, 3.0),
    (1.0, 0.01, 1, 0.5),
    (2.0, 0.5, 3, 0.2),
    (0.8, 1e-3, 1000, 0.1),
    (0.8, 1e-3, 1000, 2.0),
    (1.0, 1.0, 4, 1.0),
    (3.0, 0.2, 1, 0.05),
    (0.6, 0.05, 20, -0.1),
    # q n in the thousands: the logarithms' error is n-fold
    (1.0, 0.05, 20000, 2.0),
    (0.7, 0.1, 100000, 5.0),
    (2.0, 0.01, 1000000, 1.0),
]


def laws(s, q, n):
    s, q = mp.mpf(s), mp.mpf(q)

    def p_cdf(t):
        return mp.ncdf(t / s) ** n

    def q_cdf(t):
        return ((1 - q) * mp.ncdf(t / s) + q * mp.ncdf((t - 1) / s)) ** n

    def p_sf(t):  # 1 - Phi(t/s)^n without cancellation (Phi from its upper tail)
        return -mp.expm1(n * mp.log1p(-mp.ncdf(-t / s)))

    def q_sf(t):
        c = (1 - q) * mp.ncdf(-t / s) + q * mp.ncdf(-(t - 1) / s)  # 1 - the per-step CDF
        return -mp.expm1(n * mp.log1p(-c))

    return p_cdf, q_cdf, p_sf, q_sf


def best(f, lo=-60, hi=60, cells=2400):
    # scan, then golden-section on the best cell's neighbourhood
    xs = [mp.mpf(lo) + (hi - lo) * mp.mpf(k) / cells for k in range(cells + 1)]
    vals = [f(x) for x in xs]
    k = max(range(len(xs)), key=lambda i: vals[i])
    a, b = xs[max(k - 1, 0)], xs[min(k + 1, cells)]
    g = (mp.sqrt(5) - 1) / 2
    for _ in range(200):
        c, d = b - g * (b - a), a + g * (b - a)
        if f(c) > f(d):
            b = d
        else:
            a = c
    return max(vals[k], f((a + b) / 2))


def delta_max(s, q, n, eps):
    p_cdf, q_cdf, p_sf, q_sf = laws(s, q, n)
    e = mp.e ** mp.mpf(eps)
    remove = best(lambda t: q_sf(t) - e * p_sf(t))
    add = best(lambda t: p_cdf(t) - e * q_cdf(t))
    return max(mp.mpf(0), remove, add)


if __name__ == "__main__":
    print("# written by tests/golden/gen_max_statistic.py (mpmath, 50 digits)")
    print("s,q,n,eps,delta")
    for s, q, n, eps in ROWS:
        print(f"{s},{q!r},{n},{eps},{mp.nstr(delta_max(s, q, n, eps), 15)}", flush=True)
