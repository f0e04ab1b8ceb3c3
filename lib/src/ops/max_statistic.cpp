// max_statistic_delta_lower (fdp/ops/max_statistic.hpp).
#include "fdp/ops/max_statistic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Relative margin on every computed probability: log Phi is accurate to
// 1e-13 relative (fdp/core/normal.hpp), so n log Phi(t/s) = x is off by at
// most ~2e-13 |x|, and e^x or 1 - e^x by ~2e-13 max(1, |x|) <= 1.5e-10
// relative for |x| <= 745 (beyond, e^x is 0 in double).
constexpr double kRelMargin = 1e-9;

// log P^n(M <= t) and log Q^n(M <= t) (see the header), and the log density
// ratio of M's laws, L(t) = log(q_M(t) / p_M(t)).
struct max_laws {
  double s, q, n;

  // log(1 - q (1 - r)), r = Phi((t - 1)/s) / Phi(t/s) in [0, 1]: the
  // per-step factor of Q's CDF over P's, without cancellation near 1 - q.
  double log_factor(double t) const {
    const double log_r = log_norm_cdf((t - 1.0) / s) - log_norm_cdf(t / s);
    const double y = -q * std::expm1(std::min(0.0, log_r));  // q (1 - r)
    if (y <= 0.5) return std::log1p(-y);
    return std::log((1.0 - q) + q * std::exp(log_r));
  }
  double log_p_cdf(double t) const { return n * log_norm_cdf(t / s); }
  double log_q_cdf(double t) const { return n * (log_norm_cdf(t / s) + log_factor(t)); }
  // q_M / p_M = (1 - q (1 - r))^(n-1) (1 - q + q e^{(2t - 1)/(2 s^2)}):
  // both factors increase in t (log-concavity of Phi; the Gaussian ratio)
  double loss(double t) const {
    const double z = (2.0 * t - 1.0) / (2.0 * s * s);
    const double shifted = z > 700.0 ? std::log(q) + z : std::log1p(q * std::expm1(z));
    return (n - 1.0) * log_factor(t) + shifted;
  }
};

// The t where the increasing L crosses `level`, to ~1e-9 relative (any t
// gives a valid bound, and near the best one the test's value is flat to
// second order). NaN when L stays above it.
double crossing(const max_laws& m, double level) {
  double a = -1.0, b = 1.0 + m.s;
  for (int i = 0; i < 80 && m.loss(a) >= level; ++i) a *= 2.0;
  if (m.loss(a) >= level) return std::numeric_limits<double>::quiet_NaN();
  for (int i = 0; i < 80 && m.loss(b) < level; ++i) b = 2.0 * b + 1.0;
  for (int i = 0; i < 200 && b - a > 1e-9 * (std::fabs(a) + std::fabs(b) + 1e-300); ++i) {
    const double mid = 0.5 * (a + b);
    if (!(mid > a && mid < b)) break;
    (m.loss(mid) < level ? a : b) = mid;
  }
  return 0.5 * (a + b);
}

double rounded_down(double x) { return x > 0 ? x * (1.0 - kRelMargin) : 0.0; }
double rounded_up(double x) { return x * (1.0 + kRelMargin); }

// Q^n(M > t) - e^eps P^n(M > t), rounded down.
double remove_test(const max_laws& m, double t, double e_eps) {
  const double q_above = -std::expm1(m.log_q_cdf(t)), p_above = -std::expm1(m.log_p_cdf(t));
  return rounded_down(q_above) - rounded_up(e_eps * p_above);
}

// P^n(M <= t) - e^eps Q^n(M <= t), rounded down.
double add_test(const max_laws& m, double t, double e_eps) {
  return rounded_down(std::exp(m.log_p_cdf(t))) - rounded_up(e_eps * std::exp(m.log_q_cdf(t)));
}

}  // namespace

double max_statistic_delta_lower(const max_statistic_pair& pair, double eps) {
  detail::require_finite_pos(pair.s, "max_statistic_delta_lower", "s");
  detail::require(pair.q > 0 && pair.q <= 1, "max_statistic_delta_lower", "q", pair.q,
                  "must be in (0, 1]");
  detail::require(pair.n >= 1, "max_statistic_delta_lower", "n", static_cast<double>(pair.n),
                  "must be an integer >= 1");
  if (!std::isfinite(eps)) return 0.0;
  const max_laws m{pair.s, pair.q, static_cast<double>(pair.n)};
  // (e^eps rounded up: it multiplies what is subtracted)
  const double e_eps = std::nextafter(std::exp(eps), kInf) * (1.0 + 4e-16);
  double best = 0.0;
  const double t_remove = crossing(m, eps);
  if (std::isfinite(t_remove)) best = std::max(best, remove_test(m, t_remove, e_eps));
  // The add order's ratio falls to (1 - q)^n as t -> -inf: no crossing
  // (and no positive test) once eps >= -n log(1 - q).
  if (pair.q == 1.0 || eps < -m.n * std::log1p(-pair.q)) {
    const double t_add = crossing(m, -eps);
    if (std::isfinite(t_add)) best = std::max(best, add_test(m, t_add, e_eps));
  }
  return best;
}

}  // namespace fdp
