// The --curve-out columns on mechanisms whose true curve is known: the
// certified edge (beta_upper) lies above the true two-ordering curve at
// every printed alpha, as the audit's confidence statement says (fixed
// seeds; each run holds with probability >= 0.95). The other edge is
// named tests_beta_lower because it bounds only the curve of the tests the
// audit found; this file also checks that it never exceeds the estimate.
#include <gtest/gtest.h>

#include <string>

#include "fdp/audit/audit.hpp"
#include "fdp/core/families.hpp"
#include "fdp/mech/registry.hpp"

namespace fdp::audit {
namespace {

void expect_truth_below_upper_edge(const std::string& spec, const tradeoff& truth,
                                   std::uint64_t seed) {
  SCOPED_TRACE(spec + " seed " + std::to_string(seed));
  const auto m = mech::make_mechanism(spec);
  audit_options o;
  o.seed = seed;
  o.threads = 2;
  o.oracle = false;
  const auto rep = audit_mechanism(*m, {0.0}, {1.0}, 100000, m->claim(), o);
  const auto pts = empirical_curve(rep.result);
  ASSERT_GT(pts.size(), 100u);
  for (const auto& p : pts) {
    EXPECT_LE(beta(truth, p.alpha), p.beta_upper + 1e-12) << "alpha " << p.alpha;
    EXPECT_LE(p.beta_lower, p.beta_estimate + 1e-15);
  }
}

TEST(CurveBand, TrueCurveLiesBelowTheCertifiedEdge) {
  for (std::uint64_t seed : {1, 2, 3}) {
    expect_truth_below_upper_edge("gaussian:sigma=1", tradeoff(gaussian(1.0)), seed);
    expect_truth_below_upper_edge("laplace:eps=1", tradeoff(laplace(1.0)), seed);
  }
}

}  // namespace
}  // namespace fdp::audit
