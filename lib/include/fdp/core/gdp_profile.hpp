// The privacy profile of mu-GDP: delta(eps) = Phi(-eps/mu + mu/2) -
// e^eps Phi(-eps/mu - mu/2) (Dong, Roth & Su, Cor. 2.13; Balle & Wang 2018,
// Thm 8). It belongs to the Gaussian trade-off function itself, so it lives
// in core; the conversions built on it (eps, mu, calibration) are in
// fdp/ops/convert.hpp, whose header states the evaluation and its accuracy.
#pragma once

namespace fdp {

/// delta(eps) of mu-GDP, for any real eps. Returns 0 when the true value
/// underflows double (below ~1e-308); use gdp_log_delta there.
double gdp_delta(double mu, double eps);

/// log delta(eps) of mu-GDP; finite far beyond double underflow of delta.
/// -inf when delta is exactly 0 (mu = 0, eps >= 0; eps = +inf) or when
/// log delta itself is below -DBL_MAX (eps/mu > ~1.3e154).
double gdp_log_delta(double mu, double eps);

}  // namespace fdp
