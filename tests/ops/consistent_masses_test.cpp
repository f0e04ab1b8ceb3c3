// Laws that declare consistent masses (loss_law::consistent_masses: P and Q
// of one outcome set per interval) get the relative, eta form of the
// pessimistic side's errors (docs/formulas.md 12.2), which long compositions
// at small deltas need. The Gaussian mixtures and revealed mixtures of such
// laws declare it; these tests hold their brackets to closed forms (G_mu,
// where a mixture degenerates to one Gaussian: mpmath values) and check what
// each law declares.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "fdp/ops/loss_law.hpp"
#include "fdp/ops/truncated_poisson.hpp"
#include "kind_test_support.hpp"

namespace fdp {
namespace {

TEST(ConsistentMasses, MixtureLawsDeclareThemWithTheirRounding) {
  const std::shared_ptr<const loss_law> mix =
      gaussian_mixture_law(1.3, {0.0, 1.0, 2.0}, {0.9, 0.09, 0.01});
  const std::shared_ptr<const loss_law> mirrored =
      gaussian_mixture_pair_law(0.8, {0.0, -1.0}, {0.99, 0.01}, {0.0, 1.0}, {0.99, 0.01});
  const std::shared_ptr<const loss_law> sub = subsampled_gaussian_law(1.5, 1.0, 1e-4);
  for (const auto* law : {mix.get(), mirrored.get()}) {
    EXPECT_TRUE(law->consistent_masses()) << law->describe();
    EXPECT_GT(law->mass_rel(), kIntervalRel);
    EXPECT_LT(law->mass_rel(), 1e-13);
  }
  const auto both = revealed_mixture_law({{0.9, sub}, {0.1, mix}});
  EXPECT_TRUE(both->consistent_masses());
  EXPECT_GE(both->mass_rel(), mix->mass_rel());
  // a branch without consistent masses (the Laplace law's atoms) withdraws it
  const auto with_laplace = revealed_mixture_law(
      {{0.5, sub}, {0.5, std::shared_ptr<const loss_law>(make_law(laplace(1.0)))}});
  EXPECT_FALSE(with_laplace->consistent_masses());
}

// Every boundary a mixture law finds is counted in its boundary error: after
// a sweep of cells it is positive (each boundary's evaluation error) and
// tiny (the loss there within a few thousand ulps of the asked loss).
TEST(ConsistentMasses, BoundaryErrorCoversTheBoundariesFound) {
  const auto law =
      gaussian_mixture_pair_law(0.8, {0.0, -1.0}, {0.99, 0.01}, {0.0, 1.0}, {0.99, 0.01});
  double total_p = 0.0;
  for (int k = -400; k < 400; ++k) total_p += law->mass(0.01 * k, 0.01 * (k + 1)).p;
  const double eb = law->boundary_error(-4.0, 4.0);
  EXPECT_GT(total_p, 0.99);
  EXPECT_GT(eb, 0.0);
  EXPECT_LT(eb, 1e-12);
  const auto general = gaussian_mixture_law(1.3, {0.0, 1.0, 2.0}, {0.9, 0.09, 0.01});
  for (int k = -50; k < 400; ++k) general->mass(0.01 * k, 0.01 * (k + 1));
  EXPECT_GT(general->boundary_error(-0.5, 4.0), 0.0);
  EXPECT_LT(general->boundary_error(-0.5, 4.0), 1e-12);
}

// A mixture whose components all sit at one shift is that Gaussian: 10^4
// applications of N(0, 50^2) against N(1, 50^2) are G_2. mpmath: the epsilon
// of G_2 at delta 1e-9 is 13.534772219165537655 (findroot on
// Phi(-e/mu + mu/2) - e^e Phi(-e/mu - mu/2) = delta, 30 digits).
TEST(ConsistentMasses, DegenerateMixturesHoldTheGaussianClosedForm) {
  const long double truth = 13.534772219165537655L;
  for (const std::string spec :
       {"mixture-gaussian:sigma=50,sensitivities=1,weights=1,times=10000",
        "mixture-gaussian:sigma=50,sensitivities=1;1,weights=0.3;0.7,times=10000"}) {
    const interval b = test::query_bracket(spec, "eps", 1e-9);
    test::expect_contains(b, truth, spec, 1e-15, 0.0);
    EXPECT_LE(b.upper - b.lower, 3e-3 * b.upper) << spec;
  }
}

// Truncated Poisson batches at a tiny rate, a long run and delta 1e-9: the
// revealed mixture of the uncut and the cut pair was 0.44% wide on the
// engine's absolute error bounds (their floor, not the grid, set it).
TEST(ConsistentMasses, TruncatedPoissonAtATinyRateIsTight) {
  const std::string spec =
      "subsampled-gaussian:sigma=2,q=1e-4,sampling=truncated-poisson,max-batch=8,"
      "dataset-size=60000,times=10000";
  const interval b = test::query_bracket(spec, "eps", 1e-9);
  EXPECT_GT(b.lower, 0.0);
  EXPECT_LE(b.upper - b.lower, 3e-3 * b.upper) << "[" << b.lower << ", " << b.upper << "]";
}

}  // namespace
}  // namespace fdp
