// Internal (not installed): certified brackets for the closed forms a
// composition can be (compose.cpp). A closed form evaluated in double
// precision is accurate to a stated bound, not exact; every answer is
// rounded outward by that bound, so that the bracket contains the truth
// (G_5 (x) ... (x) G_5, 10^6 terms, read epsilon 20851.98867970094 = lower =
// upper, 3 ulps above the true 20851.98867970092808).
//
// Bounds used (each measured by a golden table against mpmath):
// * G_mu: the composed mu = sqrt(sum n_i mu_i^2) carries `mu_rel` of
//   rounding; gdp_delta is accurate to 1e-12 relative where delta >= 1e-300
//   (and gdp_eps finds its root on it: a target moved by that much gives
//   both ends), beta to
//   8 ulps times (1 + |z| max(1, |z + mu|)), z = Phi^{-1}(1 - alpha)
//   (families_test.cpp); all are monotone in mu, so the bracket runs from
//   the answer at one end of the mu bracket to the other's.
// * polygons (f_{eps,delta}; the exact k-fold of f_{eps,0}): vertices carry
//   `vertex_rel` (curve.hpp, beta_bracket), profile deltas 1e-14 relative.
#pragma once

#include "fdp/core/interval.hpp"
#include "fdp/core/tradeoff.hpp"

namespace fdp::detail {

/// A closed-form result with the relative rounding of its parameter: the
/// composed mu of G_mu, the vertices of a polygon.
struct closed_form {
  tradeoff f;
  double rel = 0.0;

  interval delta(double eps) const;
  interval epsilon(double delta) const;
  interval beta(double alpha) const;
  interval mu() const;
};

}  // namespace fdp::detail
