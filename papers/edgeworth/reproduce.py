#!/usr/bin/python3
"""Zheng, Dong, Long & Su, "Sharp Composition Bounds for Gaussian Differential
Privacy via Edgeworth Expansion" (ICML 2020; arXiv 2003.04493): CLT vs
Edgeworth vs exact for compositions of Poisson-subsampled Gaussian mechanisms
(NoisySGD steps, the paper's application) and of Laplace mechanisms.

  exact      fdp compose (certified bracket)
  CLT        the normal approximation with the loss's two means and variances
             (for Laplace it is G_mu with DRS's clt_mu; checked against fdp clt)
  Edgeworth  the one-term expansion (fdp::edgeworth_beta, via the driver
             build*/papers/fdp_paper_edgeworth), checked against an independent
             mpmath computation (gen_golden.py)
CLT and Edgeworth are approximations, not bounds.

Usage: /usr/bin/python3 papers/edgeworth/reproduce.py [--fdp PATH] [--figures DIR]
"""

import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import paperlib as pl  # noqa: E402
from paperlib import mp  # noqa: E402
import gen_golden as ref  # noqa: E402

ALPHAS = [0.01, 0.05, 0.1, 0.2, 0.3, 0.5]
# (label, fdp spec, driver args, reference cumulants)
CASES = [
    ("subsampled Gaussian sigma=1, q=0.1, 20 steps", "subsampled-gaussian:sigma=1,q=0.1,times=20",
     ["subsampled-gaussian", "1", "0.1", "20"], lambda: ref.subsampled_gaussian(1, mp.mpf("0.1")), 20),
    ("subsampled Gaussian sigma=0.8, q=0.05, 100 steps",
     "subsampled-gaussian:sigma=0.8,q=0.05,times=100",
     ["subsampled-gaussian", "0.8", "0.05", "100"],
     lambda: ref.subsampled_gaussian(mp.mpf("0.8"), mp.mpf("0.05")), 100),
    ("Laplace b=sqrt(10), 10 compositions", "laplace:b=%.17g,times=10" % float(mp.sqrt(10)),
     ["laplace", "%.17g" % float(1 / mp.sqrt(10)), "10"], lambda: ref.laplace(1 / mp.sqrt(10)), 10),
]


def find_driver(fdp_path):
    if os.environ.get("FDP_PAPER_EDGEWORTH"):
        return os.environ["FDP_PAPER_EDGEWORTH"]
    build = os.path.dirname(os.path.dirname(os.path.abspath(fdp_path)))
    cand = os.path.join(build, "papers", "fdp_paper_edgeworth")
    if os.access(cand, os.X_OK):
        return cand
    c = glob.glob(os.path.join(pl.REPO, "build*", "papers", "fdp_paper_edgeworth"))
    if not c:
        sys.exit("no fdp_paper_edgeworth: build the target or set $FDP_PAPER_EDGEWORTH")
    return max(c, key=os.path.getmtime)


