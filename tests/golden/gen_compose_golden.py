#!/usr/bin/python3
"""Reference values for the composition engine's soundness tests, made with
mpmath independently of fdp (nothing here calls or reads fdp's code).

Run with Debian's interpreter (it has python3-mpmath):

    /usr/bin/python3 tests/golden/gen_compose_golden.py [--quick] [OUTDIR]

Writes OUTDIR/compose_golden.csv (OUTDIR defaults to this script's directory).
--quick leaves out the slow rows (S2b: 1000-fold Laplace) for a fast rerun.

What is composed
----------------
A case is a tensor product of
  * Laplace terms T(Lap(0,1), Lap(mu_g,1)), n_g-fold, for a few distinct mu_g
    (spec laplace:b=1,sensitivity=mu_g or laplace:b=B with mu = 1/B);
  * Gaussian terms G_{mu_i} (gdp:mu= / gaussian:sigma=), which compose to
    G_sqrt(sum mu_i^2) (DRS Cor. 3.3);
  * f_{eps0,delta_i} terms with ONE common eps0 (eps0 = 0 allowed), which are
    f_{eps0,0}^{(x)k} (x) f_{0,d}, d = 1 - prod (1 - delta_i)^{n_i}.
Every input is an IEEE double; mpmath works with the exact double value.

The privacy-loss law L = log dQ/dP under P, and delta(eps)
----------------------------------------------------------
delta(eps) = d + (1 - d) D(eps),  D(eps) = E_P[(e^L - e^eps)_+]  for any real
eps (the f_{0,d} part moves mass d to loss +inf and scales the rest by 1 - d).

* Randomized-response part f_{eps0,0}^{(x)k}: L = eps0 (k - 2S) with
  S ~ Bin(k, e^eps0/(1+e^eps0)) under P, so
  D(eps) = sum_s P(S=s) e^{l_s} D_rest(eps - l_s).
  Checked against the Kairouz-Oh-Viswanath formula (a second way).
* Gaussian part G_mu: D_G(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2).
* Laplace part. For one term with X ~ Lap(0,1) under P,
  L = |X| - |X - mu| = -mu + 2Y with Y = min(max(X, 0), mu), and the P-law
  of Y is (1/2) e^{-y} [delta_0 + Lebesgue on (0, mu) + delta_mu](dy).
  The factor e^{-y} multiplies over independent terms (e^{-sum y} = e^{-t}),
  so the P-law of T = sum Y_i is 2^{-n} e^{-t} nu(dt) with
      nu = *_i (delta_0 + delta_{mu_i} + 1_{(0, mu_i)} dt),
  a measure with integer structure: its Laplace transform is
      prod_i (1 + x_i + (1 - x_i)/s),   x_i = e^{-mu_i s},
  and x^sigma s^{-j} is the truncated power (t - sigma)_+^{j-1}/(j-1)! (j >= 1)
  or the atom delta_sigma (j = 0). For one mu (n-fold) the coefficient of
  x^sigma s^{-j} is C(n, j) [x^sigma] (1 - x)^j (1 + x)^{n-j} (computed with
  exact integer recurrences), and groups with different mu multiply
  (shifts added exactly as rationals). With M = sum mu_i, L = -M + 2T, and
      D(eps) = 2^{-n} [ e^{-M} int_{t>t*} e^t nu(dt) - e^eps int_{t>t*} e^{-t} nu(dt) ],
  t* = (M + eps)/2, every integral of exp(+-t) times a truncated power is
  elementary (finite sums). The truncated powers cancel to 0 beyond t = M,
  so the e^{+t} integrals stop at M. The sums cancel massively; they are
  evaluated at a working precision chosen from n and M, and every printed
  value is recomputed at 1.6x that precision (the script aborts unless the
  two agree to 30 digits).
  Checks (the script aborts if one fails): total P- and Q-mass are 1; for
  n <= 8 the closed-form sums agree with mpmath.quad over the piecewise
  polynomial density (a second way); the 1-fold case agrees with quadrature
  over x; the n-fold coefficients agree with a direct product expansion.
* Laplace (x) Gaussian: D(eps) = 2^{-n} e^{-M} int e^t D_G(eps + M - 2t) nu(dt)
  by mpmath.quad on the polynomial pieces of nu (small n only).

Queries
-------
  delta   delta(eps) at the given eps (any real eps)
  eps     the smallest eps >= 0 with delta(eps) <= delta (safeguarded
          secant/bisection on log delta to 1e-28 relative)
  beta    f(alpha) = max(0, sup_eps [1 - delta(eps) - e^eps alpha]) (convex
          duality, DRS Prop. 2.12; valid for any trade-off function), by
          golden-section search (unimodal in eps), checked for the closed
          forms against (1-d) G_mu(alpha/(1-d)) and the binomial polygon
  mu      the GDP summary: smallest mu with f >= G_mu, i.e.
          sup_{eps>=0} mu(eps, delta(eps)) with delta_mu(eps) = delta(eps)
          (f symmetric here), by a grid of 201 points plus every kink of
          delta (the lattice losses), then golden-section search in the two
          intervals beside the best point (a value of the sup from below,
          accurate to ~1e-12 when the best interval holds the maximiser).

Rows: id,specs,query,x,value. Specs are separated by spaces, and inside a
spec ';' stands for ',' (so the CSV stays simple). 'value' has 20 significant
digits; 'inf' when there is no finite answer.

Random cases (ids rnd-NNN) come from random.Random(SEED); the seed is in the
header of the table.
"""

