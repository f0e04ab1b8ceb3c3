// Group privacy: if a mechanism is f-DP, it is [1 - (1 - f)^{o k}]-DP for
// datasets that differ in k records, where (1 - f)^{o k} is the k-fold
// functional power (composition of maps) of x -> 1 - f(x)
// (Dong, Roth & Su, "Gaussian Differential Privacy", arXiv:1905.02383,
// Thm 2.14). The result is again a trade-off function: 1 - f is concave,
// non-decreasing and >= x, and so is every power of it.
//
// Closed forms: G_mu -> G_{k mu}; the Laplace trade-off T(Lap(0,1), Lap(mu,1))
// -> the Laplace trade-off with k mu (both are location families whose
// 1 - f(x) = S(S^{-1}(x) - mu), S the survival function, so powers add the
// shifts); Id -> Id. Piecewise-linear objects (f_{eps,delta}, curves): the
// exact power of the piecewise-linear map 1 - f. f_{eps,0} does NOT become
// f_{k eps,0}: the power has k + 1 pieces.
//
// Group privacy is monotone in f (f <= g implies group(f, k) <= group(g, k)),
// so applying it to a polygon below and a polygon above a numeric
// composition brackets its group guarantee. Below: composition::lower_curve().
// Above: the envelope of the lines 1 - delta_lower(eps_{j+1}) - e^{eps_j} a on
// a grid eps_j of step (engine grid step)/8 (delta is non-increasing, so each
// line bounds the sup over [eps_j, eps_{j+1}] of 1 - delta(eps) - e^eps a from
// above), which needs only the cheap composition::delta.
//
// The brackets (group(specs, k), group(composition, k)) take the power with
// certified bounds, not rounded to nearest: a polygon at or below and one at
// or above the exact power, by directed rounding (src/ops/group_bounds.hpp),
// answers rounded outward. A curve given by the user is the guarantee of
// both orders of the neighbours, f_sym = min{f, f^-1}**, and DRS Thm 2.14
// applies to that: it is symmetrized (exactly) before the power. A kink of
// the power below the doubles' range (k eps > ~740 for f_{eps,0}) is not
// refused there: the bracket gets wider instead (the curve API below refuses).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fdp/core/tradeoff.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {

/// Statistics of a piecewise-linear group power (for tests and diagnostics).
struct group_stats {
  std::size_t vertices = 0;       ///< vertices of the result
  double max_nonconvexity = 0.0;  ///< the largest rounding-level violation removed
};

/// k >= 1 throughout; k = 1 returns f. Every function names itself and k in
/// its std::invalid_argument on k < 1.
gaussian group(const gaussian& f, std::int64_t k);
laplace group(const laplace& f, std::int64_t k);
identity group(const identity& f, std::int64_t k);

/// The power of the polygon 1 - f, computed by repeated squaring: the
/// vertices of h o g are the vertices of g and the preimages under g of the
/// vertices of h, so the result has at most k (n - 1) + 1 vertices (n those
/// of f; collinear ones are dropped). 1 - beta is carried beside beta so that
/// small alphas keep full relative precision. Convexity of the result is
/// checked: vertices that rounding left up to 1e-12 above the hull are
/// dropped (the largest such excess is reported in `stats`); a larger excess
/// throws fdp::evaluation_error (a bug, not an input error). More than 2e7
/// vertices throws fdp::evaluation_error.
/// Accuracy: each vertex carries the rounding of O(log k) interpolations
/// (a few ulps per level); tested against G_{k mu} / Laplace(k mu) through
/// tangent polygons and against brute-force iteration. (An approximation:
/// group(specs, k) brackets the power with certified polygons instead.)
curve group(const curve& f, std::int64_t k, group_stats* stats = nullptr);
/// f_{eps,delta} as its exact polygon (f_{0,delta} gives f_{0, min(1, k delta)}).
curve group(const eps_delta& f, std::int64_t k, group_stats* stats = nullptr);
/// Dispatch over the variant.
tradeoff group(const tradeoff& f, std::int64_t k);

