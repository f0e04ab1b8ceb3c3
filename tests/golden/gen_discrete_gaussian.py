#!/usr/bin/python3
"""Reference values for the spec kind discrete-gaussian (n-fold compositions
of the discrete Gaussian mechanism), made with mpmath independently of fdp
(nothing here calls or reads fdp's code).

Run with Debian's interpreter (it has python3-mpmath):

    /usr/bin/python3 tests/golden/gen_discrete_gaussian.py [OUTDIR]

Writes OUTDIR/discrete_gaussian.csv (OUTDIR defaults to this script's
directory). Takes about a minute.

The mechanism and its loss
--------------------------
Z is discrete Gaussian with scale sigma on the integers, P(Z = z) =
e^{-z^2/(2 sigma^2)} / N (Canonne, Kamath & Steinke 2020, Def. 1). For an
integer sensitivity D the pair is P = Z, Q = Z + D, and
    L(z) = log Q(z)/P(z) = (2 z D - D^2) / (2 sigma^2).
n-fold: with S = z_1 + ... + z_n the composed loss is
(2 S D - n D^2) / (2 sigma^2); the P-law of S is the n-th convolution power
of Z's law and its Q-law that law shifted by n D. Z's law is summed over
|z| <= K with e^{-K^2/(2 sigma^2)} < 10^-(dps+20), so the left-out tails
are far below the printed digits; the powers are exact convolutions in
mpmath (binary powering). Every value is computed at 40 and at 60 digits
and must agree to 25 significant digits.

Queries:
  delta(eps) = sum_S max(0, Q_S - e^eps P_S) (T(P,Q) = T(Q,P) by the
    reflection z -> D - z, so this one order is the answer);
  epsilon(delta): the smallest eps >= 0 with delta(eps) <= delta, by
    bisection to 2^-200 relative on the monotone delta(eps).
Printed to 20 significant digits.
"""

import os
import sys

from mpmath import mp, mpf

# (sigma, D, n, [("delta", eps) | ("eps", delta)])
CASES = [
    ("3", 1, 1, [("delta", 1.0), ("eps", 1e-6)]),
    ("3", 2, 10, [("delta", 3.0), ("eps", 1e-6), ("eps", 1e-10)]),
    ("1.5", 1, 20, [("eps", 1e-5), ("delta", 4.0)]),
    ("0.8", 1, 5, [("eps", 1e-6), ("delta", 5.0)]),
    ("10", 3, 8, [("eps", 1e-8), ("delta", 2.0)]),
    ("0.4", 2, 3, [("eps", 1e-3), ("delta", 30.0)]),
]


def noise_law(sigma, dps):
    """P(Z = z) for z in [-K, K] as (offset, list), normalized."""
    k = 1
    while mp.exp(-mpf(k) ** 2 / (2 * sigma ** 2)) > mpf(10) ** -(dps + 20):
        k += 1
    w = [mp.exp(-mpf(z) ** 2 / (2 * sigma ** 2)) for z in range(-k, k + 1)]
    tot = mp.fsum(w)
    return -k, [x / tot for x in w]


def convolve(a, b):
    (oa, xa), (ob, xb) = a, b
    out = [mpf(0)] * (len(xa) + len(xb) - 1)
    for i, u in enumerate(xa):
        if u == 0:
            continue
        for j, v in enumerate(xb):
            out[i + j] += u * v
    return oa + ob, out


def power(law, n):
    result, base = None, law
    while n:
        if n & 1:
            result = base if result is None else convolve(result, base)
        n >>= 1
        if n:
            base = convolve(base, base)
    return result


def delta_at(law, sigma, d, n, eps):
    off, p = law
    e = mp.exp(eps)
    tot = mpf(0)
    for i, ps in enumerate(p):
        s = off + i
        qs_index = i - n * d  # Q_S = P_{S - nD}
        qs = p[qs_index] if 0 <= qs_index < len(p) else mpf(0)
        if qs > e * ps:
            tot += qs - e * ps
    return tot


def eps_at(law, sigma, d, n, delta):
    if delta_at(law, sigma, d, n, mpf(0)) <= delta:
        return mpf(0)
    lo, hi = mpf(0), mpf(1)
    while delta_at(law, sigma, d, n, hi) > delta:
        hi *= 2
    for _ in range(220):
        mid = (lo + hi) / 2
        if delta_at(law, sigma, d, n, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def values(dps):
    mp.dps = dps
    out = []
    for sig, d, n, queries in CASES:
        sigma = mpf(sig)
        law = power(noise_law(sigma, dps), n)
        for kind, arg in queries:
            a = mpf(arg)
            v = delta_at(law, sigma, d, n, a) if kind == "delta" else eps_at(law, sigma, d, n, a)
            out.append((sig, d, n, kind, arg, v))
    return out


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    lo, hi = values(40), values(60)
    rows = []
    for a, b in zip(lo, hi):
        va, vb = a[5], b[5]
        assert abs(va - vb) <= mpf(10) ** -25 * abs(vb), (a, b)
        sig, d, n, kind, arg, _ = b
        spec = "discrete-gaussian:sigma=%s;sensitivity=%d;times=%d" % (sig, d, n)
        rows.append("%s,%s,%r,%s" % (spec, kind, arg, mp.nstr(vb, 20, min_fixed=-5, max_fixed=5)))
    with open(os.path.join(outdir, "discrete_gaussian.csv"), "w") as f:
        f.write("# discrete-gaussian reference values (tests/golden/gen_discrete_gaussian.py, "
                "mpmath %s).\n" % __import__("mpmath").__version__)
        f.write("# Exact n-fold compositions of the discrete Gaussian mechanism (scale sigma, "
                "integer sensitivity D) by\n# convolution at 40 and 60 digits, agreeing to 25; "
                "printed to 20 significant digits. ';' stands for ','.\n")
        f.write("# query delta: arg = eps, value = delta(eps); query eps: arg = delta, "
                "value = epsilon(delta).\n")
        f.write("spec,query,arg,value\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
