#!/usr/bin/python3
"""Independent reference values for issue 22, items 1 and 4-8 (GDP summary of
subsampled Gaussians, KOV lattices near alpha = 1 and at huge eps, deltas below
the double underflow, a composition with delta = 1e-16, an epsilon query).

mpmath only; nothing here reads or calls fdp. Run with Debian's interpreter:
    /usr/bin/python3 tests/golden/gen_edges_kov.py [OUT.csv]
(default OUT: edges_kov.csv beside this script). Every input is the exact
IEEE double (mp.mpf(float)). Values below the double range are given as
log10 (query names ending in _log10).

Formulas
--------
* f_{e,d} is T(P, Q) with P = [d, (1-d) e^e/(1+e^e), (1-d)/(1+e^e), 0] and Q
  the reverse (symmetric pair). Its k-fold product has three kinds of
  outcomes: some coordinate is Q-only (P = 0; loss +inf; Q-mass 1-(1-d)^k),
  some coordinate is P-only (Q = 0; loss -inf; P-mass 1-(1-d)^k), or every
  coordinate is in the middle, where with l = number of coordinates on the
  P-favoured outcome the loss is e (k - 2l) and
      Q_l = (1-d)^k C(k,l) e^{(k-l)e}/(1+e^e)^k,  P_l = (1-d)^k C(k,l) e^{l e}/(1+e^e)^k.
  Kairouz-Oh-Viswanath (ICML 2015, Thm 3.3; Murtagh-Vadhan for general eps):
      delta(eps) = 1 - (1-d)^k + (1-d)^k sum_l C(k,l) (e^{(k-l)e} - e^eps e^{l e})_+ / (1+e^e)^k.
  way 1: this sum with exact integer binomials and mp.exp (KOV form);
  way 2: the same masses from log-gamma in log space, Q_l (1 - e^{eps - e(k-2l)}).
  beta(alpha): the Neyman-Pearson polygon (reject by decreasing loss), with
  1 - alpha formed exactly from the double alpha; f is symmetric, so it is
  fdp's min{F,F^-1}** itself. Checked against the Legendre form
  sup_eps 1 - delta(eps) - e^eps alpha (DRS Prop. 2.12) at the lattice eps
  (k <= 100), and (k = 8880) against the polygon walked from alpha = 0 at
  400 digits. beta = 0 exactly for alpha >= (1-d)^k (only the P-only class,
  Q-mass 0, is left in the acceptance region).
* G_mu: delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
  (DRS Cor. 2.13); compositions of G's: G_sqrt(sum mu^2) (DRS Cor. 3.3);
  group: G_{k mu} (DRS Thm 2.14 applied to G). Tiny values: mpmath at
  enough digits (the two terms cancel to ~mu^2 relative; 60 digits suffice;
  checked at 120). Way 2 for tiny G deltas: E_Q[(1 - e^{eps-L})_+] with
  L ~ N(mu^2/2, mu^2) by mpmath.quad over (eps, inf).
* f_{0,0} = Id (no loss); epsilon(delta) of G_mu by findroot at 60 digits
  (way 2: bisection at 120 digits).
* Subsampled Gaussian GDP summary (issue 22 item 1): the smallest mu with
  f >= G_mu equals sqrt(T)/sigma for every q > 0:
    upper: C_q(G_{1/sigma}) >= G_{1/sigma}, so the T-fold product is
           >= G_{sqrt(T)/sigma} (DRS Cor. 3.3, monotonicity of composition), in
           both orientations, hence also min{F,F^-1}**;
    lower: the test "reject when sum_i x_i > t" (sum x_i ~ N(0, T sigma^2)
           under P; under Q a mixture over K ~ Bin(T, q) of N(K, T sigma^2))
           gives (alpha, beta) with f(alpha) <= beta, so
           mu >= m(t) = Phi^{-1}(1 - alpha(t)) - Phi^{-1}(beta(t)), and
           m(t) -> sqrt(T)/sigma as t -> inf (the K = T term dominates).
    The rows 'mu_lower_at_alpha' list m(t) at a few alpha (far below the
    double range: alpha = 10^-x) to show the approach; computed with mpmath
    at 60-200 digits, Phi^{-1} by findroot on log Phi-bar.

Columns: id,specs,query,x,truth,method,digits
"""
import csv
import os
import sys

import mpmath as mp

mp.mp.dps = 60


def F(x):
    return mp.mpf(float(x))


