#!/usr/bin/python3
"""Reference values for the spec kind discrete-laplace (n-fold compositions of
the discrete Laplace mechanism), made with mpmath and exact integer
arithmetic independently of fdp (nothing here calls or reads fdp's code).

Run with Debian's interpreter (it has python3-mpmath):

    /usr/bin/python3 tests/golden/gen_discrete_laplace.py [OUTDIR]

Writes OUTDIR/discrete_laplace.csv (OUTDIR defaults to this script's
directory). Takes a few minutes (the 1000-fold rows).

The mechanism and its loss
--------------------------
Z is discrete Laplace with scale t on the integers, P(Z = z) = c w^|z|,
w = e^{-1/t}, c = (1 - w)/(1 + w) (Canonne, Kamath & Steinke 2020). For an
integer sensitivity D the worst pair is P = Z, Q = Z + D, and with x = 1/t
    L(z) = log Q(z)/P(z) = x (|z| - |z - D|) = (2j - D) x,  j = min(max(z, 0), D).
One application: the P-law of j has masses (geometric sums of the definition)
    p_0 = P(Z <= 0) = 1/(1 + w),  p_j = c w^j (0 < j < D),  p_D = P(Z >= D) = w^D/(1 + w),
and the Q-law q_j = P(Z + D clamps to j) = p_{D-j}. (Checked against direct
summation of c w^|z| over z with mpmath.nsum.)

n-fold composition
------------------
The composed loss is (2J - nD) x with J = j_1 + ... + j_n, so its P- and
Q-laws are the n-th convolution powers of (p_j) and (q_j): polynomials
(sum_j p_j s^j)^n and (sum_j q_j s^j)^n. They are computed in fixed point
(integers scaled by 2^B, truncated after each product; an absolute error
below (number of products) 2^-B per mass) by binary powering, each product an
exact integer product of the packed coefficient vectors (Kronecker
substitution). The P- and Q-powers are computed apart (Q is not derived from
P: the likelihood ratio Q_J / P_J = e^{(2J - nD) x} is a check, asserted
where both masses are above 2^{-B/2}; for D = 1, J is binomial, a second
check). Every value is computed at B = 480
and B = 800 bits and must agree to 30 significant digits; total masses are 1.

Queries (all exact for the lattice law):
  delta(eps) = sum_J max(0, Q_J - e^eps P_J) (T(P,Q) = T(Q,P) by the
    reflection z -> D - z, so this one order is the answer);
  epsilon(delta): on [l_{m-1}, l_m), delta(eps) = A_m - e^eps B_m with
    A_m = sum_{J >= m} Q_J, B_m = sum_{J >= m} P_J, solved in closed form;
  beta(alpha): Neyman-Pearson, rejecting the largest J first and
    randomizing on the boundary atom.
Printed to 20 significant digits.
"""

import os
import sys

import mpmath
from mpmath import mp, mpf

# (t, D, n, [("delta", eps) | ("eps", delta) | ("beta", alpha)])
CASES = [
    (20.0, 1, 1000, [("eps", 1e-5), ("delta", 6.0), ("beta", 1e-3)]),
    (30.0, 2, 1000, [("eps", 1e-5), ("eps", 1e-10), ("delta", 8.0)]),
    (10.0, 3, 100, [("eps", 1e-5), ("delta", 12.0), ("beta", 0.01)]),
    (50.0, 10, 200, [("eps", 1e-5), ("delta", 10.0)]),
    (100.0, 5, 1000, [("eps", 1e-5), ("beta", 0.2)]),
    (2.0, 3, 20, [("eps", 1e-6), ("delta", 25.0), ("beta", 1e-4)]),
    (0.75, 4, 5, [("eps", 1e-5), ("delta", 22.0)]),
    (3.0, 7, 1, [("eps", 1e-3), ("delta", 0.5), ("beta", 0.1)]),
]


def pack(coeffs, slot):
    nbytes = slot // 8
    return int.from_bytes(b"".join(c.to_bytes(nbytes, "little") for c in coeffs), "little")


def unpack(v, slot, count):
    nbytes = slot // 8
    raw = v.to_bytes(nbytes * count, "little")
    return [int.from_bytes(raw[i * nbytes:(i + 1) * nbytes], "little") for i in range(count)]


def mul(a, b, bits):
    """Fixed-point product of two polynomials (coefficients scaled by 2^bits)."""
    count = len(a) + len(b) - 1
    top = max(max(a), max(b))
    slot = 2 * top.bit_length() + min(len(a), len(b)).bit_length() + 8
    slot += (-slot) % 8
    c = unpack(pack(a, slot) * pack(b, slot), slot, count)
    return [x >> bits for x in c]


def power(base, n, bits):
    result = None
    while True:
        if n & 1:
            result = base if result is None else mul(result, base, bits)
        n >>= 1
        if not n:
            return result
        base = mul(base, base, bits)


def one_step(t, d):
    """p_j, q_j (mpf) of one application, from the definition's geometric sums."""
    x = 1 / mpf(t)
    w = mpmath.exp(-x)
    c = (1 - w) / (1 + w)
    p = [c * w ** j for j in range(d + 1)]
    p[0] = 1 / (1 + w)
    p[d] = w ** d / (1 + w)
    return x, p, list(reversed(p))


