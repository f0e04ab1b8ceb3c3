// Tests of group privacy 1 - (1 - f)^{o k} (DRS Thm 2.14): closed forms,
// the exact polygon power against closed forms (through sandwiches of
// tangent and chord polygons) and against brute-force iteration, the DRS
// claim that group privacy of f_{mu/k,0} approaches the Laplace trade-off,
// brackets of numeric compositions, the GDP summary, bad input.
#include "fdp/ops/group.hpp"

#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {
namespace {

// A polygon below a smooth symmetric trade-off function: the envelope of its
// tangent lines 1 - delta(eps) - e^eps a at n slopes (each line lies below).
curve tangent_polygon(const tradeoff& f, int n, double emax) {
  std::vector<double> c, s;
  for (int i = 0; i < n; ++i) {
    const double e = -emax + 2.0 * emax * i / (n - 1);
    c.push_back(1.0 - profile_delta(f, e));
    s.push_back(std::exp(e));
  }
  return envelope_of_lines(c, s);
}

// A polygon above a convex trade-off function: its chords through n uniform
// points and, for both tails, points at a and at f^{-1}(a) for log-spaced a
// down to 1e-300 (so that the steep start and the flat end are resolved).
curve chord_polygon(const tradeoff& f, int n) {
  std::vector<curve::point> pts;
  for (int i = 0; i <= n; ++i) {
    const double a = static_cast<double>(i) / n;
    pts.push_back({a, beta(f, a)});
  }
  for (int j = 0; j <= 3000; ++j) {
    const double a = std::pow(10.0, -300.0 + 299.0 * j / 3000.0);
    pts.push_back({a, beta(f, a)});
    pts.push_back({beta_inverse(f, a), a});
  }
  return curve::from_points(pts, curve::hull_policy::convexify);
}

// (1 - f)^{o k}(x) by plain iteration of the map x -> 1 - f(x) on the polygon.
double iterate_power(const curve& f, std::int64_t k, double x) {
  for (std::int64_t i = 0; i < k; ++i) x = 1.0 - beta(f, x);
  return x;
}

// sup_a |P(a) - Lap_mu(a)| for a polygon P: on a segment, P - Lap is concave
// (linear minus convex), so its max is at the tangent point (if inside) and
// its min at an end point.
double sup_distance_to_laplace(const curve& p, double mu) {
  const laplace lap(mu);
  double sup = 0.0;
  const auto& a = p.alpha();
  const auto& b = p.beta();
  for (std::size_t i = 0; i < a.size(); ++i) sup = std::max(sup, std::fabs(b[i] - beta(lap, a[i])));
  const double em = std::exp(-mu);
  for (std::size_t i = 0; i + 1 < a.size(); ++i) {
    const double s = (b[i + 1] - b[i]) / (a[i + 1] - a[i]);
    if (!(s < 0)) continue;
    // middle piece: Lap'(a) = -e^-mu / (4 a^2) = s
    const double at = std::sqrt(em / (-4.0 * s));
    if (at > a[i] && at < a[i + 1] && at >= em / 2 && at <= 0.5) {
      const double pa = b[i] + s * (at - a[i]);
      sup = std::max(sup, std::fabs(pa - beta(lap, at)));
    }
  }
  return sup;
}

TEST(GroupClosedForms, GaussianAndLaplaceScale) {
  for (std::int64_t k : {1, 2, 3, 10, 1000}) {
    EXPECT_EQ(group(gaussian(0.3), k).mu, 0.3 * static_cast<double>(k));
    EXPECT_EQ(group(laplace(0.7), k).mu, 0.7 * static_cast<double>(k));
  }
  const tradeoff g = group(tradeoff(gaussian(0.5)), 4);
  ASSERT_TRUE(std::holds_alternative<gaussian>(g.get()));
  EXPECT_EQ(std::get<gaussian>(g.get()).mu, 2.0);
  EXPECT_TRUE(std::holds_alternative<identity>(group(tradeoff(identity{}), 7).get()));
  // f_{0,delta} -> f_{0, k delta}, capped at 1
  const tradeoff d = group(tradeoff(eps_delta(0.0, 0.01)), 5);
  ASSERT_TRUE(std::holds_alternative<eps_delta>(d.get()));
  EXPECT_NEAR(std::get<eps_delta>(d.get()).delta, 0.05, 1e-17);
  EXPECT_EQ(std::get<eps_delta>(group(tradeoff(eps_delta(0.0, 0.3)), 5).get()).delta, 1.0);
}

TEST(GroupPolygon, SandwichesTheClosedForms) {
  // group is monotone in f: tangent polygon <= f <= chord polygon gives
  // group(tangent) <= group(f) <= group(chord); group(f) is known in closed
  // form for G_mu and Laplace.
  struct c {
    tradeoff f;
    double mu;
    bool gauss;
  };
  double worst_gap = 0.0;
  for (const c& x : {c{gaussian(0.5), 0.5, true}, c{gaussian(1.0), 1.0, true},
                     c{laplace(0.5), 0.5, false}, c{laplace(1.0), 1.0, false}}) {
    const curve lo = tangent_polygon(x.f, 4001, 40.0);
    const curve hi = chord_polygon(x.f, 2000);
    for (std::int64_t k : {1, 2, 3, 5, 8}) {
      group_stats sl, sh;
      const curve glo = group(lo, k, &sl), ghi = group(hi, k, &sh);
      EXPECT_LE(sl.max_nonconvexity, 1e-15);
      EXPECT_LE(sh.max_nonconvexity, 1e-15);
      const double km = x.mu * static_cast<double>(k);
      for (int i = 0; i <= 400; ++i) {
        const double a = std::pow(static_cast<double>(i) / 400.0, 2.0);
        const double t = x.gauss ? beta(gaussian(km), a) : beta(laplace(km), a);
        EXPECT_LE(beta(glo, a), t + 1e-13) << x.f.describe() << " k=" << k << " a=" << a;
        EXPECT_GE(beta(ghi, a), t - 1e-13) << x.f.describe() << " k=" << k << " a=" << a;
        worst_gap = std::max(worst_gap, beta(ghi, a) - beta(glo, a));
      }
    }
  }
  std::printf("largest sandwich width (k <= 8): %.3e\n", worst_gap);
  EXPECT_LT(worst_gap, 1e-3);
}

TEST(GroupPolygon, MatchesBruteForceIteration) {
  // Random convex polygons (seeded): repeated squaring vs plain iteration.
  const unsigned seed = 20261123;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  double worst = 0.0;
  for (int rep = 0; rep < 40; ++rep) {
    // a random symmetric-ish convex curve: envelope of random tangent lines
    std::vector<double> c, s;
    const int m = 3 + static_cast<int>(u(rng) * 20);
    for (int j = 0; j < m; ++j) {
      const double e = -3.0 + 6.0 * u(rng);
      const double d = 0.3 * u(rng) * u(rng);
      c.push_back(1.0 - d);
      s.push_back(std::exp(e));
    }
    const curve f = envelope_of_lines(c, s);
    for (std::int64_t k : {1, 2, 3, 7, 16, 33}) {
      group_stats st;
      const curve g = group(f, k, &st);
      EXPECT_LE(st.vertices, static_cast<std::size_t>(k) * (f.size() - 1) + 2) << "seed " << seed;
      EXPECT_LE(st.max_nonconvexity, 1e-12) << "seed " << seed << " rep " << rep;
      for (int i = 0; i <= 200; ++i) {
        const double x = i / 200.0;
        const double want = 1.0 - iterate_power(f, k, x);
        const double err = std::fabs(beta(g, x) - want);
        worst = std::max(worst, err);
        EXPECT_LE(err, 1e-12) << "seed " << seed << " rep " << rep << " k=" << k << " x=" << x;
      }
    }
  }
  std::printf("max |power - iteration| over 40 random polygons: %.3e (seed %u)\n", worst, seed);
}

// A value of the map 1 - f just below 1 (1 - 1e-20) rounds to 1.0; the
// power must place it, and interpolate there, through the carried 1 - value.
// The steep symmetric curve (0,1), (1e-20,0.5), (0.2,0.2), (0.5,1e-20), (1,0)
// grouped twice has f_2(0.5) = f(1 - 1e-20) = 2e-40; the rounded value put it
// on the end point 1, f_2 read 0 on [0.5, 1] and delta(90) 0.5 against
// 0.255919 (tests/golden/edges_group.csv, exact rationals).
TEST(GroupPolygon, ValuesNextToOneAreTakenFromTheirDistanceToOne) {
  const curve f = read_curve_csv(std::string(FDP_TEST_DATA_DIR) + "/edges_steep_curve.csv");
  const curve g = group(f, 2);
  EXPECT_NEAR(beta(g, 0.5), 2e-40, 1e-54);
  EXPECT_NEAR(profile_delta(g, 90.0), 0.25591934113643186637, 1e-15);
  EXPECT_NEAR(profile_delta(g, 50.0), 0.49999999999999999896, 1e-15);
  EXPECT_NEAR(profile_delta(g, 45.0), 0.66026291577005960741, 1e-15);
  EXPECT_NEAR(beta(g, 1e-30), 0.49999999992500000001, 1e-15);
}

TEST(GroupPolygon, EpsZeroDoesNotBecomeKEpsZero) {
  // DRS: f_{eps,0} for groups of k is not f_{k eps,0}: extra middle pieces.
  for (std::int64_t k : {2, 3, 5}) {
    const curve g = group(eps_delta(0.5, 0.0), k);
    EXPECT_EQ(g.size(), static_cast<std::size_t>(k) + 2) << k;  // k + 1 pieces
    const curve fk = to_curve_exact(eps_delta(0.5 * static_cast<double>(k), 0.0));
    EXPECT_TRUE(dominates(g, fk, 1e-15)) << k;  // group(f) >= f_{k eps,0}: k eps-DP holds
    EXPECT_FALSE(dominates(fk, g, 1e-6)) << k;  // and is strictly better somewhere
    // both have the same epsilon at delta = 0 (slope -e^{k eps} at 0)
    EXPECT_NEAR(slope(g, 0.0), -std::exp(0.5 * static_cast<double>(k)), 1e-12);
  }
  EXPECT_EQ(group(eps_delta(0.5, 0.0), 1).size(), to_curve_exact(eps_delta(0.5, 0.0)).size());
}

TEST(GroupPolygon, DrsLaplaceLimitTable) {
  // DRS: group privacy of f_{mu/k,0} for groups of size k tends to the Laplace
  // trade-off T(Lap(0,1), Lap(mu,1)) as k grows. f_{eps,0} <= Lap_eps and group
  // is monotone, so group(f_{mu/k,0}, k) <= group(Lap_{mu/k}, k) = Lap_mu.
  // Measured (mu in {0.5, 1, 2}, k <= 100): the sup distance depends on mu/k
  // only (d(2 mu, 2 k) = d(mu, k)) and falls like mu^2 / (8 k^2): k^2 d / mu^2
  // is 0.073 at k = mu, 0.119 at k = 10 mu and 0.1244 at k = 100 mu. Stated
  // tolerance: d <= kC mu^2 / k^2 with kC = 0.135, and d non-increasing in k.
  constexpr double kC = 0.135;
  for (double mu : {0.5, 1.0, 2.0}) {
    std::printf("mu = %g: k, sup_a |group(f_{mu/k,0}, k) - Lap_mu|, k^2 sup / mu^2\n", mu);
    double prev = 1.0;
    for (std::int64_t k = 1; k <= 100; ++k) {
      const curve g = group(eps_delta(mu / static_cast<double>(k), 0.0), k);
      const double d = sup_distance_to_laplace(g, mu);
      const double kk = static_cast<double>(k);
      if (k <= 10 || k % 10 == 0)
        std::printf("  %3lld  %.6e  %.4f\n", static_cast<long long>(k), d, d * kk * kk / (mu * mu));
      EXPECT_LE(d, kC * mu * mu / (kk * kk)) << "mu=" << mu << " k=" << k;
      EXPECT_LE(d, prev * (1 + 1e-9)) << "mu=" << mu << " k=" << k;
      prev = d;
      // one-sided: the polygon lies below the Laplace curve (up to rounding)
      for (std::size_t i = 0; i < g.size(); ++i)
        EXPECT_LE(g.beta()[i], beta(laplace(mu), g.alpha()[i]) + 1e-14) << "k=" << k;
    }
  }
}

TEST(GroupBracket, NumericCompositionsContainTheTruth) {
  // Closed forms forced through the PLD engine: the bracketed group result
  // must contain the exact group result.
  compose_options pld;
  pld.method = compose_method::pld;
  {
    const composition c = compose({parse_spec("gdp:mu=0.4,times=4")}, pld);  // G_0.8
    ASSERT_FALSE(c.is_exact());
    for (std::int64_t k : {1, 2, 3}) {
      const tradeoff_bracket g = group(c, k);
      const gaussian truth(0.8 * static_cast<double>(k));
      for (double a : {1e-8, 1e-4, 0.01, 0.1, 0.3, 0.6, 0.9}) {
        const interval b = g.beta(a);
        EXPECT_LE(b.lower, beta(truth, a) + 1e-15) << "k=" << k << " a=" << a;
        EXPECT_GE(b.upper, beta(truth, a) - 1e-15) << "k=" << k << " a=" << a;
      }
      for (double d : {1e-8, 1e-5, 1e-2}) {
        const interval e = g.epsilon(d);
        const double te = gdp_eps(truth.mu, d);
        EXPECT_LE(e.lower, te * (1 + 1e-12)) << "k=" << k << " delta=" << d;
        EXPECT_GE(e.upper, te * (1 - 1e-12)) << "k=" << k << " delta=" << d;
        EXPECT_LT(e.upper - e.lower, 0.05 * te) << "k=" << k << " delta=" << d;
      }
      for (double eps : {0.0, 1.0, 3.0}) {
        const interval d = g.delta(eps);
        const double td = gdp_delta(truth.mu, eps);
        EXPECT_LE(d.lower, td * (1 + 1e-12)) << "k=" << k << " eps=" << eps;
        EXPECT_GE(d.upper, td * (1 - 1e-12)) << "k=" << k << " eps=" << eps;
      }
      const interval m = g.mu();
      EXPECT_LE(m.lower, truth.mu * (1 + 1e-12));
      EXPECT_GE(m.upper, truth.mu * (1 - 1e-12));
    }
  }
  {
    const composition c = compose({parse_spec("epsdelta:eps=0.2,times=10")}, pld);
    const curve exact = kfold_eps_delta(0.2, 0.0, 10);
    for (std::int64_t k : {1, 2, 4}) {
      const tradeoff_bracket g = group(c, k);
      const curve t = group(exact, k);
      for (int i = 0; i <= 100; ++i) {
        const double a = std::pow(i / 100.0, 3.0);
        const interval b = g.beta(a);
        EXPECT_LE(b.lower, beta(t, a) + 1e-14) << "k=" << k << " a=" << a;
        EXPECT_GE(b.upper, beta(t, a) - 1e-14) << "k=" << k << " a=" << a;
      }
    }
  }
}

// A closed form's parameter computed from the spec or by a composition is
// rounded, and k mu is bracketed from both ends of its own bracket: 'group
// gaussian:sigma=3 --k 2' read mu [2 fl(1/3), 2 fl(1/3)] (an exact double,
// 2/3 - 3.7e-17, below the truth 2/3), and 'group gdp:mu=0.5,times=3 --k 2'
// read 2 fl(sqrt(0.75)) for sqrt(3). The truths are checked in exact
// rationals (2/3; sqrt(3) through lower^2 <= 3 <= upper^2).
TEST(GroupBracket, RoundedParametersAreBracketed) {
  using Q = boost::multiprecision::cpp_rational;
  const interval a = group(std::vector<spec>{parse_spec("gaussian:sigma=3")}, 2).mu();
  EXPECT_LT(Q(a.lower) * 3, Q(2));
  EXPECT_GT(Q(a.upper) * 3, Q(2));
  EXPECT_LT(a.upper - a.lower, 1e-15);
  const interval b = group(std::vector<spec>{parse_spec("gdp:mu=0.5,times=3")}, 2).mu();
  EXPECT_LE(Q(b.lower) * Q(b.lower), Q(3));
  EXPECT_GE(Q(b.upper) * Q(b.upper), Q(3));
  EXPECT_LT(b.upper - b.lower, 1e-13);
  // (a division that is exact is not widened: sigma = 4 gives mu = 0.25)
  const interval c = group(std::vector<spec>{parse_spec("gaussian:sigma=4")}, 2).mu();
  EXPECT_EQ(c.lower, 0.5);
  EXPECT_EQ(c.upper, 0.5);
}

// Exact objects stay exact (method exact, the closed form or the polygon
// power), and their answers are brackets rounded outward by the evaluation's
// error: a few ulps wide, not points (a point off by an ulp misses the truth).
TEST(GroupBracket, ExactCompositionsStayExact) {
  const tradeoff_bracket g = group(std::vector<spec>{parse_spec("gdp:mu=0.5")}, 3);
  ASSERT_TRUE(g.is_exact());
  EXPECT_EQ(g.mu().lower, 1.5);  // (3 * 0.5 is exact)
  EXPECT_EQ(g.mu().upper, 1.5);
  const interval e = g.epsilon(1e-5);
  EXPECT_LE(e.lower, gdp_eps(1.5, 1e-5));
  EXPECT_GE(e.upper, gdp_eps(1.5, 1e-5) * (1 - 1e-15));
  EXPECT_LT(e.upper - e.lower, 1e-12 * e.upper);
  const interval m = group(std::vector<spec>{parse_spec("gdp:mu=0.1")}, 3).mu();  // 3 * 0.1 rounds
  EXPECT_EQ(m.lower, 0.3);  // (3 * 0.1 = 0.3000000000000000166 rounds to 0.30000000000000004)
  EXPECT_EQ(m.upper, 0.30000000000000004);
  const tradeoff_bracket l = group(std::vector<spec>{parse_spec("laplace:b=2")}, 4);
  ASSERT_TRUE(l.is_exact());
  const interval lb = l.beta(0.1);  // Lap_2(0.1) = e^-2/(4*0.1)
  EXPECT_LE(lb.lower, std::exp(-2.0) / 0.4 * (1 + 1e-16));
  EXPECT_GE(lb.upper, std::exp(-2.0) / 0.4 * (1 - 1e-16));
  EXPECT_LT(lb.upper - lb.lower, 1e-15);
  EXPECT_THROW(l.lower(), std::logic_error);
  // k-fold f_{eps,0} is exact (a polygon), and so is its group power
  const tradeoff_bracket p = group(std::vector<spec>{parse_spec("epsdelta:eps=0.1,times=10")}, 2);
  ASSERT_TRUE(p.is_exact());
  const interval b = p.beta(0.3);
  EXPECT_LE(b.lower, beta(group(kfold_eps_delta(0.1, 0.0, 10), 2), 0.3));
  EXPECT_GE(b.upper, beta(group(kfold_eps_delta(0.1, 0.0, 10), 2), 0.3));
  // (the k-fold polygon's vertices carry 1e-12 of rounding, composition::exact_rel,
  // as in compose's own bracket)
  EXPECT_LT(b.upper - b.lower, 1e-11);
  EXPECT_TRUE(std::isfinite(p.mu().upper));  // (f(0) = 1 exactly: no mass at loss +inf)
}

// An asymmetric curve answers for both orders of the neighbours, as compose
// does: f >= f_{eps,delta} constrains f and f^-1 alike. For the curve (0,1),
// (0.3,0.3), (0.5,0.1), (1,0) the slopes are -7/3, -1 and -1/5, so f^-1's
// steepest is -5: epsilon at any small delta is log 5 (group --k 1 read
// 0.847 = log(7/3), f's alone, and f_{0.847,1e-9} is not below f at a = 0.5).
TEST(GroupBracket, AsymmetricCurvesAnswerForBothOrders) {
  const std::string csv = ::testing::TempDir() + "fdp_group_asym.csv";
  {
    std::FILE* f = std::fopen(csv.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("alpha,beta\n0,1\n0.3,0.3\n0.5,0.1\n1,0\n", f);
    std::fclose(f);
  }
  const tradeoff_bracket g = group(std::vector<spec>{parse_spec("curve:file=" + csv)}, 1);
  EXPECT_NEAR(g.epsilon(1e-9).upper, std::log(5.0),
              1e-8);  // (log 5 - 2e-9: delta falls to 1e-9 just below it)
  EXPECT_NEAR(g.epsilon(1e-9).lower, std::log(5.0), 1e-8);
  const composition c = compose({parse_spec("curve:file=" + csv)});
  for (double e : {0.0, 0.5, 1.0, 1.5}) {
    const interval dg = g.delta(e), dc = c.delta(e);
    EXPECT_LE(dg.lower, dc.upper + 1e-12) << e;
    EXPECT_LE(dc.lower, dg.upper + 1e-12) << e;
  }
}

// DRS Thm 2.14 applies to the mechanism's guarantee, which for an asymmetric
// curve f is f_sym = min{f, f^-1}** (both orders of the neighbours): the
// group power is that of f_sym. The power of f symmetrized afterwards lies
// above it (f_sym <= f, and group privacy is monotone): for the asymmetric
// curve of tests/golden/edges_asym_curve.csv (slopes -7/3 .. -1/5) grouped
// twice, delta(0.178577) read [0.579365, 0.579365] against 0.604807
// (tests/golden/gen_edges_group.py: exact rationals, the power of 1 - f_sym
// = the chain P_0..P_k of finite distributions that attains it).
TEST(GroupBracket, AsymmetricCurvesAreSymmetrizedBeforeThePower) {
  const std::vector<spec> s{
      parse_spec(std::string("curve:file=") + FDP_TEST_DATA_DIR + "/edges_asym_curve.csv")};
  struct row {
    std::int64_t k;
    double eps, delta;
  };
  for (const row& r :
       {row{2, 0.0, 0.64000000000000001332}, row{2, 0.178577, 0.60480731181170570545},
        row{2, 1.0, 0.47690309029245730524}, row{3, 0.5, 0.80507672375799234505},
        row{3, 3.0, 0.39897355692174805395}}) {
    const interval d = group(s, r.k).delta(r.eps);
    EXPECT_LE(d.lower, r.delta * (1 + 1e-13)) << "k=" << r.k << " eps=" << r.eps;
    EXPECT_GE(d.upper, r.delta * (1 - 1e-13)) << "k=" << r.k << " eps=" << r.eps;
  }
}

// Group privacy of a PLD composition at small delta: its lower polygon's
// 1 - beta near a = 0 (a delta of 1e-14) was rebuilt as 1 - (1 - delta), an
// absolute 1e-16 of rounding, and the group's epsilon missed the truth:
// G_1 grouped by 2 at 1e-14 read [16.396, 16.561], G_2 gives 16.891.
TEST(GroupBracket, SmallDeltasOfNumericCompositionsContainTheTruth) {
  compose_options pld;
  pld.method = compose_method::pld;
  for (const double delta : {1e-10, 1e-14}) {
    pld.delta_hint = delta;
    const tradeoff_bracket g = group(compose({parse_spec("gaussian:sigma=1")}, pld), 2);
    const interval e = g.epsilon(delta);
    const double truth = gdp_eps(2.0, delta);
    EXPECT_LE(e.lower, truth) << delta;
    EXPECT_GE(e.upper, truth) << delta;
    const interval d = g.delta(truth);
    EXPECT_LE(d.lower, delta * (1 + 1e-9)) << delta;
    EXPECT_GE(d.upper, delta * (1 - 1e-9)) << delta;
  }
  // k = 1 of a mixture overlaps compose's own bracket (both certified)
  pld.delta_hint = 1e-14;
  const composition c =
      compose({parse_spec("gaussian:sigma=1"), parse_spec("epsdelta:eps=0.001")}, pld);
  const interval ec = c.epsilon(1e-14), eg = group(c, 1).epsilon(1e-14);
  EXPECT_LE(eg.lower, ec.upper);
  EXPECT_LE(ec.lower, eg.upper);
}

TEST(GdpSummary, ClosedFormsAndPolygons) {
  // f_{eps,0}: its one interior vertex (x, x), x = 1/(1+e^eps): mu = 2 Phi^{-1}(1 - x).
  for (double e : {0.1, 1.0, 3.0}) {
    const double x = 1.0 / (1.0 + std::exp(e));
    EXPECT_NEAR(gdp_summary(tradeoff(eps_delta(e, 0.0))), 2.0 * norm_quantile_c(x), 1e-14);
  }
  EXPECT_EQ(gdp_summary(tradeoff(gaussian(1.3))), 1.3);
  EXPECT_EQ(gdp_summary(tradeoff(identity{})), 0.0);
  EXPECT_TRUE(std::isinf(gdp_summary(tradeoff(eps_delta(1.0, 1e-6)))));
  // tangent polygons of G_mu lie below G_mu: summary slightly above mu
  for (double mu : {0.5, 1.0, 2.0}) {
    const double m = gdp_summary(tangent_polygon(gaussian(mu), 8001, 40.0));
    std::printf("summary of an 8001-tangent polygon of G_%g: %.9f\n", mu, m);
    EXPECT_GE(m, mu - 1e-12);
    EXPECT_LE(m, mu * (1 + 5e-3));  // the tail vertices of the polygon sit below G_mu
  }
  // Laplace: against a dense direct scan of Phi^{-1}(1-a) - Phi^{-1}(f(a))
  for (double mu : {0.1, 1.0, 3.0}) {
    const laplace f(mu);
    double scan = 0.0;
    for (int i = 1; i < 200000; ++i) {
      const double a = 0.5 * i / 200000.0;
      scan = std::max(scan, norm_quantile_c(a) - norm_quantile(beta(f, a)));
    }
    const double s = gdp_summary(tradeoff(f));
    EXPECT_GE(s, scan - 1e-12) << mu;
    EXPECT_LE(s, scan + 1e-6) << mu;
    // and f >= G_s holds (within rounding) while G_{0.999 s} is not below f
    EXPECT_TRUE(dominates(tradeoff(f), tradeoff(gaussian(s * (1 + 1e-9))), 1e-12)) << mu;
    EXPECT_FALSE(dominates(tradeoff(f), tradeoff(gaussian(s * 0.999)), 0.0)) << mu;
  }
}

// Steep pure-DP polygons: the group's first kink sits near alpha = e^{-k eps}.
// Kept while it is representable; refused (not dropped, which read f_{400,0}
// grouped twice as epsilon 400 and f_{710,0} as perfect privacy) beyond.
TEST(GroupPolygon, SteepKinksAreKeptOrRefused) {
  // f_{eps,0}: delta(e) = (1 - e^{e - eps}) / (1 + e^{-eps}), so epsilon at
  // delta = 1e-5 is eps + log(1 - 1e-5 (1 + e^{-eps})), within 1.1e-5 below
  // eps; group k of a pure-DP f is k eps-DP and no better at delta -> 0.
  struct c {
    double eps;
    std::int64_t k;
  };
  for (const c& t : {c{710.0, 1}, c{100.0, 7}, c{360.0, 2}, c{5.0, 3}}) {
    const curve g = group(eps_delta(t.eps, 0.0), t.k);
    const double ke = t.eps * static_cast<double>(t.k);
    const double e = solve_eps([&](double x) { return profile_delta(g, x); }, 1e-5, true);
    EXPECT_LE(e, ke) << t.eps << " " << t.k;
    EXPECT_GE(e, ke - 2e-5 * static_cast<double>(t.k)) << t.eps << " " << t.k;
  }
  EXPECT_THROW(group(eps_delta(400.0, 0.0), 2), evaluation_error);
  EXPECT_THROW(group(eps_delta(100.0, 0.0), 10), evaluation_error);
  EXPECT_THROW(to_curve_exact(tradeoff(eps_delta(750.0, 0.0))), evaluation_error);
}

TEST(GroupBadInput, KMustBeAtLeastOne) {
  for (std::int64_t k : {0, -1, -100}) {
    EXPECT_THROW(group(gaussian(1.0), k), std::invalid_argument);
    EXPECT_THROW(group(laplace(1.0), k), std::invalid_argument);
    EXPECT_THROW(group(identity{}, k), std::invalid_argument);
    EXPECT_THROW(group(eps_delta(1.0, 0.0), k), std::invalid_argument);
    EXPECT_THROW(group(tradeoff(gaussian(1.0)), k), std::invalid_argument);
    EXPECT_THROW(group(std::vector<spec>{parse_spec("gdp:mu=1")}, k), std::invalid_argument);
  }
  try {
    group(gaussian(1.0), 0);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("k=0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(group(std::vector<spec>{}, 2), std::invalid_argument);
  // a power that would not fit is an evaluation error, not a crash
  const curve big = tangent_polygon(gaussian(1.0), 2001, 12.0);
  EXPECT_THROW(group(big, 1000000), evaluation_error);
}

}  // namespace
}  // namespace fdp
