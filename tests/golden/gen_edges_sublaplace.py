#!/usr/bin/python3
"""Independent reference values for the subsampled-Laplace misses (issue 30).

Made with mpmath only (nothing here reads or calls fdp). Run with Debian's
interpreter:   /usr/bin/python3 tests/golden/gen_edges_sublaplace.py [OUT.csv]
(default OUT: edges_sublaplace.csv beside this script). Takes ~5 minutes.

Pairs (every input is the exact IEEE double; d = sensitivity = 1 except A4)
----------------------------------------------------------------
A = subsampled-laplace:b=B,q=q (Poisson subsampling, add/remove):
      P_A = Lap(0,B),  Q_A = (1-q) Lap(0,B) + q Lap(d,B).
    With l(x) = (|x| - |x-d|)/B in [-e0, e0], e0 = d/B, the loss is
      L_A(x) = log dQ_A/dP_A = log(1 - q + q e^{l(x)}),
    non-decreasing in x, constant (atoms) on x <= 0 and x >= d.
    Closed form of its privacy profile (S = Lap(0,B) survival function):
      delta_A(eps)  = Q_A(L_A > eps) - e^eps P_A(L_A > eps)
                    = (1-q) S(t) + q S(t-d) - e^eps S(t),
      t = (d + B log((e^eps - 1 + q)/q))/2 clipped to [0, d]
      (delta_A = 1 - e^eps when eps < L_A(0), 0 when eps >= L_A(d));
      the swapped pair (Q_A, P_A) has loss -L_A:
      delta_A'(eps) = P_A(L_A < -eps) - e^eps Q_A(L_A < -eps).
B = laplace:b=Bb (pair Lap(0,Bb), Lap(1,Bb), symmetric) or gdp:mu=M
    (N(0,1), N(M,1), symmetric):
      delta_G(eps) = Phi(-eps/M + M/2) - e^eps Phi(-eps/M - M/2)   (DRS Cor. 2.13)
      delta_Lap(eps) = S_b(t - 1) - e^eps S_b(t),  t = (1 + Bb eps)/2 in [0,1]
      (the same threshold construction as for A with q = 1).

Composition (tensor product), for every real eps (Tonelli on the product):
      delta_{AxB}(eps)  = E_{Q_A}[delta_B(eps - L_A)]        (way 1: A outermost)
                        = E_{Q_B}[delta_A(eps - L_B)]        (way 2: B outermost)
      delta_{AxB}'(eps) = E_{P_A}[delta_B'(eps + L_A)]        (swapped pair,
                        = E_{P_B}[delta_A'(eps + L_B)]         loss -L_A - L_B)
  (B is symmetric, so delta_B' = delta_B.) The outer expectation is over the
  atoms at x <= 0, x >= d plus mpmath.quad over (0, d), split at every kink of
  the inner closed form and on a fine uniform partition (the densities vary
  like e^{-x/B}). Both ways must agree; the script aborts if they differ by
  more than 1e-20 relative.

fdp's guarantee is min{F, F^-1}** (F = T(P_A x P_B, Q_A x Q_B)), so
      delta(eps) = max(delta_F(eps), delta_F'(eps)),
      eps(delta) = smallest eps >= 0 with delta(eps) <= delta
                 = max(root of delta_F = delta, root of delta_F' = delta) (both
                   non-increasing), by mpmath.findroot (illinois) on a doubling
                   bracket, way 2; way 1 is then evaluated at the root (both ways must
                   agree there, and the larger profile must equal delta),
      beta(alpha) = max(0, sup_eps [1 - delta(eps) - e^eps alpha])   (DRS Prop. 2.12).
  For the single term: the function of t = e^eps is concave (a min of
  concave functions), so it is unimodal in eps; the sup is the larger of its
  values at the profile kinks (+-L_A(0), +-L_A(d), where atoms put the
  maximiser) and a 400-step golden-section search over eps in [-40, 40]
  (which holds every kink: |L_A| <= 33). Way 2 at alpha = 0.999: the closed
  form e^{-L_A(d)} (1 - alpha) (see single_beta_closed).

Columns: id,specs,query,x,truth,method,digits
"""
import csv
import os
import sys