# ---------------------------------------------------------------- KOV lattice
def kov_delta_way1(e, d, k, eps):
    e, d, eps = F(e), F(d), mp.mpf(eps)
    with mp.workdps(mp.mp.dps + 40):
        den = (1 + mp.exp(e)) ** k
        s = mp.mpf(0)
        for l in range(k + 1):
            if e * (k - 2 * l) <= eps:
                break
            s += mp.binomial(k, l) * (mp.exp((k - l) * e) - mp.exp(eps + l * e))
        keep = (1 - d) ** k
        return (1 - keep) + keep * s / den


def kov_delta_way2(e, d, k, eps):
    e, d, eps = F(e), F(d), mp.mpf(eps)
    with mp.workdps(mp.mp.dps + 40):
        lden = k * mp.log1p(mp.exp(e))
        terms = []
        for l in range(k + 1):
            loss = e * (k - 2 * l)
            if loss <= eps:
                break
            logQ = mp.loggamma(k + 1) - mp.loggamma(l + 1) - mp.loggamma(k - l + 1) + (k - l) * e - lden
            terms.append(mp.exp(logQ) * (-mp.expm1(eps - loss)))
        keep = mp.exp(k * mp.log1p(-d))
        return (1 - keep) + keep * mp.fsum(terms)


def kov_log10_delta(e, k, eps):
    """log10 of the d = 0 KOV sum, for values below the double range."""
    e, eps = F(e), mp.mpf(eps)
    with mp.workdps(mp.mp.dps + 40):
        lden = k * mp.log1p(mp.exp(e))
        logs = []
        for l in range(k + 1):
            loss = e * (k - 2 * l)
            if loss <= eps:
                break
            logQ = mp.loggamma(k + 1) - mp.loggamma(l + 1) - mp.loggamma(k - l + 1) + (k - l) * e - lden
            logs.append(logQ + mp.log(-mp.expm1(eps - loss)))
        m = max(logs)
        return (m + mp.log(mp.fsum(mp.exp(x - m) for x in logs))) / mp.log(10)


def kov_beta(e, d, k, alpha):
    """Neyman-Pearson polygon of the k-fold f_{e,d} at the double alpha,
    walking from alpha = 1 downwards so that 1 - alpha stays exact."""
    e, d = F(e), F(d)
    with mp.workdps(mp.mp.dps + 40):
        a = F(alpha)
        rest = 1 - a                      # exact: P-mass left in the acceptance region
        keep = (1 - d) ** k
        den = (1 + mp.exp(e)) ** k
        # acceptance region is filled by increasing loss: first the P-only class
        # (loss -inf, P-mass 1-keep, Q-mass 0), then l = k, k-1, ... (loss e(k-2l))
        Pz = 1 - keep
        if rest <= Pz:
            return mp.mpf(0)
        rest -= Pz
        beta = mp.mpf(0)
        for l in range(k, -1, -1):
            Pl = keep * mp.binomial(k, l) * mp.exp(l * e) / den
            Ql = keep * mp.binomial(k, l) * mp.exp((k - l) * e) / den
            if rest <= Pl:
                return beta + Ql * rest / Pl
            rest -= Pl
            beta += Ql
        return beta   # alpha = 0 side (not reached here)


def kov_beta_forward(e, d, k, alpha, dps=400):
    """Second way: the same polygon walked from alpha = 0 (reject the Q-only
    class, then l = 0, 1, ... by decreasing loss), beta = 1 - Q(rejected) at
    enough digits that the cancellation in 1 - Q does not matter."""
    with mp.workdps(dps):
        e, d, a = F(e), F(d), F(alpha)
        keep = (1 - d) ** k
        den = (1 + mp.exp(e)) ** k
        acc_a, acc_q = mp.mpf(0), 1 - keep
        for l in range(k + 1):
            Pl = keep * mp.binomial(k, l) * mp.exp(l * e) / den
            Ql = keep * mp.binomial(k, l) * mp.exp((k - l) * e) / den
            if acc_a + Pl >= a:
                return +(1 - acc_q - Ql * (a - acc_a) / Pl)
            acc_a += Pl
            acc_q += Ql
        return mp.mpf(0)       # alpha beyond keep = P(loss > -inf): beta = 0


def legendre_beta(e, d, k, alpha):
    """sup over the lattice eps of 1 - delta(eps) - e^eps alpha (DRS Prop. 2.12;
    the sup of this piecewise-convex function of e^eps is at a lattice point)."""
    a = F(alpha)
    best = mp.mpf(0)
    for l in range(k + 1):
        eps = F(e) * (k - 2 * l)
        best = max(best, 1 - kov_delta_way1(e, d, k, eps) - mp.exp(eps) * a)
    return best