/// The GDP summary of a trade-off object: the smallest mu >= 0 with f >= G_mu
/// (+inf if none, e.g. f(0) < 1).
///  - curve: exact up to rounding, max over vertices of Phi^{-1}(1-a) - Phi^{-1}(b)
///    (G_mu convex lies below a polygon iff it lies below every vertex); for a
///    symmetric curve, 1 - a at vertices with a > 1/2 is taken from the
///    mirror, 1 - f(b), which is stored to full relative precision;
///  - G_mu: mu; Id: 0; f_{eps,delta}: its polygon;
///  - Laplace: sup_a Phi^{-1}(1-a) - Phi^{-1}(f(a)), by a log-spaced scan and a
///    golden-section refinement (relative accuracy ~1e-12).
double gdp_summary(const curve& f);
double gdp_summary(const tradeoff& f);

/// A trade-off guarantee known exactly or between two polygons
/// (lower <= truth <= upper pointwise). Every answer is a bracket that
/// contains the true value, rounded outward: exact objects are not points
/// either (their evaluation in double has an error, a few ulps).
///  - closed forms (G_mu, the Laplace trade-off, Id): the formula at the ends
///    of the parameter's interval (k mu is rounded), widened by the
///    evaluation's error bound (fdp/ops/convert.hpp for the GDP delta,
///    tests/golden/tradeoff_golden.csv for beta); a true value that
///    underflows is bracketed [0, smallest positive double];
///  - polygons (powers of curves and f_{eps,delta}, and numeric brackets): a
///    polygon at or below and one at or above the truth, both exact
///    (directed rounding, src/ops/group_bounds.hpp), evaluated with
///    outward rounding.
class tradeoff_bracket {
 public:
  /// A closed form or a polygon known exactly (a polygon is its own bounds).
  static tradeoff_bracket exact(tradeoff f);
  /// G_mu or the Laplace trade-off with its parameter anywhere in [lo, hi].
  static tradeoff_bracket exact(tradeoff f, double param_lo, double param_hi);
  /// An exact object (shown as f) known between two polygons.
  static tradeoff_bracket exact(tradeoff f, curve lower, curve upper);
  static tradeoff_bracket between(curve lower, curve upper);

  bool is_exact() const { return exact_.has_value(); }
  /// "exact" or "pld" (bracketed by polygons from the PLD engine).
  std::string method() const { return exact_ ? "exact" : "pld"; }
  const std::optional<tradeoff>& exact() const { return exact_; }
  /// The polygons (numeric brackets and exact polygons; throws
  /// std::logic_error for closed forms).
  const curve& lower() const;
  const curve& upper() const;

  interval beta(double alpha) const;
  interval delta(double eps) const;
  /// The smallest eps >= 0 with delta(eps) <= delta, bracketed; +inf if none.
  interval epsilon(double delta) const;
  /// GDP summary (smallest mu with f >= G_mu), bracketed; +inf if none.
  interval mu() const;

 private:
  interval closed_delta(double eps) const;
  std::optional<tradeoff> exact_;
  double param_lo_ = 0.0, param_hi_ = 0.0;  // closed forms: mu in [param_lo_, param_hi_]
  std::optional<curve> lower_, upper_;
};

/// Group privacy of a composition: exact if the composition is, else the
/// powers of a polygon below and a polygon above it (see the header comment;
/// monotonicity keeps the bracket). Cost: the powers (O(k n) vertices for n
/// of the polygon) and up to 2e5 delta evaluations (~0.05-0.3 s measured for
/// 100-10000 composed terms, k <= 3). The bracket widens with k where the
/// engine's certified tail mass makes f(0) < 1 on the lower side: group powers
/// amplify it by the steepest slope of the polygon.
tradeoff_bracket group(const composition& c, std::int64_t k);

/// Group privacy of the composition of specs (a single spec with times = 1
/// and a closed form uses the closed form directly, e.g. Laplace -> Laplace).
tradeoff_bracket group(const std::vector<spec>& specs, std::int64_t k,
                       const compose_options& opt = {});

}  // namespace fdp
