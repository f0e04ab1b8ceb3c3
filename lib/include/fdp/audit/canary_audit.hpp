// Canary-score audits over many training runs (Nasr, Hayes, Steinke, Balle,
// Tramer, Jagielski, Carlini & Terzis 2023, "Tight auditing of
// differentially private machine learning", USENIX Security): for each
// canary, its membership score from runs that trained with it ("in") and
// runs that did not ("out"). The runs are independent, so the in-scores and
// the out-scores are independent samples of the mechanism's outputs on two
// neighbouring datasets, post-processed by the score (other canaries may be
// included at random, independently of this one: the pair is then a mixture
// of neighbouring pairs with the same weights, which is f-DP whenever each
// pair is, by convexity of f).
//
// Tests without a data split. For a canary with out-scores x_(1) <= ... <=
// x_(n) and a rank j fixed in advance (a grid that depends on n only):
//   upper test  E = {score > x_(n-j)},   lower test  E = {score < x_(j+1)}.
// Under "out", P(E) is at most 1 - U_(n-j) (resp. U_(j+1)) for uniform
// order statistics U (the quantile transform; ties only make P(E)
// smaller), both Beta(j + 1, n - j): the same law as the Clopper-Pearson
// upper bound for j successes of n, so alpha_U = cp_upper(j, n, g) holds
// with probability >= 1 - g without knowing the score's law. Given the
// out-scores, the in-scores are independent of the threshold, so the count
// of in-scores in E gives 1 - beta >= cp_lower(k, n_in, g). A union bound
// over all canaries, ranks, both tails and both bounds of each test (levels
// g = (1 - confidence) / (4 |grid| canaries)) makes every statement hold at
// once; epsilon_lower, mu_lower and the violation test use each test and
// its mirror exactly as the sampling audit does (evaluate.hpp).
//
// The GDP fit is an ESTIMATE, not a bound: (mean_in - mean_out) / pooled
// standard deviation, which is mu when the scores are N(0, s^2) and
// N(mu s, s^2) (then T(out, in) = G_mu). It is printed for orientation only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fdp/audit/evaluate.hpp"
#include "fdp/audit/score_file.hpp"
#include "fdp/core/tradeoff.hpp"

namespace fdp::audit {

struct canary_options {
  double confidence = 0.95;
  double delta = 0.0;  ///< delta of epsilon_lower
};

/// One canary's certified statements.
struct canary_result {
  std::string id;
  std::size_t n_in = 0, n_out = 0;
  double epsilon_lower = 0, mu_lower = 0;
  double gdp_fit = 0;  ///< ESTIMATE (see the header comment), signed: > 0 when in-scores are higher
  /// Certified points (alpha_U, beta_U) of its tests and their estimates.
  std::vector<test_result> tests;
  bool violation = false;
};

struct canary_audit_result {
  std::vector<canary_result> canaries;
  std::size_t best = 0;  ///< the canary with the largest epsilon_lower (then mu_lower)
  double epsilon_lower = 0, mu_lower = 0;  ///< maxima over canaries
  double level = 0;                        ///< g of each bound
  std::size_t ranks = 0;                   ///< |grid| for the largest canary
  std::string verdict;  ///< with a claim: "violation" or "consistent"; else empty
  std::string reason;
  std::optional<witness> w;  ///< in the best violating canary's tests
  std::size_t witness_canary = 0;
  double confidence = 0.95, delta = 0;
};

/// The ranks j tested for n out-scores: 0..3, then every
/// floor(1.5^k) below n / 2 (about 2.5 log n ranks; small j certify large
/// epsilon, j near n / 4 give mu on moderate tails).
std::vector<std::size_t> canary_rank_grid(std::size_t n);

/// Audits every canary of the table; with a claim, also the verdict.
/// Throws std::invalid_argument for confidence outside (0, 1), delta
/// outside [0, 1), or a canary with an empty class (by_canary).
canary_audit_result audit_canaries(const score_table& t, const std::optional<tradeoff>& claim,
                                   const canary_options& opt);

/// The certified upper curve (beta_upper) and the estimate of one canary,
/// as empirical_curve gives them for a sampling audit (the lower column is
/// the estimate: nothing here bounds the truth from below).
std::vector<curve_point> canary_curve(const canary_result& c);

}  // namespace fdp::audit