import math
import os
import random
import sys
from fractions import Fraction

import mpmath
from mpmath import mp, mpf

SEED = 20240605
OUT_DIGITS = 20
CHECK_DIGITS = 30


def d(x):
    return mpf(float(x))


# ------------------------------------------------------------- Laplace nu

def lap_group_coeffs(n):
    """{(sigma_index, j): int} for (1 + x + (1 - x)/s)^n: C(n, j) times the
    coefficients of (1 - x)^j (1 + x)^(n - j)."""
    # P_j = (1 - x)^j (1 + x)^(n-j); P_0 = (1+x)^n; P_{j+1} = P_j (1-x)/(1+x)
    P = [math.comb(n, i) for i in range(n + 1)]
    out = {}
    for j in range(n + 1):
        cj = math.comb(n, j)
        for i, c in enumerate(P):
            if c:
                out[(i, j)] = cj * c
        if j == n:
            break
        # multiply by (1 - x)
        R = [0] * (n + 2)
        for i, c in enumerate(P):
            R[i] += c
            R[i + 1] -= c
        # divide by (1 + x): exact
        Qd = [0] * (n + 1)
        prev = 0
        for i in range(n + 1):
            prev = R[i] - prev
            Qd[i] = prev
        assert R[n + 1] == Qd[n], "division by (1+x) not exact"
        P = Qd
    return out


def lap_group_coeffs_direct(n):
    """The same by repeated multiplication (a check, small n)."""
    poly = {(0, 0): 1}
    for _ in range(n):
        new = {}
        for (i, j), c in poly.items():
            for (di, dj, m) in ((0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, -1)):
                k = (i + di, j + dj)
                new[k] = new.get(k, 0) + m * c
        poly = {k: v for k, v in new.items() if v}
    return poly


class LaplaceNu:
    """nu for Laplace groups [(mu as Fraction, n), ...]."""

    def __init__(self, groups):
        self.groups = [(Fraction(mu), n) for mu, n in groups if n > 0]
        self.n = sum(n for _, n in self.groups)
        self.M = sum(mu * n for mu, n in self.groups)
        terms = {(Fraction(0), 0): 1}
        for mu, n in self.groups:
            g = lap_group_coeffs(n)
            new = {}
            for (s1, j1), c1 in terms.items():
                for (i2, j2), c2 in g.items():
                    k = (s1 + mu * i2, j1 + j2)
                    new[k] = new.get(k, 0) + c1 * c2
            terms = {k: v for k, v in new.items() if v}
        self.terms = terms
        # group by shift: for each sigma, coefficient list c[j]
        by = {}
        for (s, j), c in terms.items():
            by.setdefault(s, {})[j] = c
        self.shifts = []
        for s in sorted(by):
            cj = by[s]
            J = max(cj)
            c = [cj.get(j, 0) for j in range(J + 1)]
            # S_r = sum_{j>=r+1} c_j ; T_r = sum_{j>=r+1} c_j (-1)^(j-1)
            S = [0] * J
            T = [0] * J
            accS = accT = 0
            for r in range(J - 1, -1, -1):
                accS += c[r + 1]
                accT += c[r + 1] * (-1) ** r
                S[r] = accS
                T[r] = accT
            self.shifts.append((s, c[0], S, T))

    def dps_needed(self):
        return 40 + int(0.5 * self.n + 1.5 * float(self.M)) + 10

    def _prep(self):
        """Per-precision constants: for each shift, sigma, e^{+-sigma}, the atom
        coefficient and the Horner coefficients S_r/r!, (-1)^r T_r/r!."""
        key = mp.prec
        if getattr(self, "_prep_key", None) == key:
            return self._prep_val
        M = mpf(self.M.numerator) / self.M.denominator
        out = []
        for s, c0, S, T in self.shifts:
            sig = mpf(s.numerator) / s.denominator
            fac = mpf(1)
            cS, cT = [], []
            for r in range(len(S)):
                if r:
                    fac *= r
                cS.append(mpf(S[r]) / fac)
                cT.append((-1 if r % 2 else 1) * mpf(T[r]) / fac)
            cS.reverse()
            cT.reverse()
            esig = mp.exp(sig)
            # the e^{+t} integral's upper end: e^sig G(U), U = M - sig (constant)
            KU = esig * mp.exp(M - sig) * self._horner(cT, M - sig) if cT else mpf(0)
            out.append((sig, esig, mp.exp(-sig), c0, cS, cT, KU))
        self._prep_key, self._prep_val = key, (M, out)
        return self._prep_val

    @staticmethod
    def _horner(coeffs_rev, u):
        acc = mpf(0)
        for c in coeffs_rev:
            acc = acc * u + c
        return acc

    def integrals(self, tstar):
        """(A, B) = (int_{t>t*} e^t nu(dt), int_{t>t*} e^-t nu(dt)) at the
        current precision; tstar an mpf."""
        M, prep = self._prep()
        A = mpf(0)
        B = mpf(0)
        if tstar >= M:
            return mpf(0), mpf(0)
        for sig, esig, emsig, c0, cS, cT, KU in prep:
            if c0 and sig > tstar:
                A += c0 * esig
                B += c0 * emsig
            if not cS:
                continue
            u0 = tstar - sig
            # B part: e^{-sig-u0} sum_r u0^r/r! S_r
            # A part: e^sig [G(U) - G(u0)], G(u) = e^u sum_r (-1)^r u^r/r! T_r
            if u0 <= 0:
                B += emsig * cS[-1]
                A += KU - esig * cT[-1]
            else:
                B += emsig * mp.exp(-u0) * self._horner(cS, u0)
                A += KU - esig * mp.exp(u0) * self._horner(cT, u0)
        return A, B

    def integral_B(self, tstar):
        """int_{t>t*} e^-t nu(dt) only."""
        M, prep = self._prep()
        B = mpf(0)
        for sig, esig, emsig, c0, cS, cT, KU in prep:
            if c0 and sig > tstar:
                B += c0 * emsig
            if not cS:
                continue
            u0 = tstar - sig
            if u0 <= 0:
                B += emsig * cS[-1]
            else:
                B += emsig * mp.exp(-u0) * self._horner(cS, u0)
        return B

    def density_pieces(self):
        """[(a, b, f)] with f(t) the density of nu's continuous part on (a, b)."""
        shifts = sorted({s for (s, j) in self.terms})
        pieces = []
        for i in range(len(shifts) - 1):
            a, b = shifts[i], shifts[i + 1]
            act = [(s, j, c) for (s, j), c in self.terms.items() if j >= 1 and s <= a]

            def f(t, act=act):
                acc = mpf(0)
                for s, j, c in act:
                    acc += c * (t - mpf(s.numerator) / s.denominator) ** (j - 1) / mp.factorial(j - 1)
                return acc
            pieces.append((a, b, f))
        return pieces

    def poly_pieces(self):
        """[(a, b, coeffs)] with the continuous density of nu on (a, b) equal
        to sum_r coeffs[r] (t - a)^r; coefficients exact (Fractions), from
        c (t - s)^m / m! = c sum_r C(m, r) (t - a)^r (a - s)^(m - r) / m!."""
        if getattr(self, "_pp", None) is not None:
            return self._pp
        shifts = sorted({s for (s, j) in self.terms})
        out = []
        for i in range(len(shifts) - 1):
            a, b = shifts[i], shifts[i + 1]
            co = {}
            for (s, j), c in self.terms.items():
                if j < 1 or s > a:
                    continue
                m = j - 1
                fm = math.factorial(m)
                for r in range(m + 1):
                    co[r] = co.get(r, 0) + Fraction(c * math.comb(m, r), fm) * (a - s) ** (m - r)
            R = max(co) if co else 0
            out.append((a, b, [co.get(r, Fraction(0)) for r in range(R + 1)]))
        self._pp = out
        return out

    def atoms(self):
        return [(s, c) for (s, j), c in self.terms.items() if j == 0]


