// fdp dpsgd: certified epsilon of DP-SGD beside the CLT estimate.
#include <cmath>
#include <iostream>

#include "cli.hpp"
#include "fdp/budget/dpsgd.hpp"

namespace fdp::cli {
namespace {

int run_dpsgd(const args& a) {
  if (!a.positional().empty()) throw usage_error("unexpected argument '" + a.positional()[0] + "'");
  dpsgd_config c;
  c.sigma = a.number("sigma", 0, 1e300, true);
  c.delta = a.number("delta", 0, 1, true, true);
  c.sampling = parse_sampling(a.value_or("sampling", "poisson"));
  c.neighbours = parse_neighbours(a.value_or("neighbours", "add-remove"));
  c.sensitivity = a.number_or("sensitivity", 0.0, 0, 1e300, true);
  c.tolerance = a.number_or("tolerance", c.tolerance, 0, 0.5, true, true);
  const bool have_n = a.has("dataset-size"), have_b = a.has("batch-size");
  long long n = 0, b = 0;
  if (have_n) n = a.integer_or("dataset-size", 0, 1, 1000000000000000LL);
  if (have_b) b = a.integer_or("batch-size", 0, 1, 1000000000000000LL);
  if (have_n != have_b) throw usage_error("--dataset-size and --batch-size go together");
  if (have_n && b > n) {
    throw usage_error("--batch-size = " + std::to_string(b) +
                      " must be <= --dataset-size = " + std::to_string(n));
  }
  if (a.has("q")) {
    c.q = a.number("q", 0, 1, true, false);
    if (have_n) {
      const double qb = static_cast<double>(b) / static_cast<double>(n);
      if (std::fabs(c.q - qb) > 1e-9 * qb) {
        throw usage_error("--q = " + fmt(c.q, 17) +
                          " disagrees with --batch-size / --dataset-size = " + fmt(qb, 17) +
                          " (give one or make them agree)");
      }
    }
  } else if (have_n) {
    c.q = static_cast<double>(b) / static_cast<double>(n);
  } else {
    throw usage_error("--q is required (or --dataset-size N --batch-size B, giving q = B/N)");
  }
  if (a.has("steps") && a.has("epochs"))
    throw usage_error("give either --steps or --epochs, not both");
  double epochs = 0;
  if (a.has("steps")) {
    c.steps = a.integer_or("steps", 0, 1, 1000000000000LL);
  } else if (a.has("epochs")) {
    epochs = a.number("epochs", 0, 1e9, true);
    if (!have_n) throw usage_error("--epochs needs --dataset-size and --batch-size");
    c.steps = dpsgd_steps(epochs, n, b);
  } else {
    throw usage_error("give --steps T, or --epochs E with --dataset-size N and --batch-size B");
  }
  c.gdp_summary = !a.flag("no-mu");
  const dpsgd_report r = account_dpsgd(c);
  if (a.flag("json")) {
    json out;
    out["sampling"] = to_string(c.sampling);
    out["neighbours"] = to_string(c.neighbours);
    out["q"] = c.q;
    out["sigma"] = c.sigma;
    out["steps"] = c.steps;
    if (epochs > 0) out["epochs"] = epochs;
    out["delta"] = c.delta;
    out["sensitivity"] = r.sensitivity;
    out["epsilon"] = bracket(r.epsilon.lower, r.epsilon.upper);
    if (r.has_mu) out["mu"] = bracket(r.mu.lower, r.mu.upper);
    json clt;
    clt["mu"] = num(r.clt_mu);
    clt["epsilon"] = num(r.clt_epsilon);
    clt["is_bound"] = false;
    clt["formula"] = r.clt_formula;
    clt["note"] =
        "central-limit approximation, not a bound; on DP-SGD it typically under-states epsilon";
    out["clt"] = clt;
    out["route"] = r.route;
    out["seconds"] = r.seconds;
    print_json(out);
    return 0;
  }
  std::cout << "DP-SGD: " << to_string(c.sampling) << " sampling (q = " << fmt(c.q)
            << "), sigma = " << fmt(c.sigma) << ", " << c.steps << " steps"
            << (epochs > 0 ? " (" + fmt(epochs) + " epochs, ceil(E N / B))" : std::string()) << ", "
            << to_string(c.neighbours) << " neighbours (sensitivity " << fmt(r.sensitivity)
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
    "  --json   {\"epsilon\": {..}, \"mu\": {..}, \"clt\": {\"mu\", \"epsilon\", \"is_bound\": "
    "false}, ...}\n\n"
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
