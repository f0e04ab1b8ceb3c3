#include "audit_scores.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <string>

#include "audit_claim.hpp"
#include "fdp/audit/canary_audit.hpp"
#include "fdp/audit/one_run.hpp"
#include "fdp/audit/score_file.hpp"
#include "json_output.hpp"

namespace fdp::cli {
namespace {

using namespace fdp::audit;
constexpr double kInf = std::numeric_limits<double>::infinity();

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Score audits read one file and nothing else: the sampling audit's
// sources and options are refused rather than silently ignored.
void check_score_options(const args& a) {
  if (!a.positional().empty()) throw usage_error("unexpected argument '" + a.positional()[0] + "'");
  if (a.has("scores") && a.has("one-run"))
    throw usage_error("give either --scores FILE (many runs) or --one-run FILE, not both");
  for (const char* o :
       {"mechanism", "samples0", "samples1", "stats-in", "input0", "input1", "samples", "plan-in",
        "plan-out", "stats-out", "group", "bit-features", "skip-header", "curve-tests",
        "selection-fraction", "seed", "threads", "tests", "no-oracle"}) {
    if (a.has(o)) {
      throw usage_error(std::string("--") + o + " does not apply to --scores/--one-run audits", o);
    }
  }
  if (a.has("guesses") && !a.has("one-run"))
    throw usage_error("--guesses applies to --one-run", "guesses");
  if (a.has("one-run") && a.has("curve-out"))
    throw usage_error("--curve-out applies to --scores (a one-run audit has no curve)",
                      "curve-out");
}

json canary_json(const canary_result& c) {
  return {{"id", c.id},
          {"n_in", c.n_in},
          {"n_out", c.n_out},
          {"epsilon_lower", num(c.epsilon_lower)},
          {"mu_lower", num(c.mu_lower)},
          {"gdp_fit_estimate", num(c.gdp_fit)},
          {"violation", c.violation}};
}

json scores_json(const canary_audit_result& r, const std::string& file, const std::string& claim,
                 double secs) {
  json out = envelope("audit");
  out["kind"] = "canary_scores";
  out["verdict"] = r.verdict.empty() ? json(nullptr) : json(r.verdict);
  out["reason"] = r.verdict.empty() ? "no --claim: bounds only" : r.reason;
  out["queries"] =
      json::array({query("delta", r.delta, "epsilon", bracket(r.epsilon_lower, kInf))});
  out["mu"] = bracket(r.mu_lower, kInf);
  const canary_result& b = r.canaries[r.best];
  out["gdp_fit"] = {{"estimate", num(b.gdp_fit)},
                    {"canary", b.id},
                    {"is_bound", false},
                    {"method",
                     "(mean_in - mean_out) / pooled sd; mu if the scores are Gaussian "
                     "with equal variances"}};
  json cs = json::array();
  for (const auto& c : r.canaries) cs.push_back(canary_json(c));
  out["canaries"] = cs;
  out["best_canary"] = b.id;
  out["witness"] = r.w ? json{{"canary", r.canaries[r.witness_canary].id},
                              {"alpha", r.w->alpha},
                              {"beta", r.w->beta},
                              {"claim_beta", r.w->claim_beta}}
                       : json(nullptr);
  out["claim"] = claim.empty() ? json(nullptr) : json(claim);
  out["source"] = {{"scores", file}};
  out["tests_per_canary"] = 2 * r.ranks;
  out["level"] = r.level;
  out["assumptions"] = {{"confidence", r.confidence},
                        {"runs", "independent; other canaries included independently"}};
  out["timing"] = timing(secs);
  return out;
}

void print_scores(const canary_audit_result& r, const std::string& file, const std::string& claim) {
  const canary_result& b = r.canaries[r.best];
  std::cout << "audit: canary scores " << file << " (" << r.canaries.size()
            << " canaries; runs assumed independent)\n  "
            << (claim.empty() ? std::string("no claim") : "claim " + claim) << "; confidence "
            << fmt(r.confidence) << "; " << 2 * r.ranks
            << " rank tests per canary, each bound at level " << fmt(r.level, 3) << "\n";
  if (!r.verdict.empty()) std::cout << "verdict: " << r.verdict << " (" << r.reason << ")\n";
  std::cout << "epsilon >= " << fmt_down(r.epsilon_lower, 6) << " at delta = " << fmt(r.delta)
            << "  (certified, canary " << b.id
            << ": no (epsilon, delta)-DP with a smaller epsilon holds)\n";
  std::cout << "mu >= " << fmt_down(r.mu_lower, 6)
            << "  (certified: no mu-GDP with a smaller mu holds)\n";
  std::cout << "GDP fit (an ESTIMATE, not a bound): mu ~ " << fmt(b.gdp_fit, 4) << " for canary "
            << b.id << " ((mean_in - mean_out) / pooled sd; mu if the scores are Gaussian)\n";
  std::cout << "  " << b.n_in << " in / " << b.n_out << " out scores for that canary\n";
}

void write_canary_curve(const canary_result& c, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw usage_error("--curve-out: cannot open '" + path + "' for writing", "curve-out");
  f.precision(17);
  // No lower column: nothing here bounds the true curve from below.
  f << "alpha,beta_upper,beta_estimate\n";
  for (const auto& p : canary_curve(c))
    f << p.alpha << "," << p.beta_upper << "," << p.beta_estimate << "\n";
  if (!f) throw std::runtime_error("--curve-out: write failed");
}

int run_scores(const args& a) {
  const auto t0 = std::chrono::steady_clock::now();
  canary_options opt;
  opt.confidence = a.number_or("confidence", 0.95, 0, 1, true, true);
  opt.delta = a.number_or("delta", 0.0, 0, 1, false, true);
  std::string claim_text;
  std::optional<tradeoff> claim;
  if (a.has("claim")) claim = claim_from(a, nullptr, claim_text);
  const std::string file = a.value("scores");
  const canary_audit_result r = audit_canaries(read_scores(file), claim, opt);
  if (a.has("curve-out")) write_canary_curve(r.canaries[r.best], a.value("curve-out"));
  if (a.flag("json"))
    print_json(scores_json(r, file, claim_text, seconds_since(t0)));
  else
    print_scores(r, file, claim_text);
  return r.verdict == "violation" ? 3 : 0;
}

}  // namespace
}  // namespace fdp::cli

namespace fdp::cli {

bool is_score_audit(const args& a) { return a.has("scores") || a.has("one-run"); }

int run_score_audit(const args& a) {
  check_score_options(a);
  return a.has("scores") ? run_scores(a) : run_one_run(a);
}

}  // namespace fdp::cli
