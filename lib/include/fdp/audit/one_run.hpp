// One-run audits (Steinke, Nasr & Jagielski 2023, "Privacy auditing with
// one (1) training run", NeurIPS; arXiv:2305.08846). m canaries are each
// put into the training set independently with probability 1/2; after a
// single run the auditor ranks them by score and guesses on r of them
// ("in" for the highest scores, "out" for the lowest, abstaining on the
// rest). Their Theorem 3.1 (our reading): if the training algorithm is
// (eps, delta)-DP with respect to adding or removing one canary, the number
// W of correct guesses satisfies, for every v,
//   P[W >= v] <= P[B >= v] + 2 m delta max_{1 <= i <= v} P[v - i <= B < v] / i,
// with B ~ Binomial(r, q), q = e^eps / (1 + e^eps) (the accuracy of eps-DP
// randomized response). The right side is the p-value of the observed v
// under the hypothesis "(eps, delta)-DP"; the certified lower bound is an
// eps whose p-value is at most 1 - confidence. Only that one eps needs to
// be rejected: a mechanism that is (eps', delta)-DP for some eps' <= eps is
// also (eps, delta)-DP, so the report "eps_true > eps_lower" is wrong only
// when a true hypothesis was rejected (probability <= 1 - confidence).
//
// The guesses depend on the scores alone, never on the inclusion bits, and
// r is fixed before looking (--guesses); choosing r after seeing which r
// gives the best bound would void the confidence statement.
#pragma once

#include <cstdint>

#include "fdp/audit/score_file.hpp"

namespace fdp::audit {

/// The p-value above: P[Binomial(r, q) >= v] + 2 m delta max_i P[v-i <= B < v] / i.
/// Requires 0 <= v <= r <= m, eps >= 0, delta in [0, 1] (std::invalid_argument).
double one_run_p_value(std::int64_t m, std::int64_t r, std::int64_t v, double eps, double delta);

/// The largest eps (to a relative 1e-9 by bisection, rounded down) whose
/// p-value is at most 1 - confidence; 0 when even eps = 0 is not rejected.
/// Every returned eps > 0 has p-value <= 1 - confidence (checked).
double one_run_epsilon_lower(std::int64_t m, std::int64_t r, std::int64_t v, double delta,
                             double confidence);

struct one_run_result {
  std::int64_t canaries = 0;    ///< m
  std::int64_t guesses = 0;     ///< r
  std::int64_t guessed_in = 0;  ///< ceil(r / 2) highest scores guessed "in"
  std::int64_t correct = 0;     ///< v
  std::int64_t included = 0;    ///< canaries with in = 1
  double epsilon_lower = 0, delta = 0, confidence = 0.95;
  double p_value_at_zero = 1;  ///< p-value of eps = 0 (a test of "no leak at all")
  /// The f-DP test's bound (fdp/audit/one_run_fdp.hpp): the largest GDP mu
  /// it rejects at level 1 - confidence (a certified lower bound on mu).
  double mu_lower = 0;
};

/// Audits one run: the table's rows are the canaries (one row each; the run
/// column, if given, must name one run). Guesses on `guesses` canaries:
/// the ceil(r/2) highest scores "in", the floor(r/2) lowest "out" (ties
/// broken by the order in the file, which the inclusion bits must not
/// influence). Throws std::invalid_argument for guesses outside [1, m],
/// confidence outside (0, 1), delta outside [0, 1), a canary listed twice,
/// more than one run, or a class (in or out) that is empty.
one_run_result audit_one_run(const score_table& t, std::int64_t guesses, double delta,
                             double confidence);

}  // namespace fdp::audit
