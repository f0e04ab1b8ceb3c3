# Reference values for the max-statistic tests when only m of the n steps
# can hold the record (fdp/ops/max_statistic.hpp, max_statistic_pair::
# shifted): noise s in units of the shift, each of the m steps shifted with
# chance q; q = 1 is random allocation's pair (the record in a uniformly
# chosen m of the n steps; the max does not care which m). The largest
# hockey-stick divergence at eps of the laws of M = max of the n outputs,
# over the tests "M > t" (remove order) and "M <= t" (add order), with
#   P(M <= t) = Phi(t/s)^n,
#   Q(M <= t) = Phi(t/s)^(n - m) ((1 - q) Phi(t/s) + q Phi((t - 1)/s))^m.
# Independent of fdp: mpmath at 50 digits, the best t of each order found
# by maximizing the test's value directly (scan, then golden section), not
# from the density ratio fdp solves for.
# Usage: /usr/bin/python3 tests/golden/gen_max_statistic_shifted.py > tests/golden/max_statistic_shifted.csv
import mpmath as mp

from gen_max_statistic import best

mp.mp.dps = 50

ROWS = [  # s, q, n, m, eps
    (0.6, 1.0, 1000, 2, 2.0),
    (0.6, 1.0, 1000, 5, 3.0),
    (0.6, 1.0, 1000, 10, 4.0),
    (1.0, 1.0, 20, 2, 1.5),
    (2.0, 1.0, 3, 2, 0.5),
    (0.8, 1.0, 10000, 100, 5.0),
    (0.5, 1.0, 100000, 3, 3.0),
    (1.0, 0.1, 100, 10, 0.5),
    (0.7, 0.5, 50, 5, 1.0),
    (1.0, 0.05, 20, 20, 0.5),  # m = n: the Poisson pair
]


def delta_max(s, q, n, m, eps):
    s, q = mp.mpf(s), mp.mpf(q)
    e = mp.e ** mp.mpf(eps)

    def tail(t):  # 1 - Phi(t/s), 1 - the shiftable step's CDF
        return mp.ncdf(-t / s), (1 - q) * mp.ncdf(-t / s) + q * mp.ncdf(-(t - 1) / s)

    def p_cdf(t):
        return mp.ncdf(t / s) ** n

    def q_cdf(t):
        return mp.ncdf(t / s) ** (n - m) * ((1 - q) * mp.ncdf(t / s) + q * mp.ncdf((t - 1) / s)) ** m

    def p_sf(t):
        return -mp.expm1(n * mp.log1p(-tail(t)[0]))

    def q_sf(t):
        a, c = tail(t)
        plain = (n - m) * mp.log1p(-a) if n > m else 0  # (0 x -inf at a = 1 is no term)
        return -mp.expm1(plain + m * mp.log1p(-c))

    remove = best(lambda t: q_sf(t) - e * p_sf(t))
    add = best(lambda t: p_cdf(t) - e * q_cdf(t))
    return max(mp.mpf(0), remove, add)


if __name__ == "__main__":
    print("# written by tests/golden/gen_max_statistic_shifted.py (mpmath, 50 digits)")
    print("s,q,n,m,eps,delta")
    for s, q, n, m, eps in ROWS:
        print(f"{s},{q!r},{n},{m},{eps},{mp.nstr(delta_max(s, q, n, m, eps), 15)}", flush=True)