import mpmath as mp

mp.mp.dps = 40

SUB_B = mp.mpf(0.030303030303030304)   # exact double; d/B = 32.99999999999999...
SUB_Q = mp.mpf(0.01)
D = mp.mpf(1)


# ---------------------------------------------------------------- subsampled A
class SubLap:
    def __init__(self, b, q, d=D):
        self.b, self.q, self.d = mp.mpf(b), mp.mpf(q), mp.mpf(d)
        self.e0 = self.d / self.b
        self.Lmin = self.L_of_l(-self.e0)
        self.Lmax = self.L_of_l(self.e0)

    def L_of_l(self, l):
        return mp.log(1 - self.q + self.q * mp.exp(l))

    def L(self, x):
        x = min(max(x, mp.mpf(0)), self.d)
        return self.L_of_l((2 * x - self.d) / self.b)

    def S(self, t):  # survival of Lap(0, b)
        return mp.exp(-t / self.b) / 2 if t >= 0 else 1 - mp.exp(t / self.b) / 2

    def thresh(self, eps):
        """x-threshold t with {L_A > eps} = {x > t}; None = all, 'none' = empty."""
        if eps < self.Lmin:
            return None
        if eps >= self.Lmax:
            return 'none'
        l = mp.log((mp.exp(eps) - 1 + self.q) / self.q)
        return (self.d + self.b * l) / 2

    def delta(self, eps):  # forward pair (P_A, Q_A)
        t = self.thresh(eps)
        if t is None:
            return 1 - mp.exp(eps)
        if t == 'none':
            return mp.mpf(0)
        return (1 - self.q) * self.S(t) + self.q * self.S(t - self.d) - mp.exp(eps) * self.S(t)

    def delta_swap(self, eps):  # swapped pair (Q_A, P_A): loss -L_A, measure P_A
        # sup_S P(S) - e^eps Q(S) = P(L < -eps) - e^eps Q(L < -eps)
        t = self.thresh(-eps)      # {L > -eps} = {x > t}; we need the complement {x <= t}
        if t is None:               # L > -eps everywhere: set {L < -eps} empty
            return mp.mpf(0)
        if t == 'none':             # L <= -eps everywhere: the whole line (a tie
            return 1 - mp.exp(eps)  # L = -eps on the atom contributes P - e^eps Q = 0)
        Pc = 1 - self.S(t)
        Qc = (1 - self.q) * (1 - self.S(t)) + self.q * (1 - self.S(t - self.d))
        return Pc - mp.exp(eps) * Qc

    # outer expectations E_{Q_A}[g(L_A)] and E_{P_A}[g(L_A)]
    def expect(self, g, under_Q, kinks_L=()):
        b, q, d = self.b, self.q, self.d
        # atoms
        pP0, pP1 = mp.mpf(1) / 2, mp.exp(-self.e0) / 2        # P(x<=0), P(x>=d)
        pR0, pR1 = mp.exp(-self.e0) / 2, mp.mpf(1) / 2        # Lap(d,b): same
        if under_Q:
            w0, w1 = (1 - q) * pP0 + q * pR0, (1 - q) * pP1 + q * pR1
            dens = lambda x: (1 - q) * mp.exp(-x / b) / (2 * b) + q * mp.exp(-(d - x) / b) / (2 * b)
        else:
            w0, w1 = pP0, pP1
            dens = lambda x: mp.exp(-x / b) / (2 * b)
        total = w0 * g(self.Lmin) + w1 * g(self.Lmax)
        # split points: kinks of g in terms of L -> x, and a uniform partition
        pts = set(mp.mpf(i) * d / 64 for i in range(65))
        for Lk in kinks_L:
            if self.Lmin < Lk < self.Lmax:
                l = mp.log((mp.exp(Lk) - 1 + q) / q)
                pts.add((d + b * l) / 2)
        pts = sorted(pts)
        total += mp.quad(lambda x: dens(x) * g(self.L(x)), pts)
        return total


