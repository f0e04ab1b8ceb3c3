// Tests for fdp/core/families.hpp: G_mu, f_{eps,delta}, the Laplace trade-off
// and Id. Tiers: golden (tests/golden/tradeoff_golden.csv, mpmath) and
// property (seeded random instances; the seed is printed and can be set with
// FDP_TEST_SEED). Each golden test prints the largest error it measured.
#include "fdp/core/families.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../golden/golden_csv.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/core/tradeoff.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp {
namespace {

using test::load_golden;
using test::max_error;
using test::rel_err;
using test::to_double;

// ----------------------------------------------------------- tolerances
// G_mu(a) = Phi(-Phi^{-1}(a) - mu): the quantile's relative error (~3e-16,
// normal_test) enters multiplied by the condition number of beta in
// z = Phi^{-1}(a), |z + mu| phi(z + mu)/Phi(-z - mu) * |z| ~ |z| |z + mu|, up
// to ~1300 at a = 1e-300 or beta ~ 1e-300. So the tolerance is relative,
// scaled by (1 + cond) with cond = |z| * max(1, |z + mu|).
constexpr double kGaussBetaUlps = 8.0;
// Piecewise closed forms (eps_delta, Laplace, Id): a few roundings.
constexpr double kClosedFormRel = 1e-14;
// Convexity / monotonicity / f <= 1 - a checks allow this much rounding.
constexpr double kShapeAbs = 1e-14;
// Brute-force conjugate: max over a grid refined by golden-section search.
constexpr double kProfileAbs = 1e-10;
// Finite-difference slope check (central differences, step h ~ 1e-5 a).
constexpr double kSlopeRel = 1e-5;
// Number of random instances per family in the property tests.
constexpr int kInstances = 40;

std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    const char* s = std::getenv("FDP_TEST_SEED");
    const std::uint64_t v = s ? std::strtoull(s, nullptr, 10) : 20240611ULL;
    std::cout << "[seed] families_test uses FDP_TEST_SEED=" << v << "\n";
    return v;
  }();
  return seed;
}

std::string at(const char* a, double x, const char* b, double y) {
  std::ostringstream os;
  os.precision(17);
  os << a << "=" << x << " " << b << "=" << y;
  return os.str();
}

// ------------------------------------------------------------------ golden

TEST(FamiliesGolden, GaussianBeta) {
  const auto t = load_golden("tradeoff_golden.csv");
  const auto cf = t.column("family"), cp = t.column("param"), ca = t.column("alpha"),
             cb = t.column("beta"), cc = t.column("one_minus_beta");
  max_error m("rel_err_gaussian_beta_over_cond"), mc("rel_err_gaussian_one_minus_beta_over_cond");
  max_error raw("rel_err_gaussian_beta_raw");
  for (const auto& r : t.rows) {
    if (r[cf] != "gaussian") continue;
    const double mu = to_double(r[cp]), a = to_double(r[ca]);
    const double tb = to_double(r[cb]), tc = to_double(r[cc]);
    const gaussian g(mu);
    const double z = norm_quantile_c(a);
    const double cond = 1.0 + std::fabs(z) * std::fmax(1.0, std::fabs(z - mu));
    const double b = beta(g, a), c = one_minus_beta(g, a);
    if (tb >= DBL_MIN) {
      const double e = rel_err(b, tb);
      m.update(e / cond, at("mu", mu, "alpha", a));
      raw.update(e, at("mu", mu, "alpha", a));
      EXPECT_LE(e, kGaussBetaUlps * cond * DBL_EPSILON)
          << "beta(G_" << mu << ", " << a << ") = " << b << ", truth " << tb;
    } else {
      EXPECT_LE(b, 2 * DBL_MIN);
    }
    if (tc >= DBL_MIN) {
      const double e = rel_err(c, tc);
      mc.update(e / cond, at("mu", mu, "alpha", a));
      EXPECT_LE(e, kGaussBetaUlps * cond * DBL_EPSILON)
          << "one_minus_beta(G_" << mu << ", " << a << ") = " << c << ", truth " << tc;
    }
  }
  m.report();
  mc.report();
  raw.report();
}

