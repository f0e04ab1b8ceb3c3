// fdp group: group privacy 1 - (1 - f)^{o k} of a guarantee (DRS Thm 2.14),
// with the same queries and JSON as fdp compose.
#include <iostream>
#include <optional>

#include "compose_common.hpp"
#include "fdp/ops/group.hpp"

namespace fdp::cli {
namespace {

int run_group(const args& a) {
  const auto specs = parse_specs(a);
  if (!a.has("k")) throw usage_error("--k K (the group size, an integer >= 1) is required");
  const std::int64_t k = parse_count(a.value("k"), "--k", 1, 1000000000000LL);
  if (a.value_or("method", "auto") == "clt") {
    throw usage_error("--method clt is for fdp compose; group takes auto, exact or pld");
  }
  const auto opts = compose_options_from(a);
  const queries q = read_queries(a);
  const tradeoff_bracket g = group(specs, k, opts);
  json out = envelope("group");
  out["method"] = g.method();
  out["k"] = k;
  if (g.is_exact()) out["tradeoff"] = g.exact()->describe();
  const query_answers answers = answer_queries(q, g, g);
  add_answers_json(out, answers);
  const std::optional<interval> mu = gdp_summary_if_wanted(a, q, g);
  if (mu) out["mu"] = bracket(mu->lower, mu->upper);
  // (the composition's tolerance; group has no refinement of its own to meet it)
  if (!g.is_exact()) out["assumptions"] = {{"tolerance", opts.tolerance}};
  const json relations = spec_assumptions_json(specs);
  if (!relations.empty()) out["assumptions"]["specs"] = relations;
  if (a.flag("json")) {
    print_json(out);
    return 0;
  }
  std::cout << "group privacy, group size k = " << k << ", method " << g.method();
  if (g.is_exact()) std::cout << ": " << g.exact()->describe();
  std::cout << "\n";
  print_spec_assumptions(specs);
  // (the queried points to 10 digits, where compose echoes them exactly)
  print_answers(answers, [](double x) { return fmt(x); });
  if (mu) print_gdp_summary(*mu);
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "group", "group privacy 1 - (1-f)^{o k} for groups of size K (same queries as compose)",
    "usage: fdp group SPEC... --k K [--delta D]... [--eps E]... [--alpha A]... [--mu]\n"
    "                 [--method auto|exact|pld] [--tolerance T] [--json]\n\n"
    "If a mechanism is f-DP, datasets that differ in K records are\n"
    "[1 - (1 - f)^{o K}]-DP, with (1 - f)^{o K} the K-fold composition of the map\n"
    "x -> 1 - f(x) (Dong, Roth & Su 2019, Thm 2.14). Several specs are composed\n"
    "first. Closed forms: G_mu -> G_{K mu}, the Laplace trade-off with mu -> the\n"
    "one with K mu, f_{eps,delta} and curves -> the exact polygon power. A numeric\n"
    "composition is bracketed: the power of its lower and upper polygons\n"
    "(group privacy is monotone in f), so every answer is [lower, upper] around\n"
    "the truth. Note f_{eps,0} does NOT become f_{K eps,0}.\n\n"
    "  --k K          group size, an integer >= 1 (required)\n"
    "  --delta D      epsilon at delta D (repeatable)\n"
    "  --eps E        delta at epsilon E (repeatable)\n"
    "  --alpha A      beta at A (repeatable)\n"
    "  --mu           also report the GDP summary (smallest mu with f >= G_mu)\n"
    "  --method M     as for compose: auto, exact, pld\n"
    "  --tolerance T  target relative width of the composition's epsilon bracket\n"
    "  --max-memory M memory ceiling of the composition (default 2G; 0: none)\n"
    "  --json         one JSON object (method, k, tradeoff, queries, mu)\n"
    "With no query: epsilon at delta = 1e-5 and the GDP summary.\n\n"
    "examples:\n"
    "  fdp group gdp:mu=0.5 --k 3 --json            # G_1.5: mu = 1.5\n"
    "  fdp group laplace:b=2 --k 4 --alpha 0.1      # the Laplace trade-off with mu = 2\n"
    "  fdp group epsdelta:eps=0.1 --k 10 --delta 1e-5\n"
    "  fdp group laplace:b=10,times=100 --k 2 --delta 1e-5\n",
    query_command_options({{"k", true, false, "group size"}}), run_group, true});

}  // namespace
}  // namespace fdp::cli
