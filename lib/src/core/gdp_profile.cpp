// delta(eps) of mu-GDP (fdp/core/gdp_profile.hpp): the closed form of Dong,
// Roth & Su (Cor. 2.13), evaluated without cancellation in either tail.
#include "fdp/core/gdp_profile.hpp"

#include <cmath>
#include <limits>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

// g(t) = -d/dt erfcx(t) = 2/sqrt(pi) - 2 t erfcx(t) > 0, for t >= 0.
// The direct formula cancels: g(t) ~ 1/(sqrt(pi) t^2), so it loses a factor
// ~2 t^2 (measured 1e-11 relative at t = 100). For t >= 4 use instead the
// continued fraction of erfc (Abramowitz & Stegun 7.1.14):
//   sqrt(pi) erfcx(t) = 1/K,  K = t + (1/2)/(t + 1/(t + (3/2)/(t + ...)))
// so that with R = K - t = (1/2)/(t + 1/(t + (3/2)/(t + ...))),
//   g(t) = (2/sqrt pi) (1 - t/K) = (2/sqrt pi) R / (t + R),
// and R comes from the tail of the fraction, with no subtraction. For t < 4
// the cancellation costs at most a factor 2 t^2 + 1 < 33.
double neg_erfcx_prime(double t) {
  if (t < 4.0) return kTwoOverSqrtPi - 2.0 * t * erfcx(t);
  if (t > 1e150) return kTwoOverSqrtPi * 0.5 / (t * t);  // R = 1/(2t) to rounding; t^2 finite
  // Modified Lentz for K2 = t + a_2/(t + a_3/(t + ...)), a_n = n/2.
  const double tiny = 1e-300;
  double f = t, C = t, D = 0.0;
  for (int n = 2; n < 2000; ++n) {
    const double a = 0.5 * n;
    D = t + a * D;
    if (D == 0) D = tiny;
    C = t + a / C;
    if (C == 0) C = tiny;
    D = 1.0 / D;
    const double delta = C * D;
    f *= delta;
    if (std::fabs(delta - 1.0) <= 1e-16) break;
  }
  const double R = 0.5 / f;
  return kTwoOverSqrtPi * R / (t + R);
}

// erfcx(u) - erfcx(u + w) for u >= 0, w > 0, with w given directly: forming
// v = u + w and then v - u would lose the relative precision of a small w
// (5e-10 relative error in delta at mu = 5e-6, eps = 1e-4).
double erfcx_diff(double u, double w) {
  if (w >= 0.125 * std::fmax(u, 1.0)) {
    // erfcx(u + w) <= erfcx(u) / (1 + w/max(u,1)) roughly: at most ~3 bits lost.
    return erfcx(u) - erfcx(u + w);
  }
  // Integral of g over [u, u + w] by 8-point Gauss-Legendre (A&S 25.4.30):
  // g is smooth and changes on a scale >= max(u, 1) >= 8 w, so the rule is
  // exact to rounding.
  static const double x[4] = {0.18343464249564980494, 0.52553240991632898582,
                              0.79666647741362673959, 0.96028985649753623168};
  static const double wt[4] = {0.36268378337836198297, 0.31370664587788728734,
                               0.22238103445337447054, 0.10122853629037625915};
  const double r = 0.5 * w;
  double s = 0.0;
  for (int i = 0; i < 4; ++i) {
    s += wt[i] * (neg_erfcx_prime(u + r * (1.0 - x[i])) + neg_erfcx_prime(u + r * (1.0 + x[i])));
  }
  return s * r;
}

// Phi(b + w) - Phi(b) for w > 0, with the width w exact (not recovered as a
// difference of rounded end points). Narrow intervals (w max(1, |b|) <= 1/2)
// by 8-point Gauss-Legendre on phi(b + s) = phi(b) exp(-b s - s^2/2), s in
// [0, w] (the exponent varies by <= 0.63, so the rule is exact to rounding);
// wide ones by fdp::norm_interval, which does not cancel there.
double norm_interval_width(double b, double w) {
  if (w * std::fmax(1.0, std::fabs(b)) > 0.5) return norm_interval(b, b + w);
  static const double x[4] = {0.18343464249564980494, 0.52553240991632898582,
                              0.79666647741362673959, 0.96028985649753623168};
  static const double wt[4] = {0.36268378337836198297, 0.31370664587788728734,
                               0.22238103445337447054, 0.10122853629037625915};
  const double r = 0.5 * w;
  double sum = 0.0;
  for (int i = 0; i < 4; ++i) {
    const double s1 = r * (1.0 - x[i]), s2 = r * (1.0 + x[i]);
    sum += wt[i] * (std::exp(-b * s1 - 0.5 * s1 * s1) + std::exp(-b * s2 - 0.5 * s2 * s2));
  }
  const double sq = b * b, sq_lo = std::fma(b, b, -sq);
  return kInvSqrt2Pi * (std::exp(-0.5 * sq) * (1.0 - 0.5 * sq_lo)) * r * sum;
}

