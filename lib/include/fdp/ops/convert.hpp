// Conversions between mu-GDP and (eps, delta)-DP, and Gaussian calibration.
//
// delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
// (Dong, Roth & Su, Cor. 2.13; Balle & Wang 2018, Thm 8). For delta << 1 the
// two terms nearly cancel; fdp evaluates the difference as
//   (1/2) e^{-a^2/2} [erfcx(u) - erfcx(u + mu/sqrt2)],  a = -eps/mu + mu/2,
//   u = -a/sqrt2, where the identity eps - (b^2 - a^2)/2 = 0 removes the
//   exponentials exactly, and the erfcx difference is a Gauss-Legendre
//   integral of -erfcx' (given the width mu/sqrt2 exactly) when the two
//   arguments are close; a^2 is carried in double-double.
//
// Domains: mu in [0, inf) (tested over [1e-6, 50]), eps any real (tested over
// [-100, 100]), delta in [0, 1]. Outside the tested ranges the results stay
// finite or are the documented limits (no NaN; checked up to mu = 1e300).
// Accuracy (tests/golden/gdp*_golden.csv, mpmath at 60 digits, checked at
// 120): relative error below 1e-12 for delta where delta >= 1e-300 (measured
// max 3.7e-15); below 1e-11 for eps(mu, delta) and mu(eps, delta) (measured
// max 3.4e-15 and 1.5e-15) wherever the question is well conditioned. Where it
// is not -- eps -> 0 (delta just below delta_mu(0)) or delta -> 1 for mu --
// the rounding of the double delta alone moves the answer by cond * 1.1e-16,
// cond = |d log(answer) / d log(delta)|, and the error is held to
// 8 cond * 2.2e-16 instead (measured max 2.4 cond * 2.2e-16). The golden
// tables list cond per row.
#pragma once

// (gdp_delta and gdp_log_delta, the GDP profile itself, live in core)
#include "fdp/core/gdp_profile.hpp"

namespace fdp {

/// The smallest eps >= 0 with delta_mu(eps) <= delta. mu >= 0, delta in [0, 1].
/// Returns +inf for delta = 0 and mu > 0, and when the eps exceeds the double
/// range (mu > ~1.9e154). The result is the root-bracket end with
/// delta_mu(eps) <= delta (a guarantee, not an estimate).
double gdp_eps(double mu, double delta);

/// The largest mu whose GDP guarantee implies (eps, delta)-DP, i.e. the mu with
/// delta_mu(eps) = delta. eps >= 0, delta in [0, 1]; +inf for delta = 1. The
/// result is the root-bracket end with delta_mu(eps) <= delta (never larger
/// than the true mu by more than the stated accuracy).
double gdp_mu(double eps, double delta);

/// sigma of the Gaussian mechanism that is mu-GDP: sensitivity / mu.
double gaussian_sigma_for_mu(double mu, double sensitivity = 1.0);

/// The exact (analytic) sigma for (eps, delta)-DP, through GDP:
/// sensitivity / gdp_mu(eps, delta) (Balle & Wang 2018's analytic Gaussian).
double gaussian_sigma_analytic(double eps, double delta, double sensitivity = 1.0);

/// The classical sigma = sensitivity * sqrt(2 ln(1.25/delta)) / eps
/// (Dwork & Roth Thm A.1; a valid guarantee only for eps < 1). For comparison.
double gaussian_sigma_classical(double eps, double delta, double sensitivity = 1.0);

}  // namespace fdp
