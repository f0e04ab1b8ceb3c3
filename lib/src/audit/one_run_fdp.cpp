// The one-run f-DP audit (fdp/audit/one_run_fdp.hpp).
#include "fdp/audit/one_run_fdp.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"

namespace fdp::audit {

inverse_blow_up gdp_inverse_blow_up(double mu) {
  return [mu](double x) {
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    return norm_cdf(norm_quantile(x) - mu);
  };
}

inverse_blow_up curve_inverse_blow_up(std::function<double(double)> beta_lower) {
  return [beta = std::move(beta_lower)](double x) {
    const double target = 1.0 - x;
    if (beta(0.0) <= target) return 0.0;
    double lo = 0.0, hi = 1.0;  // beta(lo) > target >= beta(hi) (beta(1) = 0)
    for (int i = 0; i < 50; ++i) {
      const double mid = 0.5 * (lo + hi);
      (beta(mid) <= target ? hi : lo) = mid;
    }
    return hi;
  };
}

bool one_run_fdp_consistent(const inverse_blow_up& g, std::int64_t m, std::int64_t r,
                            std::int64_t v, double level) {
  if (!(1 <= r && 0 <= v && v <= r && r <= m))
    throw std::invalid_argument("one-run f-DP test (m=" + std::to_string(m) +
                                ", r=" + std::to_string(r) + ", v=" + std::to_string(v) +
                                "): needs 0 <= v <= r <= m and r >= 1");
  detail::require(level > 0 && level < 1, "one-run f-DP test", "level", level, "must be in (0, 1)");
  const double rd = static_cast<double>(r), share = rd / static_cast<double>(m);
  const double start = level * share;
  double h = start * static_cast<double>(r - v) / rd, s = start * static_cast<double>(v) / rd;
  for (std::int64_t i = v - 1; i >= 0; --i) {
    // (the paper's Algorithm 3: no max(h, .) here, which its appendix code
    // has; the max rejects at least as often and the proof does not cover it)
    const double h_next = g(s);
    s += static_cast<double>(i) / static_cast<double>(r - i) * (h_next - h);
    h = h_next;
  }
  return s + h <= share;
}

double one_run_gdp_mu_lower(std::int64_t m, std::int64_t r, std::int64_t v, double level) {
  auto rejected = [&](double mu) {
    return !one_run_fdp_consistent(gdp_inverse_blow_up(mu), m, r, v, level);
  };
  if (!rejected(0.0)) return 0.0;
  double lo = 0.0, hi = 40.0;
  if (rejected(hi)) return hi;
  while (hi - lo > 1e-9 * std::max(1.0, lo)) {
    const double mid = 0.5 * (lo + hi);
    (rejected(mid) ? lo : hi) = mid;
  }
  return lo;  // (rejected: the bisection keeps lo rejected)
}

}  // namespace fdp::audit
