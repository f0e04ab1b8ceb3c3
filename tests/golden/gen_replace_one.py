#!/usr/bin/python3
"""Reference values for the Poisson-subsampled Gaussian under replace-one
neighbours (subsampled-gaussian:...,neighbours=replace-one), once and
composed two and three times, made with mpmath independently of fdp
(nothing here calls or reads fdp's code).

Run with Debian's interpreter (it has python3-mpmath):

    /usr/bin/python3 tests/golden/gen_replace_one.py [OUTDIR]

Writes OUTDIR/replace_one.csv (OUTDIR defaults to this script's directory).
Takes about half an hour (the three-fold cases).

The pair (noise s, sampling rate q, contribution bound d):
    P = (1-q) N(0, s^2) + q N(-d, s^2),   Q = (1-q) N(0, s^2) + q N(d, s^2).
Its loss L(x) = log dQ/dP (x) increases in x, and the pair is symmetric
(x -> -x swaps P and Q), so one order is the answer. With y = e^{x d/s^2}
and c = q e^{-d^2/(2 s^2)} / (1-q), e^L = y (1 + c y) / (y + c); the root
x*(e) of L(x) = e is the positive root of c y^2 + (1 - e^e) y - c e^e = 0
(checked against L below; for e < 0, x*(e) = -x*(-e) by the symmetry). Then
    delta_1(e) = Q(x > x*(e)) - e^e P(x > x*(e))   (sums of normal tails),
and, conditioning on the first outcome,
    delta_{n}(e) = integral q(x) delta_{n-1}(e - L(x)) dx,
by mpmath.quad over the real line cut into 24 pieces on [-12 s - d, 12 s + d].
epsilon(delta) by bisection (once only). Each value is computed twice, at two
precisions and by two rules (tanh-sinh and Gauss-Legendre; for three-fold
compositions Gauss-Legendre on 24 and on 32 pieces), which must agree to 12
significant digits (10 for the three-fold compositions).
"""

import os
import sys

import mpmath
from mpmath import mp, mpf, ncdf, npdf, exp, log, sqrt, quad, inf, linspace

CASES = [
    # (s, q, d, n, [("delta", eps) | ("eps", delta)])
    ("1.1", "0.01", "1", 1, [("delta", 0.05), ("delta", 0.3), ("eps", 1e-5)]),
    ("0.8", "0.1", "1", 1, [("delta", 1.0), ("eps", 1e-6)]),
    ("0.8", "0.1", "1", 2, [("delta", 1.0), ("delta", 2.0)]),
    ("2", "0.3", "1.5", 2, [("delta", 0.5)]),
    ("1", "0.5", "1", 3, [("delta", 2.0)]),
    ("1.5", "0.05", "1", 3, [("delta", 0.2)]),
]


class Pair:
    def __init__(self, s, q, d):
        self.s, self.q, self.d = mpf(s), mpf(q), mpf(d)
        self.c = self.q * exp(-self.d ** 2 / (2 * self.s ** 2)) / (1 - self.q)
        # (quad raises the working precision; the pair keeps that of its making)
        self.tol = mpf(10) ** (-mp.dps + 5)

    def loss(self, x):
        u = self.d * x / self.s ** 2
        up = (1 - self.q) + self.q * exp(u - self.d ** 2 / (2 * self.s ** 2))
        down = (1 - self.q) + self.q * exp(-u - self.d ** 2 / (2 * self.s ** 2))
        return log(up) - log(down)

    def x_of(self, e):
        if e < 0:  # (the mirror image; the root formula cancels for e << 0)
            return -self.x_of(-e)
        t = exp(e)
        y = ((t - 1) + sqrt((t - 1) ** 2 + 4 * self.c ** 2 * t)) / (2 * self.c)
        x = log(y) * self.s ** 2 / self.d
        assert abs(self.loss(x) - e) < self.tol * (1 + abs(e)), (e, x)
        return x

    def q_density(self, x):
        s = self.s
        return ((1 - self.q) * npdf(x / s) + self.q * npdf((x - self.d) / s)) / s

    def above(self, x, shift):
        return (1 - self.q) * (1 - ncdf(x / self.s)) + self.q * (1 - ncdf((x - shift) / self.s))

    def delta1(self, e):
        x = self.x_of(e)
        return self.above(x, self.d) - exp(e) * self.above(x, -self.d)

    def delta(self, e, n, method="tanh-sinh", pieces=24):
        if n == 1:
            return self.delta1(e)
        f = lambda x: self.q_density(x) * self.delta(e - self.loss(x), n - 1, method, pieces)
        # (split into many pieces: with the real line cut at -d, 0, d only,
        # both rules settled on values 1e-6 off that two precisions agreed on)
        r = 12 * self.s + self.d
        return quad(f, [-inf] + linspace(-r, r, pieces + 1) + [inf], method=method)

    def eps(self, target):
        lo, hi = mpf(0), mpf(1)
        while self.delta1(hi) > target:
            hi *= 2
        for _ in range(mp.prec + 10):
            mid = (lo + hi) / 2
            if self.delta1(mid) > target:
                lo = mid
            else:
                hi = mid
        return hi


def value(case, query, arg, dps, second):
    """The value at `dps` digits; `second`: by the other rule (twice:
    Gauss-Legendre instead of tanh-sinh; three times, where only
    Gauss-Legendre is affordable: cut into 32 pieces instead of 24)."""
    mp.dps = dps
    s, q, d, n, _ = case
    pair = Pair(s, q, d)
    if query == "delta":
        method = "gauss-legendre" if second or n == 3 else "tanh-sinh"
        return pair.delta(mpf(arg), n, method, 32 if second and n == 3 else 24)
    assert n == 1
    return pair.eps(mpf(arg))


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rows = []
    for case in CASES:
        s, q, d, n, queries = case
        spec = "subsampled-gaussian:sigma=%s;q=%s;sensitivity=%s;neighbours=replace-one;times=%d" % (
            s, q, d, n)
        for query, arg in queries:
            # (three-fold: nested quadrature, at lower precisions)
            lo_dps, hi_dps, agree = (15, 20, 10) if n == 3 else (20, 30, 12)
            a, b = value(case, query, arg, lo_dps, False), value(case, query, arg, hi_dps, True)
            mp.dps = hi_dps
            assert abs(a - b) <= mpf(10) ** -agree * abs(b), (spec, query, arg, a, b)
            rows.append("%s,%s,%r,%s" % (spec, query, arg, mp.nstr(b, 17)))
            print(rows[-1], flush=True)
    with open(os.path.join(outdir, "replace_one.csv"), "w") as f:
        f.write("# Poisson-subsampled Gaussian under replace-one neighbours "
                "(tests/golden/gen_replace_one.py, mpmath %s).\n" % mpmath.__version__)
        f.write("# One order (the pair is symmetric); once by normal tails at the loss root, "
                "2-3 times by nested quadrature; twice (two precisions, two rules) agreeing to 12 digits (10 for times=3).\n")
        f.write("# In spec: ';' stands for ','. query delta: arg = eps; query eps: arg = delta.\n")
        f.write("spec,query,arg,value\n")
        for r in rows:
            f.write(r + "\n")


if __name__ == "__main__":
    main()