# ------------------------------------------------------------- a composition

def Phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def gauss_D(mu, eps):
    if mu == 0:
        return max(mpf(0), 1 - mp.exp(eps))
    return Phi(-eps / mu + mu / 2) - mp.exp(eps) * Phi(-eps / mu - mu / 2)


class Composition:
    """lap: [(mu float, n)], gauss: [(mu float, n)], ed: [(eps, delta, n)]."""

    def __init__(self, lap=(), gauss=(), ed=(), specs=None):
        self.lap_in = [(mu, n) for mu, n in lap if n > 0]
        self.gauss_in = list(gauss)
        self.ed_in = list(ed)
        self.nu = LaplaceNu([(Fraction(mu), n) for mu, n in self.lap_in]) if self.lap_in else None
        epss = {e for e, _, _ in self.ed_in if e != 0}
        assert len(epss) <= 1, "one common eps0"
        self.eps0 = float(next(iter(epss))) if epss else 0.0
        self.k = sum(n for e, _, n in self.ed_in if e != 0)
        self.specs = specs
        if self.nu is not None and self.gauss_in:
            assert self.nu.n <= 12, "Laplace (x) Gaussian by quadrature: small n only"

    def dps(self):
        base = 50
        if self.nu is not None:
            base = max(base, self.nu.dps_needed())
        if self.k:
            base = max(base, 50 + int(0.5 * self.k * self.eps0))
        return base

    # --- parts, at the current precision
    def gauss_mu(self):
        s = mpf(0)
        for mu, n in self.gauss_in:
            s += n * d(mu) ** 2
        return mp.sqrt(s)

    def d_total(self):
        keep = mpf(1)
        for _, de, n in self.ed_in:
            keep *= (1 - d(de)) ** n
        return 1 - keep

    def D_rest(self, eps):
        """D of the Laplace (x) Gaussian part at eps (mpf)."""
        mu = self.gauss_mu()
        if self.nu is None:
            return gauss_D(mu, eps)
        nu = self.nu
        M = mpf(nu.M.numerator) / nu.M.denominator
        if mu == 0:
            A, B = nu.integrals((M + eps) / 2)
            return (mp.exp(-M) * A - mp.exp(eps) * B) / mpf(2) ** nu.n
        acc = mpf(0)
        for s, c in nu.atoms():
            sig = mpf(s.numerator) / s.denominator
            acc += c * mp.exp(sig) * gauss_D(mu, eps + M - 2 * sig)
        for a, b, co in nu.poly_pieces():
            fa, fb = mpf(a.numerator) / a.denominator, mpf(b.numerator) / b.denominator
            cr = [mpf(x.numerator) / x.denominator for x in reversed(co)]

            def integrand(t, fa=fa, cr=cr):
                u = t - fa
                p = mpf(0)
                for x in cr:
                    p = p * u + x
                return mp.exp(t) * gauss_D(mu, eps + M - 2 * t) * p
            acc += mp.quad(integrand, [fa, fb], method="gauss-legendre")
        return acc * mp.exp(-M) / mpf(2) ** nu.n

    def rr_atoms(self):
        if self.k == 0:
            return [(mpf(0), mpf(1))]
        e0 = d(self.eps0)
        p = mp.exp(e0) / (1 + mp.exp(e0))
        return [(e0 * (self.k - 2 * s), mp.binomial(self.k, s) * p ** s * (1 - p) ** (self.k - s))
                for s in range(self.k + 1)]

    def D(self, eps):
        acc = mpf(0)
        for l, w in self.rr_atoms():
            if self.nu is None and self.gauss_mu() == 0:
                acc += w * max(mpf(0), mp.exp(l) - mp.exp(eps))
            else:
                acc += w * mp.exp(l) * self.D_rest(eps - l)
        return acc

    def delta(self, eps):
        dt = self.d_total()
        return dt + (1 - dt) * self.D(eps)

    def tail_rest(self, eps):
        """P(L_rest > eps) for the Laplace or Gaussian part (not both)."""
        mu = self.gauss_mu()
        if self.nu is None:
            if mu == 0:
                return mpf(1) if eps < 0 else mpf(0)
            return Phi((-eps - mu * mu / 2) / mu)
        assert mu == 0
        nu = self.nu
        M = mpf(nu.M.numerator) / nu.M.denominator
        return nu.integral_B((M + eps) / 2) / mpf(2) ** nu.n

    def tailP(self, eps):
        """(1 - d) P_rest(L > eps): minus the derivative of delta in e^eps."""
        acc = mpf(0)
        for l, w in self.rr_atoms():
            acc += w * self.tail_rest(eps - l)
        return (1 - self.d_total()) * acc

    def has_tail(self):
        return self.nu is None or self.gauss_mu() == 0

    def has_inf(self):
        return self.d_total() > 0

    def loss_max(self):
        if self.gauss_mu() > 0 or self.has_inf():
            return None
        m = mpf(0)
        if self.nu is not None:
            m += mpf(self.nu.M.numerator) / self.nu.M.denominator
        m += self.k * d(self.eps0)
        return m


