// Consistency with Google's dp_accounting: its PLD accountant's pessimistic
// epsilons (tests/golden/dp_accounting_pld.csv, made by the script next to
// it) are upper bounds, so none may lie below fdp's certified lower end.
// The rows cover every spec kind dp_accounting shares with fdp, under the
// three neighbour relations, composed 1 to 10^4 times.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "../golden/golden_csv.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"
#include "kind_test_support.hpp"

namespace fdp {
namespace {

TEST(DpAccountingConsistency, TheirUpperBoundsAreNeverBelowOurLowerBounds) {
  const auto table = test::load_golden("dp_accounting_pld.csv");
  const std::size_t cs = table.column("spec"), cd = table.column("delta"),
                    ce = table.column("epsilon");
  ASSERT_GE(table.rows.size(), 20u);
  for (const auto& row : table.rows) {
    std::string text = row[cs];
    std::replace(text.begin(), text.end(), ';', ',');
    std::replace(text.begin(), text.end(), '_', ';');
    const double delta = test::to_double(row[cd]), theirs = test::to_double(row[ce]);
    const interval ours = test::query_bracket(text, "eps", delta);
    // (1e-9: dp_accounting evaluates a Gaussian's closed form in plain
    // double arithmetic, a few ulps off: G_10 at 1e-5 reads 6e-12 low)
    EXPECT_LE(ours.lower, theirs * (1 + 1e-9))
        << text << " at delta " << delta << ": [" << ours.lower << ", " << ours.upper << "]";
    // (not a soundness condition, but a bracket far below a tight upper
    // bound would mean a wrong pair: theirs is within ~1% of the truth here)
    EXPECT_GE(ours.upper, theirs * 0.98) << text << " at delta " << delta;
  }
}

}  // namespace
}  // namespace fdp
