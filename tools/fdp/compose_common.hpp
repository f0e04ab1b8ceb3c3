// Shared by compose / curve / group: parsing specs and printing brackets.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fdp/ops/compose.hpp"

namespace fdp::cli {

std::vector<spec> parse_specs(const args& a);
compose_options compose_options_from(const args& a);
/// The neighbour relation and sampling scheme each spec is accounted under
/// (spec_assumptions), for the specs that have them: JSON
/// [{"spec": TEXT, "neighbours": .., "sampling": ..}] (empty array: none),
/// and one text line per such spec.
json spec_assumptions_json(const std::vector<spec>& specs);
void print_spec_assumptions(const std::vector<spec>& specs);
/// A memory size: bytes, or a number with K, M, G or T (powers of 1024);
/// 0 (no ceiling) or 64M .. 1T (usage_error otherwise).
std::size_t parse_memory(const std::string& text, const std::string& what);
/// One line on how the memory ceiling shaped c's grid ("" when it did not),
/// and its JSON name (none, refinement_stopped, coarsened, chernoff_only).
std::string grid_limit_note(const composition& c, const compose_options& o);
/// The alpha grid used by curve output: uniform points plus log-spaced points near 0.
std::vector<double> alpha_grid(int points);
/// The alphas of curve output: alpha_grid(points) and, for an exact
/// polygon, its kinks.
std::vector<double> curve_alphas(const composition& c, int points);
/// Writes alpha,beta_lower,beta_upper to a file (or stdout for "-").
void write_curve_csv(const composition& c, int points, const std::string& path);
/// The same points as JSON: [{"alpha": a, "beta": {"lower", "upper"}}, ...].
json curve_json(const composition& c, int points);

// compose and group answer the same queries about a guarantee, in the same
// JSON and nearly the same text.

/// The queries: epsilon at each --delta, delta at each --eps, beta at each
/// --alpha.
struct queries {
  std::vector<double> deltas, epsilons, alphas;
  /// None asked (nor --curve-out): epsilon at delta = 1e-5 and the GDP
  /// summary are answered instead.
  bool none = false;
  /// The deltas whose epsilon is answered: the asked ones, or 1e-5.
  std::vector<double> answered_deltas() const;
};
queries read_queries(const args& a);

/// One answer: the bracket of the value at a queried point.
struct answer {
  double at;
  interval value;
};
struct query_answers {
  std::vector<answer> epsilon, delta, beta;
};

/// Every answer is computed once, for the JSON and the text output alike
/// (each is a root search or a sweep over the composed grids). g answers
/// epsilon and beta, for_delta delta (a composition tuned for small deltas).
template <class guarantee>
query_answers answer_queries(const queries& q, const guarantee& g, const guarantee& for_delta) {
  query_answers r;
  for (double d : q.answered_deltas()) r.epsilon.push_back({d, g.epsilon(d)});
  for (double e : q.epsilons) r.delta.push_back({e, for_delta.delta(e)});
  for (double al : q.alphas) r.beta.push_back({al, g.beta(al)});
  return r;
}

/// Adds "queries" to out: one query object per answer, in the order
/// epsilon at each delta, delta at each epsilon, beta at each alpha.
void add_answers_json(json& out, const query_answers& r);
/// {"tolerance": t, "tolerance_met": met}: the relative bracket width asked
/// for and whether every answer met it (certified either way).
json tolerance_json(double tolerance, bool met);
/// One line per answer, its queried point shown by show_point.
void print_answers(const query_answers& r, const std::function<std::string(double)>& show_point);
/// The GDP summary mu: asked for (--mu), or with no query, or free (a
/// closed form).
template <class guarantee>
std::optional<interval> gdp_summary_if_wanted(const args& a, const queries& q, const guarantee& g) {
  if (!(q.none || a.flag("mu") || g.is_exact())) return std::nullopt;
  return g.mu();
}
void print_gdp_summary(const interval& mu);

/// The option table of a command that reads queries (read_queries) and a
/// composition's options (compose_options_from), with --json: `own` first.
std::vector<option_def> query_command_options(std::vector<option_def> own);

}  // namespace fdp::cli
