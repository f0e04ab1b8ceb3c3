// The soundness sweeps' bookkeeping (tests/ops/*_test.cpp): a bracket
// check against an independent truth, the misses collected with a
// reproducer line, and one summary line per sweep.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "fdp/ops/compose.hpp"

namespace fdp {

// Collects bracket checks; a miss is a bracket that does not contain the
// truth up to `slack` (the accuracy of the truth itself).
struct checker {
  std::string name;
  std::size_t checked = 0;
  std::vector<std::string> misses;
  double worst_excess = 0.0;  // largest (distance outside) / |truth|
  std::string worst;

  explicit checker(std::string n) : name(std::move(n)) {}

  bool contains(const std::string& ctx, const std::string& query, interval b, double truth,
                double rel_slack, double abs_slack = 0.0) {
    ++checked;
    bool ok;
    double out = 0.0;
    if (std::isnan(b.lower) || std::isnan(b.upper)) {
      ok = false;
      out = std::numeric_limits<double>::infinity();
    } else if (std::isinf(truth)) {
      ok = b.upper == truth;
      out = ok ? 0.0 : std::numeric_limits<double>::infinity();
    } else {
      const double tol = rel_slack * std::fabs(truth) + abs_slack;
      out = std::max(b.lower - truth, truth - b.upper);
      ok = out <= tol && b.lower <= b.upper;
    }
    if (!ok) {
      std::ostringstream os;
      os.precision(17);
      os << "MISS " << ctx << " | " << query << " | bracket [" << b.lower << ", " << b.upper
         << "] | truth " << truth << " | outside by " << out;
      if (truth != 0 && std::isfinite(truth)) os << " (rel " << out / std::fabs(truth) << ")";
      misses.push_back(os.str());
      const double rel = truth != 0 ? out / std::fabs(truth) : out;
      if (!(rel <= worst_excess)) {
        worst_excess = rel;
        worst = misses.back();
      }
    }
    return ok;
  }

  // The truth known exactly as a real between two doubles, its rounding down
  // and up (equal when it is a double): a double bracket contains it iff
  // lower <= truth_dn and upper >= truth_up. No slack.
  bool contains_exact(const std::string& ctx, const std::string& query, interval b, double truth_dn,
                      double truth_up) {
    if (truth_dn == truth_up) return contains(ctx, query, b, truth_dn, 0.0);
    const bool lo_ok = b.lower <= truth_dn, up_ok = b.upper >= truth_up;
    if (lo_ok && up_ok && b.lower <= b.upper) {
      ++checked;
      return true;
    }
    // (reported through contains with the side that misses)
    return contains(ctx, query, b, lo_ok ? truth_up : truth_dn, 0.0);
  }

  void report() {
    std::cout << "[soundness] " << name << ": " << checked << " bracket checks, " << misses.size()
              << " misses\n";
    // the first 40 misses (FDP_SOUNDNESS_SHOW_ALL=1: every one)
    const std::size_t show = std::getenv("FDP_SOUNDNESS_SHOW_ALL")
                                 ? misses.size()
                                 : std::min<std::size_t>(misses.size(), 40);
    for (std::size_t i = 0; i < show; ++i) std::cout << "  " << misses[i] << "\n";
    if (misses.size() > show) std::cout << "  ... (" << misses.size() - show << " more)\n";
    if (!worst.empty()) std::cout << "  worst: " << worst << "\n";
    EXPECT_TRUE(misses.empty()) << name << ": " << misses.size() << " of " << checked
                                << " brackets miss the truth (first: " << misses.front() << ")";
  }
};

}  // namespace fdp