TEST(FamiliesGolden, LaplaceBeta) {
  const auto t = load_golden("tradeoff_golden.csv");
  const auto cf = t.column("family"), cp = t.column("param"), ca = t.column("alpha"),
             cb = t.column("beta"), cc = t.column("one_minus_beta");
  max_error m("rel_err_laplace_beta"), mc("rel_err_laplace_one_minus_beta");
  for (const auto& r : t.rows) {
    if (r[cf] != "laplace") continue;
    const double mu = to_double(r[cp]), a = to_double(r[ca]);
    const double tb = to_double(r[cb]), tc = to_double(r[cc]);
    const laplace l(mu);
    double e = rel_err(beta(l, a), tb);
    m.update(e, at("mu", mu, "alpha", a));
    EXPECT_LE(e, kClosedFormRel) << "beta(Lap_" << mu << ", " << a << ") truth " << tb;
    e = rel_err(one_minus_beta(l, a), tc);
    mc.update(e, at("mu", mu, "alpha", a));
    EXPECT_LE(e, kClosedFormRel) << "one_minus_beta(Lap_" << mu << ", " << a << ") truth " << tc;
  }
  m.report();
  mc.report();
}

TEST(FamiliesGolden, GaussianProfileIsGdpDelta) {
  const auto t = load_golden("gdp_golden.csv");
  const auto cm = t.column("mu"), ce = t.column("eps"), cd = t.column("delta");
  max_error m("rel_err_profile_delta_gaussian");
  for (const auto& r : t.rows) {
    const double mu = to_double(r[cm]), eps = to_double(r[ce]), truth = to_double(r[cd]);
    if (truth < 1e-300) continue;
    const double e = rel_err(profile_delta(gaussian(mu), eps), truth);
    m.update(e, at("mu", mu, "eps", eps));
    EXPECT_LE(e, 1e-12) << at("mu", mu, "eps", eps);
  }
  m.report();
}

// ------------------------------------------------------- property helpers

// One named instance of any family, through the tradeoff wrapper.
struct instance {
  std::string name;
  tradeoff f;
};

std::vector<instance> random_instances(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<instance> out;
  out.push_back({"Id", tradeoff(identity{})});
  out.push_back({"G_0", tradeoff(gaussian(0.0))});
  out.push_back({"f_{0,0}", tradeoff(eps_delta(0.0, 0.0))});
  out.push_back({"Lap_0", tradeoff(laplace(0.0))});
  for (int i = 0; i < kInstances; ++i) {
    const double mu = 8.0 * u(rng) * u(rng);
    const double eps = 5.0 * u(rng) * u(rng);
    const double delta = u(rng) < 0.3 ? 0.0 : 0.5 * u(rng) * u(rng);
    const double lm = 8.0 * u(rng) * u(rng);
    out.push_back({"G_" + std::to_string(mu), tradeoff(gaussian(mu))});
    out.push_back({"f_{" + std::to_string(eps) + "," + std::to_string(delta) + "}",
                   tradeoff(eps_delta(eps, delta))});
    out.push_back({"Lap_" + std::to_string(lm), tradeoff(laplace(lm))});
  }
  return out;
}

// Points in [0, 1], dense near both ends.
std::vector<double> alpha_grid(std::mt19937_64& rng, int n) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> xs = {0.0, 1.0, 0.5};
  for (int i = 0; i < n; ++i) {
    const double r = u(rng);
    xs.push_back(r);
    xs.push_back(std::pow(10.0, -12.0 * u(rng)) * 0.5);
    xs.push_back(1.0 - std::pow(10.0, -12.0 * u(rng)) * 0.5);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  return xs;
}

// max over a in [0, 1] of 1 - f(a) - e^eps a by brute force: a grid of
// 20001 points plus log-spaced points near 0, then golden-section search
// on the best cell's neighbourhood (the objective is concave).
double brute_profile(const tradeoff& f, double eps) {
  const double e = std::exp(eps);
  auto obj = [&](double a) { return one_minus_beta(f, a) - e * a; };
  std::vector<double> xs;
  const int n = 20000;
  for (int i = 0; i <= n; ++i) xs.push_back(static_cast<double>(i) / n);
  for (int k = 0; k <= 300; ++k) xs.push_back(std::pow(10.0, -k / 10.0) * 1e-4);
  std::sort(xs.begin(), xs.end());
  std::size_t best = 0;
  double bv = -1.0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double v = obj(xs[i]);
    if (v > bv) bv = v, best = i;
  }
  double lo = xs[best > 0 ? best - 1 : 0], hi = xs[std::min(best + 1, xs.size() - 1)];
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  for (int it = 0; it < 200 && hi - lo > 1e-300; ++it) {
    const double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
    if (obj(m1) < obj(m2))
      lo = m1;
    else
      hi = m2;
    bv = std::max({bv, obj(m1), obj(m2)});
  }
  return std::max(0.0, bv);
}

// ----------------------------------------------------------------- property

