#include "fdp/core/families.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/core/gdp_profile.hpp"

namespace fdp {

namespace detail {
void check_alpha(double a, const char* func, const char* param) {
  require_in(a, 0.0, 1.0, func, param);
}
}  // namespace detail

gaussian::gaussian(double m) : mu(m) { detail::require_finite_nonneg(m, "gaussian", "mu"); }

eps_delta::eps_delta(double e, double d) : eps(e), delta(d) {
  detail::require_finite_nonneg(e, "eps_delta", "eps");
  detail::require_in(d, 0.0, 1.0, "eps_delta", "delta");
}

laplace::laplace(double m) : mu(m) { detail::require_finite_nonneg(m, "laplace", "mu"); }

// ---------------------------------------------------------------- gaussian
namespace {
// Phi(z - mu) (upper = false) or 1 - Phi(z - mu) (upper = true) with the
// rounding of the subtraction carried (Knuth's TwoSum) and applied to first
// order: Phi has relative condition |x| in its argument, so the rounded
// z - mu alone cost 5e-14 at mu = 30 (tests/golden/tradeoff_golden.csv).
double norm_cdf_of_difference(double z, double mu, bool upper) {
  const double hi = z - mu;
  if (!std::isfinite(hi)) return upper ? norm_sf(hi) : norm_cdf(hi);
  const double bb = hi - z;
  const double lo = (z - (hi - bb)) + (-mu - bb);  // z - mu = hi + lo exactly
  const double corr = norm_pdf(hi) * lo;
  return upper ? norm_sf(hi) - corr : norm_cdf(hi) + corr;
}
}  // namespace

double beta(const gaussian& f, double a) {
  detail::check_alpha(a, "beta(gaussian)");
  // Phi(Phi^{-1}(1-a) - mu) with Phi^{-1}(1-a) taken from the small tail of a.
  return norm_cdf_of_difference(norm_quantile_c(a), f.mu, false);
}
double one_minus_beta(const gaussian& f, double a) {
  detail::check_alpha(a, "one_minus_beta(gaussian)");
  return norm_cdf_of_difference(norm_quantile_c(a), f.mu, true);
}
double beta_inverse(const gaussian& f, double y) {
  detail::check_alpha(y, "beta_inverse(gaussian)", "y");
  return beta(f, y);
}
double slope(const gaussian& f, double a) {
  detail::check_alpha(a, "slope(gaussian)");
  if (f.mu == 0) return -1.0;
  const double z = norm_quantile_c(a);  // +inf at a = 0, -inf at a = 1
  if (z == std::numeric_limits<double>::infinity()) return -std::numeric_limits<double>::infinity();
  if (z == -std::numeric_limits<double>::infinity()) return 0.0;
  return -std::exp(f.mu * z - 0.5 * f.mu * f.mu);
}
double profile_delta(const gaussian& f, double eps) { return gdp_delta(f.mu, eps); }

// ---------------------------------------------------------------- eps_delta
namespace {
// e^eps a, also where e^eps alone overflows (eps > 709.78): at a subnormal a
// f_{720,0}(1e-313) = 1 - e^720 1e-313 = 0.508 read 0 (inf a)
double exp_times(double eps, double a) {
  if (eps < 700.0 || !(a > 0)) return std::exp(eps) * a;
  return std::exp(eps + std::log(a));
}
// x e^-eps (x / e^eps below 700, as before; e^-eps beyond, where e^eps is inf)
double exp_divide(double x, double eps) {
  return eps < 700.0 ? x / std::exp(eps) : x * std::exp(-eps);
}
}  // namespace

double beta(const eps_delta& f, double a) {
  detail::check_alpha(a, "beta(eps_delta)");
  return std::max({0.0, 1.0 - f.delta - exp_times(f.eps, a), exp_divide(1.0 - f.delta - a, f.eps)});
}
double one_minus_beta(const eps_delta& f, double a) {
  detail::check_alpha(a, "one_minus_beta(eps_delta)");
  return std::min({1.0, f.delta + exp_times(f.eps, a), 1.0 - exp_divide(1.0 - f.delta - a, f.eps)});
}
double beta_inverse(const eps_delta& f, double y) {
  detail::check_alpha(y, "beta_inverse(eps_delta)", "y");
  if (y == 0.0) return 1.0 - f.delta;
  return beta(f, y);
}
double slope(const eps_delta& f, double a) {
  detail::check_alpha(a, "slope(eps_delta)");
  const double x = (1.0 - f.delta) / (1.0 + std::exp(f.eps));  // kink
  if (a < x) return -std::exp(f.eps);
  if (a < 1.0 - f.delta) return -std::exp(-f.eps);
  return 0.0;
}
double profile_delta(const eps_delta& f, double eps) {
  if (std::isnan(eps))
    detail::throw_domain("profile_delta(eps_delta)", "eps", eps, "must not be NaN");
  if (eps >= f.eps) return f.delta;
  if (eps <= -f.eps) return -std::expm1(eps) + std::exp(eps) * f.delta;
  // 1 - (1-delta)(1+e^eps')/(1+e^eps0), rearranged to avoid cancellation.
  // Divided through by e^eps0 so that nothing overflows for large eps0.
  const double a = std::exp(-f.eps), b = std::exp(eps - f.eps);
  // The value is at most 1; for delta near 1 the rounding of the sum can
  // exceed it by an ulp (f_{30,1-1e-12} gave 1 + 2.2e-16; tests/hardening).
  return std::min(1.0, (-std::expm1(eps - f.eps) + f.delta * (a + b)) / (1.0 + a));
}

// ---------------------------------------------------------------- laplace
double beta(const laplace& f, double a) {
  detail::check_alpha(a, "beta(laplace)");
  if (a == 0.0) return 1.0;
  const double em = std::exp(-f.mu);
  if (a < 0.5 * em) return 1.0 - a / em;
  if (a <= 0.5) return em / (4.0 * a);
  return em * (1.0 - a);
}
double one_minus_beta(const laplace& f, double a) {
  detail::check_alpha(a, "one_minus_beta(laplace)");
  if (a == 0.0) return 0.0;
  const double em = std::exp(-f.mu);
  if (a < 0.5 * em) return a / em;
  if (a <= 0.5) return 1.0 - em / (4.0 * a);
  return 1.0 - em * (1.0 - a);
}
double beta_inverse(const laplace& f, double y) {
  detail::check_alpha(y, "beta_inverse(laplace)", "y");
  return beta(f, y);
}
double slope(const laplace& f, double a) {
  detail::check_alpha(a, "slope(laplace)");
  const double em = std::exp(-f.mu);
  // a == 0 also lands in the first branch when e^-mu underflows (mu > ~745):
  // the slope there is -inf, not -0/0. The middle branch divides twice so
  // that a tiny a with an underflowed e^-mu gives -0, not -0/0 = NaN
  // (tests/hardening/extreme_sweep_test.cpp).
  if (a < 0.5 * em || a == 0.0) return -1.0 / em;
  if (a < 0.5) return -(em / (4.0 * a)) / a;
  return -em;
}
double profile_delta(const laplace& f, double eps) {
  if (std::isnan(eps))
    detail::throw_domain("profile_delta(laplace)", "eps", eps, "must not be NaN");
  if (eps >= f.mu) return 0.0;
  if (eps <= -f.mu) return -std::expm1(eps);
  return -std::expm1(0.5 * (eps - f.mu));
}

// ---------------------------------------------------------------- identity
double beta(const identity&, double a) {
  detail::check_alpha(a, "beta(identity)");
  return 1.0 - a;
}
double one_minus_beta(const identity&, double a) {
  detail::check_alpha(a, "one_minus_beta(identity)");
  return a;
}
double beta_inverse(const identity&, double y) {
  detail::check_alpha(y, "beta_inverse(identity)", "y");
  return 1.0 - y;
}
double slope(const identity&, double a) {
  detail::check_alpha(a, "slope(identity)");
  return -1.0;
}
double profile_delta(const identity&, double eps) {
  if (std::isnan(eps))
    detail::throw_domain("profile_delta(identity)", "eps", eps, "must not be NaN");
  return eps >= 0 ? 0.0 : -std::expm1(eps);
}

}  // namespace fdp
