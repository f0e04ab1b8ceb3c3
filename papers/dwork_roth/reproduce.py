#!/usr/bin/python3
"""Dwork & Roth, The Algorithmic Foundations of Differential Privacy (2014),
chapter 3: example 3.3, example 3.6 (and theorem 3.13), theorems 3.25 and 3.26.

The book's numbers are recomputed from its formulas (mpmath) and checked
against what fdp's mechanisms do: noise scales from `fdp mechanisms`, outputs
drawn with `fdp sample` (fixed seeds, so every run draws the same numbers) and
compositions certified by `fdp compare` / `fdp compose`.

Usage: /usr/bin/python3 papers/dwork_roth/reproduce.py [--fdp PATH]
"""

import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import paperlib as pl  # noqa: E402
from paperlib import mp  # noqa: E402

# Sampling checks are binomial z-tests at fixed seeds; |z| <= Z_MAX passes
# (two-sided false-alarm rate ~7e-6 per check were the seeds random).
Z_MAX = 4.5


def zscore(count, n, p):
    return (count - n * p) / math.sqrt(n * p * (1 - p))


def example_3_3(fdp, rep):
    # D&R Example 3.3 (names frequencies): k = 10000 counts, Delta f = 1, eps = 1,
    # 95% confidence; Thm 3.8 gives the error bound ln(k/delta) (Delta f/eps),
    # printed as "ln(10000/.05) ~ 12.2".
    k, delta, eps = 10000, mp.mpf("0.05"), 1
    bound = mp.log(k / delta) * 1 / eps
    desc = fdp.json("mechanisms", "laplace:eps=%g" % eps)["description"]
    b = float(re.search(r"b = sensitivity/eps = ([0-9.eE+-]+)", desc).group(1))
    rep.check_close("Ex 3.3: Laplace scale b = Delta f/eps (fdp mechanisms)", b, 1.0)
    rep.check_close("Ex 3.3: error bound ln(k/delta) b", mp.log(k / delta) * b, bound,
                    published=12.2, pub_digits=1)
    # How tight is the union bound? Exact P[max|Y_i| >= t b] = 1 - (1 - e^-t)^k.
    exact_p = -mp.expm1(k * mp.log1p(-mp.e ** (-bound)))
    exact_q = -mp.log(-mp.expm1(mp.log(1 - delta) / k))  # exact 95% quantile of max|Y_i|
    rep.row("Ex 3.3: exact P[max|Y_i| >= 12.206] (union bound: 0.05)", "-",
            "%.5f" % exact_p, exact_p <= delta, "exact 95%% quantile %.4f" % exact_q)
    # Sampled check of Thm 3.8 on a smaller instance (k = 100, same delta):
    # 10000 draws of fdp's Laplace mechanism on 100 answers.
    k2, n2 = 100, 10000
    t2 = float(mp.log(k2 / delta))
    out = fdp.text("sample", "--mechanism", "laplace:eps=1", "--input", ",".join(["0"] * k2),
                   "--samples", n2, "--seed", 33)
    hits = sum(1 for ln in out.splitlines()
               if max(abs(float(x)) for x in ln.split(",")) >= t2)
    p2 = float(-mp.expm1(k2 * mp.log1p(-mp.e ** (-t2))))
    z = zscore(hits, n2, p2)
    rep.row("Thm 3.8 sampled: k=100, P[max >= ln(k/0.05)] (fdp sample)", "<= 0.05",
            "%.4f (exact %.4f, z=%.1f)" % (hits / n2, p2, z), abs(z) <= Z_MAX)


def example_3_6(fdp, rep):
    # D&R Example 3.6: two diseases, counts 0 (A) and c (B), Delta u = 1. The
    # exponential mechanism outputs A with probability at most 2 e^{-c eps/2}
    # (Cor. 3.12 with |R| = 2); the exact probability is 1/(1 + e^{c eps/2}).
    eps, n = 1.0, 100000
    for c in (2, 6):
        bound = 2 * mp.e ** (-c * eps / 2)
        exact = 1 / (1 + mp.e ** (c * eps / 2))
        out = fdp.text("sample", "--mechanism", "exponential:eps=%g" % eps, "--input", "0,%d" % c,
                       "--samples", n, "--seed", 36 + c)
        wrong = out.split().count("r0")
        z = zscore(wrong, n, float(exact))
        rep.row("Ex 3.6: c=%d, eps=1: P[A] <= 2e^{-c eps/2}" % c, "%.4f" % bound,
                "%.4f sampled, exact %.4f (z=%.1f)" % (wrong / n, exact, z),
                abs(z) <= Z_MAX and exact <= bound)
        # Thm 3.13 as printed: Report One-Sided Noisy Arg-Max with Exp noise of
        # scale 2 Delta u/eps "has the same distribution" as the exponential
        # mechanism. For two candidates P[A] = P[E_A - E_B > c] = e^{-c eps/2}/2,
        # not 1/(1 + e^{c eps/2}): the theorem is false (see README).
        one_sided = mp.e ** (-c * eps / 2) / 2
        out = fdp.text("sample", "--mechanism", "noisy-argmax-exp:eps=%g" % eps, "--input",
                       "0,%d" % c, "--samples", n, "--seed", 313 + c)
        wrong2 = out.split().count("r0")
        z2 = zscore(wrong2, n, float(one_sided))
        z_vs_em = zscore(wrong2, n, float(exact))
        rep.row("Thm 3.13: c=%d one-sided noisy arg-max P[A]" % c, "= EM %.4f" % exact,
                "%.4f sampled, exact %.4f (z=%.1f)" % (wrong2 / n, one_sided, z2),
                "explained" if abs(z2) <= Z_MAX and abs(z_vs_em) > 10 else False,
                "Thm 3.13 false: differs from EM by z=%.0f" % z_vs_em)


