#include "ops/closed_form_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include "fdp/core/curve.hpp"
#include "fdp/core/error.hpp"
#include "fdp/core/families.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/group.hpp"

namespace fdp::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = std::numeric_limits<double>::epsilon() / 2;
// convert.hpp's measured accuracies (tests/golden/gdp*_golden.csv)
constexpr double kGdpDeltaRel = 1e-12, kGdpDeltaFloor = 1e-290;
// families.cpp / tradeoff.hpp: piecewise closed forms are a few roundings
constexpr double kProfileRel = 1e-14;
// gdp_summary of a polygon: gdp_mu at its vertices (1e-11), ten times over
constexpr double kSummaryRel = 1e-10;

// [lo, hi] one ulp outward (the rounding of the last operation that made
// each end), within [0, 1]
interval clamp01(double lo, double hi) {
  return {std::clamp(std::nextafter(lo, -1.0), 0.0, 1.0),
          std::clamp(std::nextafter(hi, 2.0), 0.0, 1.0)};
}

interval mu_bracket(double mu, double rel) {
  if (rel == 0.0 || !std::isfinite(mu)) return {mu, mu};
  return {std::nextafter(mu * (1 - rel), 0.0), std::nextafter(mu * (1 + rel), kInf)};
}

// G_mu's delta at eps: gdp_delta at the ends of the mu bracket, each widened
// by its accuracy; below the accurate range the upper end is the range's
// floor, and a positive truth keeps a positive upper end.
interval gdp_delta_bracket(interval mu, double eps) {
  if (mu.upper == 0.0) {
    const double v = std::max(0.0, -std::expm1(eps));
    return clamp01(v * (1 - 2 * kU), v * (1 + 2 * kU));
  }
  const double lo = gdp_delta(mu.lower, eps), hi = gdp_delta(mu.upper, eps);
  const double up = hi < kGdpDeltaFloor ? kGdpDeltaFloor : hi * (1 + kGdpDeltaRel);
  return clamp01(lo < kGdpDeltaFloor ? 0.0 : lo * (1 - kGdpDeltaRel), up);
}

// G_mu's epsilon at delta: gdp_eps returns the end of its root bracket
// (2^-49 relative wide) where the computed delta is at most its target, and
// the computed delta is within kGdpDeltaRel of the truth. So with the target
// lowered by twice that, the truth at the returned eps is below delta (an
// upper end); with it raised, the truth is above delta just below the
// returned eps (a lower end, less the bracket's width).
interval gdp_eps_bracket(interval mu, double delta) {
  if (mu.upper == 0.0) return {0.0, 0.0};
  const double lo = gdp_eps(mu.lower, std::min(1.0, delta * (1 + 2 * kGdpDeltaRel)));
  const double hi = gdp_eps(mu.upper, delta * (1 - 2 * kGdpDeltaRel));
  return {lo * (1 - 0x1p-48), hi};
}

// G_mu's beta at alpha, decreasing in mu: beta and 1 - beta are each
// accurate to 8 ulps times (1 + cond) (families_test.cpp), the smaller of
// the two is used (beta near 1 through its complement).
interval gdp_beta_bracket(interval mu, double alpha) {
  const double cap =
      std::min(1.0, std::nextafter(1.0 - alpha, 2.0));  // (f <= 1 - alpha, rounded up)
  if (mu.upper == 0.0) return {std::max(0.0, std::nextafter(1.0 - alpha, -1.0)), cap};
  if (alpha == 0.0) return {1.0, 1.0};  // (no mass at loss +inf)
  const double z = alpha < 1 ? std::fabs(norm_quantile_c(alpha)) : 0.0;
  auto rel = [&](double m) { return 8 * 2 * kU * (1 + z * std::max(1.0, z + m)); };
  const double lo = beta(gaussian(mu.upper), alpha), hi = beta(gaussian(mu.lower), alpha);
  const interval r =
      lo < 0.5 ? interval{lo * (1 - rel(mu.upper)), hi * (1 + rel(mu.lower))}
               : interval{1 - one_minus_beta(gaussian(mu.upper), alpha) * (1 + rel(mu.upper)),
                          1 - one_minus_beta(gaussian(mu.lower), alpha) * (1 - rel(mu.lower))};
  const interval o = clamp01(r.lower, r.upper);
  return {o.lower, std::min(cap, o.upper)};
}

// A polygon's or f_{eps,delta}'s profile: kProfileRel plus the parameter's
// own rounding (the total delta of several f_{eps,delta} terms)
interval profile_bracket(const tradeoff& f, double rel, double eps) {
  const double v = profile_delta(f, eps);
  // (above eps0 an f_{eps0,delta}'s profile is its delta itself)
  const auto* ed = std::get_if<eps_delta>(&f.get());
  const double r = (ed && eps >= ed->eps ? 0.0 : kProfileRel) + rel;
  if (r == 0.0) return {v, v};  // (the user's own delta, not computed)
  return clamp01(v * (1 - r), v * (1 + r));
}

}  // namespace

interval closed_form::delta(double eps) const {
  if (std::isnan(eps)) throw_domain("composition::delta", "eps", eps, "must not be NaN");
  if (const auto* g = std::get_if<gaussian>(&f.get()))
    return gdp_delta_bracket(mu_bracket(g->mu, rel), eps);
  return profile_bracket(f, rel, eps);
}

interval closed_form::epsilon(double delta) const {
  if (const auto* g = std::get_if<gaussian>(&f.get()))
    return gdp_eps_bracket(mu_bracket(g->mu, rel), delta);
  return {solve_eps([&](double e) { return this->delta(e).lower; }, delta, false),
          solve_eps([&](double e) { return this->delta(e).upper; }, delta, true)};
}

interval closed_form::beta(double alpha) const {
  check_alpha(alpha, "composition::beta");
  if (const auto* g = std::get_if<gaussian>(&f.get()))
    return gdp_beta_bracket(mu_bracket(g->mu, rel), alpha);
  if (std::holds_alternative<identity>(f.get())) return gdp_beta_bracket({0.0, 0.0}, alpha);
  // polygons: f_{eps,delta}'s four vertices carry the rounding of e^eps and
  // of its delta, the k-fold's its binomial sums
  const curve poly =
      std::holds_alternative<curve>(f.get()) ? std::get<curve>(f.get()) : to_curve_exact(f);
  return beta_bracket(poly, alpha, std::max(rel, 4 * kU));
}

interval closed_form::mu() const {
  if (const auto* g = std::get_if<gaussian>(&f.get())) return mu_bracket(g->mu, rel);
  const double v = gdp_summary(f);
  return mu_bracket(v, kSummaryRel);
}

}  // namespace fdp::detail
