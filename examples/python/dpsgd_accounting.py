#!/usr/bin/env python3
"""DP-SGD accounting with fdp: choose the noise, track the budget, report it.

A training run of 60000 examples, batches of 256 by Poisson sampling, 15
epochs, target (3, 1e-5)-DP. Every epsilon printed is the certified upper
end of fdp's bracket (the true epsilon is below it).

Run: PYTHONPATH=build/python /usr/bin/python3 examples/python/dpsgd_accounting.py
(or plain python3 after ./scripts/setup.sh or pip install .)
"""

import fdp
from fdp import dp_accounting
from fdp.opacus import FdpAccountant, get_noise_multiplier

N, BATCH, EPOCHS, TARGET_EPS, DELTA = 60000, 256, 15, 3.0, 1e-5
q = BATCH / N
steps_per_epoch = round(1 / q)

# 1. The noise multiplier: certified never to overshoot the target.
sigma = get_noise_multiplier(target_epsilon=TARGET_EPS, target_delta=DELTA, sample_rate=q,
                             steps=EPOCHS * steps_per_epoch)
print(f"noise multiplier for ({TARGET_EPS}, {DELTA})-DP over {EPOCHS} epochs: {sigma:.6f}")

# 2. Training: the Opacus-shaped accountant, one step() per optimizer step.
acc = FdpAccountant()
for epoch in range(1, EPOCHS + 1):
    for _ in range(steps_per_epoch):
        acc.step(noise_multiplier=sigma, sample_rate=q)  # ... after optimizer.step()
    if epoch % 5 == 0:
        e = acc.get_epsilon_interval(DELTA)
        print(f"epoch {epoch:2d}: epsilon in [{e.lower:.4f}, {e.upper:.4f}]")
final = acc.get_epsilon(DELTA)
assert final <= TARGET_EPS, "certified: the calibrated noise meets the target"

# 3. The same run described as dp_accounting events gives the same bound.
event = dp_accounting.SelfComposedDpEvent(
    dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)),
    EPOCHS * steps_per_epoch)
pld = dp_accounting.PLDAccountant().compose(event)
print(f"PLDAccountant (dp_accounting-shaped): epsilon <= {pld.get_epsilon(DELTA):.4f}")

# 4. The report: the bracket and the CLT estimate (NOT a bound: it under-states).
r = fdp.dpsgd(sigma=sigma, q=q, steps=EPOCHS * steps_per_epoch, delta=DELTA, gdp_summary=False)
print(f"fdp.dpsgd: epsilon in [{r.epsilon.lower:.4f}, {r.epsilon.upper:.4f}]; "
      f"CLT estimate {r.clt_epsilon:.4f} (not a bound)")