# ---------------------------------------------------------------- other factor B
class GDP:
    def __init__(self, mu):
        self.mu = mp.mpf(mu)
        self.kinks = ()

    def delta(self, eps):
        m = self.mu
        return mp.ncdf(-eps / m + m / 2) - mp.exp(eps) * mp.ncdf(-eps / m - m / 2)

    delta_swap = delta

    def expect(self, g, under_Q, kinks_L=()):
        # L_B ~ N(m^2/2, m^2) under Q, N(-m^2/2, m^2) under P
        m = self.mu
        c = m * m / 2 if under_Q else -m * m / 2
        pts = [-mp.inf] + sorted(set([c + m * z for z in range(-40, 41, 2)] +
                                     [k for k in kinks_L])) + [mp.inf]
        return mp.quad(lambda l: mp.npdf(l, c, m) * g(l), pts)


class Lap:
    """laplace:b=Bb (sensitivity 1): pair Lap(0,Bb), Lap(1,Bb); as SubLap with q = 1."""
    def __init__(self, b):
        self.s = SubLap(b, 1)
        self.e0 = self.s.e0
        self.kinks = (-self.e0, self.e0)

    def delta(self, eps):
        return self.s.delta(eps)

    delta_swap = delta

    def expect(self, g, under_Q, kinks_L=()):
        # l = (2y - 1)/b, y in (0,1); Q = Lap(1,b), P = Lap(0,b)
        b = self.s.b
        e0 = self.e0
        if under_Q:
            w0, w1 = mp.exp(-e0) / 2, mp.mpf(1) / 2
            dens = lambda y: mp.exp(-(1 - y) / b) / (2 * b)
        else:
            w0, w1 = mp.mpf(1) / 2, mp.exp(-e0) / 2
            dens = lambda y: mp.exp(-y / b) / (2 * b)
        total = w0 * g(-e0) + w1 * g(e0)
        pts = set(mp.mpf(i) / 64 for i in range(65))
        for Lk in kinks_L:
            if -e0 < Lk < e0:
                pts.add((1 + b * Lk) / 2)
        pts = sorted(pts)
        total += mp.quad(lambda y: dens(y) * g((2 * y - 1) / b), pts)
        return total


# ---------------------------------------------------------------- compositions
def delta_pair(A, B, eps, way, which=(0, 1)):
    """(delta_F(eps), delta_F'(eps)) of A x B (an entry not in `which` is None)."""
    eps = mp.mpf(eps)
    dF = dS = None
    if way == 1:   # A outermost: kinks of delta_B at loss +-e0_B
        if 0 in which:
            dF = A.expect(lambda L: B.delta(eps - L), True, [eps - k for k in B.kinks])
        if 1 in which:   # delta_B(eps + L) has its kinks at L = k - eps
            dS = A.expect(lambda L: B.delta_swap(eps + L), False, [k - eps for k in B.kinks])
    else:          # B outermost: kinks of delta_A at L_A(0), L_A(d), and -those for the swap
        if 0 in which:
            dF = B.expect(lambda L: A.delta(eps - L), True, [eps - A.Lmin, eps - A.Lmax])
        if 1 in which:
            dS = B.expect(lambda L: A.delta_swap(eps + L), False, [-A.Lmin - eps, -A.Lmax - eps])
    return dF, dS


def check_agree(a, b, what, rel=mp.mpf('1e-20')):
    if abs(a - b) > rel * max(abs(a), abs(b)) + mp.mpf(10) ** (-mp.mp.dps + 5):
        raise SystemExit("disagreement in %s: %s vs %s" % (what, mp.nstr(a, 25), mp.nstr(b, 25)))


def delta_checked(A, B, eps):
    f1, s1 = delta_pair(A, B, eps, 1)
    f2, s2 = delta_pair(A, B, eps, 2)
    check_agree(f1, f2, "delta_F(%s)" % eps)
    check_agree(s1, s2, "delta_F'(%s)" % eps)
    return max(f1, s1), (f1, s1, f2, s2)


