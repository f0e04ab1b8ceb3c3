// gdp_mu_above: the smallest mu with f >= G_mu where both errors are at
// least a level. Checked against closed-form trade-off functions sampled
// densely (independent of the code under test: the f below are written out
// here, and the sup of g is approached from below by 2e5 points).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "fdp/core/normal.hpp"
#include "fdp/ops/gdp_window.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {
namespace {

// sup over a dense grid of g(a) = Phi^{-1}(1 - a) - Phi^{-1}(f(a)) on
// W = {a >= level, f(a) >= level}: a lower estimate of the true sup.
template <class F>
double dense_sup(const F& f, double level) {
  double best = 0.0;
  const double z0 = norm_quantile(level), z1 = norm_quantile(1 - level);
  for (int i = 0; i <= 200000; ++i) {
    const double a = i == 0 ? level : norm_cdf(z0 + (z1 - z0) * i / 200000.0);
    const double fa = f(a);
    if (a < level || fa < level) continue;
    best = std::max(best, norm_quantile_c(a) - norm_quantile(fa));
  }
  return best;
}

// Brackets of a closed form evaluated in double: f rounded outward by a
// few ulps of 1 (its absolute error near f = 1, where 1 - f is tiny).
template <class F>
beta_brackets exact(const F& f) {
  return [f](const std::vector<double>& as) {
    std::vector<interval> out;
    for (double a : as) out.push_back({std::max(0.0, f(a) - 1e-15), std::min(1.0, f(a) + 1e-15)});
    return out;
  };
}

TEST(GdpWindow, GaussianIsItsOwnMuAtEveryLevel) {
  const double mu = 1.3;
  auto g = [mu](double a) { return norm_cdf(norm_quantile_c(a) - mu); };
  for (double level : {1e-2, 1e-6, 1e-12}) {
    const interval w = gdp_mu_above(exact(g), level, true);
    EXPECT_LE(w.lower, mu) << level;
    EXPECT_GE(w.upper, mu) << level;
    EXPECT_LT(w.upper - w.lower, 5e-4) << level;
  }
}

TEST(GdpWindow, EpsDeltaHasAFiniteMuOnEveryWindowButNotOverall) {
  // f_{eps,delta} with delta > 0: f(0) = 1 - delta < 1, so no finite mu
  // holds on all of [0, 1]; on a window one does, and it grows as the
  // level falls below delta
  const double e = std::exp(1.0), delta = 1e-3;
  auto f = [e, delta](double a) { return std::max({0.0, 1 - delta - e * a, (1 - delta - a) / e}); };
  double previous = 0.0;
  for (double level : {1e-2, 1e-4, 1e-8}) {
    const double truth_below = dense_sup(f, level);
    const interval w = gdp_mu_above(exact(f), level, true);
    EXPECT_LE(w.lower, truth_below * (1 + 1e-6)) << level;
    EXPECT_GE(w.upper, truth_below) << level;
    EXPECT_LT(w.upper - truth_below, 1e-3 * truth_below) << level;
    EXPECT_GE(w.upper, previous) << level;
    previous = truth_below;
  }
  EXPECT_GT(previous, 2.5);  // (level 1e-8: the delta tail shows)
}

TEST(GdpWindow, AsymmetricCurveLooksAtBothSides) {
  // an asymmetric f (not equal to its inverse): G_1 on one side, a kink on the other
  auto f = [](double a) {
    return std::min(norm_cdf(norm_quantile_c(a) - 1.0), std::max(0.0, 0.9 * (1 - a)));
  };
  const double level = 1e-4;
  const double truth_below = dense_sup(f, level);
  const interval w = gdp_mu_above(exact(f), level, false);
  // (the sup sits on a kink, which the dense grid approaches within 1e-4)
  EXPECT_LE(w.lower, truth_below * (1 + 1e-4));
  EXPECT_GE(w.upper, truth_below);
  EXPECT_LT(w.upper - truth_below, 2e-3 * truth_below);
}

TEST(GdpWindow, DpsgdWindowIsFiniteWhereTheWholeCurveIsNot) {
  // 1000 Poisson-subsampled Gaussian steps: the whole-curve summary is set
  // by the alpha -> 0 tail (up to sqrt(T)/sigma); on tests with both errors
  // >= 1e-6 it is close to the bulk, and it contains the sampled truth of
  // the certified brackets' own lower side
  compose_options o;
  o.delta_hint = 1e-8;
  const composition c = compose({parse_spec("subsampled-gaussian:sigma=1,q=0.01,times=1000")}, o);
  const interval whole = c.mu();
  const interval w = gdp_mu_above(c, 1e-6);
  EXPECT_LE(w.lower, w.upper);
  EXPECT_LT(w.upper, whole.upper);
  EXPECT_LT(w.upper - w.lower, 0.01 * w.upper);
  // (any alpha in the window gives a certified lower bound on mu_W)
  const double a = 1e-3;
  const interval fa = c.beta(a);
  EXPECT_GE(w.upper, norm_quantile_c(a) - norm_quantile(fa.upper));
  EXPECT_THROW(gdp_mu_above(c, 0.0), std::invalid_argument);
  EXPECT_THROW(gdp_mu_above(c, 0.5), std::invalid_argument);
}

}  // namespace
}  // namespace fdp
