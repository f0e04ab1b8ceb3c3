// Tests for random allocation (each record in exactly k of t steps): the
// certified lower bound of fdp/ops/random_allocation.hpp and the dpsgd route
// (fdp/budget/dpsgd.hpp) against truths computed outside them: the Gaussian
// composition when every step is used, balls-in-bins when k = 1, and
// seeded Monte Carlo of the dominating pair itself.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "fdp/budget/dpsgd.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/random_allocation.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {
namespace {

TEST(RandomAllocationLower, EveryStepUsedIsTheGaussianComposition) {
  // k = t = 4: the record is in every step, G_{2/sigma} exactly; the sum of
  // the outputs is then the optimal test, so the bound meets the truth
  const std::vector<double> deltas{1e-5, 1e-3};
  const std::vector<double> lo = random_allocation_epsilon_lower(2.0, 4, 4, deltas);
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    const double truth = gdp_eps(1.0, deltas[i]);
    EXPECT_LE(lo[i], truth);
    EXPECT_GE(lo[i], truth * (1 - 1e-6));
  }
}

TEST(RandomAllocationLower, OneUseIsInsideTheBallsInBinsBracket) {
  // k = 1 is a balls-in-bins epoch, whose bracket fdp certifies separately;
  // for it the statistic sum_i Y_i is sufficient: the bound is nearly tight
  const double lo = random_allocation_epsilon_lower(2.0, 20, 1, {1e-5})[0];
  const composition c = compose({parse_spec("balls-in-bins:sigma=2,steps=20")});
  const interval b = c.epsilon(1e-5);
  EXPECT_LE(lo, b.upper);
  EXPECT_GE(lo, b.lower * (1 - 1e-3));
}

// delta(eps) of the 2-of-3 pair in both orders, by seeded Monte Carlo of
// its likelihood ratio L = (Y1 Y2 + Y1 Y3 + Y2 Y3) / 3 under P, with the
// standard error of the larger.
struct mc_delta {
  double value, se;
};

mc_delta two_of_three_delta(double mu, double eps, int n) {
  std::mt19937_64 rng(20261127);
  std::normal_distribution<double> z;
  double s[2] = {0, 0}, s2[2] = {0, 0};
  for (int i = 0; i < n; ++i) {
    double y[3];
    for (double& v : y) v = std::exp(mu * z(rng) - 0.5 * mu * mu);
    const double l = (y[0] * y[1] + y[0] * y[2] + y[1] * y[2]) / 3.0;
    const double d[2] = {std::max(0.0, l - std::exp(eps)), std::max(0.0, 1 - std::exp(eps) * l)};
    for (int o = 0; o < 2; ++o) s[o] += d[o], s2[o] += d[o] * d[o];
  }
  const int o = s[0] >= s[1] ? 0 : 1;
  const double m = s[o] / n;
  return {m, std::sqrt(std::max(0.0, s2[o] / n - m * m) / n)};
}

TEST(RandomAllocationLower, TwoOfThreeStepsIsBelowMonteCarloOfItsPair) {
  const double sigma = 2.0, delta = 1e-3;
  const double lo = random_allocation_epsilon_lower(sigma, 3, 2, {delta})[0];
  ASSERT_GT(lo, 0.0);
  // sound: at eps = lo the pair's delta is still >= delta (5 standard errors)
  const mc_delta at = two_of_three_delta(1.0 / sigma, lo, 2000000);
  EXPECT_GE(at.value + 5 * at.se, delta) << "eps_lower " << lo;
  // and not vacuous: 5% above it the pair's delta has fallen below delta
  const mc_delta above = two_of_three_delta(1.0 / sigma, 1.05 * lo, 2000000);
  EXPECT_LT(above.value - 5 * above.se, delta) << "eps_lower " << lo;
}

TEST(RandomAllocationLower, RefusesBadParameters) {
  EXPECT_THROW(random_allocation_epsilon_lower(0.0, 10, 1, {1e-5}), std::invalid_argument);
  EXPECT_THROW(random_allocation_epsilon_lower(1.0, 10, 11, {1e-5}), std::invalid_argument);
  EXPECT_THROW(random_allocation_epsilon_lower(1.0, 10, 0, {1e-5}), std::invalid_argument);
  EXPECT_THROW(random_allocation_epsilon_lower(1.0, 0, 1, {1e-5}), std::invalid_argument);
  EXPECT_THROW(random_allocation_epsilon_lower(1.0, 10, 2, {1.0}), std::invalid_argument);
}

dpsgd_config allocation_run(double sigma, double q, std::int64_t steps, std::int64_t uses) {
  dpsgd_config c;
  c.sigma = sigma;
  c.q = q;
  c.steps = steps;
  c.uses = uses;
  c.sampling = sampling_scheme::random_allocation;
  return c;
}

TEST(DpsgdRandomAllocation, EveryStepUsedBracketsTheGaussianComposition) {
  const dpsgd_report r = account_dpsgd(allocation_run(2.0, 1.0, 4, 4));
  const double truth = gdp_eps(1.0, 1e-5);
  EXPECT_LE(r.epsilon.lower, truth);
  EXPECT_GE(r.epsilon.upper, truth);
  EXPECT_LT(r.epsilon.upper, truth * 1.005);
}

TEST(DpsgdRandomAllocation, OneUseMeetsBallsInBins) {
  // one use in 20 steps is one balls-in-bins epoch of 20 steps
  const dpsgd_report ra = account_dpsgd(allocation_run(2.0, 0.05, 20, 1));
  dpsgd_config b = allocation_run(2.0, 0.05, 20, 0);
  b.sampling = sampling_scheme::balls_in_bins;
  b.steps_per_epoch = 20;
  const dpsgd_report bb = account_dpsgd(b);
  EXPECT_LE(ra.epsilon.lower, bb.epsilon.upper);
  EXPECT_GE(ra.epsilon.upper, bb.epsilon.lower);
  EXPECT_LT(ra.epsilon.upper / ra.epsilon.lower - 1, 0.01);
}

TEST(DpsgdRandomAllocation, ReplaceOneAndUsesFromTheRate) {
  // q x steps = 2 uses; replace-one is wider than zero-out and contains it
  dpsgd_config c = allocation_run(2.0, 0.1, 20, 0);
  const dpsgd_report zo = account_dpsgd(c);
  c.neighbours = neighbour_relation::replace_one;
  const dpsgd_report ro = account_dpsgd(c);
  EXPECT_EQ(allocation_uses(c), 2);
  EXPECT_LE(ro.epsilon.lower, ro.epsilon.upper);
  EXPECT_GE(ro.epsilon.upper, zo.epsilon.upper);
  EXPECT_NE(ro.route.find("group-2"), std::string::npos);
}

TEST(DpsgdRandomAllocation, BadInputNamesUses) {
  auto message = [](const dpsgd_config& c) -> std::string {
    try {
      account_dpsgd(c);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message(allocation_run(2.0, 0.051, 100, 0)).find("uses"), std::string::npos);
  EXPECT_NE(message(allocation_run(2.0, 0.05, 100, 101)).find("uses"), std::string::npos);
  dpsgd_config poisson = allocation_run(2.0, 0.05, 100, 5);
  poisson.sampling = sampling_scheme::poisson;
  EXPECT_NE(message(poisson).find("uses"), std::string::npos);
  dpsgd_config phases = allocation_run(2.0, 0.05, 100, 5);
  phases.later_phases.push_back({0.05, 2.0, 100});
  EXPECT_NE(message(phases).find("one phase"), std::string::npos);
}

}  // namespace
}  // namespace fdp