def at_precision(fn, dps, digits=CHECK_DIGITS):
    """fn() at dps and 1.6 dps; abort unless they agree to `digits` digits."""
    with mp.workdps(dps):
        v1 = fn()
    with mp.workdps(int(dps * 1.6) + 10):
        v2 = fn()
    if v1 != v2:
        if v2 == 0 or (not mp.isinf(v2) and abs(v1 - v2) > abs(v2) * mpf(10) ** (-digits)):
            if not (v2 == 0 and abs(v1) < mpf(10) ** (-60)):
                raise SystemExit("precision check failed: %s vs %s" % (v1, v2))
    return v2


def solve_eps(c, target):
    """The smallest eps >= 0 with delta(eps) <= target."""
    target = d(target)
    if c.delta(mpf(0)) <= target:
        return mpf(0)
    lmax = c.loss_max()
    if target == 0:
        return lmax if lmax is not None else mp.inf
    if c.has_inf() and c.d_total() > target:
        return mp.inf  # delta(eps) >= d > target for every eps
    if c.has_inf() and c.d_total() == target and c.gauss_mu() > 0:
        return mp.inf  # delta(eps) > d = target for every finite eps
    # (d == target without a Gaussian part: delta reaches d exactly where the
    # finite losses end; the search below finds that point)
    lo, hi = mpf(0), mpf(1)
    while c.delta(hi) > target:
        lo, hi = hi, hi * 2
        if hi > 1e6:
            return mp.inf
    if lmax is not None and hi > lmax:
        hi = lmax  # delta(lmax) = 0
    # safeguarded secant on g = log delta - log target (g(lo) > 0 >= g(hi))
    lt = mp.log(target)

    def g(e):
        v = c.delta(e)
        return mp.log(v) - lt if v > 0 else -mp.inf
    glo, ghi = g(lo), g(hi)
    tol = mpf(10) ** (-(CHECK_DIGITS - 2))
    # safeguarded Newton (exact derivative d delta/d eps = -e^eps tailP) where
    # the tail is available, else secant; bisection when a step leaves the bracket
    x = (lo + hi) / 2
    for it in range(400):
        if hi - lo <= tol * (1 + hi):
            return hi
        v = c.delta(x)
        gx = mp.log(v) - lt if v > 0 else -mp.inf
        if gx > 0:
            lo, glo = x, gx
        else:
            hi, ghi = x, gx
        if mp.isinf(gx):
            x = (lo + hi) / 2
            continue
        if c.has_tail():
            dh = -mp.exp(x) * c.tailP(x) / v
            step = -gx / dh if dh != 0 else None
        else:
            step = None
            if not (mp.isinf(glo) or mp.isinf(ghi)) and ghi != glo:
                m = hi - ghi * (hi - lo) / (ghi - glo)
                step = m - x
        if gx == 0:
            step = None  # delta == target exactly (a flat piece): bisect for its left end
        if step is not None and abs(step) <= tol * (1 + abs(x)):
            return x
        xn = x + step if step is not None else None
        if xn is None or not (lo < xn < hi):
            xn = (lo + hi) / 2
        x = xn
    return hi


def golden_max(fn, a, b, iters=160):
    """max of a unimodal fn on [a, b] (golden section)."""
    r = (mp.sqrt(5) - 1) / 2
    x1 = b - r * (b - a)
    x2 = a + r * (b - a)
    f1, f2 = fn(x1), fn(x2)
    for _ in range(iters):
        if f1 < f2:
            a, x1, f1 = x1, x2, f2
            x2 = a + r * (b - a)
            f2 = fn(x2)
        else:
            b, x2, f2 = x2, x1, f1
            x1 = b - r * (b - a)
            f1 = fn(x1)
    return max(f1, f2, fn(a), fn(b))