// For a = -eps/mu + mu/2 < 0: delta = (1/2) e^{-a^2/2} [erfcx(u) - erfcx(u + w)],
// u = -a/sqrt2, w = mu/sqrt2, returned as its three factors so that delta and
// log delta are each formed with a single rounding of their own:
//   delta = 0.5 * exp(e_hi) * exp(e_lo) * diff,  e_hi = -hi/2 exactly.
struct lower_tail_parts {
  double e_hi, e_lo, diff;
};

lower_tail_parts gdp_lower_tail(double mu, double eps, double a) {
  const double u = -a * kInvSqrt2, w = mu * kInvSqrt2;
  const double hi = a * a;
  if (!std::isfinite(hi)) return {-kInf, 0.0, 1.0};  // log delta < -1e308
  const double lo = std::fma(a, a, -hi);
  // The rounding of a itself (~1e-16 |a|) would cost |a|^2 1e-16 in log delta
  // (1.2e-13 at a = -33). Carry it: a = a_hi + a_lo with the remainder of the
  // division eps/mu (by fma) and the error of the addition (Knuth's TwoSum).
  const double q = eps / mu;
  const double q_lo = std::fma(-q, mu, eps) / mu;  // eps/mu = q + q_lo
  const double h = 0.5 * mu;
  const double t = a - h;
  const double add_err = (-q - t) + (h - (a - t));  // -q + h = a + add_err
  const double a_lo = add_err - q_lo;
  // -a^2/2 = -(hi + lo)/2 - a a_lo (+ a_lo^2/2, negligible)
  return {-0.5 * hi, -0.5 * lo - a * a_lo, erfcx_diff(u, w)};
}

void check_mu(double mu, const char* func) { detail::require_finite_nonneg(mu, func, "mu"); }

}  // namespace

double gdp_log_delta(double mu, double eps) {
  check_mu(mu, "gdp_log_delta");
  if (std::isnan(eps)) detail::throw_domain("gdp_log_delta", "eps", eps, "must not be NaN");
  if (mu == 0.0) return eps >= 0 ? -kInf : std::log(-std::expm1(eps));
  if (eps == kInf) return -kInf;
  if (eps == -kInf) return 0.0;
  const double a = -eps / mu + 0.5 * mu;
  if (a < 0) {
    const auto p = gdp_lower_tail(mu, eps, a);
    return p.e_hi + (std::log(0.5 * p.diff) + p.e_lo);
  }
  return std::log(gdp_delta(mu, eps));
}

double gdp_delta(double mu, double eps) {
  check_mu(mu, "gdp_delta");
  if (std::isnan(eps)) detail::throw_domain("gdp_delta", "eps", eps, "must not be NaN");
  if (mu == 0.0) return eps >= 0 ? 0.0 : -std::expm1(eps);
  if (eps == kInf) return 0.0;
  if (eps == -kInf) return 1.0;
  const double a = -eps / mu + 0.5 * mu;
  const double b = a - mu;
  if (a < 0) {
    // Not exp(gdp_log_delta): rounding log delta (up to 690) to a double
    // would cost 690 * 1.1e-16 = 7.7e-14 relative.
    const auto p = gdp_lower_tail(mu, eps, a);
    // e_lo is ~1e-16 |e_hi|; below -760 the result is 0 (and exp(e_lo) could
    // overflow once |a| is huge).
    if (p.e_hi + p.e_lo < -760.0) return 0.0;
    return 0.5 * std::exp(p.e_hi) * (std::exp(p.e_lo) * p.diff);
  }
  if (b < 0) {
    if (eps <= 1.0) {
      // [Phi(a) - Phi(b)] - (e^eps - 1) Phi(b): both parts without cancellation.
      return norm_interval(b, a) - std::expm1(eps) * norm_cdf(b);
    }
    // e^eps Phi(b) = (1/2) e^{-a^2/2} erfcx(-b/sqrt2); avoids overflow of e^eps.
    return norm_cdf(a) - 0.5 * std::exp(-0.5 * a * a) * erfcx(-b * kInvSqrt2);
  }
  // b >= 0 means eps <= -mu^2/2 < 0: [Phi(b + mu) - Phi(b)] + (1 - e^eps) Phi(b),
  // a sum of two non-negative terms (the direct Phi(a) - e^eps Phi(b) cancels
  // when mu and eps are small: 5e-11 relative error at mu = -eps = 1e-6). b is
  // formed directly and the interval is given by its exact width mu: a - b
  // would carry the rounding of a (~1e-16 |a|) into a width of only mu.
  const double b0 = -eps / mu - 0.5 * mu;
  return norm_interval_width(b0, mu) - std::expm1(eps) * norm_cdf(b0);
}

}  // namespace fdp
