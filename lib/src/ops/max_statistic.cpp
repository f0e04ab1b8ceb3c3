// max_statistic_delta_lower (fdp/ops/max_statistic.hpp).
#include "fdp/ops/max_statistic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fdp/core/error.hpp"
#include "fdp/core/largest_holding.hpp"
#include "fdp/core/normal.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = std::numeric_limits<double>::epsilon() / 2;

// A computed logarithm with a bound on its absolute error.
struct logged {
  double v, err;
};

// log Phi(x): accurate to 1e-13 relative (fdp/core/normal.hpp); the
// rounding of the argument t/s moves it by at most ~x^2 u relative, well
// inside a second 1e-13 for the |x| <= 40 that matter (beyond, the
// probabilities underflow).
logged log_phi(double x) {
  const double v = log_norm_cdf(x);
  return {v, 3e-13 * std::fabs(v)};
}

// The laws of M (see the header) as logarithms with error bounds: n steps,
// m of them shifted with chance q.
struct max_laws {
  double s, q, n, m;

  // log(1 - q (1 - r)), r = Phi((t - 1)/s) / Phi(t/s) in [0, 1]: the
  // per-step factor of Q's CDF over P's, without cancellation near 1 - q.
  // Its derivative in log r is q r / (1 - q (1 - r)) <= 1.
  logged log_factor(double t) const {
    const logged a = log_phi((t - 1.0) / s), b = log_phi(t / s);
    const double log_r = std::min(0.0, a.v - b.v);
    const double err_r = a.err + b.err + kU * std::fabs(log_r);
    const double r = std::exp(log_r);
    const double y = -q * std::expm1(log_r);  // q (1 - r)
    const double f = y <= 0.5 ? std::log1p(-y) : std::log((1.0 - q) + q * r);
    // rounding: y is within 2u relative (expm1, product), which moves
    // log1p(-y) by 2u y / (1 - y) <= 4u y; the sum (1 - q) + q r within 3u
    // relative moves its log by 3u; each log rounds by u |f|
    const double rounding = (y <= 0.5 ? 4 * kU * y : 4 * kU) + 2 * kU * std::fabs(f);
    return {f, std::min(1.0, q * r / (1.0 - y)) * err_r + rounding};
  }
  logged log_p_cdf(double t) const {
    const logged b = log_phi(t / s);
    const double v = n * b.v;
    return {v, n * b.err + 2 * kU * std::fabs(v)};
  }
  // n log Phi(t/s) + m log f, f = 1 - q (1 - r)
  logged log_q_cdf(double t) const {
    const logged b = log_phi(t / s), f = log_factor(t);
    const double v = n * b.v + m * f.v;
    return {v, n * (b.err + 2 * kU * std::fabs(b.v)) + m * (f.err + 2 * kU * std::fabs(f.v)) +
                   2 * kU * std::fabs(v)};
  }
  // log(q_M / p_M) = (m - 1) log f + log((n - m)/n f + m/n (1 - q + q
  // e^{(2t - 1)/(2 s^2)})), the derivative of F_Q = Phi^(n-m) (f Phi)^m
  // over F_P's: f and the Gaussian ratio increase in t (log-concavity of
  // Phi), so it does. (Only locates the best t: no error bound needed.)
  double loss(double t) const {
    const double z = (2.0 * t - 1.0) / (2.0 * s * s);
    const double log_f = log_factor(t).v;
    const double shifted = z > 700.0 ? std::log(q) + z : std::log1p(q * std::expm1(z));
    if (m == n) return (n - 1.0) * log_f + shifted;
    // log(a e^log_f + b e^shifted), a = (n - m)/n, b = m/n, without overflow
    const double x = std::log((n - m) / n) + log_f, y = std::log(m / n) + shifted;
    const double top = std::max(x, y);
    return (m - 1.0) * log_f + top + std::log1p(std::exp(std::min(x, y) - top));
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

// Bounds on e^x and 1 - e^x from a logarithm within its error (exp and
// expm1 round by at most 2 ulps; 1e-12 more for safety).
constexpr double kFn = 1e-12;
double exp_lower(const logged& x) { return std::exp(x.v - x.err) * (1.0 - kFn); }
double exp_upper(const logged& x) { return std::exp(x.v + x.err) * (1.0 + kFn); }
double one_minus_exp_lower(const logged& x) {
  return x.v + x.err >= 0.0 ? 0.0 : -std::expm1(x.v + x.err) * (1.0 - kFn);
}
double one_minus_exp_upper(const logged& x) {
  return std::min(1.0, -std::expm1(std::min(0.0, x.v - x.err)) * (1.0 + kFn));
}

// Q^n(M > t) - e^eps P^n(M > t), rounded down.
double remove_test(const max_laws& m, double t, double e_eps) {
  return one_minus_exp_lower(m.log_q_cdf(t)) - e_eps * one_minus_exp_upper(m.log_p_cdf(t));
}

// P^n(M <= t) - e^eps Q^n(M <= t), rounded down.
double add_test(const max_laws& m, double t, double e_eps) {
  return exp_lower(m.log_p_cdf(t)) - e_eps * exp_upper(m.log_q_cdf(t));
}

void check_pair(const max_statistic_pair& pair, const char* fn) {
  detail::require_finite_pos(pair.s, fn, "s");
  detail::require(pair.q > 0 && pair.q <= 1, fn, "q", pair.q, "must be in (0, 1]");
  detail::require(pair.n >= 1, fn, "n", static_cast<double>(pair.n), "must be an integer >= 1");
  detail::require(pair.shifted >= 0 && pair.shifted <= pair.n, fn, "shifted",
                  static_cast<double>(pair.shifted), "must be an integer in [0, n]");
}

double delta_lower(const max_statistic_pair& pair, double eps) {
  if (!std::isfinite(eps)) return 0.0;
  const double n = static_cast<double>(pair.n);
  const max_laws m{pair.s, pair.q, n, pair.shifted > 0 ? static_cast<double>(pair.shifted) : n};
  // (e^eps rounded up: it multiplies what is subtracted)
  const double e_eps = std::nextafter(std::exp(eps), kInf) * (1.0 + 4e-16);
  double best = 0.0;
  const double t_remove = crossing(m, eps);
  if (std::isfinite(t_remove)) best = std::max(best, remove_test(m, t_remove, e_eps));
  // The add order's ratio falls to (1 - q)^m as t -> -inf: no crossing
  // (and no positive test) once eps >= -m log(1 - q).
  if (pair.q == 1.0 || eps < -m.m * std::log1p(-pair.q)) {
    const double t_add = crossing(m, -eps);
    if (std::isfinite(t_add)) best = std::max(best, add_test(m, t_add, e_eps));
  }
  return best;
}

}  // namespace

double max_statistic_delta_lower(const max_statistic_pair& pair, double eps) {
  check_pair(pair, "max_statistic_delta_lower");
  return delta_lower(pair, eps);
}

// The largest eps whose certified delta lower bound exceeds delta, checked
// (largest_holding); beyond eps ~709 the bound is 0, far below the cap.
double max_statistic_epsilon_lower(const max_statistic_pair& pair, double delta) {
  check_pair(pair, "max_statistic_epsilon_lower");
  detail::require(delta > 0 && delta < 1, "max_statistic_epsilon_lower", "delta", delta,
                  "must be in (0, 1)");
  return largest_holding([&](double eps) { return delta_lower(pair, eps) > delta; }, 1e6);
}

}  // namespace fdp
