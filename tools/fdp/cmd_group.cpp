// fdp group: group privacy 1 - (1 - f)^{o k} of a guarantee (DRS Thm 2.14),
// with the same queries and JSON as fdp compose.
#include <cmath>
#include <iostream>

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
  const auto deltas = a.numbers("delta", 0, 1);
  const auto epss = a.numbers("eps", -1e300, 1e300);
  const auto alphas = a.numbers("alpha", 0, 1);
  const bool no_query = deltas.empty() && epss.empty() && alphas.empty();
  const tradeoff_bracket g = group(specs, k, opts);
  json out;
  out["method"] = g.method();
  out["k"] = k;
  if (g.is_exact()) out["tradeoff"] = g.exact()->describe();
  std::vector<double> ds = deltas;
  if (no_query) ds.push_back(1e-5);
  json je = json::array(), jd = json::array(), jb = json::array();
  for (double d : ds) {
    const interval e = g.epsilon(d);
    json x;
    x["delta"] = d;
    x["lower"] = num(e.lower);
    x["upper"] = num(e.upper);
    je.push_back(x);
  }
  for (double e : epss) {
    const interval d = g.delta(e);
    json x;
    x["epsilon"] = e;
    x["lower"] = num(d.lower);
    x["upper"] = num(d.upper);
    jd.push_back(x);
  }
  for (double al : alphas) {
    const interval b = g.beta(al);
    json x;
    x["alpha"] = al;
    x["lower"] = num(b.lower);
    x["upper"] = num(b.upper);
    jb.push_back(x);
  }
  if (!je.empty()) out["epsilon"] = je;
  if (!jd.empty()) out["delta"] = jd;
  if (!jb.empty()) out["beta"] = jb;
  interval m{};
  const bool want_mu = no_query || a.flag("mu") || g.is_exact();
  if (want_mu) {
    m = g.mu();
    out["mu"] = bracket(m.lower, m.upper);
  }
  if (a.flag("json")) {
    print_json(out);
    return 0;
  }
  std::cout << "group privacy, group size k = " << k << ", method " << g.method();
  if (g.is_exact()) std::cout << ": " << g.exact()->describe();
  std::cout << "\n";
  for (const auto& x : je)
    std::cout << "  epsilon at delta=" << fmt(x["delta"].get<double>()) << ":  ["
              << (x["lower"].is_null() ? std::string("inf") : fmt_down(x["lower"].get<double>()))
              << ", "
              << (x["upper"].is_null() ? std::string("inf") : fmt_up(x["upper"].get<double>()))
              << "]\n";
  for (const auto& x : jd)
    std::cout << "  delta at epsilon=" << fmt(x["epsilon"].get<double>()) << ":  ["
              << fmt_down(x["lower"].get<double>()) << ", " << fmt_up(x["upper"].get<double>())
              << "]\n";
  for (const auto& x : jb)
    std::cout << "  beta at alpha=" << fmt(x["alpha"].get<double>()) << ":  ["
              << fmt_down(x["lower"].get<double>()) << ", " << fmt_up(x["upper"].get<double>())
              << "]\n";
  if (want_mu) {
    std::cout << "  GDP summary (smallest mu with f >= G_mu):  [" << fmt_down(m.lower) << ", "
              << (std::isfinite(m.upper) ? fmt_up(m.upper) : std::string("inf")) << "]\n";
  }
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "group",
    "group privacy 1 - (1-f)^{o k} for groups of size K (same queries as compose)",
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
    "  --json         one JSON object (method, k, epsilon, delta, beta, mu)\n"
    "With no query: epsilon at delta = 1e-5 and the GDP summary.\n\n"
    "examples:\n"
    "  fdp group gdp:mu=0.5 --k 3 --json            # G_1.5: mu = 1.5\n"
    "  fdp group laplace:b=2 --k 4 --alpha 0.1      # the Laplace trade-off with mu = 2\n"
    "  fdp group epsdelta:eps=0.1 --k 10 --delta 1e-5\n"
    "  fdp group laplace:b=10,times=100 --k 2 --delta 1e-5\n",
    {{"k", true, false, "group size"},
     {"delta", true, true, "epsilon at this delta"},
     {"eps", true, true, "delta at this epsilon"},
     {"alpha", true, true, "beta at this alpha"},
     {"mu", false, false, "report the GDP summary"},
     {"method", true, false, "auto|exact|pld"},
     {"tolerance", true, false, "relative bracket width"},
     {"max-memory", true, false, "memory ceiling (default 2G)"},
     {"json", false, false, "JSON output"}},
    run_group,
    true});

}  // namespace
}  // namespace fdp::cli
