// Random allocation: each record is used in exactly k of a round's t steps,
// chosen uniformly at random without repetition (Feldman & Shenfeld 2025,
// "Privacy amplification by random allocation", arXiv:2502.08202); k = 1 is
// balls-in-bins. Gaussian noise: a step's output is the noisy sum of its
// batch's clipped gradients.
//
// A certified LOWER bound on the round's epsilon (lib/src/ops/
// random_allocation_lower.cpp): an adversary's test on the DP-SGD input
// where the record's gradient is D at every step and the others' are 0, so
// that the steps' outputs are exactly P = N(0, I_t) against Q = the uniform
// mixture over k-subsets S of N((D / sigma) 1_S, I_t).
// The upper side (the k-fold composition of balls-in-bins epochs of
// floor(t/k) steps, Feldman & Shenfeld's reduction) is fdp/budget/dpsgd.cpp's.
#pragma once

#include <cstdint>
#include <vector>

namespace fdp {

/// Certified lower bounds on epsilon(delta), one per entry of `deltas` (each
/// in (0, 1)), for one round of random allocation of `uses` out of `steps`
/// steps with noise multiplier `sigma` in units of the record's bound (both
/// orders of the pair; add-remove and zero-out neighbours). The largest of
/// the tests' bounds: the sum of all outputs (N(0, t) against N(k/sigma, t),
/// closed form), the largest output (closed form), and for k = 1 the sum of the outputs' likelihood
/// ratios Y on a lattice, for 1 < k < t the sum of log(1 + z Y), z = k/(t - k) (the lattice tests
/// computed and certified from below; not where sigma is below ~0.7 or the lattice would be too
/// large, as for balls_in_bins_laws). 0 where neither shows any leakage. Throws
/// std::invalid_argument for sigma <= 0, steps outside [1, 1e8], uses outside [1, steps].
std::vector<double> random_allocation_epsilon_lower(double sigma, std::int64_t steps,
                                                    std::int64_t uses,
                                                    const std::vector<double>& deltas);

/// The same under REPLACE-ONE neighbours (lib/src/ops/
/// antipodal_allocation_lower.cpp): tests on the input where the record's
/// gradient is u in one dataset and -u in the other, |u| = D/2 (`sigma` in
/// units of D/2), so that the outputs are E_S N(+mu 1_S, I_t) against
/// E_S N(-mu 1_S, I_t), mu = 1/sigma. The largest of two tests' bounds:
/// the sum of the outputs (closed form) and the sum of sinh(mu x_i) on a
/// lattice (certified from below; skipped when too large). Valid for
/// balls-in-bins too, with `steps` the whole epochs' steps and `uses` their
/// count: the statistics' laws depend only on how many steps are shifted.
/// Throws std::invalid_argument as random_allocation_epsilon_lower.
std::vector<double> antipodal_allocation_epsilon_lower(double sigma, std::int64_t steps,
                                                       std::int64_t uses,
                                                       const std::vector<double>& deltas);

}  // namespace fdp
