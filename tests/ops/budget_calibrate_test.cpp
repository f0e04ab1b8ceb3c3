// Tests for fdp/budget/calibrate.hpp: the returned value meets the target by
// the certified bound (recomputed here independently), and is within 0.1% of
// the smallest (largest) value that meets it, found here by an independent
// bisection on the engine's certified bound; closed forms against the exact
// answer; integer search for times; every bad input.
#include "fdp/budget/calibrate.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "fdp/ops/convert.hpp"

namespace fdp {
namespace {

constexpr double kWithin = 1e-3;  // the 0.1% target

interval eps_at(const std::string& s, double delta, double tol) {
  compose_options o;
  o.tolerance = tol;
  o.delta_hint = delta;
  return compose({parse_spec(s)}, o).epsilon(delta);
}

std::string with(const std::string& base, const std::string& key, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return base + "," + key + "=" + buf;
}

// Independent bisection for the smallest x with certified U(x) <= target
// (decreasing privacy loss in x), in log x, at a tight tolerance.
double bisect_smallest(const std::string& base, const std::string& key, double target, double delta,
                       double lo, double hi) {
  // the bracket must be valid at this tolerance
  EXPECT_GT(eps_at(with(base, key, lo), delta, 3e-4).upper, target);
  EXPECT_LE(eps_at(with(base, key, hi), delta, 3e-4).upper, target);
  for (int i = 0; i < 30 && hi / lo - 1 > 5e-5; ++i) {
    const double mid = std::sqrt(lo * hi);
    if (eps_at(with(base, key, mid), delta, 3e-4).upper <= target)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

TEST(Calibrate, GaussianSigmaIsTheClosedForm) {
  const calibration_result r = calibrate("gaussian:times=100", "sigma", 10.0, 1e-5);
  // composed mu = sqrt(100)/sigma must equal gdp_mu(10, 1e-5)
  const double exact = 10.0 / gdp_mu(10.0, 1e-5);
  EXPECT_LE(r.epsilon.upper, 10.0);
  EXPECT_NEAR(r.value / exact, 1.0, 1e-9);
  EXPECT_TRUE(r.smallest);
  // at the closed form's own root the epsilon can land an ulp above the
  // target: the returned value must meet it exactly (it gave 0.10000000000000003)
  const calibration_result t = calibrate("gaussian", "sigma", 0.1, 1e-10);
  EXPECT_LE(t.epsilon.upper, 0.1);
  EXPECT_NEAR(t.value / (1.0 / gdp_mu(0.1, 1e-10)), 1.0, 1e-12);
}

TEST(Calibrate, LaplaceBMeetsTargetAndIsWithinTenthPercent) {
  const double target = 1.0, delta = 1e-6;
  const calibration_result r = calibrate("laplace:times=100", "b", target, delta);
  // meets the target, recomputed independently
  EXPECT_LE(eps_at(with("laplace:times=100", "b", r.value), delta, 5e-4).upper, target);
  EXPECT_LE(r.epsilon.upper, target);
  const double ref =
      bisect_smallest("laplace:times=100", "b", target, delta, r.value * 0.97, r.value * 1.03);
  EXPECT_LE(std::fabs(r.value / ref - 1.0), kWithin) << "value " << r.value << " bisection " << ref;
  // the certified gap: a point within 0.1% below is certainly infeasible
  EXPECT_LE(r.certified_gap, kWithin);
  EXPECT_GT(eps_at(with("laplace:times=100", "b", r.value / (1 + kWithin)), delta, 2e-4).lower,
            target);
}

TEST(Calibrate, DpSgdSigmaMeetsTargetAndIsWithinTenthPercent) {
  const std::string base = "subsampled-gaussian:q=0.01,times=1000";
  const double target = 2.0, delta = 1e-5;
  const calibration_result r = calibrate(base, "sigma", target, delta);
  EXPECT_LE(eps_at(with(base, "sigma", r.value), delta, 5e-4).upper, target);
  EXPECT_LE(r.value, r.hi);
  EXPECT_GE(r.value, r.lo);
  const double ref = bisect_smallest(base, "sigma", target, delta, r.value * 0.97, r.value * 1.03);
  EXPECT_LE(std::fabs(r.value / ref - 1.0), kWithin) << "value " << r.value << " bisection " << ref;
  EXPECT_LE(r.certified_gap, kWithin);
  EXPECT_LE(r.evaluations, 20);
}

TEST(Calibrate, SamplingRateIsTheLargestMeetingTheTarget) {
  const std::string base = "subsampled-gaussian:sigma=1,times=1000";
  const calibration_result r = calibrate(base, "q", 2.0, 1e-5);
  EXPECT_FALSE(r.smallest);
  EXPECT_LE(eps_at(with(base, "q", r.value), 1e-5, 5e-4).upper, 2.0);
  EXPECT_GT(eps_at(with(base, "q", r.value * (1 + kWithin)), 1e-5, 2e-4).lower, 2.0);
}

TEST(Calibrate, SamplingRateAtItsLimit) {
  const calibration_result r = calibrate("subsampled-gaussian:sigma=50", "q", 1.0, 1e-5);
  EXPECT_TRUE(r.at_limit);
  EXPECT_EQ(r.value, 1.0);
}

TEST(Calibrate, TimesIsTheLargestInteger) {
  const calibration_result r = calibrate("laplace:b=10", "times", 5.0, 1e-6);
  const auto T = static_cast<long long>(r.value);
  EXPECT_EQ(static_cast<double>(T), r.value);
  EXPECT_LE(eps_at("laplace:b=10,times=" + std::to_string(T), 1e-6, 5e-4).upper, 5.0);
  EXPECT_GT(eps_at("laplace:b=10,times=" + std::to_string(T + 1), 1e-6, 5e-4).upper, 5.0);
  // Gaussian times: exact, mu = sqrt(T)/sigma
  const calibration_result g = calibrate("gaussian:sigma=4", "times", 3.0, 1e-5);
  const double Tmax = std::floor(std::pow(4.0 * gdp_mu(3.0, 1e-5), 2));
  EXPECT_EQ(g.value, Tmax);
  // the whole range, up to times = 1e12 (doubling from 1 stopped at 2^39)
  const calibration_result l = calibrate("gdp:mu=1e-7", "times", 10.0, 1e-5);
  EXPECT_EQ(l.value, 1e12);
  EXPECT_TRUE(l.at_limit);
}

TEST(Calibrate, WithFixedCompanions) {
  // the budget left by a fixed Laplace release
  const calibration_result r = calibrate("gaussian", "sigma", 2.0, 1e-5, {"laplace:b=2"});
  compose_options o;
  o.delta_hint = 1e-5;
  const interval e =
      compose({parse_spec(with("gaussian:times=1", "sigma", r.value)), parse_spec("laplace:b=2")},
              o)
          .epsilon(1e-5);
  EXPECT_LE(e.upper, 2.0);
}

TEST(Calibrate, BadInput) {
  EXPECT_THROW(calibrate("gaussian:times=10", "b", 1.0, 1e-5),
               std::invalid_argument);  // wrong param
  EXPECT_THROW(calibrate("gaussian:sigma=1", "sigma", 1.0, 1e-5),
               std::invalid_argument);                                               // already set
  EXPECT_THROW(calibrate("nosuch:x=1", "sigma", 1.0, 1e-5), std::invalid_argument);  // unknown spec
  EXPECT_THROW(calibrate("id", "sigma", 1.0, 1e-5), std::invalid_argument);  // nothing to solve
  EXPECT_THROW(calibrate("gaussian", "sigma", 0.0, 1e-5), std::invalid_argument);  // eps
  EXPECT_THROW(calibrate("gaussian", "sigma", 1.0, 0.0), std::invalid_argument);   // delta
  EXPECT_THROW(calibrate("gaussian", "sigma", 1.0, 1e-5, {"bad spec"}), std::invalid_argument);
  EXPECT_THROW(calibrate("gaussian:foo=1", "sigma", 1.0, 1e-5),
               std::invalid_argument);  // unknown key
  // no value meets the target: the fixed companion alone exceeds it
  EXPECT_THROW(calibrate("gaussian", "sigma", 0.5, 1e-5, {"laplace:b=1"}), std::invalid_argument);
  // even one application exceeds the target
  EXPECT_THROW(calibrate("laplace:b=0.1", "times", 1.0, 1e-5), std::invalid_argument);
}

}  // namespace
}  // namespace fdp
