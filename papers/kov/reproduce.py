#!/usr/bin/python3
"""Kairouz, Oh & Viswanath, "The composition theorem for differential privacy"
(ICML 2015; IEEE Trans. Inf. Theory 63(6), 2017): the optimal eps(delta) of the
k-fold composition of (eps0, delta0)-DP mechanisms (their Thm 3.3), against
`fdp compose epsdelta:eps=..,delta=..,times=k`, with their simplified bound
(Thm 3.4) and Dwork & Roth's advanced composition beside it.

The independent value is KOV's formula evaluated in mpmath (paperlib.kov_delta):
fdp's certified bracket [lo, hi] passes when delta_k(lo) >= delta >= delta_k(hi),
i.e. when the exact optimal epsilon lies inside the bracket.

Usage: /usr/bin/python3 papers/kov/reproduce.py [--fdp PATH] [--figures DIR]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import paperlib as pl  # noqa: E402
from paperlib import mp  # noqa: E402

# (eps0, delta0, k, delta): settings in the range KOV's figures use (eps0 = 0.1
# and larger, k up to a few hundred, delta of order 1e-5 .. 1e-10) plus two
# with delta0 > 0.
CASES = [
    (0.1, 0.0, 10, 1e-5),
    (0.1, 0.0, 100, 1e-5),
    (0.1, 0.0, 1000, 1e-5),
    (0.1, 0.0, 100, 1e-10),
    (0.5, 0.0, 30, 1e-6),
    (1.0, 0.0, 10, 1e-5),
    (0.1, 1e-7, 50, 1e-5),
    (0.25, 1e-8, 200, 1e-5),
    (0.25, 1e-8, 200, 1e-6),  # delta below 1 - (1 - delta0)^k = 2e-6: no finite eps
]


def kov_simplified(eps0, delta0, k, delta_tilde):
    """KOV Thm 3.4: k-fold (eps0, delta0) is (eps~, 1 - (1-delta0)^k (1 - delta~))-DP with
    eps~ = min{k eps0, k eps0 (e^eps0 - 1)/(e^eps0 + 1) + eps0 sqrt(2k log(e + sqrt(k eps0^2)/delta~)),
               k eps0 (e^eps0 - 1)/(e^eps0 + 1) + eps0 sqrt(2k log(1/delta~))}."""
    e0 = mp.mpf(eps0)
    drift = k * e0 * mp.expm1(e0) / (mp.e ** e0 + 1)
    t1 = drift + e0 * mp.sqrt(2 * k * mp.log(mp.e + mp.sqrt(k * e0 ** 2) / delta_tilde))
    t2 = drift + e0 * mp.sqrt(2 * k * mp.log(1 / mp.mpf(delta_tilde)))
    return min(k * e0, t1, t2)


def main():
    args = pl.parse_args(__doc__.splitlines()[0])
    fdp = pl.Fdp(args.fdp)
    rep = pl.Report("papers/kov", args.quiet)
    rep.header()
    table = []
    for (eps0, delta0, k, delta) in CASES:
        spec = "epsdelta:eps=%g,delta=%g,times=%d" % (eps0, delta0, k)
        d = fdp.json("compose", spec, "--delta", delta)
        e = pl.answer(d, "epsilon")
        lo, hi = e["lower"], e["upper"]
        floor = 1 - (1 - mp.mpf(delta0)) ** k
        if floor >= delta:
            rep.row("k=%d x (%g, %g), delta=%g: no finite eps" % (k, eps0, delta0, delta),
                    "-", "%s (floor %.3g)" % (lo, floor), lo is None and hi is None)
            continue
        dlo = pl.kov_delta(eps0, delta0, k, lo)
        dhi = pl.kov_delta(eps0, delta0, k, hi)
        # relative slack 1e-9 on delta: the bracket ends are printed to 17 digits
        ok = dlo >= delta * (1 - 1e-9) and dhi <= delta * (1 + 1e-9)
        opt = pl.kov_eps(eps0, delta0, k, delta)
        rep.row("k=%d x (%g, %g), delta=%g: optimal eps" % (k, eps0, delta0, delta),
                "Thm 3.3", "[%.6f, %.6f] (indep %.6f)" % (lo, hi, opt), ok)
        # KOV's simplified bound (Thm 3.4) at delta~ with 1-(1-delta0)^k(1-delta~) = delta
        keep = (1 - mp.mpf(delta0)) ** k
        dt = 1 - (1 - mp.mpf(delta)) / keep
        simp = kov_simplified(eps0, delta0, k, dt)
        rep.row("   KOV Thm 3.4 bound >= optimal", "-", "%.6f" % simp, simp >= opt)
        # Dwork & Roth Thm 3.20 as fdp compare prints it
        c = fdp.json("compare", spec, "--delta", delta)
        adv = c.get("advanced", {}).get("epsilon")
        if adv is not None:
            dp = c["advanced"]["delta_prime"]
            rep.check_close("   D&R Thm 3.20 (fdp compare, delta'=%.3g)" % dp, adv,
                            pl.advanced_composition_eps(eps0, k, dp), rel=1e-9)
        table.append((k, eps0, delta0, delta, lo, hi, float(simp), adv, k * eps0))

    if not args.quiet:
        print()
        print("| k | eps0 | delta0 | delta | optimal eps (fdp bracket) | KOV Thm 3.4 | D&R Thm 3.20 | k eps0 |")
        print("|---|---|---|---|---|---|---|---|")
        for (k, e0, d0, d, lo, hi, simp, adv, naive) in table:
            print("| %d | %g | %g | %g | [%.5f, %.5f] | %.5f | %s | %.3g |" %
                  (k, e0, d0, d, lo, hi, simp, "%.5f" % adv if adv is not None else "-", naive))
    if args.figures:
        figure(fdp, args.figures)
    return rep.finish(fdp)


def figure(fdp, outdir):
    """eps at delta = 1e-5 against k for eps0 = 0.1: optimal vs the bounds."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ks = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
    eps0, delta = 0.1, 1e-5
    opt, simp, adv = [], [], []
    for k in ks:
        d = fdp.json("compose", "epsdelta:eps=%g,times=%d" % (eps0, k), "--delta", delta)
        opt.append(d["epsilon"][0]["upper"])
        simp.append(float(kov_simplified(eps0, 0, k, delta)))
        adv.append(float(pl.advanced_composition_eps(eps0, k, delta)))
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.plot(ks, [eps0 * k for k in ks], ":", color="#000000", label="k eps0 (basic)")
    ax.plot(ks, adv, "--", color="#D55E00", label="Dwork-Roth Thm 3.20")
    ax.plot(ks, simp, "-.", color="#009E73", label="KOV Thm 3.4 (simplified)")
    ax.plot(ks, opt, "o-", color="#0072B2", label="optimal (fdp compose)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of compositions k")
    ax.set_ylabel("epsilon at delta = 1e-5")
    ax.set_title("k-fold composition of (0.1, 0)-DP")
    ax.legend()
    os.makedirs(outdir, exist_ok=True)
    fig.savefig(os.path.join(outdir, "kov_eps_vs_k.png"))


if __name__ == "__main__":
    pl.timed_main(main)