def eps_of_delta(A, B, delta, way):
    delta = mp.mpf(delta)
    res = []
    for idx in (0, 1):
        fn = lambda e: delta_pair(A, B, e, way, (idx,))[idx] - delta
        if fn(mp.mpf(0)) <= 0:
            res.append(mp.mpf(0))
            continue
        lo, hi = mp.mpf(0), mp.mpf(1)
        while fn(hi) > 0:
            lo, hi = hi, 2 * hi
        # delta is convex and decreasing in eps: the Illinois (regula falsi)
        # iteration on the doubling bracket converges superlinearly
        res.append(mp.findroot(fn, (lo, hi), solver='illinois', tol=mp.mpf(10) ** (-50), maxsteps=200))
    return max(res), res


# ---------------------------------------------------------------- single term
def single_delta(A, eps):
    return max(A.delta(eps), A.delta_swap(eps))


def single_beta(A, alpha):
    """sup_eps [1 - max(delta_A, delta_A')(eps) - e^eps alpha], clipped at 0.
    The function of t = e^eps is concave (min of concave), so it is unimodal
    in eps: golden-section search over [-40, 40], plus the profile kinks."""
    alpha = mp.mpf(alpha)
    h = lambda e: 1 - single_delta(A, e) - mp.exp(e) * alpha
    cands = [A.Lmin, A.Lmax, -A.Lmin, -A.Lmax]
    best = max(cands, key=h)
    # golden section (concave in e^eps => unimodal in eps)
    lo, hi = mp.mpf(-40), mp.mpf(40)
    g = (mp.sqrt(5) - 1) / 2
    c, d = hi - g * (hi - lo), lo + g * (hi - lo)
    fc, fd = h(c), h(d)
    for _ in range(400):
        if fc > fd:
            hi, d, fd = d, c, fc
            c = hi - g * (hi - lo)
            fc = h(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + g * (hi - lo)
            fd = h(d)
    v = max(h(best), fc, fd)
    return max(mp.mpf(0), v), best


def single_beta_closed(A, alpha):
    """Second way, for alpha on the last segment of F^-1 = T(Q_A, P_A): there
    the test accepts part of the atom x >= d (Q-mass w1 = Q_A(x >= d), likelihood
    ratio dP/dQ = e^{-L_A(d)}), so F^-1(alpha) = e^{-L_A(d)} (1 - alpha) for
    1 - alpha <= w1. The line through (1, 0) with slope -e^{-L_A(d)} lies below
    F too (F(a) >= e^{L_A(0)} (1 - a) >= e^{-L_A(d)} (1 - a)), so it is the last
    piece of min(F, F^-1)**."""
    alpha = mp.mpf(alpha)
    w1 = (1 - A.q) * A.S(A.d) + A.q * A.S(0)
    if 1 - alpha <= w1:
        return mp.exp(-A.Lmax) * (1 - alpha)
    return None


def single_delta_neg(A, eps):
    """Second way for eps < 0: delta_F(eps) = 1 - e^eps + e^eps delta_F'(-eps)
    (complement of the rejection set), and likewise with F and F' exchanged."""
    e = mp.exp(eps)
    return max(1 - e + e * A.delta_swap(-eps), 1 - e + e * A.delta(-eps))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "edges_sublaplace.csv")
    A = SubLap(SUB_B, SUB_Q)
    rows = []
    sA = "subsampled-laplace:b=0.030303030303030304;q=0.01"
    method2 = ("closed-form subsampled-Laplace profile; E_QA[delta_B(eps-L_A)] and "
               "E_QB[delta_A(eps-L_B)] (both orientations) by mpmath.quad at 40 digits")

    # A1 / A2: compositions
    for sB, B, qs in [("laplace:b=0.04", Lap(mp.mpf(0.04)),
                       [("delta", "20"), ("eps", "0.95"), ("eps", "0.9"), ("eps", "1e-5")]),
                      ("gdp:mu=4", GDP(4), [("delta", "12")])]:
        for kind, x in qs:
            if kind == "delta":
                v, parts = delta_checked(A, B, mp.mpf(float(x)))
                print(sA, sB, "delta", x, mp.nstr(v, 20), "F/F' =", mp.nstr(parts[0], 20), mp.nstr(parts[1], 20))
                rows.append(("A-" + sB, sA + " " + sB, "delta", x, mp.nstr(v, 20), method2, 15))
            else:
                e1, parts1 = eps_of_delta(A, B, mp.mpf(float(x)), 2)
                # way 1 at the root: both orientations by A-outermost quadrature
                # (delta_checked aborts unless the two ways agree), and the
                # larger profile equals the target there
                v2, _ = delta_checked(A, B, e1)
                check_agree(v2, mp.mpf(float(x)), "delta at the eps(%s) root" % x, mp.mpf('1e-25'))
                print(sA, sB, "eps", x, mp.nstr(e1, 20), "roots F/F' =", mp.nstr(parts1[0], 20), mp.nstr(parts1[1], 20))
                rows.append(("A-" + sB, sA + " " + sB, "eps", x, mp.nstr(e1, 20), method2, 15))

    # A4: q within 1e-5 of 1, sensitivity != 1 (the sweep's seed-6 miss: an
    # atom snapped onto the grid was counted twice by the optimistic sweep,
    # and the composed lower end of delta read 1)
    A4 = SubLap(mp.mpf(0.066415441953601453), mp.mpf(0.99998949471281839),
                mp.mpf(0.38699824345734563))
    sA4 = ("subsampled-laplace:b=0.066415441953601453;q=0.99998949471281839;"
           "sensitivity=0.38699824345734563")
    sB4 = "gdp:mu=0.14037806363138303"
    B4 = GDP(mp.mpf(0.14037806363138303))
    for x in ["-3.84", "0", "1.49"]:
        v, parts = delta_checked(A4, B4, mp.mpf(float(x)))
        print(sA4, sB4, "delta", x, mp.nstr(v, 20))
        rows.append(("A4-gdp", sA4 + " " + sB4, "delta", x, mp.nstr(v, 20), method2, 15))
    for x in ["0.9", "0.5"]:
        e1, parts1 = eps_of_delta(A4, B4, mp.mpf(float(x)), 2)
        v2, _ = delta_checked(A4, B4, e1)
        check_agree(v2, mp.mpf(float(x)), "delta at the eps(%s) root" % x, mp.mpf('1e-25'))
        print(sA4, sB4, "eps", x, mp.nstr(e1, 20))
        rows.append(("A4-gdp", sA4 + " " + sB4, "eps", x, mp.nstr(e1, 20), method2, 15))

    # A3: single term
    m1 = "closed-form profile of both orientations (exact)"
    for e in ["-4", "0", "1", "4"]:
        v = single_delta(A, mp.mpf(float(e)))
        if float(e) < 0:
            check_agree(v, single_delta_neg(A, mp.mpf(float(e))), "single delta(%s)" % e)
        print(sA, "delta", e, mp.nstr(v, 20), "F/F'", mp.nstr(A.delta(mp.mpf(e)), 20), mp.nstr(A.delta_swap(mp.mpf(e)), 20))
        rows.append(("A-single", sA, "delta", e, mp.nstr(v, 20), m1, 20))
    for a in ["0.999", "0.99", "0.5", "0.001"]:
        v, at = single_beta(A, mp.mpf(float(a)))
        v2 = single_beta_closed(A, mp.mpf(float(a)))
        if v2 is not None:
            check_agree(v, v2, "single beta(%s)" % a, mp.mpf('1e-15'))
            print("   closed form (last segment of F^-1):", mp.nstr(v2, 25))
        print(sA, "beta", a, mp.nstr(v, 20), "maximiser near eps =", mp.nstr(at, 10))
        rows.append(("A-single", sA, "beta", a, mp.nstr(v, 20),
                     "sup_eps 1-delta(eps)-e^eps alpha, golden section on exact profile", 15))
    with open(out, "w", newline="") as f:
        f.write("# Subsampled-Laplace reference values (issue 30); made by gen_edges_sublaplace.py\n"
                "# (mpmath %s, 40 digits). Specs separated by spaces; ';' inside a spec stands for ','.\n"
                % mp.__version__)
        w = csv.writer(f)
        w.writerow(["id", "specs", "query", "x", "truth", "method", "digits"])
        w.writerows(rows)
    print("wrote", out)


if __name__ == "__main__":
    main()
