// Tests for the spec kind mixture-gaussian:sigma=S,sensitivities=..,weights=..
// and its law (gaussian_mixture_law) against answers made apart from them:
//   * golden values from mpmath (tests/golden/gen_mixture_gaussian.py, the
//     generator next to its data mixture_gaussian.csv): the worse order's
//     delta once (normal tails at the loss root) and twice (quadrature),
//     epsilon once;
//   * the two-component case against the subsampled Gaussian's own law,
//     whose inverse loss is in closed form (written apart).
// fdp compose's brackets must contain every exact value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../golden/golden_csv.hpp"
#include "fdp/budget/calibrate.hpp"
#include "fdp/budget/ledger.hpp"
#include "fdp/core/error.hpp"
#include "kind_test_support.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/compose_queries.hpp"
#include "fdp/ops/loss_law.hpp"
#include "fdp/ops/spec.hpp"
#include "fdp/ops/spec_kind.hpp"

namespace fdp {
namespace {

TEST(MixtureGaussianKind, GoldenValues) {
  const auto rows = test::golden_queries("mixture_gaussian.csv");
  ASSERT_GE(rows.size(), 8u);
  for (const auto& r : rows) {
    const interval b = test::query_bracket(r.spec, r.query, r.arg);
    // (the truth agrees to 13 digits between two precisions)
    test::expect_contains(b, r.value, r.what(), 1e-12, 0.0);
    EXPECT_LE(b.upper - b.lower, 3e-3 * b.upper)
        << r.what() << ": [" << b.lower << ", " << b.upper << "]";
  }
}

// Shifts {0, d} with weights {1 - q, q} are the Poisson-subsampled Gaussian:
// the masses of loss intervals agree with that law's (closed-form inverse).
TEST(MixtureGaussianKind, TwoComponentsAreTheSubsampledGaussian) {
  const auto mix = gaussian_mixture_law(1.3, {0.0, 2.0}, {0.97, 0.03});
  const auto sub = subsampled_gaussian_law(1.3, 2.0, 0.03);
  EXPECT_FALSE(mix->symmetric());
  EXPECT_NEAR(mix->lo(), sub->lo(), 1e-15);
  for (const auto& [a, b] : std::vector<std::pair<double, double>>{
           {-0.02, 0.0}, {0.0, 0.5}, {0.5, 3.0}, {3.0, 12.0}, {-INFINITY, INFINITY}}) {
    const mass2 m = mix->mass(a, b), s = sub->mass(a, b);
    EXPECT_NEAR(m.p, s.p, 1e-13 * std::max(s.p, 1e-300) + 1e-300) << a << ", " << b;
    EXPECT_NEAR(m.q, s.q, 1e-13 * std::max(s.q, 1e-300) + 1e-300) << a << ", " << b;
  }
}

// The law remembers its last few boundaries per thread (x_of): laws asked
// in turn, a law made in the place of a freed one, and loss 0 asked first
// (an empty memo slot once read as loss 0 at x = 0) answer as a fresh law.
TEST(MixtureGaussianKind, RememberedBoundariesBelongToTheirLaw) {
  const std::vector<std::pair<double, double>> cells{{0.0, 0.5}, {-0.02, 0.0}, {0.5, 3.0},
                                                     {0.0, 0.5}, {3.0, 12.0},  {-0.02, 0.5}};
  auto fresh = [](double sigma, double a, double b) {
    return gaussian_mixture_law(sigma, {0.0, 1.0, 2.0}, {0.9, 0.09, 0.01})->mass(a, b);
  };
  const auto one = gaussian_mixture_law(1.3, {0.0, 1.0, 2.0}, {0.9, 0.09, 0.01});
  const auto two = gaussian_mixture_law(0.7, {0.0, 1.0, 2.0}, {0.9, 0.09, 0.01});
  for (const auto& [a, b] : cells) {
    for (const auto& [law, sigma] : {std::pair{one.get(), 1.3}, std::pair{two.get(), 0.7}}) {
      const mass2 m = law->mass(a, b), f = fresh(sigma, a, b);
      EXPECT_EQ(m.p, f.p) << sigma << ": " << a << ", " << b;
      EXPECT_EQ(m.q, f.q) << sigma << ": " << a << ", " << b;
    }
  }
  // and the cells add up (a boundary read from another law would not)
  for (const auto* law : {one.get(), two.get()}) {
    const mass2 l = law->mass(-0.02, 0.0), r = law->mass(0.0, 0.5), lr = law->mass(-0.02, 0.5);
    EXPECT_NEAR(l.p + r.p, lr.p, 1e-15);
    EXPECT_NEAR(l.q + r.q, lr.q, 1e-15);
    EXPECT_GT(r.p, 0.01);
  }
}

TEST(MixtureGaussianKind, BadParametersAreRefused) {
  test::expect_refused(
      {{"mixture-gaussian:sigma=1,sensitivities=0;1,weights=0.9;0.2", "must sum to 1"},
       {"mixture-gaussian:sigma=1,sensitivities=0;1,weights=1", "as many numbers"},
       {"mixture-gaussian:sigma=1,sensitivities=0;-1,weights=0.5;0.5", "shift"},
       {"mixture-gaussian:sigma=1,sensitivities=0;0,weights=0.5;0.5", "one > 0"},
       {"mixture-gaussian:sigma=1,sensitivities=0;x,weights=0.5;0.5", "'x' is not a number"},
       {"mixture-gaussian:sigma=1,sensitivities=1,weights=0", "weight"},
       {"mixture-gaussian:sigma=0,sensitivities=1,weights=1", "sigma"},
       {"mixture-gaussian:sigma=1,weights=1", "sensitivities"}},
      [](const std::string& t) { (void)make_term(parse_spec(t)); });
}

}  // namespace
}  // namespace fdp

