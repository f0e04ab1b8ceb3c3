#include "fdp/ops/gdp_window.hpp"

#include <algorithm>
#include <cmath>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"

namespace fdp {
namespace {

// Relative slack for the rounding of the two quantiles (each within a few
// ulps; this is far wider, and far below any width a caller can see).
constexpr double kQuantileSlack = 1e-12;
// Sub-points per cell at which the explicit bound is evaluated.
constexpr int kSubPoints = 48;
// Grid points (uniform in z); with kSubPoints the bound's excess is about
// 1e-4 at level 1e-10 on G_mu (measured), far below a composition's width.
constexpr int kGridPoints = 3000;

// Uniform in z = Phi^{-1}(alpha) on [level, top]: the bound below
// pairs Phi^{-1}(1 - x) at one end of a sub-interval with f at the other,
// so its excess is about the step in z (a grid logarithmic in alpha had
// steps in z 20 times larger near alpha = 1/2 than in the tails).
std::vector<double> window_grid(double level, double top, int points) {
  std::vector<double> xs;
  const double z0 = norm_quantile(level), z1 = norm_quantile(top);
  for (int i = 0; i <= points; ++i) xs.push_back(norm_cdf(z0 + (z1 - z0) * i / points));
  xs.front() = level;
  xs.back() = top;
  return xs;
}

// A certified lower bound on f inside the cell [x[i], x[i+1]] from
// convexity: f lies above the extension of each neighbouring chord (the
// chord on [x[i-1], x[i]] has slope <= f' on the cell, the chord on
// [x[i+1], x[i+2]] slope >= f' on it), and above f(x[i+1]) (f decreases).
// The chord slopes are taken at their safe ends from the brackets.
struct cell_floor {
  double a = 0, b = 0, fb = 0;
  double left_at = 0, left_value = 0, left_slope = 0;  // f >= value + slope (x - at), x >= at
  bool has_left = false;
  double right_value = 0, right_slope = 0;  // f >= value - slope (b - x), x <= b
  bool has_right = false;
  double at(double x) const {
    double v = fb;
    if (has_left) v = std::max(v, left_value + left_slope * (x - left_at));
    if (has_right) v = std::max(v, right_value - right_slope * (b - x));
    return v;
  }
};

cell_floor floor_of(const std::vector<double>& xs, const std::vector<interval>& fs, std::size_t i) {
  cell_floor c;
  c.a = xs[i];
  c.b = xs[i + 1];
  c.fb = fs[i + 1].lower;
  if (i > 0) {
    c.has_left = true;
    c.left_at = xs[i];
    c.left_value = fs[i].lower;
    c.left_slope = (fs[i].lower - fs[i - 1].upper) / (xs[i] - xs[i - 1]);
  }
  if (i + 2 < xs.size()) {
    c.has_right = true;
    c.right_value = fs[i + 1].lower;
    c.right_slope = (fs[i + 2].upper - fs[i + 1].lower) / (xs[i + 2] - xs[i + 1]);
  }
  return c;
}

// sup of g over the cell's part of W: on each sub-interval [s, t],
// Phi^{-1}(1 - x) <= Phi^{-1}(1 - s) and f(x) >= floor(t) (the floor
// decreases), and f >= level in W. -inf when the cell lies outside W (or,
// for a symmetric f, on the mirrored side alpha > f(alpha)).
double cell_bound(const cell_floor& c, const interval& fa, double level, bool symmetric) {
  if (fa.upper < level || (symmetric && fa.upper < c.a)) return -INFINITY;
  double best = -INFINITY;
  for (int j = 0; j < kSubPoints; ++j) {
    const double s = c.a + (c.b - c.a) * j / kSubPoints;
    const double t = j + 1 == kSubPoints ? c.b : c.a + (c.b - c.a) * (j + 1) / kSubPoints;
    const double g = norm_quantile_c(s) - norm_quantile(std::min(1.0, std::max(c.at(t), level)));
    best = std::max(best, g + kQuantileSlack * std::fabs(g));
  }
  return best;
}

// g at a point certainly inside W, computed on the safe side (lower).
double point_value(double a, const interval& f, double level) {
  if (a < level || f.lower < level || !(f.upper > 0)) return 0.0;
  const double g = norm_quantile_c(a) - norm_quantile(std::min(f.upper, 1.0));
  return g - kQuantileSlack * std::fabs(g);
}

}  // namespace

interval gdp_mu_above(const beta_brackets& beta, double level, bool symmetric) {
  detail::require(level > 0 && level < 0.5, "gdp_mu_above", "level", level, "must be in (0, 0.5)");
  // (a symmetric f: g(alpha) = g(f(alpha)), so the side alpha <= f(alpha),
  // which lies in [0, 1/2], carries the sup; the other side's brackets are
  // absolute, ~1e-9 where f is ~1e-10, and would only widen the answer)
  const std::vector<double> xs = window_grid(level, symmetric ? 0.5 : 1.0 - level, kGridPoints);
  const std::vector<interval> fs = beta(xs);
  double lower = 0.0, upper = 0.0;
  for (std::size_t i = 0; i < xs.size(); ++i)
    lower = std::max(lower, point_value(xs[i], fs[i], level));
  for (std::size_t i = 0; i + 1 < xs.size(); ++i)
    upper = std::max(upper, cell_bound(floor_of(xs, fs, i), fs[i], level, symmetric));
  return {std::min(lower, upper), std::max(upper, lower)};
}

interval gdp_mu_above(const composition& c, double level) {
  // (every composition's f is symmetric: min{F, F^-1}** for asymmetric terms, compose.hpp)
  return gdp_mu_above([&c](const std::vector<double>& alphas) { return c.beta(alphas); }, level,
                      true);
}

}  // namespace fdp
