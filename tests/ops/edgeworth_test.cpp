// Tests of the Edgeworth approximation (fdp/ops/edgeworth.hpp) against
// independent mpmath values: papers/edgeworth/gen_golden.py (30 digits,
// adaptive quadrature of the loss moments, mpmath.findroot for t).
// The approximation is not a bound; these tests check the arithmetic only.
#include "fdp/ops/edgeworth.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "fdp/core/error.hpp"

namespace {

constexpr double kCumulantRel = 1e-12;  // Laplace: Gauss-Legendre on a smooth integrand
constexpr double kQuadRel = 1e-10;      // subsampled Gaussian: Gauss-Kronrod, stated accuracy
constexpr double kBetaAbs = 1e-10;

void expect_rel(double got, double want, double rel) {
  EXPECT_NEAR(got, want, rel * std::fabs(want)) << "want " << want;
}

TEST(Edgeworth, LaplaceCumulants) {
  const fdp::loss_cumulants c = fdp::laplace_loss_cumulants(0.5);
  expect_rel(c.mean_p, -0.10653065971263342, kCumulantRel);  // = -(mu + e^-mu - 1)
  expect_rel(c.var_p, 0.20599791997802398, kCumulantRel);
  expect_rel(c.k3_p, 0.041226489956331129, kCumulantRel);
  // symmetric pair: the law under Q is that of -L under P
  EXPECT_EQ(c.mean_q, -c.mean_p);
  EXPECT_EQ(c.var_q, c.var_p);
  EXPECT_EQ(c.k3_q, -c.k3_p);
}

TEST(Edgeworth, SubsampledGaussianCumulants) {
  const fdp::loss_cumulants c = fdp::subsampled_gaussian_loss_cumulants(1.0, 0.1);
  expect_rel(c.mean_p, -0.0063861363390865875, kQuadRel);
  expect_rel(c.var_p, 0.011288665936566557, kQuadRel);
  expect_rel(c.k3_p, 0.0037995251990771435, kQuadRel);
  expect_rel(c.mean_q, 0.0072577304864311303, kQuadRel);
  expect_rel(c.var_q, 0.016569508104557946, kQuadRel);
  expect_rel(c.k3_q, 0.0072804944583361447, kQuadRel);
}

// Narrow noise: e^u overflowed at the integration range's ends and inf times
// a zero density made the moments NaN (sigma <= 0.05, or q = 1). With q = 1
// the loss is that of G_{1/sigma}: mean -mu^2/2, variance mu^2 under P.
TEST(Edgeworth, NarrowSubsampledGaussianCumulantsAreFinite) {
  for (double s : {0.1, 0.05, 0.02}) {
    const fdp::loss_cumulants g = fdp::subsampled_gaussian_loss_cumulants(s, 1.0);
    const double mu = 1.0 / s;
    EXPECT_NEAR(g.mean_p, -0.5 * mu * mu, 1e-9 * mu * mu) << s;
    EXPECT_NEAR(g.var_p, mu * mu, 1e-9 * mu * mu) << s;
    const fdp::loss_cumulants c = fdp::subsampled_gaussian_loss_cumulants(s, 0.01);
    EXPECT_TRUE(std::isfinite(c.mean_p) && std::isfinite(c.var_p) && c.var_p > 0 &&
                std::isfinite(c.k3_p) && std::isfinite(c.mean_q) && std::isfinite(c.var_q) &&
                c.var_q > 0 && std::isfinite(c.k3_q))
        << s;
  }
}

TEST(Edgeworth, BetaAgainstMpmath) {
  const auto sg = fdp::times(fdp::subsampled_gaussian_loss_cumulants(1.0, 0.1), 20);
  EXPECT_NEAR(fdp::edgeworth_beta(sg, 0.05), 0.85564032652465206, kBetaAbs);
  EXPECT_NEAR(fdp::normal_beta(sg, 0.05), 0.81155672696950851, kBetaAbs);
  const auto lap = fdp::times(fdp::laplace_loss_cumulants(1.0 / std::sqrt(10.0)), 10);
  EXPECT_NEAR(fdp::edgeworth_beta(lap, 0.1), 0.62600000692575678, kBetaAbs);
}

TEST(Edgeworth, GaussianIsExact) {
  // k3 = 0 and the normal approximation of G_mu compositions is exact:
  // 4 x G_0.5 = G_1, G_1(a) = Phi(Phi^-1(1-a) - 1).
  const auto g = fdp::times(fdp::gaussian_loss_cumulants(0.5), 4);
  for (double a : {0.01, 0.1, 0.5, 0.9})
    EXPECT_NEAR(fdp::edgeworth_beta(g, a), fdp::normal_beta(g, a), 1e-14) << a;
  // G_1(0.05) = Phi(Phi^-1(0.95) - 1) (mpmath)
  EXPECT_NEAR(fdp::normal_beta(g, 0.05), 0.74048897715855593, 1e-12);
}

TEST(Edgeworth, BadInput) {
  EXPECT_THROW(fdp::laplace_loss_cumulants(0.0), std::invalid_argument);
  EXPECT_THROW(fdp::subsampled_gaussian_loss_cumulants(1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(fdp::times(fdp::gaussian_loss_cumulants(1.0), 0), std::invalid_argument);
  EXPECT_THROW(fdp::edgeworth_beta(fdp::gaussian_loss_cumulants(1.0), 1.0), std::invalid_argument);
}

}  // namespace
