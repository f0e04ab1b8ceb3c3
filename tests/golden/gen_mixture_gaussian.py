#!/usr/bin/python3
"""Reference values for the spec kind mixture-gaussian (a Gaussian against a
mixture of shifted Gaussians, once and composed twice), made with mpmath
independently of fdp (nothing here calls or reads fdp's code).

Run with Debian's interpreter (it has python3-mpmath):

    /usr/bin/python3 tests/golden/gen_mixture_gaussian.py [OUTDIR]

Writes OUTDIR/mixture_gaussian.csv (OUTDIR defaults to this script's
directory). Takes about a minute.

The pair: P = N(0, s^2), Q = sum_i w_i N(c_i, s^2), c_i >= 0. Its loss
L(x) = log sum_i w_i e^{c_i (2x - c_i)/(2 s^2)} increases in x, so for the
order (P, Q), with x*(e) the root of L(x) = e,
    delta_PQ(e) = Q(x > x*) - e^e P(x > x*),
and for the order (Q, P) (loss -L),
    delta_QP(e) = P(x < x*(-e)) - e^e Q(x < x*(-e)),
both sums of normal tails (any real e). Composed twice in one orientation,
    delta_{A x A, B x B}(e) = integral b(x) delta_AB(e - l_AB(x)) dx
(condition on the first outcome), by mpmath.quad over the real line split at
the shifts. The answer is the worse order: delta(e) = max(delta_PQ, delta_QP)
(fdp's add/remove convention: both orders of the pair). epsilon(delta) by
bisection (one application only). Each value is computed at 20 and 30
digits and must agree to 13 significant digits.
"""

import os
import sys

from mpmath import mp, mpf, ncdf, exp, log, quad, inf, findroot

CASES = [
    # (sigma, shifts, weights, n, [("delta", eps) | ("eps", delta)])
    ("2", ["0", "1", "2"], ["0.9", "0.09", "0.01"], 1, [("delta", 0.5), ("delta", 1.0), ("eps", 1e-6)]),
    ("2", ["0", "1", "2"], ["0.9", "0.09", "0.01"], 2, [("delta", 1.0), ("delta", 0.3)]),
    ("1.5", ["0", "1", "2", "3"], ["0.729", "0.243", "0.027", "0.001"], 1,
     [("delta", 1.0), ("eps", 1e-5)]),
    ("1", ["0.5", "1.5"], ["0.5", "0.5"], 2, [("delta", 1.0), ("delta", 2.5)]),
]


class Pair:
    def __init__(self, s, c, w):
        self.s, self.c, self.w = mpf(s), [mpf(x) for x in c], [mpf(x) for x in w]

    def loss(self, x):
        terms = [wi * exp(ci * (2 * x - ci) / (2 * self.s ** 2)) for ci, wi in zip(self.c, self.w)]
        return log(sum(terms))

    def x_of(self, e):
        lo, hi = mpf(-1), mpf(1)
        while self.loss(lo) >= e:
            lo *= 2
        while self.loss(hi) < e:
            hi *= 2
        for _ in range(mp.prec + 10):
            mid = (lo + hi) / 2
            if self.loss(mid) < e:
                lo = mid
            else:
                hi = mid
        return hi

    def p_above(self, x):
        return 1 - ncdf(x / self.s)

    def q_above(self, x):
        return sum(wi * (1 - ncdf((x - ci) / self.s)) for ci, wi in zip(self.c, self.w))

    def l_min(self):
        w0 = sum(wi for ci, wi in zip(self.c, self.w) if ci == 0)
        return log(w0) if w0 > 0 else -inf

    def delta_pq(self, e):
        if e <= self.l_min():  # every x has L > e
            return 1 - exp(e)
        x = self.x_of(e)
        return self.q_above(x) - exp(e) * self.p_above(x)

    def delta_qp(self, e):
        # loss -L: {-L > e} = {L < -e}
        if -e <= self.l_min():
            return mpf(0)
        x = self.x_of(-e)
        return (1 - self.p_above(x)) - exp(e) * (1 - self.q_above(x))

    def p_pdf(self, x):
        return exp(-x ** 2 / (2 * self.s ** 2)) / (self.s * mp.sqrt(2 * mp.pi))

    def q_pdf(self, x):
        return sum(wi * exp(-(x - ci) ** 2 / (2 * self.s ** 2)) for ci, wi in zip(self.c, self.w)) / (
            self.s * mp.sqrt(2 * mp.pi))

    def delta_twice(self, e, order):
        # split at the shifts and at the kink of the inner delta (where its
        # argument crosses the bottom of the loss range)
        kinks = []
        if self.l_min() > -inf:
            for target in ((e - self.l_min()) if order == "pq" else (-e - self.l_min()),):
                if target > self.l_min():
                    kinks.append(self.x_of(target))
        pts = [-inf] + sorted(set([mpf(0)] + self.c + kinks)) + [inf]
        if order == "pq":
            f = lambda x: self.q_pdf(x) * max(mpf(0), self.delta_pq(e - self.loss(x)))
        else:
            f = lambda x: self.p_pdf(x) * max(mpf(0), self.delta_qp(e + self.loss(x)))
        return quad(f, pts)


def delta(pair, n, e):
    e = mpf(e)
    if n == 1:
        return max(pair.delta_pq(e), pair.delta_qp(e))
    return max(pair.delta_twice(e, "pq"), pair.delta_twice(e, "qp"))


def eps_at(pair, d):
    d = mpf(d)
    lo, hi = mpf(0), mpf(1)
    while delta(pair, 1, hi) > d:
        hi *= 2
    for _ in range(mp.prec + 10):
        mid = (lo + hi) / 2
        if delta(pair, 1, mid) > d:
            lo = mid
        else:
            hi = mid
    return hi


def values(dps):
    mp.dps = dps
    out = []
    for s, c, w, n, queries in CASES:
        pair = Pair(s, c, w)
        for kind, arg in queries:
            v = delta(pair, n, arg) if kind == "delta" else eps_at(pair, arg)
            out.append(("mixture-gaussian:sigma=%s;sensitivities=%s;weights=%s;times=%d"
                        % (s, "_".join(c), "_".join(w), n), kind, arg, v))
    return out


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    lo, hi = values(20), values(30)
    rows = []
    for a, b in zip(lo, hi):
        assert abs(a[3] - b[3]) <= mpf(10) ** -13 * abs(b[3]), (a, b)
        rows.append("%s,%s,%r,%s" % (b[0], b[1], b[2], mp.nstr(b[3], 17, min_fixed=-5, max_fixed=5)))
    with open(os.path.join(outdir, "mixture_gaussian.csv"), "w") as f:
        f.write("# mixture-gaussian reference values (tests/golden/gen_mixture_gaussian.py, mpmath %s).\n"
                % __import__("mpmath").__version__)
        f.write("# delta = max over both orders of the pair; once in closed form (normal tails at the\n"
                "# loss root), twice by quadrature; at 20 and 30 digits, agreeing to 13; printed to 17.\n")
        f.write("# In spec: ';' stands for ',' and '_' for ';'. query delta: arg = eps; query eps: arg = delta.\n")
        f.write("spec,query,arg,value\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
