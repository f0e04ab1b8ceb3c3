#!/usr/bin/python3
"""Dong, Roth & Su, "Gaussian Differential Privacy" (JRSS-B 84(1), 2022;
arXiv 1905.02383): G_mu against f_{eps,delta} (Cor. 2.13), the central limit
theorem for compositions of f_{eps,0} and of Laplace mechanisms (Thm 3.5)
against the exact composition, and group privacy (Thm 2.14 and the Laplace
limit of f_{mu/k,0} for groups of size k).

Independent values: closed forms evaluated in mpmath from the paper's formulas
(G_mu, delta(eps), the Laplace trade-off, the binomial vertices of
f_{eps,0}^{(x)n}, the CLT functionals by quadrature, group privacy by iterating
x -> 1 - f(x) pointwise). fdp must agree with them.

Usage: /usr/bin/python3 papers/drs/reproduce.py [--fdp PATH] [--figures DIR]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import paperlib as pl  # noqa: E402
from paperlib import mp  # noqa: E402

ALPHAS = [1e-6, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9]
DENSE = [mp.mpf(i) / 400 for i in range(1, 400)]


# --------------------------------------------------------------------------
# Independent formulas


def eps0_fold_vertices(eps, n):
    """Vertices of f_{eps,0}^{(x)n}: the n-fold randomized response with
    p = e^eps/(1+e^eps); tests reject when S = #ones < j (DRS Sec. 3.1 /
    Kairouz et al.): a_j = P[Bin(n,p) < j], b_j = P[Bin(n,1-p) >= j]."""
    eps = mp.mpf(eps)
    p = mp.e ** eps / (1 + mp.e ** eps)
    pm = [mp.binomial(n, s) * p ** s * (1 - p) ** (n - s) for s in range(n + 1)]
    qm = [mp.binomial(n, s) * (1 - p) ** s * p ** (n - s) for s in range(n + 1)]
    a, b = [], []
    for j in range(n + 2):
        a.append(mp.fsum(pm[:j]))
        b.append(mp.fsum(qm[j:]))
    return a, b


def polygon_at(a, b, x):
    x = mp.mpf(x)
    for i in range(len(a) - 1):
        if a[i] <= x <= a[i + 1]:
            if a[i + 1] == a[i]:
                return b[i + 1]
            t = (x - a[i]) / (a[i + 1] - a[i])
            return b[i] + t * (b[i + 1] - b[i])
    return mp.mpf(0)


def laplace_functionals(mu):
    """kl, kappa2, kappa3bar of T(Lap(0,1), Lap(mu,1)) (DRS Sec. 3.2): with
    X ~ Lap(0,1), L = |X| - |X - mu| is -mu w.p. 1/2, mu w.p. e^-mu/2 and
    2x - mu on (0, mu) with density e^-x/2."""
    mu = mp.mpf(mu)
    dens = lambda x: mp.e ** (-x) / 2  # noqa: E731

    def expect(g, kinks=()):
        pts = [mp.mpf(0)] + [k for k in kinks if 0 < k < mu] + [mu]
        mid = mp.quad(lambda x: g(2 * x - mu) * dens(x), pts)
        return g(-mu) / 2 + g(mu) * mp.e ** (-mu) / 2 + mid

    EL = expect(lambda l: l)
    kl = -EL
    k2 = expect(lambda l: l ** 2)
    k3b = expect(lambda l: abs(l + kl) ** 3, kinks=[(mu - kl) / 2])
    return kl, k2, k3b


def clt_mu_gamma(kl, k2, k3b, n):
    """DRS Thm 3.5: mu = 2 ||kl||_1 / sqrt(||k2||_1 - ||kl||_2^2),
    gamma = 0.56 ||k3bar||_1 / (||k2||_1 - ||kl||_2^2)^{3/2}, n equal terms."""
    var = n * k2 - n * kl ** 2
    return 2 * n * kl / mp.sqrt(var), mp.mpf("0.56") * n * k3b / var ** mp.mpf(1.5)


def group_pointwise(f, k, a):
    """1 - (1 - f)^{o k}(a) by iterating x -> 1 - f(x) (DRS Thm 2.14)."""
    x = mp.mpf(a)
    for _ in range(k):
        x = 1 - f(x)
    return 1 - x


# --------------------------------------------------------------------------


def part_gdp_vs_epsdelta(fdp, rep):
    """Cor. 2.13: mu-GDP <=> (eps, delta(eps))-DP for all eps; G_mu is the
    upper envelope of the f_{eps,delta(eps)}."""
    for mu in (0.5, 1.0, 3.0):
        for eps in (0.0, 0.5, 1.0, 2.0):
            d = fdp.json("convert", "--mu", mu, "--eps", eps)["delta"]
            rep.check_close("Cor 2.13: delta(eps=%g) of %g-GDP" % (eps, mu), d,
                            pl.gdp_delta(mu, eps), rel=1e-10)
        for delta in (1e-5, 1e-10):
            e = fdp.json("convert", "--mu", mu, "--delta", delta)["epsilon"]
            rep.check_close("Cor 2.13: eps(delta=%g) of %g-GDP" % (delta, mu), e,
                            pl.gdp_eps(mu, delta), rel=1e-9)
    # G_mu on its own: fdp compose gdp:mu=M --alpha (closed form)
    args = []
    for a in ALPHAS:
        args += ["--alpha", a]
    for mu in (0.5, 1.0, 3.0):
        d = fdp.json("compose", "gdp:mu=%g" % mu, *args)
        worst = max(abs(b["lower"] - pl.G(mu, b["alpha"])) / pl.G(mu, b["alpha"])
                    for b in pl.answers(d, "beta"))
        rep.row("G_%g(alpha) at %d alphas (fdp compose)" % (mu, len(ALPHAS)), "-",
                "max rel err %.2e" % worst, worst <= 1e-12)
    # the envelope: sup_eps f_{eps,delta(eps)}(a) = G_1(a) (a grid of 400 eps)
    worst = 0
    for a in ALPHAS[1:]:
        env = max(pl.f_epsdelta(e, pl.gdp_delta(1, e), a)
                  for e in [mp.mpf(i) / 50 for i in range(400)])
        worst = max(worst, pl.G(1, a) - env)
    rep.row("Cor 2.13: G_1 = envelope of f_{eps,delta(eps)}", "-",
            "max gap on eps grid %.1e" % worst, 0 <= worst < 2e-3, "(mpmath only)")


def part_clt(fdp, rep):
    """Thm 3.5 on n-fold f_{eps,0} (eps = 1/sqrt(n)) and n-fold Laplace
    (b = sqrt(n), i.e. mu_i = 1/sqrt(n)); both tend to G_1."""
    out = {}
    for n in (10, 100):
        # f_{eps,0}: closed-form functionals
        eps = 1 / mp.sqrt(n)
        kl = eps * (mp.e ** eps - 1) / (mp.e ** eps + 1)
        k2 = eps ** 2
        k3b = 8 * eps ** 3 * mp.e ** eps * (1 + mp.e ** (2 * eps)) / (1 + mp.e ** eps) ** 4
        mu_c, g_c = clt_mu_gamma(kl, k2, k3b, n)
        spec = "epsdelta:eps=%.17g,times=%d" % (float(eps), n)
        c = fdp.json("clt", spec)
        rep.check_close("Thm 3.5: f_{1/sqrt(%d),0}^n CLT mu" % n, c["mu"], mu_c, rel=1e-9)
        rep.check_close("Thm 3.5: f_{1/sqrt(%d),0}^n gamma" % n, c["gamma"], g_c, rel=1e-9)
        a_v, b_v = eps0_fold_vertices(eps, n)
        args = []
        for a in ALPHAS:
            args += ["--alpha", a]
        d = fdp.json("compose", spec, *args)
        ok = True
        worst_clt = 0
        for b in pl.answers(d, "beta"):
            truth = polygon_at(a_v, b_v, b["alpha"])
            ok &= b["lower"] - 1e-12 <= truth <= b["upper"] + 1e-12
            worst_clt = max(worst_clt, abs(truth - pl.G(mu_c, b["alpha"])))
        rep.row("exact f_{1/sqrt(%d),0}^n (binomial) in fdp bracket" % n, "-",
                "%d alphas" % len(pl.answers(d, "beta")), ok,
                "max |exact - G_mu| = %.4f" % worst_clt)
        out[("eps0", n)] = (mu_c, g_c)

        # Laplace: functionals by quadrature
        mu_i = 1 / mp.sqrt(n)
        kl, k2, k3b = laplace_functionals(mu_i)
        rep.check_close("Laplace mu=%.4f: kl = mu + e^-mu - 1" % mu_i, kl,
                        mu_i + mp.e ** (-mu_i) - 1, rel=1e-20, note="(mpmath only)")
        mu_c, g_c = clt_mu_gamma(kl, k2, k3b, n)
        spec = "laplace:b=%.17g,times=%d" % (float(mp.sqrt(n)), n)
        c = fdp.json("clt", spec)
        rep.check_close("Thm 3.5: Laplace^%d CLT mu" % n, c["mu"], mu_c, rel=1e-9)
        rep.check_close("Thm 3.5: Laplace^%d gamma" % n, c["gamma"], g_c, rel=1e-9)
        d = fdp.json("compose", spec, *args)
        ok = True
        worst = 0
        for b in pl.answers(d, "beta"):
            a = b["alpha"]
            if g_c < 0.5 and g_c <= a <= 1 - g_c:
                lo_band = pl.G(mu_c, a + g_c) - g_c
                hi_band = pl.G(mu_c, a - g_c) + g_c
                ok &= lo_band <= b["upper"] and b["lower"] <= hi_band
            worst = max(worst, abs((b["lower"] + b["upper"]) / 2 - pl.G(mu_c, a)))
        rep.row("Laplace^%d: certified bracket inside the Berry-Esseen band" % n, "-",
                "gamma = %.4f" % g_c, ok, "max |f - G_mu| = %.4f" % worst)
        out[("lap", n)] = (mu_c, g_c)
    return out


def part_group(fdp, rep):
    """Thm 2.14: group privacy 1 - (1-f)^{o k}; G_mu -> G_{k mu}; Laplace mu ->
    Laplace k mu; f_{mu/k,0} for groups of k tends to the Laplace trade-off."""
    args = []
    for a in ALPHAS:
        args += ["--alpha", a]
    d = fdp.json("group", "gdp:mu=0.5", "--k", 3, *args)
    worst = max(abs(b["lower"] - pl.G(1.5, b["alpha"])) / pl.G(1.5, b["alpha"]) for b in pl.answers(d, "beta"))
    rep.row("Thm 2.14: G_0.5, k=3 -> G_1.5", "-", "max rel err %.1e" % worst, worst <= 1e-12)
    d = fdp.json("group", "laplace:b=2", "--k", 4, *args)
    worst = max(abs(b["lower"] - pl.laplace_tradeoff(2, b["alpha"])) for b in pl.answers(d, "beta"))
    rep.row("Thm 2.14: Laplace mu=0.5, k=4 -> Laplace mu=2", "-", "max abs err %.1e" % worst,
            worst <= 1e-13)
    mu = 1.0
    prev = None
    for k in (1, 2, 3, 5, 10, 20):
        e = mu / k
        f = lambda x, e=e: pl.f_epsdelta(e, 0, x)  # noqa: E731
        d = fdp.json("group", "epsdelta:eps=%.17g" % e, "--k", k, *args)
        err = 0
        for b in pl.answers(d, "beta"):
            truth = group_pointwise(f, k, b["alpha"])
            err = max(err, abs(b["lower"] - truth), abs(b["upper"] - truth))
        # sup distance to the Laplace limit on a dense grid (mpmath only)
        gap = max(pl.laplace_tradeoff(mu, x) - group_pointwise(f, k, x) for x in DENSE)
        ok = err <= 1e-13 and gap >= -1e-13 and (prev is None or gap <= prev + 1e-13)
        rep.row("group(f_{1/%d,0}, k=%d) = iterate; gap to Laplace_1" % (k, k), "-> 0",
                "err %.0e, gap %.5f" % (err, gap), ok)
        prev = gap
    # f_{eps,0} does not become f_{k eps,0}: same slope at 0, strictly above in the middle
    d = fdp.json("group", "epsdelta:eps=0.5", "--k", 3, "--alpha", 0.3)
    fk = pl.f_epsdelta(1.5, 0, 0.3)
    rep.row("group(f_{0.5,0}, 3)(0.3) > f_{1.5,0}(0.3)", "-",
            "%.5f > %.5f" % (pl.answers(d, "beta")[0]["lower"], fk), pl.answers(d, "beta")[0]["lower"] > fk + 1e-3)


def main():
    args = pl.parse_args(__doc__.splitlines()[0])
    fdp = pl.Fdp(args.fdp)
    rep = pl.Report("papers/drs", args.quiet)
    rep.header()
    part_gdp_vs_epsdelta(fdp, rep)
    clt = part_clt(fdp, rep)
    part_group(fdp, rep)
    if args.figures:
        figures(fdp, args.figures, clt)
    return rep.finish(fdp)


# --------------------------------------------------------------------------
# Figures


def figures(fdp, outdir, clt):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    os.makedirs(outdir, exist_ok=True)
    xs = np.concatenate([np.linspace(0, 1, 201)[1:-1]])

    # 1. G_1 and the f_{eps,delta(eps)} it is the envelope of
    fig, ax = plt.subplots(figsize=(5.2, 5))
    ax.plot(xs, [float(pl.G(1, x)) for x in xs], color="#0072B2", lw=2.2, label="G_1")
    for e, col in zip((0.25, 1.0, 2.0), ("#D55E00", "#009E73", "#CC79A7")):
        dl = pl.gdp_delta(1, e)
        ax.plot(xs, [float(pl.f_epsdelta(e, dl, x)) for x in xs], "--", color=col,
                label="f_{%g, %.3f}" % (e, dl))
    ax.plot([0, 1], [1, 0], ":", color="grey", lw=1)
    ax.set_xlabel("type I error alpha")
    ax.set_ylabel("type II error beta")
    ax.set_title("1-GDP is (eps, delta(eps))-DP for every eps")
    ax.legend()
    ax.set_aspect("equal")
    fig.savefig(os.path.join(outdir, "drs_gdp_vs_epsdelta.png"))
    plt.close(fig)

    # 2. CLT: n = 10 f_{eps,0} (exact) and Laplace (certified), each vs G_mu
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.8))
    n = 10
    eps = 1 / mp.sqrt(n)
    a_v, b_v = eps0_fold_vertices(eps, n)
    mu_c, g_c = clt[("eps0", n)]
    ax = axes[0]
    ax.plot([float(x) for x in a_v], [float(y) for y in b_v], color="#0072B2", lw=2,
            label="exact f_{eps,0}^{(x)10}, eps = 1/sqrt(10)")
    ax.plot(xs, [float(pl.G(mu_c, x)) for x in xs], "--", color="#D55E00",
            label="CLT G_mu, mu = %.3f" % mu_c)
    ax.plot(xs, [float(pl.G(1, x)) for x in xs], ":", color="#009E73", label="limit G_1")
    ax.set_title("10-fold f_{0.316,0}")
    mu_c, g_c = clt[("lap", n)]
    rows = fdp.csv("curve", "laplace:b=%.17g,times=%d" % (float(mp.sqrt(n)), n), "--points", 301)
    ax = axes[1]
    ax.fill_between([r["alpha"] for r in rows], [r["beta_lower"] for r in rows],
                    [r["beta_upper"] for r in rows], color="#0072B2", alpha=0.6)
    ax.plot([r["alpha"] for r in rows], [r["beta_upper"] for r in rows], color="#0072B2", lw=2,
            label="certified 10-fold Laplace, b = sqrt(10)")
    ax.plot(xs, [float(pl.G(mu_c, x)) for x in xs], "--", color="#D55E00",
            label="CLT G_mu, mu = %.3f" % mu_c)
    ax.plot(xs, [float(pl.G(1, x)) for x in xs], ":", color="#009E73", label="limit G_1")
    ax.set_title("10-fold Laplace mechanism")
    for ax in axes:
        ax.plot([0, 1], [1, 0], ":", color="grey", lw=1)
        ax.set_xlabel("type I error alpha")
        ax.set_ylabel("type II error beta")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.legend(fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "drs_clt.png"))
    plt.close(fig)

    # 3. group privacy of f_{1/k,0} for groups of k vs the Laplace limit
    fig, ax = plt.subplots(figsize=(5.2, 5))
    for k, col in zip((1, 2, 5), ("#D55E00", "#009E73", "#CC79A7")):
        f = lambda x, e=1.0 / k: pl.f_epsdelta(e, 0, x)  # noqa: E731
        ax.plot(xs, [float(group_pointwise(f, k, x)) for x in xs], "--", color=col,
                label="group k=%d of f_{1/%d,0}" % (k, k))
    ax.plot(xs, [float(pl.laplace_tradeoff(1, x)) for x in xs], color="#0072B2", lw=2,
            label="T(Lap(0,1), Lap(1,1))")
    ax.plot([0, 1], [1, 0], ":", color="grey", lw=1)
    ax.set_xlabel("type I error alpha")
    ax.set_ylabel("type II error beta")
    ax.set_title("group privacy: f_{1/k,0} -> Laplace")
    ax.legend()
    ax.set_aspect("equal")
    fig.savefig(os.path.join(outdir, "drs_group.png"))
    plt.close(fig)


if __name__ == "__main__":
    pl.timed_main(main)