def beta(c, alpha):
    """f(alpha) = max(0, sup_eps g(eps)), g(eps) = 1 - delta(eps) - e^eps alpha.
    g is unimodal in eps with g'(eps) = e^eps [tailP(eps) - alpha]; where the
    tail is available the maximiser is found by bisection on its sign,
    else by golden-section search on g."""
    a = d(alpha)
    g = lambda e: 1 - c.delta(e) - mp.exp(e) * a
    if c.has_tail():
        lo, hi = mpf(-1), mpf(1)
        while c.tailP(lo) < a:
            lo *= 2
            if lo < -1e4:
                return max(mpf(0), g(lo))
        while c.tailP(hi) > a:
            hi *= 2
        for _ in range(110):
            m = (lo + hi) / 2
            if c.tailP(m) > a:
                lo = m
            else:
                hi = m
        return max(mpf(0), g(lo), g(hi))
    grid = [mpf(x) / 4 for x in range(-120, 121)]
    vals = [g(e) for e in grid]
    i = max(range(len(grid)), key=lambda k: vals[k])
    lo = grid[max(i - 1, 0)]
    hi = grid[min(i + 1, len(grid) - 1)]
    best = max(vals[i], golden_max(g, lo, hi, iters=120))
    return max(mpf(0), best)


def gdp_delta(mu, eps):
    return gauss_D(mu, eps)


def gdp_mu(eps, delta):
    """mu with delta_mu(eps) = delta (delta_mu increasing in mu)."""
    if delta <= 0:
        return mpf(0)
    lo, hi = mpf(0), mpf(1)
    while gdp_delta(hi, eps) < delta:
        lo, hi = hi, hi * 2
    for _ in range(200):
        m = (lo + hi) / 2
        if gdp_delta(m, eps) < delta:
            lo = m
        else:
            hi = m
        if hi - lo < mpf(10) ** (-(CHECK_DIGITS + 2)) * hi:
            break
    return (lo + hi) / 2


def kinks(c, top):
    """Losses >= 0 where delta(eps) has a kink (atoms of L): the lattice of
    the randomized-response part or of the Laplace part (not both)."""
    out = []
    if c.nu is not None and c.k == 0 and c.gauss_mu() == 0:
        M = mpf(c.nu.M.numerator) / c.nu.M.denominator
        for s, _, _, _ in c.nu.shifts:
            out.append(-M + 2 * mpf(s.numerator) / s.denominator)
    elif c.nu is None and c.gauss_mu() == 0:
        out = [l for l, _ in c.rr_atoms()]
    return sorted({x for x in out if 0 <= x <= top})


def mu_summary(c):
    """sup_{eps >= 0} mu(eps, delta(eps)): phi on a grid of 201 points plus
    every kink of delta, then golden-section search in the two grid
    intervals beside the best point (phi is smooth between kinks)."""
    if c.has_inf():
        return mp.inf
    lmax = c.loss_max()
    top = lmax if lmax is not None else mpf(60)
    phi = lambda e: gdp_mu(e, c.delta(e))
    grid = sorted(set([top * i / 200 for i in range(201)] + kinks(c, top)))
    vals = [phi(e) for e in grid]
    i = max(range(len(grid)), key=lambda k: vals[k])
    best = vals[i]
    if i > 0:
        best = max(best, golden_max(phi, grid[i - 1], grid[i], iters=90))
    if i + 1 < len(grid):
        best = max(best, golden_max(phi, grid[i], grid[i + 1], iters=90))
    return best


# -------------------------------------------------------------- self checks

def check_laplace_one(mu):
    """1-fold Laplace delta vs quadrature over x."""
    c = Composition(lap=[(mu, 1)])
    with mp.workdps(40):
        m = d(mu)
        for eps in (mpf(-0.7) * m, mpf(0), m / 3, m * mpf(0.9)):
            # E_P[(e^L - e^eps)_+], X ~ Lap(0,1), L = |x| - |x - mu|
            f = lambda x: mp.exp(-abs(x)) / 2 * max(mpf(0), mp.exp(abs(x) - abs(x - m)) - mp.exp(eps))
            q = mp.quad(f, [-mp.inf, 0, max(mpf(0), (eps + m) / 2), m, mp.inf])
            v = c.delta(eps)
            assert abs(q - v) < mpf(10) ** -30, (mu, eps, q, v)


def check_nu(groups):
    """Total masses, and the closed-form integrals vs quadrature (small n)."""
    nu = LaplaceNu([(Fraction(mu), n) for mu, n in groups])
    with mp.workdps(nu.dps_needed()):
        M = mpf(nu.M.numerator) / nu.M.denominator
        A, B = nu.integrals(mpf(-1))
        two = mpf(2) ** nu.n
        assert abs(B / two - 1) < mpf(10) ** -30, ("P mass", groups, B / two)
        assert abs(mp.exp(-M) * A / two - 1) < mpf(10) ** -30, ("Q mass", groups)
        if nu.n <= 8:
            for frac in (mpf('0.1'), mpf('0.37'), mpf('0.5'), mpf('0.81')):
                ts = M * frac
                A, B = nu.integrals(ts)
                qa = sum(c * mp.exp(mpf(s.numerator) / s.denominator) for s, c in nu.atoms()
                         if mpf(s.numerator) / s.denominator > ts)
                qb = sum(c * mp.exp(-mpf(s.numerator) / s.denominator) for s, c in nu.atoms()
                         if mpf(s.numerator) / s.denominator > ts)
                for a, b, f in nu.density_pieces():
                    fa, fb = mpf(a.numerator) / a.denominator, mpf(b.numerator) / b.denominator
                    if fb <= ts:
                        continue
                    lo = max(fa, ts)
                    qa += mp.quad(lambda t: mp.exp(t) * f(t), [lo, fb])
                    qb += mp.quad(lambda t: mp.exp(-t) * f(t), [lo, fb])
                assert abs(qa - A) < abs(A) * mpf(10) ** -25, ("A quad", groups, qa, A)
                assert abs(qb - B) < abs(B) * mpf(10) ** -25, ("B quad", groups, qb, B)