TEST(FamiliesProperty, ShapeOfATradeOffFunction) {
  std::mt19937_64 rng(test_seed());
  SCOPED_TRACE("FDP_TEST_SEED=" + std::to_string(test_seed()));
  for (const auto& [name, f] : random_instances(rng)) {
    const auto xs = alpha_grid(rng, 60);
    double prev = 2.0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double a = xs[i], b = beta(f, a);
      ASSERT_TRUE(b >= 0.0 && b <= 1.0) << name << " beta(" << a << ") = " << b;
      EXPECT_LE(b, 1.0 - a + kShapeAbs) << name << " a=" << a;  // f <= Id
      EXPECT_LE(b, prev + kShapeAbs) << name << " a=" << a;     // non-increasing
      EXPECT_NEAR(b + one_minus_beta(f, a), 1.0, 2 * DBL_EPSILON) << name << " a=" << a;
      prev = b;
    }
    // Convexity: f at the midpoint of random pairs lies below the chord.
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int k = 0; k < 200; ++k) {
      const double x = u(rng), y = u(rng);
      const double mid = beta(f, 0.5 * (x + y));
      EXPECT_LE(mid, 0.5 * (beta(f, x) + beta(f, y)) + kShapeAbs)
          << name << " x=" << x << " y=" << y;
    }
    EXPECT_EQ(beta(f, 1.0), 0.0) << name;
  }
}

TEST(FamiliesProperty, SymmetricFamiliesEqualTheirInverse) {
  std::mt19937_64 rng(test_seed() + 1);
  SCOPED_TRACE("FDP_TEST_SEED=" + std::to_string(test_seed()));
  for (const auto& [name, f] : random_instances(rng)) {
    ASSERT_TRUE(is_symmetric(f)) << name;
    const tradeoff g = inverse(f);
    const tradeoff gg = inverse(g);
    for (double a : alpha_grid(rng, 30)) {
      EXPECT_EQ(beta(g, a), beta(f, a)) << name;
      EXPECT_EQ(beta(gg, a), beta(f, a)) << name;  // (f^-1)^-1 = f
      // f^-1(y) = inf{t : f(t) <= y}; for a symmetric f it is f itself,
      // except at y = 0 where it is the left end of the zero set.
      if (a > 0) {
        EXPECT_NEAR(beta_inverse(f, a), beta(f, a), 1e-15) << name << " y=" << a;
      }
    }
  }
}

TEST(FamiliesProperty, BetaInverseConsistentWithBeta) {
  std::mt19937_64 rng(test_seed() + 2);
  SCOPED_TRACE("FDP_TEST_SEED=" + std::to_string(test_seed()));
  max_error m("abs_err_beta_of_beta_inverse");
  for (const auto& [name, f] : random_instances(rng)) {
    const double f0 = beta(f, 0.0);
    for (double y : alpha_grid(rng, 30)) {
      const double x = beta_inverse(f, y);
      ASSERT_TRUE(x >= 0.0 && x <= 1.0) << name << " y=" << y;
      if (y < f0) {
        // f(f^-1(y)) = y for y in [0, f(0)) (f continuous).
        const double e = std::fabs(beta(f, x) - y);
        m.update(e, name + " y=" + std::to_string(y));
        EXPECT_LE(e, 1e-12) << name << " y=" << y << " x=" << x;
      } else {
        EXPECT_EQ(x, 0.0) << name << " y=" << y;  // f(0) <= y: t = 0 qualifies
      }
      // Minimality: just left of x, f is above y.
      if (x > 1e-9) {
        EXPECT_GT(beta(f, x * (1 - 1e-6)), y - 1e-12) << name << " y=" << y;
      }
    }
  }
  m.report();
}

