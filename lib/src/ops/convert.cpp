#include "fdp/ops/convert.hpp"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "fdp/core/error.hpp"
#include "fdp/core/gdp_profile.hpp"
#include "fdp/core/normal.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
void check_mu(double mu, const char* func) { detail::require_finite_nonneg(mu, func, "mu"); }

}  // namespace

double gdp_eps(double mu, double delta) {
  check_mu(mu, "gdp_eps");
  detail::require_in(delta, 0.0, 1.0, "gdp_eps", "delta");
  if (mu == 0.0) return 0.0;
  if (delta == 0.0) return kInf;
  const double d0 = gdp_delta(mu, 0.0);
  if (delta >= d0) return 0.0;
  const double log_target = std::log(delta);
  // delta_mu(eps) < Phi(-eps/mu + mu/2), so eps_hi = mu (z + mu/2) with
  // Phi(-z) = delta brackets the root.
  const double z = norm_quantile_c(delta);
  double hi = mu * (z + 0.5 * mu);
  if (!(hi > 0)) hi = 1.0;
  constexpr double kMax = std::numeric_limits<double>::max();
  if (!(hi < kMax)) hi = kMax;  // mu > ~1e154: the bracket overflows
  while (gdp_log_delta(mu, hi) > log_target) {
    // eps beyond the double range (mu^2/2 > DBL_MAX): the answer is +inf.
    if (hi == kMax) return kInf;
    hi = std::fmin(2.0 * hi, kMax);
  }
  // Clamped so that the root finder's products of function values cannot
  // overflow (log delta reaches -1e306 at mu ~ 1e154); the clamp keeps the
  // sign, hence the bracket and the root.
  auto fn = [&](double e) { return std::clamp(gdp_log_delta(mu, e) - log_target, -1e30, 1e30); };
  std::uintmax_t iters = 200;
  auto r = boost::math::tools::toms748_solve(fn, 0.0, hi, fn(0.0), fn(hi),
                                             boost::math::tools::eps_tolerance<double>(50), iters);
  if (iters >= 200) throw evaluation_error("gdp_eps: root finder did not converge");
  return r.second;  // the end with delta_mu(eps) <= delta
}

double gdp_mu(double eps, double delta) {
  detail::require_finite_nonneg(eps, "gdp_mu", "eps");
  detail::require_in(delta, 0.0, 1.0, "gdp_mu", "delta");
  if (delta == 0.0) return 0.0;
  if (delta == 1.0) return kInf;
  if (eps == 0.0) {
    // delta_mu(0) = erf(mu / (2 sqrt 2)).
    return 2.0 * std::sqrt(2.0) * boost::math::erf_inv(delta);
  }
  const double log_target = std::log(delta);
  auto fn = [&](double m) {  // clamped as in gdp_eps
    return std::clamp(gdp_log_delta(m, eps) - log_target, -1e30, 1e30);
  };
  double lo = 1.0, hi = 1.0;
  // delta_mu(eps) -> 1 as mu -> inf, so for delta < 1 the doubling ends (at
  // mu ~ sqrt(2 eps) + 2 z: below 1e160 for every double eps); the cap only
  // guards the loop. (An earlier cap at 1e12 returned mu = +inf, i.e. no
  // noise, for eps > ~1e23: a wrong, unsafe answer.)
  while (fn(hi) < 0) {
    hi *= 2.0;
    if (hi > 1e300) return kInf;
  }
  lo = hi / 2.0;
  while (fn(lo) > 0) {
    lo /= 2.0;
    if (lo == 0.0) return 0.0;  // mu below the smallest double: 0 is the safe side
  }
  // The root lies in [lo, 2 lo] (lo a power of 2). Solve for s = mu / lo in
  // [1, 2], an exact rescaling, so that the root finder never works with
  // numbers near the bottom of the double range (it failed to converge for
  // eps = 1e-300, delta = 1e-320).
  auto fs = [&](double s) { return fn(s * lo); };
  std::uintmax_t iters = 200;
  auto r = boost::math::tools::toms748_solve(fs, 1.0, 2.0, fs(1.0), fs(2.0),
                                             boost::math::tools::eps_tolerance<double>(50), iters);
  if (iters >= 200) throw evaluation_error("gdp_mu: root finder did not converge");
  return r.first * lo;  // the end with delta_mu(eps) <= delta
}

double gaussian_sigma_for_mu(double mu, double sensitivity) {
  detail::require_finite_pos(mu, "gaussian_sigma_for_mu", "mu");
  detail::require_finite_pos(sensitivity, "gaussian_sigma_for_mu", "sensitivity");
  return sensitivity / mu;
}

double gaussian_sigma_analytic(double eps, double delta, double sensitivity) {
  detail::require_finite_pos(eps, "gaussian_sigma_analytic", "eps");
  detail::require(delta > 0.0 && delta < 1.0, "gaussian_sigma_analytic", "delta", delta,
                  "must be in (0, 1)");
  detail::require_finite_pos(sensitivity, "gaussian_sigma_analytic", "sensitivity");
  return sensitivity / gdp_mu(eps, delta);
}

double gaussian_sigma_classical(double eps, double delta, double sensitivity) {
  detail::require_finite_pos(eps, "gaussian_sigma_classical", "eps");
  detail::require(delta > 0.0 && delta < 1.0, "gaussian_sigma_classical", "delta", delta,
                  "must be in (0, 1)");
  detail::require_finite_pos(sensitivity, "gaussian_sigma_classical", "sensitivity");
  return sensitivity * std::sqrt(2.0 * std::log(1.25 / delta)) / eps;
}

}  // namespace fdp