def check_coeffs():
    for n in (1, 2, 3, 7, 12):
        assert lap_group_coeffs(n) == lap_group_coeffs_direct(n), n


def kov_delta(eps0, delta0, k, eps):
    """Kairouz-Oh-Viswanath Thm 3.3."""
    e0 = d(eps0)
    s = mpf(0)
    for l in range(k + 1):
        t = mp.exp((k - l) * e0) - mp.exp(eps + l * e0)
        if t > 0:
            s += mp.binomial(k, l) * t
    return 1 - (1 - d(delta0)) ** k * (1 - s / (1 + mp.exp(e0)) ** k)


def check_kov():
    for eps0, de, k in ((0.1, 1e-6, 100), (1.0, 0.0, 7), (0.5, 1e-3, 20)):
        c = Composition(ed=[(eps0, de, k)])
        with mp.workdps(60):
            for eps in (mpf(0), mpf('0.3'), mpf(2), mpf('3.1')):
                a, b = c.delta(eps), kov_delta(eps0, de, k, eps)
                assert abs(a - b) <= abs(b) * mpf(10) ** -40 + mpf(10) ** -55, (eps0, k, eps, a, b)


def binom_polygon_beta(eps0, delta0, k, alpha):
    """k-fold f_{eps0,delta0} at alpha from the binomial polygon (docs/formulas.md)."""
    e0 = d(eps0)
    p = mp.exp(e0) / (1 + mp.exp(e0))
    keep = (1 - d(delta0)) ** k
    a = d(alpha)
    if a >= keep:
        return mpf(0)
    x = a / keep
    pp = [mp.binomial(k, s) * p ** s * (1 - p) ** (k - s) for s in range(k + 1)]
    qq = [mp.binomial(k, s) * (1 - p) ** s * p ** (k - s) for s in range(k + 1)]
    A = [mpf(0)]
    Bv = [sum(qq)]
    for j in range(1, k + 2):
        A.append(A[-1] + pp[j - 1])
        Bv.append(Bv[-1] - qq[j - 1])
    for j in range(k + 1):
        if A[j] <= x <= A[j + 1]:
            t = (x - A[j]) / (A[j + 1] - A[j])
            return keep * (Bv[j] + t * (Bv[j + 1] - Bv[j]))
    return mpf(0)


# ------------------------------------------------------------------ cases

def spec_lap(mu, n, style="sens"):
    if style == "b":
        return "laplace:b=%r;times=%d" % (1.0 / mu, n) if n > 1 else "laplace:b=%r" % (1.0 / mu)
    return "laplace:b=1;sensitivity=%r;times=%d" % (mu, n)


def fmt(v):
    if mp.isinf(v):
        return "inf"
    if v == 0:
        return "0"
    return mp.nstr(v, OUT_DIGITS, min_fixed=-4, max_fixed=-4, strip_zeros=False).replace("e+", "e")


class Writer:
    """Appends rows to PATH as they are made (a partial table is usable)."""

    def __init__(self, path, header):
        self.rows = []
        self.fh = open(path, "w")
        self.fh.write(header)
        self.fh.flush()

    def add(self, cid, c, query, x):
        dps = c.dps()
        if query == "delta":
            v = at_precision(lambda: c.delta(d(x)), dps)
        elif query == "eps":
            v = at_precision(lambda: solve_eps(c, x), dps, CHECK_DIGITS - 4)
        elif query == "beta":
            v = at_precision(lambda: beta(c, x), dps, CHECK_DIGITS - 4)
        elif query == "mu":
            with mp.workdps(dps):
                v = mu_summary(c)
        else:
            raise ValueError(query)
        self.rows.append((cid, " ".join(c.specs), query, repr(float(x)), fmt(v)))
        self.fh.write(",".join(self.rows[-1]) + "\n")
        self.fh.flush()
        return v