TEST(FamiliesProperty, SlopeMatchesFiniteDifferences) {
  std::mt19937_64 rng(test_seed() + 3);
  SCOPED_TRACE("FDP_TEST_SEED=" + std::to_string(test_seed()));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  max_error m("rel_err_slope_vs_central_difference");
  for (const auto& [name, f] : random_instances(rng)) {
    for (int k = 0; k < 50; ++k) {
      const double a = 0.01 + 0.98 * u(rng);
      const double h = 1e-5 * std::min(a, 1 - a);
      const double s = slope(f, a);
      const double sl = slope(f, a - h), sr = slope(f, a + h);
      if (sl != s || sr != s) {
        // A kink (or smooth curvature) inside [a - h, a + h]: the one-sided
        // slopes bracket the difference quotients.
        if (std::holds_alternative<gaussian>(f.get())) {
          // smooth: fall through to the central difference check
        } else {
          const double dq = (beta(f, a + h) - beta(f, a - h)) / (2 * h);
          EXPECT_GE(dq, std::min(sl, sr) - 1e-6 * std::fabs(sl)) << name << " a=" << a;
          EXPECT_LE(dq, std::max(sl, sr) + 1e-6 * std::fabs(sl)) << name << " a=" << a;
          continue;
        }
      }
      const double dq = (beta(f, a + h) - beta(f, a - h)) / (2 * h);
      const double e = std::fabs(dq - s) / std::fmax(std::fabs(s), 1e-3);
      m.update(e, name + " a=" + std::to_string(a));
      EXPECT_LE(e, kSlopeRel) << name << " a=" << a << " slope " << s << " dq " << dq;
    }
    // slope is the right derivative, non-decreasing (convexity) and <= 0.
    double prev = -std::numeric_limits<double>::infinity();
    for (double a : alpha_grid(rng, 30)) {
      const double s = slope(f, a);
      EXPECT_LE(s, 0.0) << name << " a=" << a;
      EXPECT_GE(s, prev - 1e-12 * std::fabs(prev)) << name << " a=" << a;
      prev = s;
    }
  }
  m.report();
}

TEST(FamiliesProperty, ProfileDeltaIsTheConjugate) {
  std::mt19937_64 rng(test_seed() + 4);
  SCOPED_TRACE("FDP_TEST_SEED=" + std::to_string(test_seed()));
  max_error m("abs_err_profile_delta_vs_brute_force");
  auto all = random_instances(rng);
  all.erase(all.begin() + 4 + 3 * 12, all.end());  // the brute force is the slow part
  for (const auto& [name, f] : all) {
    for (double eps : {-3.0, -0.7, -1e-3, 0.0, 1e-3, 0.3, 1.0, 2.5, 6.0}) {
      const double d = profile_delta(f, eps);
      const double brute = brute_profile(f, eps);
      ASSERT_TRUE(d >= 0.0 && d <= 1.0) << name << " eps=" << eps;
      const double e = std::fabs(d - brute);
      m.update(e, name + " eps=" + std::to_string(eps));
      // The brute force can only under-estimate a maximum.
      EXPECT_GE(d, brute - 1e-15) << name << " eps=" << eps;
      EXPECT_LE(e, kProfileAbs) << name << " eps=" << eps << " delta " << d << " brute " << brute;
    }
  }
  m.report();
}

TEST(FamiliesClosedForm, LaplaceProfile) {
  // delta(eps) = 1 - exp((eps - mu)/2) for |eps| <= mu; 0 above; 1 - e^eps below.
  for (double mu : {0.1, 1.0, 3.0, 20.0}) {
    const laplace l(mu);
    for (double t = -1.0; t <= 1.0; t += 0.125) {
      const double eps = t * mu;
      const double want = -std::expm1(0.5 * (eps - mu));
      EXPECT_LE(rel_err(profile_delta(l, eps), want), kClosedFormRel)
          << "mu=" << mu << " eps=" << eps;
    }
    EXPECT_EQ(profile_delta(l, mu * 1.5), 0.0);
    EXPECT_LE(rel_err(profile_delta(l, -2 * mu), -std::expm1(-2 * mu)), kClosedFormRel);
  }
}

// f_{eps,0} where e^eps overflows a double (eps > 709.78) but e^eps a does
// not (a subnormal): 1 - e^eps a, computed as 1 - e^{eps + log a}. e^eps * a
// was inf and f_{720,0}(1e-313) read 0. Truth (mpmath, 50 digits, at the
// doubles nearest 1e-313 and 1e-310, which are subnormal):
// 1 - e^720 a = 0.507929906967080139..., 1 - e^710 a = 0.977660052338382957...
TEST(FamiliesClosedForm, EpsDeltaBeyondTheExpRange) {
  EXPECT_NEAR(beta(eps_delta(720.0, 0.0), 1e-313), 0.507929906967080139, 1e-12);
  EXPECT_NEAR(beta(eps_delta(710.0, 0.0), 1e-310), 0.977660052338382957, 1e-12);
  EXPECT_NEAR(one_minus_beta(eps_delta(720.0, 0.0), 1e-313), 1 - 0.507929906967080139, 1e-12);
  EXPECT_EQ(beta(eps_delta(720.0, 0.0), 1e-300), std::exp(-720.0));  // (the branch e^-eps (1 - a))
  // the second branch e^-eps (1 - a) is subnormal there, not 0
  EXPECT_GT(beta(eps_delta(720.0, 0.0), 0.5), 0.0);
}