# ---------------------------------------------------------------- Gaussian
def gdp_delta(mu, eps):
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def gdp_delta_quad(mu, eps):
    """E_Q[(1 - e^{eps-L})_+], L ~ N(c, mu^2), c = mu^2/2, by quadrature.
    With L = eps + u/s, s = (eps - c)/mu^2 (eps > c), the Gaussian factors as
    npdf(eps) e^{-u - u^2/(2 s^2 mu^2)}, leaving an O(1) integrand in u."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    c = mu * mu / 2
    s = (eps - c) / mu ** 2
    g = lambda u: mp.exp(-u - u * u / (2 * s * s * mu * mu)) * (-mp.expm1(-u / s))
    pts = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, mp.inf]
    v1 = mp.quad(g, pts)
    v2 = mp.quad(g, pts, method='gauss-legendre')
    assert abs(v1 - v2) < mp.mpf(10) ** (-mp.mp.dps // 2) * abs(v1), (v1, v2)
    return mp.npdf(eps, c, mu) / s * v1


def gdp_eps(mu, delta):
    """Newton on delta_mu(eps) = delta, d delta/d eps = -e^eps Phi(-eps/mu - mu/2),
    started from a coarse bisection (delta_mu is decreasing and convex in eps)."""
    mu, delta = mp.mpf(mu), mp.mpf(delta)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while gdp_delta(mu, hi) > delta:
        lo, hi = hi, 2 * hi
    for _ in range(30):
        mid = (lo + hi) / 2
        if gdp_delta(mu, mid) > delta:
            lo = mid
        else:
            hi = mid
    e = lo
    for _ in range(100):
        step = (gdp_delta(mu, e) - delta) / (-mp.exp(e) * mp.ncdf(-e / mu - mu / 2))
        e -= step
        if abs(step) < mp.mpf(10) ** (-mp.mp.dps + 5):
            break
    return e


def gdp_eps_bisect(mu, delta):
    with mp.workdps(120):
        mu, delta = mp.mpf(mu), mp.mpf(delta)
        lo, hi = mp.mpf(0), mp.mpf(64)
        for _ in range(200):
            mid = (lo + hi) / 2
            if gdp_delta(mu, mid) > delta:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2


# ---------------------------------------------------------------- subsampled Gaussian tail
def ninv_sf(logp):
    """x with log Phi-bar(x) = logp (logp << 0), Newton on log Phi-bar."""
    x = mp.sqrt(-2 * logp)
    for _ in range(200):
        lsf = mp.log(mp.ncdf(-x))
        # d/dx log Phibar = -phi/Phibar
        dx = (lsf - logp) / (-mp.npdf(x) / mp.ncdf(-x))
        x -= dx
        if abs(dx) < mp.mpf(10) ** (-mp.mp.dps + 10):
            break
    return x


def subsampled_mu_lower(sigma, q, T, log10_alpha):
    """m(t) for the linear test at alpha = 10^log10_alpha: alpha = Phibar(t/(sigma sqrt T)),
    1 - beta = sum_K Bin(K; T, q) Phibar((t - K)/(sigma sqrt T)); m = Phibar^{-1}(alpha) - Phibar^{-1}(1-beta)."""
    sigma, q = F(sigma), F(q)
    s = sigma * mp.sqrt(T)
    z = ninv_sf(log10_alpha * mp.log(10))
    t = z * s
    terms = [mp.log(mp.binomial(T, K)) + K * mp.log(q) + (T - K) * mp.log1p(-q) + mp.log(mp.ncdf(-(t - K) / s))
             for K in range(T + 1)]
    m = max(terms)
    log_power = m + mp.log(mp.fsum(mp.exp(x - m) for x in terms))
    return z - ninv_sf(log_power)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "edges_kov.csv")
    rows = []

    def row(id_, specs, query, x, truth, method, digits):
        print(id_, specs, query, x, truth, "|", method)
        rows.append((id_, specs, query, x, truth, method, digits))

    # ---- item 1: subsampled Gaussian GDP summaries
    for sig, q, T in [("1", "1e-20", 1), ("50", "1e-14", 1), ("1", "1e-20", 10)]:
        spec = "subsampled-gaussian:sigma=%s;q=%s%s" % (sig, q, "" if T == 1 else ";times=%d" % T)
        truth = mp.sqrt(T) / F(sig)
        row("22.1", spec, "mu", "", mp.nstr(truth, 20),
            "sqrt(T)/sigma: upper by C_q(G)>=G composed; lower by the sum-threshold test as alpha->0", 20)
        with mp.workdps(80):
            for la in [-10, -300, -3000, -30000, -300000, -3 * 10 ** 6, -3 * 10 ** 7, -3 * 10 ** 8]:
                m = subsampled_mu_lower(sig, q, T, la)
                row("22.1", spec, "mu_lower_at_alpha", "1e%d" % la, mp.nstr(m, 15),
                    "linear test sum x_i > t: a lower bound on the summary", 12)

    # ---- item 4: KOV near alpha = 1
    for e, d, k, a in [("1", "0", 2, "0.9999999999999998"), ("0.2077", "0.000216", 8880, "0.9999444"),
                       ("1", "0", 2, "0.9999999999999999"), ("1", "0", 2, "0.5"),
                       ("0.2077", "0.000216", 8880, "0.14"), ("0.2077", "0.000216", 8880, "0.1468"),
                       ("0.2077", "0.000216", 8880, "0.1469"), ("0.2077", "0.000216", 8880, "0.5")]:
        b = kov_beta(e, d, k, a)
        spec = "epsdelta:eps=%s%s;times=%d" % (e, "" if d == "0" else ";delta=" + d, k)
        if k <= 100:
            b2 = legendre_beta(e, d, k, a)
            assert abs(b - b2) <= mp.mpf(10) ** -50 * max(1, abs(b)) + mp.mpf(10) ** -55, (b, b2)
            meth = "NP polygon of Bin lattice with exact 1-alpha; = Legendre form over the lattice"
        else:
            thr = (1 - F(d)) ** k
            b2 = kov_beta_forward(e, d, k, a)
            assert abs(b - b2) <= mp.mpf(10) ** -40 * abs(b) + mp.mpf(10) ** -300, (b, b2)
            if F(a) >= thr:
                assert b == 0
                meth = ("alpha >= (1-delta)^k = %s: acceptance region inside the P-only class, beta = 0"
                        % mp.nstr(thr, 10))
            else:
                meth = "NP polygon walked from alpha=1 (exact 1-alpha) = walked from alpha=0 at 400 digits"
        row("22.4", spec, "beta", a, mp.nstr(b, 20), meth, 20)
    # closed form check: 2-fold, eps=1, alpha = 1 - 2^-52: beta = 2^-52 e^-2
    cf = mp.mpf(2) ** -52 * mp.exp(-2)
    assert abs(kov_beta("1", "0", 2, "0.9999999999999998") - cf) < mp.mpf(10) ** -70

    # ---- item 5: exact lattice delta at eps = 40262.3
    v1 = kov_delta_way1("2.7169", "0", 15372, F("40262.3"))
    v2 = kov_delta_way2("2.7169", "0", 15372, F("40262.3"))
    assert abs(v1 - v2) <= mp.mpf(10) ** -40 * v1, (v1, v2)
    v3 = kov_delta_way1("2.7169", "0", 15372, mp.mpf("40262.3"))   # decimal 40262.3, not the double
    row("22.5", "epsdelta:eps=2.7169;times=15372", "delta_at_decimal_eps", "40262.3 (decimal)", mp.nstr(v3, 25),
        "NOT fdp's input: eps taken as the decimal 40262.3 instead of the double; differs by %s relative" %
        mp.nstr((v3 - v1) / v1, 3), 20)
    row("22.5", "epsdelta:eps=2.7169;times=15372", "delta", "40262.3", mp.nstr(v1, 25),
        "KOV sum with integer binomials = log-gamma form (agree to 40 digits)", 20)

    # ---- item 6: G_0.3 x f_{0.5,1e-16} at eps = 20 (group --k 1 = the composition)
    mu, e0, d0, eps = F("0.3"), F("0.5"), F("1e-16"), F("20")
    pl, pm = mp.exp(e0) / (1 + mp.exp(e0)), 1 / (1 + mp.exp(e0))
    # way 1: outer over f_{e0,d0}'s Q: loss +inf (mass d0), +e0, -e0
    w1 = d0 + (1 - d0) * (pl * gdp_delta(mu, eps - e0) + pm * gdp_delta(mu, eps + e0))
    # way 2: outer over G's loss L ~ N(mu^2/2, mu^2) under Q:
    #   delta_B(x) = d0 + (1-d0)[pl (1 - e^{x - e0})_+ + pm (1 - e^{x + e0})_+]
    def dB(x):
        return d0 + (1 - d0) * (pl * max(0, 1 - mp.exp(x - e0)) + pm * max(0, 1 - mp.exp(x + e0)))
    c = mu * mu / 2
    w2 = d0 * mp.ncdf((eps - e0 - c) / mu) + mp.quad(lambda l: mp.npdf(l, c, mu) * dB(eps - l),
                                                      [eps - e0, eps + e0, eps + e0 + 1, mp.inf])
    # (for L < eps - e0, delta_B(eps - L) = d0 exactly: d0 * Q(L < eps - e0))
    assert abs(w1 - w2) < mp.mpf(10) ** -50 * w1, (w1, w2)
    row("22.6", "gdp:mu=0.3 epsdelta:eps=0.5;delta=1e-16 (group --k 1)", "delta", "20", mp.nstr(w1, 25),
        "d0 + (1-d0) E[delta_G]: finite outer sum = Gaussian outer quadrature (d0 = the double 1e-16)", 25)
    gpart = (1 - d0) * (pl * gdp_delta(mu, eps - e0) + pm * gdp_delta(mu, eps + e0))
    with mp.workdps(60):
        gq = (1 - d0) * (pl * gdp_delta_quad(mu, eps - e0) + pm * gdp_delta_quad(mu, eps + e0))
    assert abs(gpart - gq) < mp.mpf(10) ** -25 * gpart, (gpart, gq)
    row("22.6", "gdp:mu=0.3 epsdelta:eps=0.5;delta=1e-16 (group --k 1)", "delta_minus_1e-16_double_log10", "20",
        mp.nstr(mp.log10(gpart), 15), "the part above the double 1e-16 (exact value of the input delta)", 10)

    # ---- item 7: tiny deltas in log10
    l1 = kov_log10_delta("0.0038144", 17743, F("66.14627328"))
    l1b = mp.log10(kov_delta_way1("0.0038144", "0", 17743, F("66.14627328")))
    assert abs(l1 - l1b) < mp.mpf(10) ** -30, (l1, l1b)
    row("22.7", "epsdelta:eps=0.0038144;times=17743", "delta_log10", "66.14627328", mp.nstr(l1, 20),
        "KOV sum in log space (log-gamma) = integer-binomial KOV sum", 15)
    with mp.workdps(120):
        m2 = 2 * F("0.020965")
        g1 = gdp_delta(m2, F("3.17025"))
        g2 = gdp_delta_quad(m2, F("3.17025"))
        assert abs(g1 - g2) < mp.mpf(10) ** -25 * g1, (g1, g2)
        row("22.7", "gdp:mu=0.020965 (group --k 2 -> G_0.04193)", "delta_log10", "3.17025",
            mp.nstr(mp.log10(g1), 20), "closed form at 120 digits = quadrature of E_Q[(1-e^{eps-L})_+]", 15)

    # ---- item 8: epsilon of Id x G_1.9253^3 at delta 5.05737e-10
    mu8 = F("1.9253") * mp.sqrt(3)
    e8 = gdp_eps(mu8, F("5.05737e-10"))
    e8b = gdp_eps_bisect(mu8, F("5.05737e-10"))
    assert abs(e8 - e8b) < mp.mpf(10) ** -35
    row("22.8", "epsdelta:eps=0;delta=0;times=63565 gdp:mu=1.9253;times=3", "eps", "5.05737e-10",
        mp.nstr(e8, 25), "G_{1.9253 sqrt3} (Id x G): findroot at 60 digits = bisection at 120", 25)
    for eps in ["49.2847"]:
        row("22.8", "epsdelta:eps=0;delta=0;times=63565 gdp:mu=1.9253;times=3", "delta_log10", eps,
            mp.nstr(mp.log10(gdp_delta(mu8, F(eps))), 20), "closed form", 15)

    with open(out, "w", newline="") as f:
        f.write("# Issue 22 reference values (items 1, 4-8); made by gen_edges_kov.py (mpmath %s).\n"
                "# Specs separated by spaces; ';' inside a spec stands for ','.\n" % mp.__version__)
        w = csv.writer(f)
        w.writerow(["id", "specs", "query", "x", "truth", "method", "digits"])
        w.writerows(rows)
    print("wrote", out)


if __name__ == "__main__":
    main()
