// fdp convert: mu-GDP <-> (eps, delta).
#include <iostream>

#include "cli.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp::cli {
namespace {

int run_convert(const args& a) {
  if (!a.positional().empty()) throw usage_error("unexpected argument '" + a.positional()[0] + "'");
  const bool has_mu = a.has("mu"), has_eps = a.has("eps"), has_delta = a.has("delta");
  // The three values, the two given and the one computed: a closed form
  // evaluated to ~1e-12, a number (not a certified bracket).
  json out = envelope("convert");
  std::string human;
  if (has_mu && has_delta && !has_eps) {
    const double mu = a.number("mu", 0, 1e300);
    const double delta = a.number("delta", 0, 1);
    const double eps = gdp_eps(mu, delta);
    out.update({{"solved", "epsilon"}, {"mu", mu}, {"delta", delta}, {"epsilon", num(eps)}});
    human = "epsilon = " + fmt(eps) + "   (mu = " + fmt(mu) + " GDP at delta = " + fmt(delta) + ")";
  } else if (has_mu && has_eps && !has_delta) {
    const double mu = a.number("mu", 0, 1e300);
    const double eps = a.number("eps", 0, 1e300);
    const double delta = gdp_delta(mu, eps);
    out.update({{"solved", "delta"}, {"mu", mu}, {"epsilon", eps}, {"delta", num(delta)}});
    human = "delta = " + fmt(delta) + "   (mu = " + fmt(mu) + " GDP at epsilon = " + fmt(eps) + ")";
  } else if (has_eps && has_delta && !has_mu) {
    const double eps = a.number("eps", 0, 1e300);
    const double delta = a.number("delta", 0, 1);
    const double mu = gdp_mu(eps, delta);
    out.update({{"solved", "mu"}, {"epsilon", eps}, {"delta", delta}, {"mu", num(mu)}});
    human = "mu = " + fmt(mu) + "   (the largest mu whose GDP implies (" + fmt(eps) + ", " +
            fmt(delta) + ")-DP)";
  } else {
    throw usage_error("give exactly two of --mu, --eps, --delta (see 'fdp convert --help')");
  }
  if (a.flag("json")) {
    print_json(out);
  } else {
    std::cout << human << "\n";
  }
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "convert",
    "convert between mu-GDP and (eps, delta)-DP",
    "usage: fdp convert (--mu M --delta D | --mu M --eps E | --eps E --delta D) [--json]\n\n"
    "  --mu M --delta D   epsilon of mu-GDP at delta\n"
    "  --mu M --eps E     delta of mu-GDP at epsilon\n"
    "  --eps E --delta D  the largest mu whose GDP guarantee implies (E, D)-DP\n"
    "  --json             {\"solved\": \"epsilon\", \"mu\": m, \"delta\": d, \"epsilon\": x} (the\n"
    "                     two values given and the one computed)\n\n"
    "delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Dong, Roth & Su, Cor. 2.13),\n"
    "evaluated without cancellation; relative accuracy ~1e-12 for delta >= 1e-300.\n\n"
    "examples:\n"
    "  fdp convert --mu 1 --delta 1e-5           # epsilon = 4.377...\n"
    "  fdp convert --eps 1 --delta 1e-5 --json   # \"mu\": 0.268...\n",
    {{"mu", true, false, "GDP parameter, >= 0"},
     {"eps", true, false, "epsilon, >= 0"},
     {"delta", true, false, "delta in [0, 1]"},
     {"json", false, false, "print one JSON object"}},
    run_convert});

}  // namespace
}  // namespace fdp::cli