def check_one_step(t, d):
    """The clamped masses against direct sums of c w^|z| over the integers."""
    x, p, q = one_step(t, d)
    w = mpmath.exp(-x)
    c = (1 - w) / (1 + w)
    pz = lambda z: c * w ** abs(z)
    direct = [mpmath.nsum(lambda z: pz(-z), [0, mpmath.inf])]
    direct += [pz(j) for j in range(1, d)]
    direct.append(mpmath.nsum(pz, [d, mpmath.inf]))
    for a, b in zip(p, direct):
        assert abs(a - b) <= mpf(10) ** (-mp.dps + 5) * b, (t, d, a, b)
    assert abs(sum(p) - 1) < mpf(10) ** (-mp.dps + 5)


def lattice(t, d, n, bits):
    """(x, P_J, Q_J as mpf) of the n-fold composition."""
    x, p, q = one_step(t, d)
    scale = mpf(2) ** bits
    P = power([int(mpmath.floor(v * scale)) for v in p], n, bits)
    Q = power([int(mpmath.floor(v * scale)) for v in q], n, bits)
    P = [mpf(v) / scale for v in P]
    Q = [mpf(v) / scale for v in Q]
    tol = max(mpf(2) ** (-bits // 2), mpf(10) ** (-mp.dps + 5))
    assert abs(mpmath.fsum(P) - 1) < tol and abs(mpmath.fsum(Q) - 1) < tol, (t, d, n)
    floor = mpf(2) ** (-bits // 2)
    for J in range(len(P)):
        if P[J] > floor and Q[J] > floor:
            r = Q[J] / P[J] / mpmath.exp((2 * J - n * d) * x)
            assert abs(r - 1) < mpf(10) ** -35, (t, d, n, J, r)
    if d == 1:  # a second way: J ~ Bin(n, w/(1 + w)) under P (randomized response)
        w = mpmath.exp(-x)
        for J in range(0, n + 1, max(1, n // 50)):
            b = mpmath.binomial(n, J) * (w / (1 + w)) ** J / (1 + w) ** (n - J)
            assert abs(P[J] - b) <= tol + mpf(10) ** -30 * b, (t, n, J)
    return x, P, Q


def delta_at(x, P, Q, nd, eps):
    e = mpmath.exp(eps)
    return mpmath.fsum(max(mpf(0), Q[J] - e * P[J]) for J in range(len(P)))


def eps_at(x, P, Q, nd, delta):
    if delta_at(x, P, Q, nd, 0) <= delta:
        return mpf(0)
    A = B = mpf(0)
    for m in range(len(P) - 1, -1, -1):
        # on [l_{m-1}, l_m): delta(eps) = A_m - e^eps B_m, A_m, B_m over J >= m
        A += Q[m]
        B += P[m]
        lo = (2 * (m - 1) - nd) * x
        hi = (2 * m - nd) * x
        if A - mpmath.exp(lo) * B > delta:  # delta(l_{m-1}) > target: the root is in here
            e = mpmath.log((A - delta) / B)
            assert lo - mpf(10) ** -30 <= e <= hi + mpf(10) ** -30, (lo, e, hi)
            return max(e, mpf(0))
    raise AssertionError("no root")


def beta_at(x, P, Q, alpha):
    a = mpf(0)
    for m in range(len(P) - 1, -1, -1):
        if a + P[m] >= alpha:
            below = mpmath.fsum(Q[:m])
            return below + Q[m] * (1 - (alpha - a) / P[m])
        a += P[m]
    return mpf(0)


def values(bits, dps):
    mp.dps = dps
    out = []
    for t, d, n, queries in CASES:
        x, P, Q = lattice(t, d, n, bits)
        for what, arg in queries:
            a = mpf(arg)
            if what == "delta":
                v = delta_at(x, P, Q, n * d, a)
            elif what == "eps":
                v = eps_at(x, P, Q, n * d, a)
            else:
                v = beta_at(x, P, Q, a)
            out.append((t, d, n, what, arg, v))
    return out


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    mp.dps = 60
    for t, d, _, _ in CASES:
        check_one_step(t, d)
    lo = values(480, 60)
    hi = values(800, 90)
    rows = []
    for a, b in zip(lo, hi):
        t, d, n, what, arg, v = b
        assert abs(a[5] - v) <= mpf(10) ** -30 * abs(v), (a, b)
        spec = "discrete-laplace:t=%r;sensitivity=%d;times=%d" % (t, d, n)
        rows.append("%s,%s,%r,%s" % (spec, what, arg, mpmath.nstr(v, 20, min_fixed=-5, max_fixed=5)))
        print(rows[-1], file=sys.stderr)
    path = os.path.join(outdir, "discrete_laplace.csv")
    with open(path, "w") as fh:
        fh.write("# discrete-laplace reference values (tests/golden/gen_discrete_laplace.py, mpmath %s).\n"
                 % mpmath.__version__)
        fh.write("# Exact n-fold compositions of the discrete Laplace mechanism (scale t, integer\n"
                 "# sensitivity D): the lattice law's convolution powers in fixed point at 480 and 800\n"
                 "# bits, agreeing to 30 digits; printed to 20 significant digits. ';' stands for ','.\n")
        fh.write("spec,query,arg,value\n")
        for r in rows:
            fh.write(r + "\n")
    print("wrote %s (%d rows)" % (path, len(rows)), file=sys.stderr)


if __name__ == "__main__":
    main()
