// From counts to statements: bounds, epsilon and mu formulas, mirrors,
// verdicts and the curve, on hand-made plans with known counts.
#include "fdp/audit/evaluate.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "fdp/audit/binomial.hpp"
#include "fdp/core/normal.hpp"

namespace fdp::audit {
namespace {

/// A plan with one cut view at 0 (cells x <= 0, x > 0) and one test of the
/// event {x > 0}.
plan one_test_plan(int ordering, double gamma, const std::string& role = "epsilon+claim") {
  plan p;
  p.confidence = 0.95;
  p.selection[0] = p.selection[1] = 1000;
  view v;
  v.type = view::kind::cuts;
  v.cuts = {0.0};
  v.label = "output";
  p.views.push_back(v);
  test t;
  t.view = 0;
  t.in = {0, 1};
  t.ordering = ordering;
  t.gamma = gamma;
  t.role = role;
  t.description = "output > 0";
  t.complement = "output <= 0";
  p.tests.push_back(t);
  return p;
}

eval_counts counts_of(const plan& p, std::uint64_t out0, std::uint64_t in0, std::uint64_t out1,
                      std::uint64_t in1) {
  eval_counts c;
  c.init(p);
  c.cells[0][0] = {out0, in0};
  c.cells[1][0] = {out1, in1};
  c.n[0] = out0 + in0;
  c.n[1] = out1 + in1;
  return c;
}

TEST(Evaluate, BoundsAndEpsilon) {
  const plan p = one_test_plan(0, 0.025);
  const auto c = counts_of(p, 900, 100, 500, 500);
  const audit_result r = evaluate(p, c, eps_delta(0.5), 0.0);
  ASSERT_EQ(r.tests.size(), 1u);
  const auto& x = r.tests[0];
  EXPECT_EQ(x.kP, 100u);
  EXPECT_EQ(x.kQ, 500u);
  const double pU = cp_upper(100, 1000, 0.025), qL = cp_lower(500, 1000, 0.025);
  EXPECT_DOUBLE_EQ(x.alpha_upper, pU);
  EXPECT_DOUBLE_EQ(x.beta_upper, 1 - qL);
  const double eps = std::max(std::log(qL / pU), std::log((1 - pU) / (1 - qL)));
  EXPECT_NEAR(x.epsilon, eps, 1e-12);
  EXPECT_NEAR(r.epsilon_lower, eps, 1e-12);
  EXPECT_NEAR(x.mu, norm_quantile_c(pU) - norm_quantile_c(qL), 1e-12);
  // qL ~ 0.47 > e^0.5 pU ~ 0.2: a certified violation of f_{0.5,0}.
  EXPECT_EQ(r.verdict, "violation");
  ASSERT_TRUE(r.w.has_value());
  EXPECT_LT(r.w->beta, r.w->claim_beta);
  EXPECT_NEAR(r.w->claim_beta, beta(tradeoff(eps_delta(0.5)), r.w->alpha), 1e-15);
  // At delta > 0 the epsilon bound shrinks.
  const audit_result r2 = evaluate(p, c, eps_delta(0.5), 0.1);
  EXPECT_NEAR(r2.epsilon_lower,
              std::max(std::log((qL - 0.1) / pU), std::log((1 - pU - 0.1) / (1 - qL))), 1e-12);
}

TEST(Evaluate, OrderingSwapsSides) {
  const plan p = one_test_plan(1, 0.025);
  const auto c = counts_of(p, 900, 100, 500, 500);
  const audit_result r = evaluate(p, c, eps_delta(5.0));
  EXPECT_EQ(r.tests[0].kP, 500u);  // alpha is measured on input1
  EXPECT_EQ(r.tests[0].kQ, 100u);
}

TEST(Evaluate, MirrorWitnessForAsymmetricClaim) {
  // f = 1 - 100 a on [0, 0.01], then 0: permissive for large alpha only.
  const tradeoff f(curve::from_points({{0, 1}, {0.01, 0}, {1, 0}}));
  const plan p = one_test_plan(0, 0.0125);
  // alpha ~ 0.5 and beta ~ 0.002: the test itself satisfies f (f(0.5) = 0),
  // its mirror (alpha' = beta, beta' = alpha) violates it (f(0.002) = 0.8).
  const auto c = counts_of(p, 50000, 50000, 200, 99800);
  const audit_result r = evaluate(p, c, f);
  ASSERT_EQ(r.verdict, "violation");
  ASSERT_TRUE(r.w.has_value());
  EXPECT_TRUE(r.w->mirror);
  EXPECT_DOUBLE_EQ(r.w->alpha, r.tests[0].beta_upper);
  EXPECT_DOUBLE_EQ(r.w->beta, r.tests[0].alpha_upper);
  EXPECT_LT(r.w->beta, r.w->claim_beta);
}

TEST(Evaluate, ConsistentWhenCountsFitTheClaim) {
  const plan p = one_test_plan(0, 0.025);
  const auto c = counts_of(p, 5000, 5000, 5000, 5000);
  const audit_result r = evaluate(p, c, eps_delta(1.0));
  EXPECT_EQ(r.verdict, "consistent");
  EXPECT_FALSE(r.w.has_value());
  EXPECT_FALSE(r.samples_needed.has_value());
  EXPECT_EQ(r.epsilon_lower, 0.0);
  EXPECT_EQ(r.mu_lower, 0.0);
}

TEST(Evaluate, InconclusiveTooFewSamples) {
  // eps = 10 cannot be refuted with 100 outputs: no count could do it.
  plan p = one_test_plan(0, 0.0125);
  p.selection[0] = p.selection[1] = 10;
  const auto c = counts_of(p, 100, 0, 0, 100);
  const audit_result r = evaluate(p, c, eps_delta(10.0));
  EXPECT_EQ(r.verdict, "inconclusive");
  ASSERT_TRUE(r.samples_needed.has_value());
  // A zero count certifies about ln(1/g)/n: e^10 ln(80) / 0.9 ~ 1e5 outputs.
  EXPECT_GT(*r.samples_needed, 5e4);
  EXPECT_LT(*r.samples_needed, 5e5);
}

TEST(Evaluate, InconclusiveWhenOnlyUncorrectedTestViolates) {
  // Tiny per-test level (a plan with many tests): certified bounds are wide,
  // the single-test bounds at (1 - confidence)/2 are not.
  plan p = one_test_plan(0, 1e-6, "claim");
  p.selection[0] = p.selection[1] = 1000;
  const auto c = counts_of(p, 9900, 100, 9620, 380);
  const audit_result r = evaluate(p, c, eps_delta(1.0));
  EXPECT_EQ(r.verdict, "inconclusive");
  ASSERT_TRUE(r.samples_needed.has_value());
  EXPECT_GT(*r.samples_needed, 11000.0);
}

TEST(Evaluate, SupportEventIsNotCapped) {
  // An event seen 20000 times on input1 and never on input0 (of 1e7):
  // epsilon_lower ~ ln(20000 / ln(1/g)), far above ln(1/0.01).
  const plan p = one_test_plan(0, 0.0125);
  const auto c = counts_of(p, 10000000, 0, 9980000, 20000);
  const audit_result r = evaluate(p, c, eps_delta(0.1));
  EXPECT_GT(r.epsilon_lower, std::log(1 / 0.01));
  EXPECT_NEAR(r.epsilon_lower, std::log(cp_lower(20000, 1e7, 0.0125) / cp_upper(0, 1e7, 0.0125)),
              1e-12);
  EXPECT_GT(r.epsilon_lower, 8.0);
}

TEST(Evaluate, CurveBandIsOrderedAndNonIncreasing) {
  plan p = one_test_plan(0, 0.0125);
  p.tests[0].band = true;
  const auto c = counts_of(p, 7000, 3000, 3000, 7000);
  const audit_result r = evaluate(p, c, gaussian(1.0));
  const auto pts = empirical_curve(r);
  ASSERT_GT(pts.size(), 100u);
  double prev_u = 2, prev_e = 2, prev_l = 2;
  for (const auto& q : pts) {
    EXPECT_LE(q.beta_lower, q.beta_estimate + 1e-15);
    EXPECT_LE(q.beta_estimate, q.beta_upper + 1e-15);
    EXPECT_LE(q.beta_upper, prev_u + 1e-15);
    EXPECT_LE(q.beta_estimate, prev_e + 1e-15);
    EXPECT_LE(q.beta_lower, prev_l + 1e-15);
    EXPECT_LE(q.beta_upper, 1 - q.alpha + 1e-15);
    prev_u = q.beta_upper, prev_e = q.beta_estimate, prev_l = q.beta_lower;
  }
  EXPECT_EQ(pts.front().alpha, 0.0);
  EXPECT_EQ(pts.back().alpha, 1.0);
  EXPECT_EQ(pts.back().beta_upper, 0.0);
}

TEST(Evaluate, ErrorBudgetReported) {
  plan p = one_test_plan(0, 0.01);
  test t2 = p.tests[0];
  t2.band = true;
  t2.gamma = 0.005;
  p.tests.push_back(t2);
  EXPECT_NEAR(p.total_error(), 2 * 0.01 + 4 * 0.005, 1e-15);
  const auto c = counts_of(p, 50, 50, 50, 50);
  EXPECT_NEAR(evaluate(p, c, eps_delta(1)).error_budget, 0.04, 1e-15);
}

}  // namespace
}  // namespace fdp::audit
