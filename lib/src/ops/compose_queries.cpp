// compose_for_queries (fdp/ops/compose_queries.hpp).
#include "fdp/ops/compose_queries.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fdp/core/error.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_queries(const std::vector<double>& deltas, const std::vector<double>& epsilons) {
  for (double d : deltas) detail::require_in(d, 0.0, 1.0, "compose_for_queries", "delta");
  for (double e : epsilons)
    detail::require(!std::isnan(e), "compose_for_queries", "eps", e, "must be a number");
}

// A delta at or below the mass at +inf has no finite epsilon (lower end
// inf): tuning the grid for it serves nothing, so it is tuned for the
// smallest asked delta that has one ('laplace:b=5,times=3
// epsdelta:eps=0.3,delta=1e-7 subsampled-laplace:b=2,q=0.02,times=10000
// --delta 1e-3 --delta 1e-10' read [3.07, 3.29] at 1e-3 instead of
// [3.2796, 3.2840]).
void retune_for_finite_epsilons(const std::vector<spec>& specs, const std::vector<double>& deltas,
                                query_compositions& q) {
  const composition& c = q.for_epsilons;
  if (c.is_exact() || !std::isinf(c.epsilon(q.options.delta_hint).lower)) return;
  double next = kInf;
  for (double d : deltas)
    if (d > q.options.delta_hint && d < next && !std::isinf(c.epsilon(d).lower)) next = d;
  if (!std::isfinite(next)) return;
  q.options.delta_hint = next;
  q.for_epsilons = compose(specs, q.options);
}

// A delta asked for at an epsilon is unknown until composed, and a delta
// bracket is wider than the epsilon bracket the grid was refined for (by
// the slope of log delta in epsilon: 3% against 0.1% at delta ~ 1e-7 for
// DP-SGD). When one comes out wider than the tolerance, the deltas get a
// composition of their own, tuned for the smallest of them and refined on
// their widths; its first step is the one the first composition's widths
// predict (they shrink like h^2). ('subsampled-gaussian:sigma=1,q=0.01,
// times=1000 --eps 3' read [4.45e-10, 9.52e-10] on the grid tuned for
// 1e-5; one composition for both made the epsilon at 5e-10 of
// 'gdp:mu=1.9253,times=3 epsdelta:eps=0,times=63565 --delta 5.05737e-10
// --eps 49.2847' 13% wide.)
// The widest relative delta bracket at the asked epsilons (0: none wider
// than the tolerance), and the smallest upper end among the wide ones.
struct delta_widths {
  double worst = 0.0, want = kInf;
};

delta_widths wide_deltas(const composition& c, const std::vector<double>& epsilons, double tol) {
  delta_widths w;
  for (double e : epsilons) {
    const interval d = c.delta(e);
    if (!(d.upper > 1e-300) || d.upper - d.lower <= tol * d.upper) continue;
    w.want = std::min(w.want, d.upper);
    w.worst = std::max(w.worst, (d.upper - d.lower) / d.upper);
  }
  return w;
}

void compose_deltas_if_wide(const std::vector<spec>& specs, const std::vector<double>& epsilons,
                            query_compositions& q) {
  const composition& c = q.for_epsilons;
  if (c.is_exact() || epsilons.empty()) return;
  const double tol = q.options.tolerance;
  const auto [worst, want] = wide_deltas(c, epsilons, tol);
  if (!std::isfinite(want)) return;  // (none wide)
  compose_options o = q.options;
  o.delta_hint = std::min(std::max(1e-300, want), 0.5);
  // (every asked epsilon, not only the wide ones: the second composition
  // answers them all, and may skip its plain transform only when its tilted
  // one serves each: 'subsampled-gaussian:sigma=2,q=0.05,times=3000 --eps
  // 0.1 --eps 10' read delta at 0.1 5% wide from the tilted one alone)
  o.delta_at_eps = epsilons;
  // (at most 5x finer: an untilted first composition's width at a tiny
  // delta is its FFT rounding, not its step's, and extrapolated like h^2 it
  // asked for steps 3-4x finer than needed: 'subsampled-gaussian:sigma=1,
  // q=0.01,times=1000 --eps 3' composed 840,653 points for a bracket 12x
  // narrower than the tolerance, 277 ms; 280,222 and 133 ms now. A step
  // too coarse is refined by the second composition itself, on its own
  // tilted widths.)
  if (c.grid_step() > 0 && std::isfinite(worst))
    o.initial_step = c.grid_step() * std::clamp(0.8 * std::sqrt(tol / worst), 0.2, 1.0);
  q.for_deltas = compose(specs, o);
}

}  // namespace

query_compositions compose_for_queries(const std::vector<spec>& specs, const compose_options& opt,
                                       const std::vector<double>& deltas,
                                       const std::vector<double>& epsilons) {
  check_queries(deltas, epsilons);
  compose_options o = opt;
  // The grid is tuned for the smallest delta asked about (delta = 0 is
  // answered from the loss support; it does not tune the grid).
  double smallest = kInf;
  for (double d : deltas)
    if (d > 0) smallest = std::min(smallest, std::max(1e-300, d));
  if (std::isfinite(smallest)) o.delta_hint = std::min(smallest, 0.5);
  query_compositions q{compose(specs, o), o, std::nullopt};
  retune_for_finite_epsilons(specs, deltas, q);
  compose_deltas_if_wide(specs, epsilons, q);
  return q;
}

}  // namespace fdp
