// Brackets at the edges where fdp once printed a bracket that missed the
// truth, against values computed apart from fdp in mpmath (the generators
// sit beside the tables in tests/golden/, each with its method):
//   edges_sublaplace.csv (gen_edges_sublaplace.py): a Poisson-subsampled
//   Laplace term with a per-step loss of 33, alone and composed with a
//   Laplace or Gaussian term, queried at delta near 1, negative eps and
//   alpha near 1. The subsampled Laplace law lost the continuous mass just
//   above its bottom atom (its inverse loss is flat there), so the
//   pessimistic grid was not pessimistic: delta(20) read [0.917116,
//   0.917130] against 0.918326, beta(0.999) read 0.001 against 4.66e-16.
//   edges_kov.csv (gen_edges_kov.py): the GDP summary of Poisson-subsampled
//   Gaussians at tiny q (its tail beyond every grid: read [0, 2.47e-12]
//   where the truth is 1), the exact k-fold f_{eps,delta} at alpha near 1
//   and beyond (1 - delta)^k, at eps near the top of its lattice and below
//   the double range, and a GDP composition whose epsilon widened when a
//   delta was asked beside it. (Its rows for fdp group: group_edges_test.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "../golden/golden_csv.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"
#include "soundness_checker.hpp"

namespace fdp {
namespace {

using test::load_golden;
using test::to_double;

// "a;b c" -> specs "a,b" and "c" (the tables' encoding).
std::vector<spec> specs_of(const std::string& text) {
  std::vector<spec> out;
  std::stringstream ss(text);
  std::string w;
  while (ss >> w) {
    std::replace(w.begin(), w.end(), ';', ',');
    out.push_back(parse_spec(w));
  }
  return out;
}

TEST(EdgesGolden, SubsampledLaplaceWithALargePerStepLoss) {
  const auto t = load_golden("edges_sublaplace.csv");
  const std::size_t c_specs = t.column("specs"), c_query = t.column("query"), c_x = t.column("x"),
                    c_truth = t.column("truth");
  checker chk("subsampled Laplace edges (edges_sublaplace.csv)");
  for (const auto& r : t.rows) {
    const std::string& q = r[c_query];
    const double x = to_double(r[c_x]), truth = to_double(r[c_truth]);
    compose_options o;
    if (q == "eps") o.delta_hint = x;  // (as fdp compose --delta tunes its grid)
    const composition c = compose(specs_of(r[c_specs]), o);
    const interval b = q == "delta" ? c.delta(x) : q == "eps" ? c.epsilon(x) : c.beta(x);
    // (the truths carry 15+ digits: only double rounding is allowed)
    chk.contains(r[c_specs], q + "(" + r[c_x] + ")", b, truth, 1e-13, 1e-300);
  }
  chk.report();
}

TEST(EdgesGolden, ClosedFormsAndSubsampledSummaries) {
  const auto t = load_golden("edges_kov.csv");
  const std::size_t c_specs = t.column("specs"), c_query = t.column("query"), c_x = t.column("x"),
                    c_truth = t.column("truth");
  checker chk("closed-form edges (edges_kov.csv)");
  for (const auto& r : t.rows) {
    const std::string& q = r[c_query];
    if (r[c_specs].find("(group") != std::string::npos || q == "delta_at_decimal_eps") continue;
    const double truth = to_double(r[c_truth]);
    compose_options o;
    o.max_memory = std::size_t(1) << 29;
    if (q == "eps") o.delta_hint = to_double(r[c_x]);
    const composition c = compose(specs_of(r[c_specs]), o);
    const std::string what = q + "(" + r[c_x] + ")";
    if (q == "mu") {
      chk.contains(r[c_specs], what, c.mu(), truth, 1e-15);
    } else if (q == "mu_lower_at_alpha") {
      // (a lower bound on the summary: the upper end must not be below it)
      chk.contains(r[c_specs], what, {0.0, c.mu().upper}, truth, 1e-12);
    } else if (q == "delta_log10") {
      // beyond or near the double range: the bracket of delta at x against 10^truth
      const interval b = c.delta(to_double(r[c_x]));
      const bool ok = b.upper > 0 && (b.lower == 0 || std::log10(b.lower) <= truth + 1e-12) &&
                      (truth < -307 || std::log10(b.upper) >= truth - 1e-12);
      chk.contains(r[c_specs], what + " vs 10^truth", ok ? interval{0, 1} : b, ok ? 0.5 : -1.0,
                   0.0);
    } else {
      const double x = to_double(r[c_x]);
      const interval b = q == "delta" ? c.delta(x) : q == "eps" ? c.epsilon(x) : c.beta(x);
      chk.contains(r[c_specs], what, b, truth, 1e-15, 1e-300);
    }
  }
  chk.report();
}

}  // namespace
}  // namespace fdp