TEST(FamiliesClosedForm, EpsDeltaProfile) {
  // delta(eps) = max over the polygon's vertices (0, 1-d), (x*, x*), (1-d, 0),
  // (1, 0) of 1 - beta - e^eps alpha, x* = (1-d)/(1+e^eps0).
  for (double e0 : {0.0, 0.1, 1.0, 4.0}) {
    for (double d0 : {0.0, 1e-6, 0.1}) {
      const eps_delta f(e0, d0);
      const double xs = (1 - d0) / (1 + std::exp(e0));
      for (double eps = -6.0; eps <= 6.0; eps += 0.25) {
        const double e = std::exp(eps);
        const double want = std::max({0.0, d0, 1 - xs - e * xs, 1 - e * (1 - d0), 1 - e});
        EXPECT_NEAR(profile_delta(f, eps), want, 1e-15)
            << "f_{" << e0 << "," << d0 << "} eps=" << eps;
      }
    }
  }
}

TEST(FamiliesClosedForm, EdgesAndLimits) {
  const double inf = std::numeric_limits<double>::infinity();
  const gaussian g(1.0);
  EXPECT_EQ(beta(g, 0.0), 1.0);
  EXPECT_EQ(beta(g, 1.0), 0.0);
  EXPECT_EQ(one_minus_beta(g, 0.0), 0.0);
  EXPECT_EQ(slope(g, 0.0), -inf);
  EXPECT_EQ(slope(g, 1.0), 0.0);
  // G_mu at a = 1e-300 keeps relative precision in 1 - beta (~ a e^{mu z}).
  EXPECT_GT(one_minus_beta(g, 1e-300), 1e-300);
  EXPECT_EQ(beta(gaussian(0.0), 0.25), 0.75);
  const eps_delta f(1.0, 0.1);
  EXPECT_DOUBLE_EQ(beta(f, 0.0), 0.9);
  EXPECT_DOUBLE_EQ(beta_inverse(f, 0.0), 0.9);
  EXPECT_EQ(beta(f, 0.95), 0.0);
  EXPECT_EQ(slope(f, 0.95), 0.0);
  const laplace l(2.0);
  EXPECT_EQ(beta(l, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(beta(l, 0.5), 0.5 * std::exp(-2.0));
  EXPECT_DOUBLE_EQ(slope(l, 0.0), -std::exp(2.0));
  EXPECT_EQ(beta(identity{}, 0.3), 0.7);
  EXPECT_EQ(profile_delta(identity{}, 0.0), 0.0);
}

// ---------------------------------------------------------------- bad input

template <class F>
void expect_invalid(F fn, const std::string& needle, const char* call) {
  try {
    fn();
    ADD_FAILURE() << call << ": no exception (expected one naming '" << needle << "')";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << call << ": message '" << e.what() << "' does not name '" << needle << "'";
  }
}
#define EXPECT_INVALID(call, needle) expect_invalid([&] { (void)(call); }, needle, #call)

TEST(FamiliesErrors, BadParametersThrowNamingThem) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_INVALID(gaussian(-1.0), "mu=");
  EXPECT_INVALID(gaussian(nan), "mu=");
  EXPECT_INVALID(gaussian(inf), "mu=");
  EXPECT_INVALID(eps_delta(-0.5, 0.0), "eps=");
  EXPECT_INVALID(eps_delta(1.0, 1.5), "delta=");
  EXPECT_INVALID(eps_delta(1.0, -1e-9), "delta=");
  EXPECT_INVALID(eps_delta(nan, 0.0), "eps=");
  EXPECT_INVALID(laplace(-2.0), "mu=");
  EXPECT_INVALID(beta(gaussian(1.0), 1.5), "alpha=");
  EXPECT_INVALID(beta(gaussian(1.0), nan), "alpha=");
  EXPECT_INVALID(beta(laplace(1.0), -0.1), "alpha=");
  EXPECT_INVALID(one_minus_beta(eps_delta(1.0), 2.0), "alpha=");
  EXPECT_INVALID(beta_inverse(gaussian(1.0), -0.1), "y=");
  EXPECT_INVALID(slope(identity{}, 1.1), "alpha=");
  EXPECT_INVALID(profile_delta(eps_delta(1.0), nan), "eps=");
  EXPECT_INVALID(profile_delta(laplace(1.0), nan), "eps=");
  EXPECT_INVALID(profile_delta(gaussian(1.0), nan), "eps=");
  EXPECT_INVALID(tangent_alpha(tradeoff(gaussian(1.0)), 0.5), "s=");
  EXPECT_INVALID(to_curve_exact(tradeoff(gaussian(1.0))), "G_1");
}

}  // namespace
}  // namespace fdp
