// Canary-score audits over many runs, on simulated scores with a known
// truth (out ~ N(0,1), in ~ N(mu,1): exactly mu-GDP, so every certified
// mu_lower must be <= mu and every epsilon_lower <= the GDP epsilon at the
// same delta, at the stated confidence), and bad score files.
#include "fdp/audit/canary_audit.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "fdp/audit/score_simulation.hpp"
#include "fdp/core/families.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp::audit {
namespace {

canary_audit_result run(double mu, std::uint64_t runs, std::uint64_t canaries, std::uint64_t seed,
                        const std::optional<tradeoff>& claim = std::nullopt, double delta = 1e-3) {
  canary_options o;
  o.delta = delta;
  return audit_canaries(simulate_gdp_scores(mu, runs, canaries, seed), claim, o);
}

// STATISTICAL TEST (fixed seeds, so deterministic). 50 seeds, 200 runs, one
// canary, mu = 1, confidence 0.95: each run's statements hold with
// probability >= 0.95, so the number of seeds with mu_lower > mu (or
// epsilon_lower above the true epsilon) is at most Binomial(50, 0.05), and
// P[Bin(50, 0.05) >= 7] = 0.012: the test allows 6. (Measured: 0 of 50;
// largest mu_lower 0.70, largest epsilon_lower 1.01 against the true 3.09:
// the union bound over ~40 tests is conservative.)
TEST(CanaryAudit, CertifiedBoundsBelowTheTruthOverSeeds) {
  const double mu = 1.0, delta = 1e-3, eps_true = gdp_eps(mu, delta);
  int mu_over = 0, eps_over = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const auto r = run(mu, 200, 1, seed, std::nullopt, delta);
    mu_over += r.mu_lower > mu;
    eps_over += r.epsilon_lower > eps_true;
  }
  EXPECT_LE(mu_over, 6);
  EXPECT_LE(eps_over, 6);
}

TEST(CanaryAudit, GrowsTowardTheTruthWithMoreRuns) {
  const double mu = 2.0;
  const double small = run(mu, 200, 1, 7).mu_lower, large = run(mu, 20000, 1, 7).mu_lower;
  EXPECT_GT(large, small);
  EXPECT_GT(large, 0.7 * mu);
  EXPECT_LE(large, mu);
  // The GDP fit is an estimate of mu, close at this size.
  EXPECT_NEAR(run(mu, 20000, 1, 7).canaries[0].gdp_fit, mu, 0.1);
}

TEST(CanaryAudit, SeveralCanariesPerRunAndAClaim) {
  const auto r = run(2.0, 1000, 4, 3, tradeoff(gaussian(0.5)));
  ASSERT_EQ(r.canaries.size(), 4u);
  for (const auto& c : r.canaries) EXPECT_EQ(c.n_in + c.n_out, 1000u);
  EXPECT_EQ(r.verdict, "violation");  // mu = 2 scores against a 0.5-GDP claim
  ASSERT_TRUE(r.w.has_value());
  EXPECT_EQ(run(2.0, 1000, 4, 3, tradeoff(gaussian(2.5))).verdict, "consistent");
  EXPECT_EQ(run(2.0, 1000, 4, 3, tradeoff(eps_delta(1.0, 1.0))).verdict, "vacuous");
  EXPECT_EQ(run(2.0, 6, 1, 3, tradeoff(gaussian(0.5))).verdict, "inconclusive");
}

std::string error_of(const std::string& text) {
  const std::string path = ::testing::TempDir() + "fdp_scores.csv";
  {
    std::ofstream f(path);
    f << text;
  }
  try {
    audit_canaries(read_scores(path), std::nullopt, {});
  } catch (const std::invalid_argument& e) {
    std::remove(path.c_str());
    return e.what();
  }
  std::remove(path.c_str());
  return "accepted";
}

TEST(CanaryAudit, BadScoreFilesAreRefused) {
  EXPECT_NE(error_of("score,in,canary,run\n1,1,a,r1\n2,1,a,r2\n").find("canary 'a' has no 'out'"),
            std::string::npos);
  EXPECT_NE(error_of("1,2,a,r1\n").find(":1: inclusion bit '2' must be 0 (out) or 1 (in)"),
            std::string::npos);
  EXPECT_NE(error_of("1,1,a,r1\n0,0,a,r1\n").find(":2: canary 'a' appears twice in run 'r1'"),
            std::string::npos);
  EXPECT_NE(error_of("x,1,a,r1\n").find("score 'x' is not a number"), std::string::npos);
  EXPECT_NE(error_of("1,1,a\n2,0\n").find(":2: 2 fields, but the first row has 3"),
            std::string::npos);
  EXPECT_NE(error_of("score,in\n").find("no score rows"), std::string::npos);
  EXPECT_NE(error_of("1,1\n\n0,0\n").find(":2: empty line"), std::string::npos);
  EXPECT_EQ(error_of("# comment\nscore,in\n1,1\n0,0\n\n"), "accepted");
  canary_options bad;
  bad.confidence = 1.0;
  EXPECT_THROW(audit_canaries(simulate_gdp_scores(1, 10, 1, 1), std::nullopt, bad),
               std::invalid_argument);
}

}  // namespace
}  // namespace fdp::audit
