// One Poisson-subsampled Gaussian step against its exact deltas.
//
// Truths: tests/golden/single_step.csv, from gen_single_step.py next to it
// (mpmath at 60 digits, the hockey-stick divergence of the pair itself, both
// orders). A single step composed once is read from its discretization
// directly, so these rows test the discretization's error accounting alone:
// the interval masses of one outcome set per cell, the eta form of the
// errors (formulas.md 12.2), the split of narrow cells deep in the tail.
#include <gtest/gtest.h>

#include <string>

#include "../golden/golden_csv.hpp"
#include "kind_test_support.hpp"

namespace fdp {
namespace {

TEST(SingleStep, SubsampledGaussianDeltasBracketTheTruth) {
  const auto table = test::load_golden("single_step.csv");
  const std::size_t cs = table.column("sigma"), cq = table.column("q"),
                    ce = table.column("epsilon"), cd = table.column("delta");
  ASSERT_GE(table.rows.size(), 15u);
  for (const auto& row : table.rows) {
    const std::string text = "subsampled-gaussian:sigma=" + row[cs] + ",q=" + row[cq] + ",times=1";
    const double eps = test::to_double(row[ce]), truth = test::to_double(row[cd]);
    const interval b = test::query_bracket(text, "delta", eps);
    const std::string ctx = text + " at eps " + row[ce] + ": [" + std::to_string(b.lower) + ", " +
                            std::to_string(b.upper) + "], truth " + row[cd];
    // (the table's 17 digits: 1e-15 relative)
    EXPECT_LE(b.lower, truth * (1 + 1e-15)) << ctx;
    EXPECT_GE(b.upper, truth * (1 - 1e-15)) << ctx;
    // and within the default tolerance (0.3% of delta), down to the deltas
    // the grid's tail cuts resolve (below ~1e-19 the upper end stays at the
    // mass folded beyond the grid)
    if (truth < 1e-16) continue;
    EXPECT_LE(b.upper, truth * 1.003) << ctx;
    EXPECT_GE(b.lower, truth * 0.997) << ctx;
  }
}

}  // namespace
}  // namespace fdp
