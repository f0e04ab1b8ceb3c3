// Tests for fdp/budget/subsample.hpp: C_p(f) = min{f_p, f_p^{-1}}**.
// Closed-form checks (DRS's formula for symmetric f against the exact polygon
// operator and the tangent/chord bracket), operator properties (symmetry,
// C_0 = Id, C_1 = min{f, f^-1}**, monotone in p and in f, C_p(f) >= f), DRS's
// remark that C_p(f_{eps,0}) beats the classical amplification f_{eps',0},
// and the comparison with the engine's Poisson-subsampled Gaussian (one step:
// the same trade-off function; T steps: C_p(G)^{(x)T} is the weaker guarantee).
#include "fdp/budget/subsample.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "fdp/core/families.hpp"

namespace fdp {
namespace {

constexpr double kPolyTol = 1e-12;    // exact polygon operations (rounding only)
constexpr double kClosedTol = 1e-12;  // subsample_beta root find
constexpr double kBracketGap = 2e-4;  // tangent/chord bracket at 2000 points

std::vector<double> alphas() {
  std::vector<double> a;
  for (int i = 0; i <= 200; ++i) a.push_back(i / 200.0);
  for (int i = 1; i <= 12; ++i) a.push_back(std::pow(10.0, -i));
  return a;
}

TEST(Subsample, ClosedFormInsideTheBracketForGaussianAndLaplace) {
  for (const tradeoff& f :
       {tradeoff(gaussian(0.5)), tradeoff(gaussian(1.0)), tradeoff(gaussian(3.0)),
        tradeoff(laplace(0.3)), tradeoff(laplace(2.0))}) {
    for (double p : {0.01, 0.1, 0.5, 0.9}) {
      const curve_bracket br = subsample(f, p, 2000);
      double gap = 0.0;
      for (double a : alphas()) {
        const double x = subsample_beta(f, p, a);
        const double lo = beta(br.lower, a), hi = beta(br.upper, a);
        EXPECT_LE(lo, x + kClosedTol) << f.describe() << " p=" << p << " a=" << a;
        EXPECT_GE(hi, x - kClosedTol) << f.describe() << " p=" << p << " a=" << a;
        gap = std::max(gap, hi - lo);
      }
      EXPECT_LT(gap, kBracketGap) << f.describe() << " p=" << p;
    }
  }
}

TEST(Subsample, PolygonFamiliesAreExactAndMatchTheDrsFormula) {
  for (double eps : {0.1, 1.0, 3.0}) {
    for (double delta : {0.0, 1e-3}) {
      const tradeoff f(eps_delta(eps, delta));
      for (double p : {0.05, 0.3, 1.0}) {
        const curve_bracket br = subsample(f, p);
        for (double a : alphas()) {
          EXPECT_NEAR(beta(br.lower, a), beta(br.upper, a), 0.0);
          EXPECT_NEAR(beta(br.lower, a), subsample_beta(f, p, a), kPolyTol)
              << "eps=" << eps << " delta=" << delta << " p=" << p << " a=" << a;
        }
      }
    }
  }
}

TEST(Subsample, OperatorProperties) {
  std::mt19937_64 rng(20240611);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (int rep = 0; rep < 30; ++rep) {
    // a random (asymmetric) trade-off polygon, from a random discrete PLD
    pld d;
    double sq = 0.0, sp = 0.0;
    for (int i = 0; i < 5; ++i) {
      const double p = U(rng) + 0.01, l = 4 * U(rng) - 2;
      d.loss.push_back(l);
      d.p.push_back(p);
      d.q.push_back(p * std::exp(l));
      sp += p;
    }
    for (auto& x : d.p) x /= sp;
    for (auto& x : d.q) x /= sp, sq += x;
    for (auto& x : d.q) x /= std::max(1.0, sq);
    d.q_pos_inf = 1.0 - sq / std::max(1.0, sq);
    const curve f = curve::from_pld(d);
    SCOPED_TRACE("seed 20240611 rep " + std::to_string(rep));
    // C_0 = Id, C_1 = min{f, f^-1}**
    const curve c0 = subsample(f, 0.0), c1 = subsample(f, 1.0), h = symmetrize_hull(f);
    for (double a : alphas()) {
      EXPECT_NEAR(beta(c0, a), 1.0 - a, kPolyTol);
      EXPECT_NEAR(beta(c1, a), beta(h, a), kPolyTol);
    }
    double prev = -1;
    for (double p : {0.9, 0.5, 0.2, 0.05}) {
      const curve c = subsample(f, p);
      EXPECT_TRUE(is_symmetric(c));
      // more subsampling (smaller p) is more private
      if (prev >= 0) EXPECT_TRUE(dominates(tradeoff(c), tradeoff(subsample(f, prev)), 1e-12));
      prev = p;
      // C_p(f) >= the symmetric hull of f
      EXPECT_TRUE(dominates(tradeoff(c), tradeoff(h), 1e-12));
    }
  }
}

TEST(Subsample, MonotoneInF) {
  // G_1 >= G_2 pointwise, so C_p(G_1) >= C_p(G_2)
  const auto a = subsample(tradeoff(gaussian(1.0)), 0.2),
             b = subsample(tradeoff(gaussian(2.0)), 0.2);
  EXPECT_TRUE(dominates(tradeoff(a.lower), tradeoff(b.upper), 1e-12));
}

TEST(Subsample, BeatsClassicalAmplificationOfPureDp) {
  // DRS Sec. 4: C_p(f_{eps,0}) lies above f_{eps',0}, eps' = log(1 - p + p e^eps),
  // strictly somewhere.
  for (double eps : {0.5, 1.0, 2.0, 5.0}) {
    for (double p : {0.01, 0.1, 0.5}) {
      const curve c = subsample(to_curve_exact(tradeoff(eps_delta(eps))), p);
      const tradeoff classic(eps_delta(std::log1p(p * std::expm1(eps))));
      EXPECT_TRUE(dominates(tradeoff(c), classic, 1e-12)) << "eps=" << eps << " p=" << p;
      double diff = 0.0;
      for (double a : alphas()) diff = std::max(diff, beta(c, a) - beta(classic, a));
      EXPECT_GT(diff, 1e-6) << "eps=" << eps << " p=" << p;
    }
  }
}

TEST(Subsample, OneStepEqualsTheEnginesPoissonSubsampledGaussian) {
  // Engine: Poisson sampling, add/remove, both orders: min{F, F^-1}** with
  // F = T(N(0,s^2), (1-q) N(0,s^2) + q N(1,s^2)) = q G_{1/s} + (1-q) Id, i.e.
  // C_q(G_{1/s}) exactly (subsample.hpp). Both are certified: the closed form
  // must lie inside the engine's bracket.
  for (const auto& [sigma, q] :
       std::vector<std::pair<double, double>>{{1.0, 0.01}, {0.8, 0.1}, {2.0, 0.5}}) {
    compose_options o;
    o.tolerance = 1e-4;
    const composition c = compose({parse_spec("subsampled-gaussian:sigma=" + std::to_string(sigma) +
                                              ",q=" + std::to_string(q))},
                                  o);
    for (double a : {1e-6, 1e-4, 0.01, 0.05, 0.2, 0.4, 0.6, 0.9}) {
      const double x = subsample_beta(tradeoff(gaussian(1.0 / sigma)), q, a);
      const interval b = c.beta(a);
      EXPECT_LE(b.lower, x + 1e-9) << "sigma=" << sigma << " q=" << q << " a=" << a;
      EXPECT_GE(b.upper, x - 1e-9) << "sigma=" << sigma << " q=" << q << " a=" << a;
    }
  }
}

TEST(Subsample, EngineBetaBracketsTheOneStepTradeoffAtEveryAlpha) {
  // composition::beta answers from the upper hull of the grids' lines
  // (built once, then a binary search per alpha). Against the closed form
  // C_q(G_{1/s}) at 3,000 alphas from 1e-300 to 1: the bracket contains it
  // (to the closed form's own rounding, 1e-13) and, for the asymmetric loss,
  // is tight on both sides (every grid eps of both orientations feeds the
  // lower bound).
  // sigma <= 0.3 with small q: nearly all mass sits within 1e-4 of the
  // accumulation point log(1 - q), inside one grid cell (the optimistic
  // side used to collapse to Id there; a grid point just above log(1 - q)
  // fixes it).
  for (const auto& [sigma, q] : std::vector<std::pair<double, double>>{
           {1.0, 0.01}, {0.8, 0.1}, {2.0, 0.5}, {0.5, 0.3}, {0.3, 0.004267}, {0.2, 0.001}}) {
    const composition c = compose({parse_spec("subsampled-gaussian:sigma=" + std::to_string(sigma) +
                                              ",q=" + std::to_string(q))});
    std::vector<double> alphas = {0.0, 1e-300, 1e-200, 1e-100, 1e-30, 1.0};
    for (int i = 0; i < 1500; ++i) alphas.push_back(std::pow(10.0, -20.0 + 20.0 * i / 1500.0));
    for (int i = 0; i < 1500; ++i) alphas.push_back((i + 0.5) / 1500.0);
    double worst_width = 0.0;
    for (double a : alphas) {
      const double x = subsample_beta(tradeoff(gaussian(1.0 / sigma)), q, a);
      const interval b = c.beta(a);
      ASSERT_LE(b.lower, x + 1e-13) << "sigma=" << sigma << " q=" << q << " a=" << a;
      ASSERT_GE(b.upper, x - 1e-13) << "sigma=" << sigma << " q=" << q << " a=" << a;
      ASSERT_LE(b.lower, b.upper);
      worst_width = std::max(worst_width, b.upper - b.lower);
    }
    EXPECT_LT(worst_width, 2e-3) << "sigma=" << sigma << " q=" << q;
  }
}

TEST(Subsample, TStepsOfTheOperatorAreNoSharperThanThePoissonAccounting) {
  // C_q(G)^{(x)T} <= min{F^T, (F^-1)^T}**: its epsilon is at least the engine's.
  const double sigma = 1.0, q = 0.02;
  const std::int64_t T = 200;
  compose_options o;
  o.delta_hint = 1e-5;
  const interval engine =
      compose({parse_spec("subsampled-gaussian:sigma=1,q=0.02,times=200")}, o).epsilon(1e-5);
  const curve_bracket cp = subsample(tradeoff(gaussian(1.0 / sigma)), q, 2000);
  compose_term t;
  t.closed = tradeoff(cp.lower);
  t.law = make_law(*t.closed);
  t.times = T;
  const interval drs = compose_terms({t}, o).epsilon(1e-5);
  EXPECT_GE(drs.upper, engine.lower);
}

TEST(Subsample, BadInput) {
  EXPECT_THROW(subsample(tradeoff(gaussian(1.0)), -0.1), std::invalid_argument);
  EXPECT_THROW(subsample(tradeoff(gaussian(1.0)), 1.5), std::invalid_argument);
  EXPECT_THROW(subsample(tradeoff(gaussian(1.0)), 0.5, 3), std::invalid_argument);
  EXPECT_THROW(subsample_beta(tradeoff(gaussian(1.0)), 0.5, 2.0), std::invalid_argument);
  const curve asym = curve::from_points({{0.0, 0.9}, {0.05, 0.2}, {1.0, 0.0}});
  EXPECT_THROW(subsample_beta(tradeoff(asym), 0.5, 0.1), std::invalid_argument);
}

}  // namespace
}  // namespace fdp