namespace fdp {
namespace {

// The ledger records a mixture and groups equal ones; calibrate solves for
// its sigma. Both agree with compose on the same composition.
TEST(MixtureGaussianKind, LedgerAndCalibrate) {
  const std::string m = "mixture-gaussian:sigma=5,sensitivities=0;1,weights=0.5;0.5";
  accountant_options plan;  // (the tight composition's groups are checked)
  plan.mode = ledger_mode::plan;
  accountant a(5.0, 1e-5, plan);
  a.add(m);
  a.add(m + ",times=3");
  EXPECT_EQ(a.groups(), 1u);
  const interval spent = a.spent(),
                 direct = compose({parse_spec(m + ",times=4")}, {}).epsilon(1e-5);
  EXPECT_LE(spent.lower, direct.upper);
  EXPECT_LE(direct.lower, spent.upper);
  const calibration_result r =
      calibrate("mixture-gaussian:sensitivities=0;1,weights=0.9;0.1,times=10", "sigma", 2.0, 1e-5);
  EXPECT_LE(r.epsilon.upper, 2.0);
  const std::string at = "mixture-gaussian:sigma=" + detail::format_value(r.value) +
                         ",sensitivities=0;1,weights=0.9;0.1,times=10";
  EXPECT_LE(compose({parse_spec(at)}, {}).epsilon(1e-5).upper, 2.0);
}

// User-level DP-SGD: K = 3 examples per user at q = 0.1 is the mixture of
// shifts 0..3 with Binomial(3, 0.1) weights (0.729, 0.243, 0.027, 0.001),
// whose values the golden table has (mpmath, gen_mixture_gaussian.py).
TEST(SubsampledGaussianGroup, IsTheBinomialMixture) {
  const std::vector<spec> specs{parse_spec("subsampled-gaussian:sigma=1.5,q=0.1,group=3")};
  const query_compositions q = compose_for_queries(specs, {}, {1e-5}, {1.0});
  const interval d = q.delta_source().delta(1.0), e = q.for_epsilons.epsilon(1e-5);
  EXPECT_LE(d.lower, 0.001164038049595448 * (1 + 1e-12));
  EXPECT_GE(d.upper, 0.001164038049595448 * (1 - 1e-12));
  EXPECT_LE(e.lower, 2.3283868910532227 * (1 + 1e-12));
  EXPECT_GE(e.upper, 2.3283868910532227 * (1 - 1e-12));
  // group = 1 is the one-example law; q = 1 is the Gaussian with shift K d
  const compose_term one = make_term(parse_spec("subsampled-gaussian:sigma=1.5,q=0.1,group=1"));
  EXPECT_EQ(one.law->describe(), subsampled_gaussian_law(1.5, 1.0, 0.1)->describe());
  const compose_term all = make_term(parse_spec("subsampled-gaussian:sigma=1.5,q=1,group=3"));
  ASSERT_TRUE(all.closed.has_value());
  EXPECT_NEAR(compose({parse_spec("subsampled-gaussian:sigma=1.5,q=1,group=3")}, {}).mu().upper,
              2.0, 1e-9);
  // the formulas for one example per user refuse the others
  EXPECT_FALSE(spec_rdp(specs[0], {2.0, 8.0}).not_applicable.empty());
  EXPECT_THROW(parse_spec("subsampled-gaussian:sigma=1,q=0.1,group=0"), std::invalid_argument);
  EXPECT_THROW(parse_spec("subsampled-gaussian:sigma=1,q=0.1,group=1.5"), std::invalid_argument);
}

}  // namespace
}  // namespace fdp
