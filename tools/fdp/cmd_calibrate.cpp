// fdp calibrate: the value of a spec parameter that meets a target epsilon.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "cli.hpp"
#include "compose_common.hpp"
#include "fdp/budget/calibrate.hpp"

namespace fdp::cli {
namespace {

json calibrate_json(double eps, double delta, const calibration_options& o,
                    const calibration_result& r) {
  json out = envelope("calibrate");
  out["solve"] = solve_json(r);
  out["target"] = {{"delta", delta}, {"epsilon", eps}};
  out["queries"] =
      json::array({query("delta", delta, "epsilon", bracket(r.epsilon.lower, r.epsilon.upper))});
  out["iterations"] = r.iterations;
  out["evaluations"] = r.evaluations;
  out["assumptions"] = {{"tolerance", o.final_tolerance}};
  const json relations = spec_assumptions_json(r.specs);
  if (!relations.empty()) out["assumptions"]["specs"] = relations;
  out["timing"] = timing(r.seconds);
  return out;
}

int run_calibrate(const args& a) {
  if (a.positional().empty()) {
    throw usage_error(
        "a SPEC with the solved parameter left out is required (see 'fdp calibrate --help')");
  }
  const std::string param = a.value("solve");
  const double eps = a.number("eps", 0, 1e300, true);
  const double delta = a.number("delta", 0, 1, true, true);
  calibration_options o;
  o.final_tolerance = a.number_or("tolerance", o.final_tolerance, 0, 0.1, true, true);
  if (const char* t = std::getenv("FDP_TRACE_CALIBRATE"); t && *t && std::string(t) != "0") {
    o.trace = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  }
  const std::vector<std::string> others(a.positional().begin() + 1, a.positional().end());
  const calibration_result r = calibrate(a.positional()[0], param, eps, delta, others, o);
  if (a.flag("json")) {
    print_json(calibrate_json(eps, delta, o, r));
    return 0;
  }
  const bool integer = param == "times";
  std::cout << param << " = " << (integer ? fmt(r.value, 15) : fmt(r.value)) << "   (the "
            << (r.smallest ? "smallest" : "largest") << " " << param
            << " found whose certified epsilon at delta = " << fmt(delta) << " is <= " << fmt(eps)
            << (r.at_limit ? "; the end of the parameter's range" : "") << ")\n";
  std::cout << "  certified epsilon at this value: [" << fmt_down(r.epsilon.lower) << ", "
            << fmt_up(r.epsilon.upper) << "]\n";
  print_spec_assumptions(r.specs);
  std::cout << "  root bracket: [" << fmt(r.lo) << ", " << fmt(r.hi) << "] after " << r.iterations
            << " iterations, " << r.evaluations << " certified compositions, "
            << fmt(r.seconds * 1e3, 4) << " ms\n";
  if (std::isfinite(r.certified_gap) && !r.at_limit) {
    std::cout << "  optimality: the best " << param << " meeting the target is "
              << (r.smallest ? "> " : (integer ? "< " : "< ")) << fmt(r.certified_optimum_bound)
              << " (certified gap " << fmt(100 * r.certified_gap, 3) << "%)\n";
  } else if (!r.at_limit) {
    std::cout << "  optimality: no certified bound on the gap to the best " << param << "\n";
  }
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "calibrate",
    "solve for sigma, b, q or times so that the certified epsilon meets a target",
    "usage: fdp calibrate SPEC [FIXED_SPEC...] --solve PARAM --eps E --delta D\n"
    "                     [--tolerance T] [--json]\n\n"
    "SPEC leaves PARAM out; any further specs are composed with it unchanged. The\n"
    "answer MEETS the target: its certified (upper-bound) epsilon at D is <= E. For\n"
    "sigma and b the smallest such value is sought, for q, times, mu, eps and\n"
    "sensitivity the largest. A bracketing root finder (toms748, integer bisection\n"
    "for times) on the certified bound; the output also bounds how far the answer\n"
    "can be from the best value (a point certified NOT to meet the target).\n\n"
    "  --solve PARAM   sigma | b | q | times | mu | eps | sensitivity (by spec kind)\n"
    "  --eps E         target epsilon, > 0\n"
    "  --delta D       delta, in (0, 1)\n"
    "  --tolerance T   relative epsilon-bracket width near the answer (default 5e-4)\n"
    "  --json          {\"solve\": {\"parameter\", \"value\", \"bracket\", \"certified_gap\", "
    "..},\n"
    "                  \"queries\": [{\"delta\": D, \"epsilon\": {\"lower\", \"upper\"}}], ...}\n\n"
    "examples:\n"
    "  fdp calibrate subsampled-gaussian:q=0.0042666666666666667,times=14062 --solve sigma --eps 3 "
    "--delta 1e-5\n"
    "  fdp calibrate gaussian:sigma=2 --solve times --eps 8 --delta 1e-6\n"
    "  fdp calibrate laplace:times=100 --solve b --eps 1 --delta 1e-6 --json\n",
    {{"solve", true, false, "parameter to solve for"},
     {"eps", true, false, "target epsilon"},
     {"delta", true, false, "delta"},
     {"tolerance", true, false, "relative epsilon bracket width near the answer"},
     {"json", false, false, "JSON output"}},
    run_calibrate,
    true});

}  // namespace
}  // namespace fdp::cli
