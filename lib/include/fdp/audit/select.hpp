// Choosing the tests: everything data-dependent happens here, on the
// selection split only, so that the evaluation split (fresh outputs) gives
// confidence bounds that are exactly valid for the chosen tests.
//
// Candidate families (each yields events E; each E is tried as a test of
// both orderings, and so is its complement):
//   thresholds   for a real output (or each coordinate of a vector output):
//                {x <= t} and {x > t} at about 600 thresholds t per
//                coordinate: every one of the 64 most extreme pooled order
//                statistics at each end (so a rare event seen on one side
//                only, a support bug, is always a candidate) and
//                geometrically spaced ranks (ratio 1.03) towards the median;
//   bins         128 quantile bins of a real coordinate (and tail cells of
//                about 50, 100, 200, ... outputs at both ends), ordered by their
//                estimated likelihood ratio; events are prefixes of that
//                order (likelihood-ratio tests for non-monotone ratios);
//   categories   categorical outputs: prefixes of the likelihood-ratio order
//                (with at most 12 categories, ordered and counted on the whole
//                selection split, plus every single category and every pair); when the categories
//                are named by strings of one length (sparse-vector answer streams "TTF-..."), also
//                prefixes of a naive-Bayes order over (position, character);
//   bit cells    (opt-in, select_options::bit_features) IEEE-754 bit-pattern
//                cells of a real output (bit_key), prefixes of the
//                likelihood-ratio order;
//   tree         vector outputs: a classification tree (entropy gain,
//                best-first, up to 48 leaves) separating the two sides,
//                grown on one half of the selection split; events are
//                prefixes of its leaves in likelihood-ratio order;
//   pattern      vector outputs mixing discrete coordinates (codes, flags)
//                with sparse real ones (values with an atom at 0): cells are
//                (pattern of the discrete coordinates and atoms, quantile
//                bin of the sum of the rest, with tail cells as for bins),
//                events likelihood-ratio
//                prefixes. This is what sees "position and value" jointly
//                in the sparse-vector variant that releases values.
// Every event is tried in both orderings; its complement is its mirror
// (evaluate.hpp) and needs no separate test.
// Families that learn an order (bins, large category sets, bit cells, tree,
// pattern) fit it on half A of the selection split and count their events
// on half B, so their selection-split scores are not inflated by the fit.
// The order ranks each cell by a one-sided Clopper-Pearson bound (level
// 0.16) on its share of side-1 outputs, taken on the side of the null and
// capped there (noisy cells sink to the middle; a cell seen on one side only
// stays at the end), after pooling the counts of neighbouring cells along an
// ordered axis (bins of one coordinate, bins of one pattern's sum).
//
// Scoring. For a candidate with selection counts (kP of nP, kQ of nQ) the
// score is the bound it would certify on the evaluation split if the
// evaluation frequencies were shrunk selection estimates: p = CP upper
// bound at level 0.16 of kP/nP, q = CP lower bound at level 0.16 of kQ/nQ,
// projected to expected evaluation counts p * nP_eval, q * nQ_eval, whose
// Clopper-Pearson bounds at the planned per-bound level give (alpha_U,
// beta_U). The shrinkage keeps a lucky zero count from looking like a
// certain support bug. Thousands of candidates are ranked with Wilson-score
// versions of the same formula; the best 32 per objective are re-scored
// exactly.
//
// Chosen tests. Primary tests: the best for epsilon at `delta` (weight
// 0.30) and the best among the 16 highest-ranked candidates that are a
// different test, also through the mirror (0.15; a hedge against selection
// noise), the best for mu
// (0.15) and the best for the claim (0.30; the largest projected log-margin
// max{ln(1 - beta_U) - ln(1 - f(alpha_U)), ln f(alpha_U) - ln beta_U} over
// the test and its mirror, positive exactly when the test would certify a
// violation of f). A test already chosen that scores within 5% (mu) or 10%
// (margin) of the best serves instead, and a test serving several roles
// gets the sum of their weights. Curve tests: up to `curve_tests` vertices
// of the lower convex hull of the candidates' selection estimates (and
// their mirrors), spread over alpha.
//
// Error budget (the union bound; see evaluate.hpp). With g = 1 - confidence
// and C curve tests: primary test t gets two one-sided bounds (alpha upper,
// beta upper) at level primary_share * g * w_t / (2 sum w); each curve test
// four (both ends of alpha and beta) at (1 - primary_share) * g / (4C). The
// levels sum to g; with no curve test the primary tests share all of g.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "fdp/audit/plan.hpp"
#include "fdp/core/tradeoff.hpp"

namespace fdp::audit {

struct select_options {
  double confidence = 0.95;
  double delta = 0.0;                ///< delta of the epsilon objective
  std::uint64_t n_eval[2] = {0, 0};  ///< evaluation-split sizes the tests will meet
  int curve_tests = 24;
  double primary_share = 0.9;
  bool bit_features = false;
  std::size_t max_tree_samples = std::size_t{1} << 20;  ///< per side, from half A
  /// Threads for sorting the selection outputs; the plan does not depend on it.
  unsigned threads = 1;
  /// Names categorical keys in test descriptions (default "#key").
  std::function<std::string(std::int64_t)> category_name;
};

/// Chooses the views and tests from the two sides' selection samples.
/// Throws std::invalid_argument if the blocks disagree in type or dim, or
/// either is empty. Deterministic: the same inputs give the same plan.
plan select_tests(const sample_block& side0, const sample_block& side1, const tradeoff& claim,
                  const select_options& opt);

}  // namespace fdp::audit
