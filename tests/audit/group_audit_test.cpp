// Sound inputs: pairs that are not neighbours are refused, naming the
// relation; a group audit (--group K) tests the claim's K-fold group
// guarantee instead, so a correct mechanism on inputs K steps apart is not
// reported as a violation, while a claim too strong for the group still is.
#include "fdp/audit/group_claim.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "fdp/audit/audit.hpp"
#include "fdp/audit/stats_io.hpp"
#include "fdp/core/families.hpp"
#include "fdp/mech/registry.hpp"
#include "fdp/ops/group.hpp"

namespace fdp::audit {
namespace {

audit_report run(const std::string& spec, const std::string& in0, const std::string& in1,
                 std::uint64_t n, std::int64_t group, const tradeoff* claim = nullptr) {
  const auto m = mech::make_mechanism(spec);
  audit_options o;
  o.seed = 3;
  o.threads = 2;
  o.group = group;
  o.oracle = false;
  return audit_mechanism(*m, mech::parse_answers(in0), mech::parse_answers(in1), n,
                         claim ? *claim : m->claim(), o);
}

std::string refusal(const std::string& spec, const std::string& in0, const std::string& in1,
                    std::int64_t group) {
  try {
    run(spec, in0, in1, 1000, group);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(GroupAudit, NonNeighboursAreRefusedNamingTheRelation) {
  // The false alarm: Laplace on 0 vs 5 used to print "violation, epsilon >= 3.74".
  const std::string e = refusal("laplace:eps=1", "0", "5", 1);
  EXPECT_NE(e.find("are not neighbours"), std::string::npos) << e;
  EXPECT_NE(e.find("l1 distance <= 1"), std::string::npos) << e;
  EXPECT_NE(e.find("5 neighbour steps apart"), std::string::npos) << e;
  EXPECT_NE(e.find("--group K with K >= 5"), std::string::npos) << e;
  EXPECT_NE(refusal("laplace:eps=1", "0", "5", 4).find("more than 4 steps"), std::string::npos);
  EXPECT_NE(refusal("gaussian:sigma=1", "0,0", "1,1", 1).find("l2 distance"), std::string::npos);
  EXPECT_NE(refusal("report-noisy-max:eps=1,monotone=1", "0,0", "1,-1", 1).find("monotone"),
            std::string::npos);
  EXPECT_NE(refusal("laplace:eps=1", "0", "1", 0).find("group"), std::string::npos);
  EXPECT_EQ(refusal("laplace:eps=1", "0", "5", 5), "accepted");
}

TEST(GroupAudit, ClaimBecomesItsGroupGuarantee) {
  const tradeoff g = group_claim(tradeoff(gaussian(0.5)), 3);
  ASSERT_TRUE(std::holds_alternative<gaussian>(g.get()));
  EXPECT_NEAR(std::get<gaussian>(g.get()).mu, 1.5, 1e-15);
  // f_{1,0} grouped twice: 1 - f(x) = e x for small x, so its square is e^2 x.
  const tradeoff h = group_claim(tradeoff(eps_delta(1.0, 0.0)), 2);
  const double a = 0.01, one_minus_f = std::exp(1.0) * a;  // 1 - f(a) for small a
  EXPECT_NEAR(one_minus_beta(h, a), std::exp(1.0) * one_minus_f, 1e-12);
  EXPECT_THROW(group_claim(tradeoff(gaussian(1)), 0), std::invalid_argument);
  // The polygon is the certified one below the power: at or below the
  // rounded-to-nearest power of fdp::group, and within 1e-12 of it.
  const tradeoff certified = group_claim(tradeoff(eps_delta(0.7, 1e-6)), 3);
  const tradeoff nearest = fdp::group(tradeoff(eps_delta(0.7, 1e-6)), 3);
  for (int i = 0; i <= 1000; ++i) {
    const double x = i / 1000.0;
    EXPECT_LE(beta(certified, x), beta(nearest, x) + 1e-15) << x;
    EXPECT_NEAR(beta(certified, x), beta(nearest, x), 1e-12) << x;
  }
}

TEST(GroupAudit, CorrectMechanismAtGroupDistanceIsConsistent) {
  // Laplace eps = 1 on inputs 3 apart is exactly 3-DP: its group-3 claim holds
  // (and the audit certifies more than the per-neighbour eps = 1).
  const auto r = run("laplace:eps=1", "0", "3", 200000, 3);
  EXPECT_NE(r.result.verdict, "violation");
  EXPECT_GT(r.result.epsilon_lower, 1.5);
  EXPECT_LE(r.result.epsilon_lower, 3.0);
  // A claim the group guarantee of which is too strong is still caught:
  // eps = 0.3 per neighbour allows 0.9 on 3 steps; the truth is 3.
  const tradeoff weak(eps_delta(0.3, 0.0));
  EXPECT_EQ(run("laplace:eps=1", "0", "3", 200000, 3, &weak).result.verdict, "violation");
}

TEST(GroupAudit, ShardsRememberTheirGroup) {
  // Merged shards of a group audit are judged against the group claim: the
  // plan carries K through its file, and a merge with a smaller K is refused.
  const auto r = run("laplace:eps=1", "0", "2", 50000, 2);
  EXPECT_EQ(r.tests.group, 2);
  const std::string path = ::testing::TempDir() + "fdp_group_stats.txt";
  write_stats(path, r.tests, r.counts);
  plan p;
  eval_counts c;
  read_stats(path, p, c);
  std::remove(path.c_str());
  EXPECT_EQ(p.group, 2);
  EXPECT_EQ(plan_fingerprint(p), plan_fingerprint(r.tests));
  EXPECT_THROW(audit_counts(p, c, eps_delta(1.0, 0.0), 0.0, 1), std::invalid_argument);
  EXPECT_NE(audit_counts(p, c, eps_delta(1.0, 0.0), 0.0, 2).result.verdict, "violation");
  // Neighbours: no group number in the file (older files read the same).
  EXPECT_EQ(run("laplace:eps=1", "0", "1", 20000, 1).tests.group, 1);
}

}  // namespace
}  // namespace fdp::audit
