// fdp dpsgd: certified epsilon of DP-SGD beside the CLT estimate.
#include <cmath>
#include <iostream>

#include "cli.hpp"
#include "fdp/budget/dpsgd.hpp"
#include "fdp/core/error.hpp"

namespace fdp::cli {
namespace {

// --dataset-size N and --batch-size B, given together or not at all.
struct batching {
  bool given = false;
  long long dataset_size = 0, batch_size = 0;
};

batching batching_from(const args& a) {
  const bool have_n = a.has("dataset-size"), have_b = a.has("batch-size");
  batching bt;
  if (have_n) bt.dataset_size = a.integer_or("dataset-size", 0, 1, 1000000000000000LL);
  if (have_b) bt.batch_size = a.integer_or("batch-size", 0, 1, 1000000000000000LL);
  if (have_n != have_b) throw usage_error("--dataset-size and --batch-size go together");
  bt.given = have_n;
  if (bt.given && bt.batch_size > bt.dataset_size) {
    throw usage_error("--batch-size = " + std::to_string(bt.batch_size) +
                      " must be <= --dataset-size = " + std::to_string(bt.dataset_size));
  }
  return bt;
}

// q: --q, or B/N; both only when they agree.
double sampling_rate(const args& a, const batching& bt) {
  if (!a.has("q")) {
    if (!bt.given)
      throw usage_error("--q is required (or --dataset-size N --batch-size B, giving q = B/N)");
    return static_cast<double>(bt.batch_size) / static_cast<double>(bt.dataset_size);
  }
  const double q = a.number("q", 0, 1, true, false);
  if (bt.given) {
    const double qb = static_cast<double>(bt.batch_size) / static_cast<double>(bt.dataset_size);
    if (std::fabs(q - qb) > 1e-9 * qb) {
      // (the shortest decimals that read back: 0.1, not 0.10000000000000001)
      throw usage_error("--q = " + detail::format_value(q) +
                            " disagrees with --batch-size / --dataset-size = " +
                            detail::format_value(qb) + " (give one or make them agree)",
                        "q");
    }
  }
  return q;
}

// The DP-SGD run to account for, and its epochs when given as such.
struct dpsgd_run {
  dpsgd_config config;
  double epochs = 0;  ///< 0: --steps was given
};

// T: --steps, or ceil(E N / B) from --epochs.
void set_steps(const args& a, const batching& bt, dpsgd_run& run) {
  if (a.has("steps") && a.has("epochs"))
    throw usage_error("give either --steps or --epochs, not both");
  if (a.has("steps")) {
    run.config.steps = a.integer_or("steps", 0, 1, 1000000000000LL);
  } else if (a.has("epochs")) {
    run.epochs = a.number("epochs", 0, 1e9, true);
    if (!bt.given) throw usage_error("--epochs needs --dataset-size and --batch-size");
    run.config.steps = dpsgd_steps(run.epochs, bt.dataset_size, bt.batch_size);
  } else {
    throw usage_error("give --steps T, or --epochs E with --dataset-size N and --batch-size B");
  }
}

dpsgd_run dpsgd_run_from(const args& a) {
  if (!a.positional().empty()) throw usage_error("unexpected argument '" + a.positional()[0] + "'");
  dpsgd_run run;
  dpsgd_config& c = run.config;
  c.sigma = a.number("sigma", 0, 1e300, true);
  c.delta = a.number("delta", 0, 1, true, true);
  c.sampling = parse_sampling(a.value_or("sampling", "poisson"));
  c.neighbours = parse_neighbours(a.value_or("neighbours", "add-remove"));
  c.sensitivity = a.number_or("sensitivity", 0.0, 0, 1e300, true);
  c.tolerance = a.number_or("tolerance", c.tolerance, 0, 0.5, true, true);
  const batching bt = batching_from(a);
  c.q = sampling_rate(a, bt);
  set_steps(a, bt, run);
  c.gdp_summary = !a.flag("no-mu");
  return run;
}

// What the bound assumes: the run accounted for and how it was sampled.
json dpsgd_assumptions(const dpsgd_run& run, const dpsgd_report& r) {
  const dpsgd_config& c = run.config;
  json as;
  as["sampling"] = to_string(c.sampling);
  as["neighbours"] = to_string(c.neighbours);
  as["q"] = c.q;
  as["sigma"] = c.sigma;
  as["steps"] = c.steps;
  if (run.epochs > 0) as["epochs"] = run.epochs;
  as["sensitivity"] = r.sensitivity;
  as["tolerance"] = c.tolerance;
  return as;
}

json dpsgd_json(const dpsgd_run& run, const dpsgd_report& r) {
  const dpsgd_config& c = run.config;
  json out = envelope("dpsgd");
  out["queries"] =
      json::array({query("delta", c.delta, "epsilon", bracket(r.epsilon.lower, r.epsilon.upper))});
  if (r.has_mu) out["mu"] = bracket(r.mu.lower, r.mu.upper);
  json clt;
  clt["applicable"] = true;
  clt["mu"] = num(r.clt_mu);
  clt["estimates"] = json::array({query("delta", c.delta, "epsilon", num(r.clt_epsilon))});
  clt["is_bound"] = false;
  clt["formula"] = r.clt_formula;
  clt["note"] =
      "central-limit approximation, not a bound; on DP-SGD it typically under-states epsilon";
  out["clt"] = clt;
  out["route"] = r.route;
  out["assumptions"] = dpsgd_assumptions(run, r);
  out["timing"] = timing(r.seconds);
  return out;
}

void print_dpsgd(const dpsgd_run& run, const dpsgd_report& r) {
  const dpsgd_config& c = run.config;
  std::cout << "DP-SGD: " << to_string(c.sampling) << " sampling (q = " << fmt(c.q)
            << "), sigma = " << fmt(c.sigma) << ", " << c.steps << " steps"
            << (run.epochs > 0 ? " (" + fmt(run.epochs) + " epochs, ceil(E N / B))" : std::string())
            << ", " << to_string(c.neighbours) << " neighbours (sensitivity " << fmt(r.sensitivity)
            << " C), delta = " << fmt(c.delta) << "\n";
  std::cout << "  certified epsilon:          [" << fmt_down(r.epsilon.lower) << ", "
            << fmt_up(r.epsilon.upper) << "]   (a bound: epsilon <= " << fmt_up(r.epsilon.upper)
            << ")\n";
  if (r.has_mu) {
    std::cout << "  GDP summary mu:             [" << fmt_down(r.mu.lower) << ", "
              << fmt_up(r.mu.upper) << "]   (smallest mu with f >= G_mu)\n";
  }
  std::cout << "  CLT estimate (Bu et al.):   mu = " << fmt(r.clt_mu)
            << ", epsilon = " << fmt(r.clt_epsilon)
            << "   NOT a bound: an approximation that typically under-states DP-SGD's epsilon\n";
  std::cout << "  route: " << r.route << "\n";
  std::cout << "  (" << fmt(r.seconds * 1e3, 4) << " ms)\n";
}

int run_dpsgd(const args& a) {
  const dpsgd_run run = dpsgd_run_from(a);
  const dpsgd_report r = account_dpsgd(run.config);
  if (a.flag("json"))
    print_json(dpsgd_json(run, r));
  else
    print_dpsgd(run, r);
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "dpsgd",
    "DP-SGD: certified epsilon, GDP summary and the CLT estimate side by side",
    "usage: fdp dpsgd --sigma S --delta D (--steps T | --epochs E --dataset-size N --batch-size "
    "B)\n"
    "                 [--q Q] [--sampling poisson|without-replacement|shuffle]\n"
    "                 [--neighbours add-remove|replace-one] [--sensitivity D] [--tolerance T]\n"
    "                 [--no-mu] [--json]\n\n"
    "Each step clips per-example gradients to norm C and adds N(0, sigma^2 C^2) to the sum\n"
    "of the batch. q = B/N when --dataset-size and --batch-size are given; T = ceil(E N / B).\n"
    "Certified routes (the bracket contains the true epsilon):\n"
    "  poisson + add-remove (default): Poisson-subsampled Gaussian PLD, both orders;\n"
    "  without-replacement + replace-one: C_p(G_{2/sigma}) per step (Dong, Roth & Su\n"
    "    Thm 4.2) composed T times; the bracket is on that guarantee.\n"
    "Refused, with the reason: shuffle; poisson + replace-one; without-replacement +\n"
    "add-remove. --sensitivity is in units of C (default 1 for add-remove, 2 for replace-one).\n"
    "The CLT estimate (Bu, Dong, Long & Su 2020) is printed beside the bound; it is an\n"
    "approximation, NOT a bound, and on DP-SGD it typically under-states epsilon.\n\n"
    "  --json   {\"queries\": [{\"delta\": D, \"epsilon\": {..}}], \"mu\": {..}, \"clt\": {..},\n"
    "           \"assumptions\": {\"sampling\", \"neighbours\", \"q\", \"sigma\", \"steps\", ..}, "
    "...}\n\n"
    "examples:\n"
    "  fdp dpsgd --q 0.0042666666666666667 --sigma 1.1 --steps 14062 --delta 1e-5\n"
    "  fdp dpsgd --sigma 1.06 --epochs 20 --dataset-size 60000 --batch-size 256 --delta 1e-5\n",
    {{"q", true, false, "sampling rate"},
     {"sigma", true, false, "noise multiplier"},
     {"steps", true, false, "number of steps"},
     {"epochs", true, false, "number of epochs"},
     {"dataset-size", true, false, "N"},
     {"batch-size", true, false, "B"},
     {"delta", true, false, "delta"},
     {"sampling", true, false, "poisson|without-replacement|shuffle"},
     {"neighbours", true, false, "add-remove|replace-one"},
     {"sensitivity", true, false, "sensitivity in units of the clip norm"},
     {"tolerance", true, false, "relative bracket width"},
     {"no-mu", false, false, "skip the GDP summary"},
     {"json", false, false, "JSON output"}},
    run_dpsgd});

}  // namespace
}  // namespace fdp::cli