def main():
    args = pl.parse_args(__doc__.splitlines()[0])
    fdp = pl.Fdp(args.fdp)
    driver = find_driver(args.fdp)
    rep = pl.Report("papers/edgeworth", args.quiet)
    rep.header()
    summary = []
    for (label, spec, dargs, refc, n) in CASES:
        qargs = []
        for a in ALPHAS:
            qargs += ["--alpha", a]
        exact = fdp.json("compose", spec, *qargs, "--method", "clt")
        out = subprocess.run([driver] + dargs + [str(a) for a in ALPHAS],
                             capture_output=True, text=True, check=True).stdout
        ed = json.loads(out)
        p, q = refc()
        err_n, err_e = [], []
        for b, e in zip(pl.answers(exact, "beta"), ed["beta"]):
            a = b["alpha"]
            # the library against the independent mpmath expansion
            for key, rp, rq, k3 in (("edgeworth", p, q, True), ("normal", p, q, False)):
                want = ref.edgeworth_beta(rp, rq, n, mp.mpf(a), k3)
                if abs(e[key] - want) > 1e-9:
                    rep.row("%s: %s(%g) vs mpmath" % (label, key, a), "-",
                            "%.10f vs %.10f" % (e[key], want), False)
            # add/remove neighbours: the worse of the two orders (fdp's spec
            # certifies both); for Laplace the two orders coincide
            edge = min(e["edgeworth"], e["edgeworth_reverse"])
            norm = min(e["normal"], e["normal_reverse"])
            lo, hi = b["lower"], b["upper"]
            mid = (lo + hi) / 2
            err_n.append(abs(norm - mid))
            err_e.append(abs(edge - mid))
            rep.row("%s: f(%g)" % (label, a), "-",
                    "exact [%.5f,%.5f] CLT %.5f Edgeworth %.5f" % (lo, hi, norm, edge), True,
                    "Edgeworth closer" if err_e[-1] < err_n[-1] else "CLT closer")
        if "clt" in exact and exact["clt"].get("mu") and exact["clt"].get("gamma") is not None:
            # for the symmetric Laplace pair (the DRS route, with a Berry-Esseen
            # gamma) the normal approximation is G_{clt_mu}; a subsampled pair's
            # clt mu is Bu et al.'s limit, not the Edgeworth's normal term
            for b, e in zip(pl.answers(exact, "beta"), ed["beta"]):
                g = pl.G(exact["clt"]["mu"], b["alpha"])
                if abs(g - e["normal"]) > 1e-9:
                    rep.row("%s: normal = G_clt_mu at %g" % (label, b["alpha"]), "-",
                            "%.10f vs %.10f" % (e["normal"], g), False)
        summary.append((label, max(err_n), max(err_e)))
        better = max(err_e) < max(err_n)
        expect_better = label.startswith("subsampled")
        rep.row("%s: max error CLT vs Edgeworth" % label, "Edgeworth sharper" if expect_better else "-",
                "%.5f vs %.5f" % (max(err_n), max(err_e)),
                better if expect_better else True,
                "" if expect_better else "lattice part: Edgeworth not better (see README)")

    if not args.quiet:
        print()
        print("| composition | max abs error CLT | max abs error Edgeworth |")
        print("|---|---|---|")
        for (label, en, ee) in summary:
            print("| %s | %.5f | %.5f |" % (label, en, ee))
    if args.figures:
        figure(fdp, driver, args.figures)
    return rep.finish(fdp)


def figure(fdp, driver, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    alphas = [i / 100 for i in range(1, 100)]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    for ax, (label, spec, dargs, _, _) in zip(axes, [CASES[0], CASES[2]]):
        rows = fdp.csv("curve", spec, "--points", 301)
        ed = json.loads(subprocess.run([driver] + dargs + [str(a) for a in alphas],
                                       capture_output=True, text=True, check=True).stdout)
        ex = {round(r["alpha"], 12): r for r in rows}
        xs = [r["alpha"] for r in rows if 0.005 <= r["alpha"] <= 0.995]
        mid = [(r["beta_lower"] + r["beta_upper"]) / 2 for r in rows if 0.005 <= r["alpha"] <= 0.995]
        import numpy as np
        e_n = [min(b["normal"], b["normal_reverse"]) for b in ed["beta"]]
        e_e = [min(b["edgeworth"], b["edgeworth_reverse"]) for b in ed["beta"]]
        mid_at = np.interp(alphas, xs, mid)
        ax.axhline(0, color="#0072B2", lw=2, label="exact (fdp certified)")
        ax.plot(alphas, np.array(e_n) - mid_at, "--", color="#D55E00", label="CLT - exact")
        ax.plot(alphas, np.array(e_e) - mid_at, "-.", color="#009E73", label="Edgeworth - exact")
        ax.set_title(label)
        ax.set_xlabel("type I error alpha")
        ax.set_ylabel("approximation - exact (beta)")
        ax.legend()
        del ex
    fig.tight_layout()
    os.makedirs(outdir, exist_ok=True)
    fig.savefig(os.path.join(outdir, "edgeworth_comparison.png"))


if __name__ == "__main__":
    pl.timed_main(main)
