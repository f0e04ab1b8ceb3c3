#!/usr/bin/python3
"""Synthetic stand-ins for the output of `fdp clt` and `fdp audit`.

NOT produced by fdp. They follow the formats of docs/cli.md, so the
plot scripts can be tested and the gallery drawn with an fdp that lacks those
commands (`fdp audit` is not written yet). The commands for the real outputs
are in plots/README.md. Every file carries "synthetic": true. The CLT numbers,
made independently here, agree with `fdp clt` to 12 digits.

  clt_laplace100.json    the CLT of 100 Laplace mechanisms (b = 10), in the shape
                         of `fdp clt laplace:b=10,times=100 --alpha ... --json`,
                         from the formulas of the f-DP paper (Thm 3.5 / issue 5):
                         kl, kappa2, kappa3bar are moments of the privacy loss
                         under P, computed here by quadrature.
  audit_gauss.csv        in the shape of `fdp audit --curve-out`: threshold
  audit_gauss.json       tests on 20000 + 20000 draws of a Gaussian mechanism
                         with sigma = 0.8 (truly G_1.25) claimed to be 1-GDP;
                         confidence band from two DKW bounds at 0.95 overall.

Run: /usr/bin/python3 plots/examples/make_synthetic.py [OUTDIR]
(default OUTDIR: the directory of this script). Deterministic (fixed seed).
"""

import json
import math
import os
import sys
from statistics import NormalDist

import numpy as np

N = NormalDist()


def gdp_beta(mu, a):
    a = min(max(a, 0.0), 1.0)
    if a <= 0:
        return 1.0
    if a >= 1:
        return 0.0
    return N.cdf(-N.inv_cdf(a) - mu)


def laplace_functionals(m):
    """Moments of the privacy loss L = |y - m| - |y|, y ~ Lap(0, 1)."""
    # Atoms: L = m w.p. 1/2 (y < 0); L = -m w.p. e^{-m}/2 (y > m);
    # continuous part L = m - 2y on 0 < y < m with density e^{-y}/2.
    y = np.linspace(0.0, m, 200001)
    w = np.exp(-y) / 2
    dy = y[1] - y[0]

    def moment(g):
        cont = np.sum((g(m - 2 * y) * w)[1:] + (g(m - 2 * y) * w)[:-1]) * dy / 2
        return 0.5 * g(m) + 0.5 * math.exp(-m) * g(-m) + cont

    kl = moment(lambda t: t)
    k2 = moment(lambda t: t * t)
    k3 = moment(lambda t: np.abs(t) ** 3)
    k3b = moment(lambda t: np.abs(t - kl) ** 3)
    return float(kl), float(k2), float(k3), float(k3b)


def make_clt(outdir):
    b, n = 10.0, 100
    m = 1.0 / b
    kl, k2, k3, k3b = laplace_functionals(m)
    assert abs(kl - (math.exp(-m) + m - 1)) < 1e-9   # the paper's closed form
    var = n * k2 - n * kl * kl
    mu = 2 * n * kl / math.sqrt(var)
    gamma = 0.56 * n * k3b / var ** 1.5
    band = []
    for a in np.round(np.linspace(0.05, 0.95, 19), 2):
        a = float(a)
        if gamma <= a <= 1 - gamma:
            band.append({"alpha": a,
                         "beta": {"lower": max(0.0, gdp_beta(mu, a + gamma) - gamma),
                                  "upper": min(1.0, gdp_beta(mu, a - gamma) + gamma)},
                         "estimate": gdp_beta(mu, a)})
        else:
            band.append({"alpha": a, "beta": None, "estimate": gdp_beta(mu, a)})
    spec = {"spec": f"laplace:b={b:g},times={n}", "kl": n * kl, "kappa2": n * k2,
            "kappa3": n * k3, "kappa3bar": n * k3b}
    obj = {"synthetic": True,
           "note": "made by plots/examples/make_synthetic.py, not by fdp",
           "specs": [spec],
           "total": {"kl": n * kl, "kappa2": n * k2, "kappa3": n * k3,
                     "kappa3bar": n * k3b},
           "mu": mu, "gamma": gamma, "band_valid": gamma < 0.5, "band": band}
    path = os.path.join(outdir, "clt_laplace100.json")
    with open(path, "w") as fh:
        json.dump(obj, fh, indent=1)
        fh.write("\n")
    print(path)


def make_audit(outdir):
    rng = np.random.default_rng(20240601)
    n, sigma, conf = 20000, 0.8, 0.95
    x0 = np.sort(rng.normal(0.0, sigma, n))
    x1 = np.sort(rng.normal(1.0, sigma, n))
    eta = 1 - math.sqrt(conf)                  # two independent DKW events
    e = math.sqrt(math.log(2 / eta) / (2 * n))
    ts = np.concatenate([[-np.inf], x0, [np.inf]])
    a_hat = 1 - np.searchsorted(x0, ts, side="right") / n   # P0(X > t)
    b_hat = np.searchsorted(x1, ts, side="right") / n        # P1(X <= t)
    rows = []
    claim_mu = 1.0
    best = None
    for a in np.unique(np.concatenate([np.linspace(0, 1, 201),
                                       np.logspace(-4, -0.3, 60)])):
        est = b_hat[a_hat <= a].min() if np.any(a_hat <= a) else 1.0
        ok_up = a_hat + e <= a                   # surely alpha(t) <= a
        up = min(1.0, b_hat[ok_up].min() + e) if np.any(ok_up) else 1.0
        ok_lo = a_hat - e <= a
        lo = max(0.0, b_hat[ok_lo].min() - e) if np.any(ok_lo) else 0.0
        rows.append((a, lo, up, est))
        gap = gdp_beta(claim_mu, a) - up
        if 0 < a < 1 and (best is None or gap > best[0]):
            best = (gap, a, up)
    gap, wa, wb = best
    # Lower bounds implied by the witness test (type I <= wa, type II <= wb).
    eps_lower = max(0.0, min(math.log((1 - wb) / wa), math.log((1 - wa) / wb)))
    mu_lower = max(0.0, N.inv_cdf(1 - wa) - N.inv_cdf(wb))
    csv_path = os.path.join(outdir, "audit_gauss.csv")
    with open(csv_path, "w") as fh:
        fh.write("alpha,tests_beta_lower,beta_upper,beta_estimate\n")
        for r in rows:
            fh.write(",".join(f"{v:.10g}" for v in r) + "\n")
    obj = {"synthetic": True,
           "note": "made by plots/examples/make_synthetic.py, not by fdp audit: "
                   "Gaussian mechanism sigma=0.8 claimed gdp:mu=1",
           "verdict": "violation" if gap > 0 else "consistent",
           "assumptions": {"confidence": conf}, "samples": [n, n],
           "queries": [{"delta": 0.0, "epsilon": {"lower": eps_lower, "upper": None}}],
           "mu": {"lower": mu_lower, "upper": None},
           "witness": {"alpha": wa, "beta": wb,
                       "claim_beta": gdp_beta(claim_mu, wa)}}
    js_path = os.path.join(outdir, "audit_gauss.json")
    with open(js_path, "w") as fh:
        json.dump(obj, fh, indent=1)
        fh.write("\n")
    print(csv_path)
    print(js_path)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    os.makedirs(outdir, exist_ok=True)
    make_clt(outdir)
    make_audit(outdir)


if __name__ == "__main__":
    main()
