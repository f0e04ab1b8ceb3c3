// The standard normal distribution, accurate in both tails.
//
// Every function here keeps full relative precision in the tails: Phi(-40) is
// ~3.7e-350 (subnormal underflow happens only past -37.5), log_norm_cdf(-1e6)
// is -5e11 to ~16 digits. Upper tails come from erfc, never from 1 - Phi.
//
// Accuracy (measured against mpmath at 50 digits, tests/golden/normal_golden.csv):
// relative error below 1e-14 for norm_cdf/norm_sf where the result is a
// normal double, below 1e-13 for erfcx and log_norm_cdf over |x| <= 1e6,
// below 1e-13 for the quantiles over p in [1e-300, 1 - 1e-16].
#pragma once

namespace fdp {

/// Scaled complementary error function erfcx(x) = exp(x^2) erfc(x).
/// Domain: all x; returns +inf for x < -26.6 (where exp(x^2) overflows).
double erfcx(double x);

/// Phi(x) = P(Z <= x), Z ~ N(0,1).
double norm_cdf(double x);

/// 1 - Phi(x) = Phi(-x), computed directly.
double norm_sf(double x);

/// log Phi(x), finite for every finite x (e.g. about -x^2/2 for x -> -inf).
double log_norm_cdf(double x);

/// log(1 - Phi(x)) = log Phi(-x).
inline double log_norm_sf(double x) { return log_norm_cdf(-x); }

/// Standard normal density.
double norm_pdf(double x);

/// Phi^{-1}(p) for p in [0, 1]; -inf at 0, +inf at 1. Throws
/// std::invalid_argument outside [0, 1] or for NaN.
double norm_quantile(double p);

/// Phi^{-1}(1 - p) = -Phi^{-1}(p), for p in [0, 1], without forming 1 - p.
double norm_quantile_c(double p);

/// Phi(a) - Phi(b) for b <= a, without cancellation when both are in the
/// same tail. Returns 0 if b >= a.
double norm_interval(double b, double a);

/// Phi(a - c) - Phi(b - c) for b <= a, with the shift c = c_hi + c_lo given
/// to twice double precision (c_lo below an ulp of c_hi): the mass of the
/// same outcome set (b, a] under N(c, 1) as norm_interval's under N(0, 1).
/// Rounding b - c to a double would move the interval by up to an ulp, a
/// relative mass error of ulp / (a - b) (2e-10 for cells 1e-6 wide at 4);
/// here the parts below an ulp enter as first-order corrections, so the
/// result is as accurate as norm_interval's. Returns 0 if b >= a.
double norm_interval_shifted(double b, double a, double c_hi, double c_lo);

}  // namespace fdp
