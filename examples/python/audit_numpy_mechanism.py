#!/usr/bin/env python3
"""Auditing a NumPy mechanism with fdp: a correct and a buggy Laplace mechanism.

Both claim to be 1-DP (a counting query, sensitivity 1). The correct one adds
Laplace noise of scale 1; the buggy one was written with the scale 1/2 (a
sensitivity mix-up), so it is in truth only 2-DP. fdp.audit draws nothing
itself: it takes the outputs on two neighbouring inputs (counts 0 and 1) and
certifies, at 95% confidence, a lower bound on epsilon; when the bound exceeds
the claim the verdict is a violation. The plot shows the claimed trade-off
curve, the audit's certified upper band on the true curve, and its estimate.

Run: PYTHONPATH=build/python /usr/bin/python3 examples/python/audit_numpy_mechanism.py [OUT.png]
(default out/audit_laplace.png)
"""

import os
import sys

import numpy as np

import fdp

CLAIM = "laplace:eps=1"  # 1-DP, sensitivity 1
N = 200_000  # outputs per neighbouring input
rng = np.random.default_rng(20261127)


def correct_mechanism(count, size):
    return count + rng.laplace(scale=1.0, size=size)


def buggy_mechanism(count, size):
    return count + rng.laplace(scale=0.5, size=size)  # the bug: scale 1/2, eps 2


def audit(mechanism):
    return fdp.audit(mechanism(0, N), mechanism(1, N), claim=CLAIM, confidence=0.95)


results = {"correct (scale 1)": audit(correct_mechanism), "buggy (scale 1/2)": audit(buggy_mechanism)}
for name, r in results.items():
    print(f"{name:18s}: verdict {r.verdict:9s} epsilon >= {r.epsilon.lower:.3f} "
          f"(95% confidence; claim {CLAIM})")
assert results["buggy (scale 1/2)"].verdict == "violation", "the bug is certified"
assert results["correct (scale 1)"].verdict != "violation", "no false alarm"

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join("out", "audit_laplace.png")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no plot")
    sys.exit(0)
alphas = np.linspace(0.0, 1.0, 401)
claimed = fdp.compose([CLAIM]).beta(alphas)
fig, axes = plt.subplots(1, 2, figsize=(9, 4.2), sharey=True)
for ax, (name, r) in zip(axes, results.items()):
    ax.plot(alphas, claimed.upper, "k-", label=f"claimed: {CLAIM}")
    ax.plot(r.curve.alpha, r.curve.beta_upper, "r--", label="audit: certified upper band")
    ax.plot(r.curve.alpha, r.curve.beta_estimate, "b:", label="audit: estimate")
    ax.set_title(f"{name}: {r.verdict}, eps >= {r.epsilon.lower:.2f}")
    ax.set_xlabel("type I error alpha")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
axes[0].set_ylabel("type II error beta")
axes[0].legend(loc="upper right", fontsize=8)
fig.tight_layout()
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
fig.savefig(out, dpi=120)
print(f"plot: {out}")