def theorem_3_25(fdp, rep):
    # D&R Thm 3.25: Sparse runs c AboveThreshold instances at eps' = eps/c
    # (delta = 0) or eps/sqrt(8 c ln(1/delta)) (delta > 0); the advanced
    # composition theorem 3.20 (with delta' = delta) then gives (eps, delta).
    eps, delta = 1.0, 1e-6
    for c in (1, 10, 50, 1000):
        eps_p = mp.mpf(eps) / mp.sqrt(8 * c * mp.log(1 / mp.mpf(delta)))
        if c <= 62:  # fdp's sparse mechanism answers at most 62 queries
            desc = fdp.json("mechanisms", "sparse:eps=%g,threshold=0,c=%d,delta=%g"
                            % (eps, c, delta))["description"]
            rho = float(re.search(r"threshold T \+ Lap\(([0-9.eE+-]+)\)", desc).group(1))
            # AboveThreshold (Alg. 1) at eps' draws the threshold noise Lap(2/eps')
            rep.check_close("Thm 3.25: c=%d eps' (fdp sparse noise 2/eps')" % c, 2 / rho, eps_p,
                            rel=1e-12)
        adv = pl.advanced_composition_eps(eps_p, c, delta)
        cmp_ = fdp.json("compare", "epsdelta:eps=%.17g,times=%d" % (float(eps_p), c),
                        "--delta", delta)
        rep.check_close("Thm 3.20 for c=%d: advanced eps (fdp compare)" % c,
                        cmp_["advanced"]["epsilon"], adv, rel=1e-9)
        rep.row("Thm 3.25 c=%d: advanced eps <= eps = 1" % c, "<= 1", "%.4f" % adv, adv <= eps)
        # the exact (optimal) composition of c eps'-DP mechanisms (KOV Thm 3.3):
        # the certified bracket must straddle the point where kov_delta = delta.
        lo, hi = pl.answer(cmp_, "epsilon")["lower"], pl.answer(cmp_, "epsilon")["upper"]
        ok = pl.kov_delta(eps_p, 0, c, lo) >= delta * (1 - 1e-9) and \
            pl.kov_delta(eps_p, 0, c, hi) <= delta * (1 + 1e-9)
        rep.row("Thm 3.25 c=%d: optimal composition (fdp, KOV formula)" % c, "-",
                "[%.5f, %.5f]" % (lo, hi), ok,
                "naive c eps' = %.4f, advanced %.4f" % (c * eps_p, adv))


def theorem_3_26(fdp, rep):
    # D&R Thm 3.26: for k queries with at most c of them >= T - alpha, Sparse
    # is (alpha, beta)-accurate with alpha = 8c(ln k + ln(2c/beta))/eps
    # (delta = 0) or (ln k + ln(2c/beta)) sqrt(512 c ln(1/delta))/eps.
    # (The Chinese notes print 'x' for c in the delta = 0 formula.)
    k, c, beta, eps = 10, 2, 0.05, 1.0
    L = mp.log(k) + mp.log(2 * c / mp.mpf(beta))
    alpha0 = 8 * c * L / eps
    alpha1 = L * mp.sqrt(512 * c * mp.log(1 / mp.mpf("1e-6"))) / eps
    rep.row("Thm 3.26: alpha (k=10, c=2, beta=0.05, eps=1, delta=0)", "formula",
            "%.4f" % alpha0, abs(alpha0 - 16 * (math.log(10) + math.log(80))) < 1e-9)
    rep.row("Thm 3.26: alpha (same, delta=1e-6)", "formula", "%.4f" % alpha1,
            abs(alpha1 - (math.log(10) + math.log(80)) * math.sqrt(1024 * math.log(1e6))) < 1e-9)
    # Sampled accuracy of fdp's Sparse at delta = 0: queries alternate far
    # below and far above T = 0 at distance a; two are above (L(T) = c = 2).
    # A failure is a T on a query below T - a or an F on a query above T + a.
    n = 20000
    for frac in (1.0, 0.5, 0.25):
        a = float(alpha0) * frac
        below, above = -1.0001 * a, 1.0001 * a
        ans = [below] * 4 + [above] + [below] * 4 + [above]
        out = fdp.text("sample", "--mechanism", "sparse:eps=%g,threshold=0,c=%d" % (eps, c),
                       "--input", ",".join("%.17g" % x for x in ans), "--samples", n,
                       "--seed", 326)
        fails = 0
        for ln in out.split():
            bad = any((ch == "T" and ans[i] < 0) or (ch == "F" and ans[i] > 0)
                      for i, ch in enumerate(ln) if ch in "TF")
            fails += bad
        rate = fails / n
        # the theorem only speaks for a >= alpha: failure rate <= beta there
        ok = True if frac < 1 else (fails <= n * beta + Z_MAX * math.sqrt(n * beta * (1 - beta)))
        rep.row("Thm 3.26 sampled: failure rate at a = %.2f alpha" % frac,
                "<= 0.05" if frac == 1 else "-", "%.5f (%d/%d)" % (rate, fails, n), ok,
                "below alpha the theorem says nothing" if frac < 1 else "")


def main():
    args = pl.parse_args(__doc__.splitlines()[0], figures=False)
    fdp = pl.Fdp(args.fdp)
    rep = pl.Report("papers/dwork_roth", args.quiet)
    rep.header()
    example_3_3(fdp, rep)
    example_3_6(fdp, rep)
    theorem_3_25(fdp, rep)
    theorem_3_26(fdp, rep)
    return rep.finish(fdp)


if __name__ == "__main__":
    pl.timed_main(main)
