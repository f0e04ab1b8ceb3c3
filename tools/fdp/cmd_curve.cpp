// fdp curve: the trade-off curve of a composition as CSV.
#include <chrono>

#include "compose_common.hpp"

namespace fdp::cli {
namespace {

int run_curve(const args& a) {
  const auto specs = parse_specs(a);
  const auto opts = compose_options_from(a);
  const int points = static_cast<int>(a.integer_or("points", 201, 3, 1000000));
  const auto t0 = std::chrono::steady_clock::now();
  const composition c = compose(specs, opts);
  if (!a.flag("json")) {
    write_curve_csv(c, points, "-");
    return 0;
  }
  json out = envelope("curve");
  out["method"] = c.method();
  out["curve"] = curve_json(c, points);
  if (!c.is_exact()) out["assumptions"] = {{"tolerance", opts.tolerance}};
  const json relations = spec_assumptions_json(specs);
  if (!relations.empty()) out["assumptions"]["specs"] = relations;
  out["timing"] =
      timing(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  print_json(out);
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "curve",
    "trade-off curve of the composition of specs, as CSV",
    "usage: fdp curve SPEC... [--points N] [--method auto|exact|pld] [--tolerance T] [--json]\n\n"
    "Prints CSV 'alpha,beta_lower,beta_upper' on stdout: the certified bracket of\n"
    "f(alpha) for the composition of the specs (equal columns for closed forms).\n"
    "alpha runs over N points (default 201): half uniform on [0,1], half\n"
    "log-spaced from 1e-8 to 0.5. --max-memory M caps the composition's memory\n"
    "(default 2G; beyond it a coarser grid, still certified). --json prints one\n"
    "JSON object instead: {\"curve\": [{\"alpha\": a, \"beta\": {\"lower\", \"upper\"}}, ..]}.\n\n"
    "examples:\n"
    "  fdp curve gdp:mu=1 > g1.csv\n"
    "  fdp curve epsdelta:eps=1,delta=0.1 --points 101\n"
    "  fdp curve laplace:b=1,times=10 > lap10.csv\n"
    "  fdp curve gdp:mu=1 --points 11 --json\n",
    {{"points", true, false, "number of alpha points"},
     {"method", true, false, "auto|exact|pld"},
     {"tolerance", true, false, "relative bracket width"},
     {"max-memory", true, false, "memory ceiling (default 2G)"},
     {"delta", true, false, "delta used to tune the grid (default 1e-5)"},
     {"events", true, true, "dp_accounting-style event file (JSON)"},
     {"json", false, false, "JSON output"}},
    run_curve,
    true});

}  // namespace
}  // namespace fdp::cli
