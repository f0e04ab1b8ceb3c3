// A mechanism audit split over several processes (audit_options::task_rank,
// task_ranks, reduce_counts; the MPI build of the CLI): each process
// evaluates its share of the evaluation tasks, the partial counts are summed,
// and every process then reports exactly what one process reports. Here the
// "processes" run one after the other in this test, and the sum is done by
// hand, as MPI_Allreduce would.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "fdp/audit/audit.hpp"
#include "fdp/audit/stats_io.hpp"
#include "fdp/mech/registry.hpp"

namespace fdp::audit {
namespace {

// The counts' integers in one vector (the shape MPI reduces), and back.
std::vector<std::uint64_t> flat(const eval_counts& c) {
  std::vector<std::uint64_t> v{c.n[0], c.n[1]};
  for (const auto& side : c.cells)
    for (const auto& view : side) v.insert(v.end(), view.begin(), view.end());
  return v;
}

TEST(DistributedAudit, RankSharesSumToTheSingleProcessCounts) {
  const auto m = mech::make_mechanism("laplace:eps=1");
  const std::vector<double> in0{0}, in1{1};
  audit_options o;
  o.seed = 11;
  o.threads = 2;
  const audit_report whole = audit_mechanism(*m, in0, in1, 300000, m->claim(), o);
  for (unsigned ranks : {2u, 3u}) {
    std::vector<std::uint64_t> sum;
    for (unsigned r = 0; r < ranks; ++r) {
      audit_options part = o;
      part.task_rank = r;
      part.task_ranks = ranks;
      const eval_counts c =
          evaluate_mechanism(*m, in0, in1, 300000 - whole.result.selection[0], whole.tests, part);
      const std::vector<std::uint64_t> v = flat(c);
      if (sum.empty()) sum.assign(v.size(), 0);
      ASSERT_EQ(v.size(), sum.size());
      for (std::size_t i = 0; i < v.size(); ++i) sum[i] += v[i];
    }
    EXPECT_EQ(sum, flat(whole.counts)) << ranks << " ranks";
  }
}

// With the reduction hook, a "rank" that sees the summed counts reports the
// single process's verdict and bounds, digit for digit.
TEST(DistributedAudit, AReducedRankReportsTheSingleProcessAnswer) {
  const auto m = mech::make_mechanism("laplace:eps=1");
  const std::vector<double> in0{0}, in1{1};
  audit_options o;
  o.seed = 5;
  const tradeoff claim = eps_delta(0.9);  // (violated: a verdict with a witness)
  const audit_report whole = audit_mechanism(*m, in0, in1, 400000, claim, o);
  audit_options part = o;
  part.task_rank = 1;
  part.task_ranks = 2;
  part.reduce_counts = [&](const plan& tests, eval_counts& c) {  // (rank 1's share + rank 0's)
    EXPECT_EQ(plan_fingerprint(tests), plan_fingerprint(whole.tests));
    audit_options other = o;
    other.task_rank = 0;
    other.task_ranks = 2;
    const eval_counts r0 =
        evaluate_mechanism(*m, in0, in1, 400000 - whole.result.selection[0], whole.tests, other);
    c.n[0] += r0.n[0];
    c.n[1] += r0.n[1];
    for (int s = 0; s < 2; ++s)
      for (std::size_t v = 0; v < c.cells[s].size(); ++v)
        for (std::size_t k = 0; k < c.cells[s][v].size(); ++k)
          c.cells[s][v][k] += r0.cells[s][v][k];
  };
  const audit_report split = audit_mechanism(*m, in0, in1, 400000, claim, part);
  EXPECT_EQ(split.result.verdict, whole.result.verdict);
  EXPECT_EQ(split.result.verdict, "violation");
  EXPECT_EQ(split.result.epsilon_lower, whole.result.epsilon_lower);
  EXPECT_EQ(split.result.mu_lower, whole.result.mu_lower);
  EXPECT_EQ(flat(split.counts), flat(whole.counts));
}

TEST(DistributedAudit, ARankOutsideTheWorldIsRefused) {
  const auto m = mech::make_mechanism("laplace:eps=1");
  audit_options o;
  o.task_rank = 2;
  o.task_ranks = 2;
  EXPECT_THROW(audit_mechanism(*m, {0}, {1}, 1000, m->claim(), o), std::invalid_argument);
}

}  // namespace
}  // namespace fdp::audit
