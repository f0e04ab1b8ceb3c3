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
#include "fdp/audit/score_file.hpp"
#include "json_output.hpp"

namespace fdp::cli {
namespace {

using namespace fdp::audit;

struct one_run_verdict {
  std::string verdict, reason;  ///< empty without --claim
  double claim_epsilon = std::numeric_limits<double>::quiet_NaN();
};

// The claim's epsilon at delta (the upper end of its bracket: rejecting that
// rejects every value the claim might have) is tested with the theorem's
// p-value; a claim with no finite epsilon at delta cannot be rejected.
one_run_verdict judge_one_run(const args& a, const one_run_result& r, std::string& claim_text) {
  one_run_verdict v;
  const auto c = claim_composition(a, claim_text);
  if (!c) return v;
  v.claim_epsilon = c->epsilon(r.delta).upper;
  if (!std::isfinite(v.claim_epsilon)) {
    v.verdict = "inconclusive";
    v.reason =
        "the claim has no finite epsilon at this delta, so no count of correct guesses "
        "can reject it (give --delta > 0)";
    return v;
  }
  const double p = one_run_p_value(r.canaries, r.guesses, r.correct, v.claim_epsilon, r.delta);
  if (p <= 1.0 - r.confidence) {
    v.verdict = "violation";
    v.reason =
        "the correct guesses are too many for the claim's (epsilon, delta): p-value " + fmt(p, 3);
  } else {
    v.verdict = "consistent";
    v.reason = "no evidence against the claim from this run (p-value " + fmt(p, 3) + ")";
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
  out["claim"] = claim.empty() ? json(nullptr) : json(claim);
  out["claim_epsilon"] = num(v.claim_epsilon);
  out["source"] = {{"one_run", file}};
  out["assumptions"] = {{"confidence", r.confidence},
                        {"inclusion", "each canary included independently with probability 1/2"},
                        {"theorem", "Steinke, Nasr & Jagielski 2023, Thm 3.1"}};
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
            << " (Steinke, Nasr & Jagielski 2023, Thm 3.1)\n";
  if (!v.verdict.empty()) std::cout << "verdict: " << v.verdict << " (" << v.reason << ")\n";
  std::cout << "correct guesses: " << r.correct << " of " << r.guesses << "\n";
  std::cout << "epsilon >= " << fmt_down(r.epsilon_lower, 6) << " at delta = " << fmt(r.delta)
            << "  (certified: no (epsilon, delta)-DP with a smaller epsilon holds)\n";
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
