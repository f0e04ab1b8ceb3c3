// Internal (not installed): certified threshold tests on a statistic whose
// laws under the two hypotheses were computed on an integer lattice from
// below (positive_convolution.hpp): upper bounds on its tails, and the
// largest epsilon that some threshold's type I and II errors prove at a
// delta (random_allocation_lower.cpp, antipodal_allocation_lower.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/positive_convolution.hpp"

namespace fdp::detail {

// Tail sums of a computed sum law on its window: below[j] = mass of indices
// < j, from the left; above[j] = mass of indices >= j, from the right (each
// accumulated from its small end), every one at most the exact one. An
// UPPER bound on a tail is (computed tail + deficit) x scale + beyond:
//  * deficit: what the computed law lacks of the exact law of the stored
//    (lowered) step masses, whose total is known: the product of the steps'
//    totals (FFT deficits and windows), plus the summation's rounding;
//  * scale: the true step masses exceed the stored ones by a relative margin
//    M at most, so the true law of the sum is at most (1 - M)^-t times it;
//  * beyond: the chance that some step's Y passed the cap (left out).
struct tails {
  std::vector<long double> below, above;
  long double deficit = 0, scale = 1, beyond = 0;
  long double upper(long double tail) const { return (tail + deficit) * scale + beyond; }
};

/// The tails of s (a sum law of `steps` summands computed from below, from
/// step masses within a relative `margin` of the exact ones, whose stored
/// masses' convolution has total `exact_total`); `beyond`: the mass left out
/// of the steps altogether.
tails tails_of(const window_seq& s, long double exact_total, std::int64_t steps, double margin,
               double beyond);

/// The arguments of the random-allocation lower bounds (fdp/ops/
/// random_allocation.hpp), checked for `fn`: sigma finite and > 0, steps in
/// [1, 1e8], uses in [1, steps], each delta in (0, 1).
void require_allocation_arguments(const char* fn, double sigma, std::int64_t steps,
                                  std::int64_t uses, const std::vector<double>& deltas);

/// The epsilon of a Gaussian pair at GDP parameter mu and delta (the tests
/// on a sum of outputs), shaded down by far more than its rounding.
double gaussian_test_epsilon(double mu, double delta);

/// The best eps over all thresholds j of the statistic, at one delta: from
/// the events {S >= j} (Q's tail from below against P's from above) and
/// {S < j} (P's against Q's), so q is the law that sits higher. 0 when no
/// threshold proves any.
double lattice_test_bound(const tails& p, const tails& q, double delta);

}  // namespace fdp::detail
