// fdp audit --one-run FILE: the one-run audit of Steinke, Nasr & Jagielski
// (2023), fdp/audit/one_run.hpp.
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <string>

#include "audit_claim.hpp"
#include "audit_scores.hpp"
#include "fdp/audit/one_run.hpp"
#include "fdp/audit/one_run_fdp.hpp"
#include "fdp/audit/score_file.hpp"
#include "json_output.hpp"

namespace fdp::cli {
namespace {

using namespace fdp::audit;

struct one_run_verdict {
  std::string verdict, reason;  ///< empty without --claim
  double claim_epsilon = std::numeric_limits<double>::quiet_NaN();
  double steinke_p = std::numeric_limits<double>::quiet_NaN();  ///< NaN: not applicable
  bool fdp_rejected = false;                                    ///< at half the level
};

// Two tests of the claim, each at half the level (Bonferroni: the chance
// of a false "violation" stays at most 1 - confidence):
//  * Steinke et al.'s p-value at the claim's epsilon at delta (the upper
//    end of its bracket: rejecting that rejects every value the claim might
//    have); none when the claim has no finite epsilon at delta;
//  * the f-DP test of Mahloujifar et al. on the claim's curve (its lower
//    end: a weaker claim is harder to reject), for any claim, GDP included.
one_run_verdict judge_one_run(const args& a, const one_run_result& r, std::string& claim_text) {
  one_run_verdict v;
  const auto c = claim_composition(a, claim_text);
  if (!c) return v;
  const double half = 0.5 * (1.0 - r.confidence);
  v.claim_epsilon = c->epsilon(r.delta).upper;
  if (std::isfinite(v.claim_epsilon))
    v.steinke_p = one_run_p_value(r.canaries, r.guesses, r.correct, v.claim_epsilon, r.delta);
  const auto g = curve_inverse_blow_up([&](double alpha) { return c->beta(alpha).lower; });
  v.fdp_rejected = !one_run_fdp_consistent(g, r.canaries, r.guesses, r.correct, half);
  const bool steinke_rejects = v.steinke_p <= half;  // (false for NaN)
  if (steinke_rejects || v.fdp_rejected) {
    v.verdict = "violation";
    v.reason = std::string("the correct guesses are too many for the claim: ") +
               (v.fdp_rejected ? "its trade-off curve is rejected (f-DP test)" : "") +
               (v.fdp_rejected && steinke_rejects ? "; " : "") +
               (steinke_rejects ? "its (epsilon, delta) has p-value " + fmt(v.steinke_p, 3) : "") +
               " (each test at level " + fmt(half, 3) + ")";
  } else {
    v.verdict = "consistent";
    v.reason = "no evidence against the claim from this run: the f-DP test keeps its curve; " +
               (std::isnan(v.steinke_p)
                    ? std::string("no (epsilon, delta) test (the claim has no finite epsilon at "
                                  "this delta)")
                    : "the (epsilon, delta) test's p-value is " + fmt(v.steinke_p, 3));
  }
  return v;
}

json one_run_json(const one_run_result& r, const one_run_verdict& v, const std::string& file,
                  const std::string& claim, double secs) {
  json out = envelope("audit");
  out["kind"] = "one_run";
  out["verdict"] = v.verdict.empty() ? json(nullptr) : json(v.verdict);
  out["reason"] = v.verdict.empty() ? "no --claim: bound only" : v.reason;
  out["queries"] =
      json::array({query("delta", r.delta, "epsilon",
                         bracket(r.epsilon_lower, std::numeric_limits<double>::infinity()))});
  out["canaries"] = r.canaries;
  out["included"] = r.included;
  out["guesses"] = r.guesses;
  out["guessed_in"] = r.guessed_in;
  out["correct"] = r.correct;
  out["p_value_at_zero"] = r.p_value_at_zero;
  out["mu_lower"] = r.mu_lower;
  out["tests"] = {{"epsilon_delta",
                   {{"theorem", "Steinke, Nasr & Jagielski 2023, Thm 3.1"},
                    {"p_value_at_claim", num(v.steinke_p)}}},
                  {"f_dp",
                   {{"theorem", "Mahloujifar, Melis & Chaudhuri 2024, one-run f-DP audit"},
                    {"claim_rejected", v.verdict.empty() ? json(nullptr) : json(v.fdp_rejected)}}}};
  out["claim"] = claim.empty() ? json(nullptr) : json(claim);
  out["claim_epsilon"] = num(v.claim_epsilon);
  out["source"] = {{"one_run", file}};
  out["assumptions"] = {{"confidence", r.confidence},
                        {"inclusion", "each canary included independently with probability 1/2"},
                        {"theorem",
                         "Steinke, Nasr & Jagielski 2023, Thm 3.1 (epsilon); Mahloujifar, "
                         "Melis & Chaudhuri 2024 (mu, and the claim's curve)"},
                        {"verdict_level", "each test at half of 1 - confidence"}};
  out["timing"] = timing(secs);
  return out;
}

void print_one_run(const one_run_result& r, const one_run_verdict& v, const std::string& file,
                   const std::string& claim) {
  std::cout << "audit: one run, " << file << ": " << r.canaries << " canaries (" << r.included
            << " included), " << r.guesses << " guesses (the " << r.guessed_in
            << " highest scores 'in', the " << r.guesses - r.guessed_in << " lowest 'out')\n"
            << "  " << (claim.empty() ? std::string("no claim") : "claim " + claim)
            << "; confidence " << fmt(r.confidence)
            << " (Steinke, Nasr & Jagielski 2023, Thm 3.1; Mahloujifar, Melis & Chaudhuri 2024)\n";
  if (!v.verdict.empty()) std::cout << "verdict: " << v.verdict << " (" << v.reason << ")\n";
  std::cout << "correct guesses: " << r.correct << " of " << r.guesses << "\n";
  std::cout << "epsilon >= " << fmt_down(r.epsilon_lower, 6) << " at delta = " << fmt(r.delta)
            << "  (certified: no (epsilon, delta)-DP with a smaller epsilon holds)\n";
  std::cout << "mu >= " << fmt_down(r.mu_lower, 6)
            << "  (certified: no mu-GDP with a smaller mu holds; the f-DP test)\n";
  std::cout << "p-value of 'no leak' (epsilon = 0): " << fmt(r.p_value_at_zero, 3) << "\n";
}

}  // namespace

int run_one_run(const args& a) {
  const auto t0 = std::chrono::steady_clock::now();
  const double confidence = a.number_or("confidence", 0.95, 0, 1, true, true);
  const double delta = a.number_or("delta", 0.0, 0, 1, false, true);
  const std::string file = a.value("one-run");
  const score_table t = read_scores(file);
  const auto m = static_cast<long long>(t.rows.size());
  const long long guesses = a.has("guesses") ? a.integer_or("guesses", m, 1, 1LL << 40) : m;
  const one_run_result r = audit_one_run(t, guesses, delta, confidence);
  std::string claim_text;
  const one_run_verdict v = judge_one_run(a, r, claim_text);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (a.flag("json"))
    print_json(one_run_json(r, v, file, claim_text, secs));
  else
    print_one_run(r, v, file, claim_text);
  return v.verdict == "violation" ? 3 : 0;
}

}  // namespace fdp::cli