def make_random(rng, i):
    """A random heterogeneous composition with a computable exact answer."""
    kind = rng.choice(["lap", "lap", "lap2", "lap+ed", "lap+gdp", "gdp+ed", "ed", "lap+ed0"])
    lap, gauss, ed, specs = [], [], [], []
    if kind.startswith("lap"):
        ngroups = 1 if kind in ("lap", "lap+gdp") else (2 if kind == "lap2" else rng.choice([1, 2]))
        maxn = 10 if kind == "lap+gdp" else (40 if ngroups == 1 else 8)
        for _ in range(ngroups):
            mu = round(rng.choice([rng.uniform(0.02, 0.3), rng.uniform(0.3, 2.0)]), rng.choice([2, 3, 6]))
            n = rng.randint(1, maxn)
            lap.append((mu, n))
            specs.append(spec_lap(mu, n, rng.choice(["sens", "b"]) if abs(1.0 / mu - round(1.0 / mu)) < 1e-12 else "sens"))
    if "gdp" in kind:
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.5:
                mu = round(rng.uniform(0.05, 1.5), 3)
                n = rng.randint(1, 20)
                gauss.append((mu, n))
                specs.append("gdp:mu=%r;times=%d" % (mu, n))
            else:
                sigma = round(rng.uniform(0.7, 20), 2)
                n = rng.randint(1, 20)
                gauss.append((1.0 / sigma, n))
                specs.append("gaussian:sigma=%r;times=%d" % (sigma, n))
    if "ed" in kind:
        eps0 = 0.0 if kind == "lap+ed0" else round(rng.uniform(0.01, 0.7), 3)
        for _ in range(rng.randint(1, 2)):
            de = rng.choice([0.0, 0.0, 1e-7, 1e-6, 1e-5, 3e-4])
            n = rng.randint(1, 30)
            if eps0 == 0.0 and de == 0.0:
                de = 1e-6
            ed.append((eps0, de, n))
            specs.append("epsdelta:eps=%r;delta=%r;times=%d" % (eps0, de, n))
    return Composition(lap=lap, gauss=gauss, ed=ed, specs=specs), kind


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    outdir = args[0] if args else os.path.dirname(os.path.abspath(__file__))
    mp.dps = 60
    check_coeffs()
    for mu in (0.1, 1.0, 2.5):
        check_laplace_one(mu)
    for groups in ([(0.1, 1)], [(0.5, 3)], [(1.0, 8)], [(0.3, 3), (0.7, 2)], [(0.25, 2), (1.5, 1), (0.8, 3)],
                   [(0.1, 100)], [(1.0, 100)], [(0.05, 30), (0.9, 20)]):
        check_nu(groups)
    check_kov()
    print("self checks passed", flush=True)

    path = os.path.join(outdir, "compose_golden.csv")
    header = ("# Composition reference values (tests/golden/gen_compose_golden.py, mpmath %s).\n" % mpmath.__version__
              + "# Exact delta(eps), eps(delta), f(alpha) and GDP mu of tensor products of Laplace,\n"
              + "# Gaussian and f_{eps0,delta} terms; method in the script's docstring. Checked at two\n"
              + "# precisions (%d digits agreement; %d for eps and beta); printed to %d significant digits.\n"
              % (CHECK_DIGITS, CHECK_DIGITS - 4, OUT_DIGITS)
              + "# specs: space-separated; ';' inside a spec stands for ','. random cases: seed %d%s.\n"
              % (SEED, " (quick run)" if quick else "")
              + "id,specs,query,x,value\n")
    W = Writer(path, header)
    # --- scenario rows
    s2a = Composition(lap=[(0.1, 100)], specs=["laplace:b=10;times=100"])
    v = W.add("S2a", s2a, "eps", 1e-6)
    print("S2a eps =", mp.nstr(v, 15), flush=True)
    # accounting.md prints the reference interval to 6 decimals (rounded):
    # allow half a unit in the last place.
    assert mpf("4.6926455") <= v <= mpf("4.6926675"), "S2a outside the reference interval"
    for e in (-1.0, 0.0, 0.5, 1.0, 2.0, 4.692656, 8.0):
        W.add("S2a", s2a, "delta", e)
    for a in (1e-6, 1e-3, 0.05, 0.3):
        W.add("S2a", s2a, "beta", a)
    s1 = Composition(gauss=[(1.0, 100)], specs=["gaussian:sigma=1;times=100"])
    v = W.add("S1", s1, "eps", 1e-5)
    assert abs(v - mpf("91.8172896247")) < 1e-9, v
    for e in (0.0, 50.0, 91.8172896247):
        W.add("S1", s1, "delta", e)
    s4 = Composition(ed=[(0.1, 1e-6, 100)], specs=["epsdelta:eps=0.1;delta=1e-6;times=100"])
    v = W.add("S4", s4, "eps", 1e-3)
    assert abs(v - mpf("3.1452818981")) < 1e-9, v
    for e in (-0.5, 0.0, 1.0, 3.0):
        W.add("S4", s4, "delta", e)

    # --- homogeneous Laplace, n up to 100
    for mu, n in ((0.1, 1), (0.5, 1), (1.0, 1), (3.0, 1), (0.1, 10), (0.5, 10), (1.0, 10), (0.05, 100),
                  (0.2, 100), (0.5, 100), (1.0, 30), (0.3, 50)):
        c = Composition(lap=[(mu, n)], specs=[spec_lap(mu, n)])
        M = mu * n
        cid = "lap-%g-x%d" % (mu, n)
        for e in sorted({-0.5 * M, -0.1, 0.0, 0.1 * M, 0.3 * M, 0.6 * M, 0.9 * M}):
            W.add(cid, c, "delta", e)
        for de in (1e-12, 1e-8, 1e-5, 1e-3, 0.1):
            W.add(cid, c, "eps", de)
        for a in (1e-9, 1e-4, 0.01, 0.2, 0.6):
            W.add(cid, c, "beta", a)
        if n <= 30:
            W.add(cid, c, "mu", 0)
        print(cid, flush=True)
    # --- heterogeneous Laplace
    for groups in ([(0.1, 30), (0.7, 5)], [(0.25, 20), (1.0, 10)], [(0.05, 12), (0.33, 4), (1.2, 2)],
                   [(0.5, 1), (0.123, 1), (2.0, 1)]):
        c = Composition(lap=groups, specs=[spec_lap(mu, n) for mu, n in groups])
        M = sum(mu * n for mu, n in groups)
        cid = "laphet-" + "-".join("%gx%d" % g for g in groups)
        for e in (-0.2 * M, 0.0, 0.2 * M, 0.5 * M, 0.8 * M):
            W.add(cid, c, "delta", e)
        for de in (1e-10, 1e-6, 1e-3):
            W.add(cid, c, "eps", de)
        for a in (1e-6, 0.05, 0.5):
            W.add(cid, c, "beta", a)
        print(cid, flush=True)
    # --- k-fold f_{eps,delta} (KOV)
    for eps0, de, k in ((0.1, 0.0, 100), (0.1, 1e-6, 100), (1.0, 0.0, 10), (0.5, 1e-5, 40), (0.01, 0.0, 100),
                        (2.0, 1e-3, 3), (0.3, 0.0, 1)):
        c = Composition(ed=[(eps0, de, k)], specs=["epsdelta:eps=%r;delta=%r;times=%d" % (eps0, de, k)])
        cid = "kfold-%g-%g-x%d" % (eps0, de, k)
        for e in (-1.0, 0.0, 0.3 * eps0 * k, 0.7 * eps0 * k):
            W.add(cid, c, "delta", e)
        for dd in (1e-9, 1e-5, 1e-2):
            W.add(cid, c, "eps", dd)
        for a in (1e-7, 1e-3, 0.1, 0.5):
            v = W.add(cid, c, "beta", a)
            with mp.workdps(60):
                w = binom_polygon_beta(eps0, de, k, a)
            assert abs(v - w) < mpf(10) ** -25, ("binomial polygon", cid, a, v, w)
        if de == 0:
            W.add(cid, c, "mu", 0)
        print(cid, flush=True)
    # --- G_mu (x) f_{0,d}
    for mu, de in ((1.0, 1e-6), (0.5, 1e-3), (2.0, 0.01), (3.0, 1e-9)):
        c = Composition(gauss=[(mu, 1)], ed=[(0.0, de, 1)],
                        specs=["gdp:mu=%r" % mu, "epsdelta:eps=0;delta=%r" % de])
        cid = "gdpmix-%g-%g" % (mu, de)
        for e in (-1.0, 0.0, 0.5, 2.0):
            W.add(cid, c, "delta", e)
        for dd in (1e-8 + de, 2 * de, 1e-2):
            W.add(cid, c, "eps", dd)
        for a in (1e-8, 1e-3, 0.1, 0.5, 1 - 0.5 * de):
            v = W.add(cid, c, "beta", a)
            with mp.workdps(60):
                x = d(a) / (1 - d(de))
                w = (1 - d(de)) * Phi(mp.sqrt(2) * mp.erfinv(1 - 2 * x) - d(mu)) if x < 1 else mpf(0)
                # Phi^{-1}(1 - x) = sqrt2 erfinv(1 - 2x)
            assert abs(v - w) < mpf(10) ** -20, ("(1-d) G_mu(a/(1-d))", cid, a, v, w)
        print(cid, flush=True)
    # --- cross-family closed checks: Laplace (x) f_{eps0,0}, Laplace (x) G
    c = Composition(lap=[(0.5, 6)], ed=[(0.2, 1e-6, 5)], specs=[spec_lap(0.5, 6), "epsdelta:eps=0.2;delta=1e-6;times=5"])
    for e in (-0.5, 0.0, 1.0, 2.5):
        W.add("lap+ed", c, "delta", e)
    for dd in (1e-5, 1e-3):
        W.add("lap+ed", c, "eps", dd)
    c = Composition(lap=[(0.4, 5)], gauss=[(0.8, 1)], specs=[spec_lap(0.4, 5), "gdp:mu=0.8"])
    for e in (-0.5, 0.0, 1.0, 2.5):
        W.add("lap+gdp", c, "delta", e)
    W.add("lap+gdp", c, "eps", 1e-5)
    print("cross", flush=True)

    # --- random heterogeneous cases
    rng = random.Random(SEED)
    nrand = 60 if quick else 140
    for i in range(nrand):
        c, kind = make_random(rng, i)
        cid = "rnd-%03d-%s" % (i, kind)
        scale = 1.0
        if c.nu is not None:
            scale = float(c.nu.M)
        scale += c.k * c.eps0
        for e in (rng.uniform(-1.0, 0.0) * scale, rng.uniform(0.0, 0.8) * scale):
            W.add(cid, c, "delta", e)
        for dd in rng.sample([1e-10, 1e-7, 1e-5, 1e-3, 0.05], 2):
            W.add(cid, c, "eps", dd)
        ba = 10 ** rng.uniform(-7, -0.3)  # drawn always (keeps the stream fixed)
        if c.has_tail():  # Laplace (x) Gaussian: no beta (golden search too slow)
            W.add(cid, c, "beta", ba)
        if i % 10 == 0:
            print(cid, flush=True)

    if not quick:  # slow (about an hour): last, so that a partial table has the rest
        s2b = Composition(lap=[(0.1, 1000)], specs=["laplace:b=10;times=1000"])
        v = W.add("S2b", s2b, "eps", 1e-6)
        print("S2b eps =", mp.nstr(v, 15), flush=True)
        assert mpf("18.9500515") <= v <= mpf("18.9502875"), "S2b outside the reference interval"
    W.fh.close()
    print("wrote", path, len(W.rows), "rows")


if __name__ == "__main__":
    main()
