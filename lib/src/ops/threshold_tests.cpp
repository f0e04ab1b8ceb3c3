#include "ops/threshold_tests.hpp"

#include <algorithm>
#include <cmath>

#include "fdp/core/error.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp::detail {

void require_allocation_arguments(const char* fn, double sigma, std::int64_t steps,
                                  std::int64_t uses, const std::vector<double>& deltas) {
  require_finite_pos(sigma, fn, "sigma");
  require(steps >= 1 && steps <= 100000000, fn, "steps", static_cast<double>(steps),
          "must be an integer in [1, 1e8]");
  require(uses >= 1 && uses <= steps, fn, "uses", static_cast<double>(uses),
          "must be an integer in [1, steps]");
  for (double d : deltas) require(d > 0 && d < 1, fn, "delta", d, "must be in (0, 1)");
}

double gaussian_test_epsilon(double mu, double delta) {
  return std::max(0.0, gdp_eps(mu, delta) * (1 - 1e-9) - 1e-12);
}

tails tails_of(const window_seq& s, long double exact_total, std::int64_t steps, double margin,
               double beyond) {
  const std::size_t n = s.v.size();
  tails r;
  r.below.assign(n + 1, 0.0L);
  r.above.assign(n + 1, 0.0L);
  for (std::size_t j = 0; j < n; ++j) r.below[j + 1] = r.below[j] + s.v[j];
  for (std::size_t j = n; j-- > 0;) r.above[j] = r.above[j + 1] + s.v[j];
  // (n long-double additions of terms summing to <= 1: error < n 2^-64)
  const long double rounding = static_cast<long double>(n + 1) * 0x1p-63L;
  r.deficit =
      std::max(0.0L, exact_total * (1 + 0x1p-50L) - std::min(r.below[n], r.above[0])) + rounding;
  r.scale =
      std::exp(-static_cast<long double>(steps) * std::log1p(-static_cast<long double>(margin))) *
      (1 + 0x1p-50L);
  r.beyond = beyond;
  return r;
}

double lattice_test_bound(const tails& p, const tails& q, double delta) {
  const long double d = delta, up = 1.0L + 0x1p-40L, down = 1.0L - 0x1p-40L;
  long double best = 0.0L;
  for (std::size_t j = 0; j < p.below.size(); ++j) {
    // A = {S >= j}: Q(A) from below, P(A) from above
    const long double qa = q.above[j] * down, pa = p.upper(p.above[j]) * up;
    if (qa > d) best = std::max(best, std::log((qa - d) / pa));
    // A = {S < j}: P(A) from below, Q(A) from above
    const long double pb = p.below[j] * down, qb = q.upper(q.below[j]) * up;
    if (pb > d) best = std::max(best, std::log((pb - d) / qb));
  }
  return static_cast<double>(best);
}

}  // namespace fdp::detail
