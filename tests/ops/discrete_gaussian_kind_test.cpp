// Tests for the spec kind discrete-gaussian:sigma=S[,sensitivity=D] against
// answers made apart from the kind's code:
//   * golden values from mpmath (tests/golden/gen_discrete_gaussian.py, the
//     generator next to its data discrete_gaussian.csv): exact n-fold
//     compositions by convolution, sigma 0.4 to 10, n up to 20;
//   * the output distribution written from the definition, P(Z = z) ~
//     e^{-z^2/(2 sigma^2)} on the integers, enumerated in long double (its
//     moments, its total mass).
// fdp compose's brackets must contain every exact value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../golden/golden_csv.hpp"
#include "kind_test_support.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"
#include "fdp/ops/spec_kind.hpp"

namespace fdp {
namespace {

using real = long double;

// (the truth is printed to 20 digits: a relative 1e-15 of slack)
void expect_contains(const interval& b, real truth, const std::string& what) {
  test::expect_contains(b, truth, what, 1e-15L, 0.0L);
}

TEST(DiscreteGaussianKind, GoldenCompositions) {
  const auto rows = test::golden_queries("discrete_gaussian.csv");
  ASSERT_GE(rows.size(), 10u);
  for (const auto& r : rows) {
    const interval b = test::query_bracket(r.spec, r.query, r.arg);
    expect_contains(b, r.value, r.what());
    // (the default tolerance, 0.3%, on what was asked)
    EXPECT_LE(b.upper - b.lower, 3e-3 * b.upper)
        << r.what() << ": [" << b.lower << ", " << b.upper << "]";
  }
}

// The law lists the outcomes by their loss (2 z D - D^2) / (2 sigma^2) with
// the masses of the definition: its totals are 1, its P-mass at loss > 0 is
// P(Z > D/2), and the CLT hook's KL and variance are the enumerated ones.
TEST(DiscreteGaussianKind, LawAndMomentsMatchTheEnumeratedDistribution) {
  for (const auto& [sigma, d] :
       std::vector<std::pair<double, int>>{{0.7, 1}, {3.0, 2}, {40.0, 5}}) {
    const long n = static_cast<long>(std::ceil(45.0 * sigma)) + d;
    real norm = 0, above = 0, m2 = 0;
    for (long z = -n; z <= n; ++z) {
      const real w = std::exp(-static_cast<real>(z) * z / (2.0L * sigma * sigma));
      norm += w;
      if (2 * z > d) above += w;
      m2 += w * z * z;
    }
    const std::string text =
        "discrete-gaussian:sigma=" + std::to_string(sigma) + ",sensitivity=" + std::to_string(d);
    const compose_term t = make_term(parse_spec(text));
    EXPECT_TRUE(t.law->symmetric());
    const mass2 all = t.law->mass(-INFINITY, INFINITY);
    EXPECT_NEAR(all.p, 1.0, 1e-13) << text;
    EXPECT_NEAR(all.q, 1.0, 1e-13) << text;
    const mass2 pos = t.law->mass(0.0, INFINITY);
    EXPECT_NEAR(pos.p, static_cast<double>(above / norm), 1e-13) << text;
    const clt_moments m = find_spec_kind("discrete-gaussian")->clt(parse_spec(text));
    const double s2 = sigma * sigma;
    EXPECT_NEAR(m.kl, d * d / (2 * s2), 1e-15 * d * d / s2) << text;
    const double var = static_cast<double>((d / s2) * (d / s2) * (m2 / norm));
    EXPECT_NEAR(m.var, var, 1e-12 * var) << text;
  }
}

TEST(DiscreteGaussianKind, BadParametersAreRefused) {
  test::expect_refused(
      {{"discrete-gaussian", "sigma"},
       {"discrete-gaussian:sigma=0", "sigma = 0 must be in (0, 10000]"},
       {"discrete-gaussian:sigma=2e4", "sigma = 20000 must be in (0, 10000]"},
       {"discrete-gaussian:sigma=nan", "sigma"},
       {"discrete-gaussian:sigma=1,sensitivity=0",
        "sensitivity: '0' must be an integer in [1, 10000]"},
       {"discrete-gaussian:sigma=1,sensitivity=1.5", "sensitivity: '1.5' must be an integer"},
       {"discrete-gaussian:sigma=1,b=2", "unknown key 'b' for discrete-gaussian"}},
      [](const std::string& t) { (void)parse_spec(t); });
  // losses beyond +-700 with noticeable mass: the engine refuses the term
  EXPECT_THROW(compose({parse_spec("discrete-gaussian:sigma=0.02")}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace fdp
