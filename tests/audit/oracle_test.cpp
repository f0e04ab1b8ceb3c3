// The oracle bound: closed-form checks, monotonicity, and the exact laws it
// relies on.
#include "fdp/audit/oracle.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "fdp/audit/binomial.hpp"
#include "fdp/mech/registry.hpp"

namespace fdp::audit {
namespace {

std::optional<event_law> law_of(const std::string& spec, const std::string& a,
                                const std::string& b) {
  const auto m = mech::make_mechanism(spec);
  return exact_event_law(*m, mech::parse_answers(a), mech::parse_answers(b));
}

TEST(Oracle, RandomizedResponseClosedForm) {
  // RR with k = 2: outcomes with probabilities p, 1 - p; the best event is
  // one outcome: eps_oracle = ln(cp_lower(n p) / cp_upper(n (1 - p))).
  const auto law = law_of("randomized-response:eps=1", "0", "1");
  ASSERT_TRUE(law.has_value());
  const double p = std::exp(1.0) / (1 + std::exp(1.0)), n = 1e5, g = 0.025;
  const double want = std::log(cp_lower(n * p, n, g) / cp_upper(n * (1 - p), n, g));
  const auto o = oracle(*law, n, n, 0.95);
  EXPECT_NEAR(o.epsilon, want, 1e-9);
  EXPECT_LT(o.epsilon, 1.0);
}

// Dense output laws of 1e9 categories (16 GB) are not built: no oracle.
TEST(Oracle, HugeCategoricalOutputsHaveNoOracle) {
  EXPECT_FALSE(law_of("randomized-response:eps=1,k=1000000000", "0", "1").has_value());
  EXPECT_TRUE(law_of("randomized-response:eps=1,k=1000", "0", "1").has_value());
}

TEST(Oracle, GrowsWithSamplesTowardsTheTruth) {
  const auto law = law_of("laplace:eps=0.5", "0", "1");
  ASSERT_TRUE(law.has_value());
  double prev = 0;
  for (double n : {1e4, 1e5, 1e6, 1e7, 1e8}) {
    const double e = oracle(*law, n, n, 0.9).epsilon;
    EXPECT_GT(e, prev);
    EXPECT_LT(e, 0.5);
    prev = e;
  }
  EXPECT_GT(prev, 0.49);
  // Higher confidence, lower bound.
  EXPECT_LT(oracle(*law, 1e6, 1e6, 0.99).epsilon, oracle(*law, 1e6, 1e6, 0.9).epsilon);
  // delta > 0 lowers it too.
  EXPECT_LT(oracle(*law, 1e6, 1e6, 0.9, 0.01).epsilon, oracle(*law, 1e6, 1e6, 0.9).epsilon);
}

TEST(Oracle, LawsSumToOne) {
  // Complementary events of a categorical law add to 1; the sparse-vector
  // value law (quadrature) to 1 within its stated accuracy.
  for (const auto& [spec, a, b] : {std::tuple<const char*, const char*, const char*>{
                                       "report-noisy-max:eps=1", "1,1,1", "0,2,2"},
                                   {"above-threshold:eps=1,threshold=0.5", "0,0,1,1", "1,1,0,0"},
                                   {"svt-lyu-alg3:eps=1", "1,1,1,1", "2,2,0,0"}}) {
    const auto law = law_of(spec, a, b);
    ASSERT_TRUE(law.has_value()) << spec;
    double lo = 1, hi = 0;
    for (std::size_t i = 0; i < law->p0.size(); ++i) {
      EXPECT_GE(law->p0[i], 0.0);
      EXPECT_LE(law->p0[i], 1.0 + 1e-6);
    }
    // Largest event mass: close to 1.
    for (std::size_t i = 0; i < law->p0.size(); ++i) hi = std::max(hi, law->p0[i]);
    EXPECT_NEAR(hi, 1.0, 0.35) << spec;
    (void)lo;
  }
}

TEST(Oracle, NoLawWhereUnknown) {
  EXPECT_FALSE(law_of("laplace-fp-textbook:eps=1", "1", "0").has_value());
  EXPECT_FALSE(law_of("laplace:eps=1", "0,0", "1,1").has_value());  // two coordinates move
  EXPECT_TRUE(law_of("laplace:eps=1", "0,5", "1,5").has_value());
  EXPECT_TRUE(law_of("gaussian:mu=1", "0,0", "1,1").has_value());
  EXPECT_TRUE(law_of("noisy-max-value-exp:eps=1", "1,1", "2,2").has_value());
}

TEST(Oracle, SupportBugGivesLargeBounds) {
  // The exponential-noise max value: {output < 2} impossible on [2]*5.
  const auto law = law_of("noisy-max-value-exp:eps=0.1", "1,1,1,1,1", "2,2,2,2,2");
  ASSERT_TRUE(law.has_value());
  EXPECT_GT(oracle(*law, 2e7, 2e7, 0.9).epsilon, 2.0);
}

}  // namespace
}  // namespace fdp::audit
