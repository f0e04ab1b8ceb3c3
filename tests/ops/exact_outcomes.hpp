// Exact answers for a finite pair of output distributions, computed in long
// double outcome by outcome (the kind tests' independent truths): the
// hockey-stick delta(eps) of both orders, its epsilon(delta) by bisection,
// and T(P, Q)(alpha) by Neyman-Pearson.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace fdp::exact {

using real = long double;

struct outcome {
  real p, q;  // its probability under P and under Q
};

// delta(eps) = max over both orders of sum_o max(0, Q(o) - e^eps P(o)).
inline real delta(const std::vector<outcome>& os, real eps) {
  real fwd = 0, rev = 0;
  for (const auto& o : os) {
    fwd += std::max<real>(0, o.q - std::exp(eps) * o.p);
    rev += std::max<real>(0, o.p - std::exp(eps) * o.q);
  }
  return std::max(fwd, rev);
}

// The smallest eps >= 0 with delta(eps) <= target (delta is continuous and decreasing).
inline real epsilon(const std::vector<outcome>& os, real target) {
  if (delta(os, 0) <= target) return 0;
  real lo = 0, hi = 1;
  while (delta(os, hi) > target) lo = hi, hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const real mid = (lo + hi) / 2;
    (delta(os, mid) > target ? lo : hi) = mid;
  }
  return hi;
}

// T(P, Q)(alpha) by Neyman-Pearson: reject the outcomes of largest Q/P first.
inline real beta(std::vector<outcome> os, real alpha) {
  std::stable_sort(os.begin(), os.end(),
                   [](const outcome& a, const outcome& b) { return a.q * b.p > b.q * a.p; });
  real a = 0, b = 1;
  for (const auto& o : os) {
    if (a + o.p >= alpha) return b - (alpha - a) / o.p * o.q;  // (randomize on this outcome)
    a += o.p;
    b -= o.q;
  }
  return 0;
}

}  // namespace fdp::exact
