#!/usr/bin/env python3
"""A DP-SGD training loop in PyTorch, accounted with fdp's Opacus-style accountant.

A logistic-regression model on synthetic data (4000 examples, 20 features),
trained with DP-SGD written out by hand: Poisson sampling (each example joins
a batch independently with probability q, as the accountant assumes),
per-example gradients clipped to norm C, Gaussian noise of standard deviation
sigma * C added to their sum. The noise multiplier sigma is chosen by
fdp.opacus.get_noise_multiplier for a (2, 1e-5)-DP target, certified never to
overshoot it; fdp.opacus.FdpAccountant records each step as Opacus's
accountants do and reports the certified epsilon of the run.

Needs PyTorch (Debian: python3-torch); without it the script says so and
exits with status 77 (CTest's "skipped"). Runs in a few seconds on a CPU.

Run: PYTHONPATH=build/python /usr/bin/python3 examples/python/torch_dpsgd.py
"""

import sys

try:
    import torch
except ImportError:
    print("PyTorch is not installed (Debian: apt install python3-torch): skipped")
    sys.exit(77)

from fdp.opacus import FdpAccountant, get_noise_multiplier

N, D, EPOCHS, BATCH = 4000, 20, 5, 100
CLIP, LR, TARGET_EPS, DELTA = 1.0, 0.5, 2.0, 1e-5
q = BATCH / N
steps = EPOCHS * round(1 / q)

torch.manual_seed(0)
true_w = torch.randn(D)
x = torch.randn(N, D)
y = (x @ true_w + 0.5 * torch.randn(N) > 0).float()


def per_example_gradients(w, b, xb, yb):
    """Gradients of the logistic loss, one row per example (closed form)."""
    residual = torch.sigmoid(xb @ w + b) - yb
    return torch.cat([residual[:, None] * xb, residual[:, None]], dim=1)


def private_step(w, b, sigma, generator):
    """One DP-SGD step: Poisson batch, clipped per-example gradients, Gaussian noise."""
    in_batch = torch.rand(N, generator=generator) < q
    g = per_example_gradients(w, b, x[in_batch], y[in_batch])
    norms = g.norm(dim=1, keepdim=True).clamp(min=1e-12)
    clipped = g * torch.clamp(CLIP / norms, max=1.0)
    noisy = clipped.sum(dim=0) + sigma * CLIP * torch.randn(D + 1, generator=generator)
    update = LR * noisy / (q * N)  # divided by the expected batch size
    return w - update[:D], b - update[D]


sigma = get_noise_multiplier(target_epsilon=TARGET_EPS, target_delta=DELTA, sample_rate=q,
                             steps=steps)
print(f"q = {q}, {steps} steps: noise multiplier {sigma:.4f} for ({TARGET_EPS}, {DELTA})-DP")

accountant = FdpAccountant()
w, b = torch.zeros(D), torch.zeros(())
gen = torch.Generator().manual_seed(1)
for step in range(1, steps + 1):
    w, b = private_step(w, b, sigma, gen)
    accountant.step(noise_multiplier=sigma, sample_rate=q)
    if step % round(1 / q) == 0:
        accuracy = ((x @ w + b > 0).float() == y).float().mean().item()
        eps = accountant.get_epsilon(DELTA)
        print(f"epoch {step * q:.0f}: accuracy {accuracy:.3f}, epsilon <= {eps:.4f}")

final = accountant.get_epsilon(DELTA)
assert final <= TARGET_EPS, "the certified epsilon meets the target"
assert accuracy > 0.75, "the private model learned something"
print(f"done: ({final:.4f}, {DELTA})-DP certified (Poisson sampling, add/remove neighbours), "
      f"accuracy {accuracy:.3f}")
