// A lower bound on the privacy loss of a repeated Poisson-subsampled
// Gaussian from one statistic of its outputs: the largest of its n noisy
// releases.
//
// The n-fold composition of the pair P = N(0, s^2), Q = (1 - q) N(0, s^2) +
// q N(1, s^2) (noise s in units of the sensitivity) is the pair of product
// measures P^n, Q^n (Dong, Roth & Su 2022, Thm 3.2; fdp composes it in both
// orders, add and remove). M = max_i Y_i is a function of the outputs, so
// the hockey-stick divergence of M's two laws is at most that of the
// outputs' (post-processing), in each order, and so is the divergence of
// any test "M > t" or "M <= t":
//   remove order:  delta(eps) >= Q^n(M > t) - e^eps P^n(M > t),
//   add order:     delta(eps) >= P^n(M <= t) - e^eps Q^n(M <= t),
// with P^n(M <= t) = Phi(t/s)^n and Q^n(M <= t) = ((1 - q) Phi(t/s) +
// q Phi((t - 1)/s))^n. Every t gives a valid bound; fdp takes the t where
// the density ratio of M's laws (increasing in t) crosses e^eps (e^-eps in
// the add order), the best one.
//
// Near identity (small q n) this one test is nearly all an adversary can
// do: one sampled step with an extreme output. For sigma 0.5, q 1e-6, n
// 10^7 at delta 1e-9 it certifies epsilon >= 0.9485 against the true
// 0.9503, where the discretized composition's lower end was 0.839; for
// q = 1e-9 the composition's lower end was 0.
#pragma once

#include <cstdint>

namespace fdp {

/// The n-fold Poisson-subsampled Gaussian: noise s = sigma / sensitivity,
/// rate q in (0, 1], n >= 1 steps. With `shifted` = m in [1, n], only m of
/// the n steps can hold the record, each with chance q: Q^n(M <= t) =
/// Phi(t/s)^(n - m) ((1 - q) Phi(t/s) + q Phi((t - 1)/s))^m (the max does
/// not care which m). q = 1 is then random allocation's pair: the record in
/// a uniformly chosen m of the n steps (fdp/ops/random_allocation.hpp).
/// 0 (the default) means m = n.
struct max_statistic_pair {
  double s = 1.0, q = 1.0;
  std::int64_t n = 1;
  std::int64_t shifted = 0;
};

/// A certified lower bound on delta(eps) of the n-fold composition (the
/// larger of the two orders) from the tests on the largest output. The
/// probabilities are computed from log Phi (1e-13 relative) with a bound on
/// each logarithm's error carried through (n-fold in n log Phi) and are
/// rounded outward by it. 0 for a non-finite eps (no claim made). Throws
/// std::invalid_argument for s <= 0, q outside (0, 1], n < 1 or shifted
/// outside [0, n].
double max_statistic_delta_lower(const max_statistic_pair& pair, double eps);

/// The certified lower bound on epsilon(delta) that these tests give: the
/// largest eps (to ~1e-9 relative, rounded down) whose delta lower bound
/// still exceeds delta (the true delta(eps) > delta there, so the true
/// epsilon(delta) exceeds eps). 0 when none does. delta in (0, 1).
double max_statistic_epsilon_lower(const max_statistic_pair& pair, double delta);

}  // namespace fdp
