// fdp dpsgd: DP-SGD in one call: the certified epsilon of a run (or the
// noise multiplier, steps, epochs or batch size that meets a target),
// with the step count, sampling scheme and neighbour relation it assumed.
#include <cmath>
#include <iostream>

#include "cli.hpp"
#include "dpsgd_run.hpp"
#include "fdp/budget/dpsgd.hpp"
#include "fdp/core/error.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp::cli {
namespace {

std::vector<double> deltas(const dpsgd_config& c) {
  std::vector<double> ds{c.delta};
  ds.insert(ds.end(), c.more_deltas.begin(), c.more_deltas.end());
  return ds;
}

std::vector<interval> epsilons(const dpsgd_report& r) {
  std::vector<interval> es{r.epsilon};
  es.insert(es.end(), r.more_epsilons.begin(), r.more_epsilons.end());
  return es;
}

// Where the CLT estimate falls against the certified bracket, in words: it
// is an approximation and can miss on either side.
std::string clt_relation(double clt_eps, const interval& certified) {
  if (clt_eps < certified.lower) return "below the certified bracket: it under-states epsilon here";
  if (clt_eps > certified.upper) return "above the certified bracket: it over-states epsilon here";
  return "inside the certified bracket here";
}

// What the bound assumes: the run accounted for and how it was sampled.
json assumptions_json(const dpsgd_run& run, const dpsgd_config& c, const dpsgd_report& r) {
  json as;
  as["sampling"] = to_string(c.sampling);
  as["neighbours"] = to_string(c.neighbours);
  as["q"] = c.q;
  as["sigma"] = c.sigma;
  std::int64_t total = 0;
  json ph = json::array();
  for (const auto& p : dpsgd_phases(c)) {
    total += p.steps;
    ph.push_back({{"q", p.q}, {"sigma", p.sigma}, {"steps", p.steps}});
  }
  as["steps"] = total;
  if (ph.size() > 1) as["phases"] = ph;
  const phase_origin& o = run.origins.front();
  if (o.epochs > 0) as["epochs"] = o.epochs;
  if (o.epochs > 0 || (run.solve && run.solve->param == "epochs"))
    as["steps_per_epoch"] = run.exact_per_epoch > 0 ? std::string("exact") : to_string(run.rule);
  if (run.dataset_size > 0) as["dataset_size"] = run.dataset_size;
  if (c.max_batch_size > 0) as["max_batch_size"] = c.max_batch_size;
  if (c.sampling == sampling_scheme::random_allocation) as["uses"] = allocation_uses(c);
  as["sensitivity"] = r.sensitivity;
  as["tolerance"] = c.tolerance;
  return as;
}

json clt_json(const dpsgd_config& c, const dpsgd_report& r) {
  json clt;
  clt["applicable"] = !std::isnan(r.clt_mu);
  clt["formula"] = r.clt_formula;
  if (std::isnan(r.clt_mu)) return clt;
  clt["mu"] = num(r.clt_mu);
  json ce = json::array();
  for (double d : deltas(c)) ce.push_back(query("delta", d, "epsilon", num(gdp_eps(r.clt_mu, d))));
  clt["estimates"] = ce;
  clt["is_bound"] = false;
  clt["note"] =
      "central-limit approximation, not a bound; " + clt_relation(r.clt_epsilon, r.epsilon);
  return clt;
}

json dpsgd_json(const dpsgd_run& run, const dpsgd_config& c, const dpsgd_report& r,
                const dpsgd_solution* s) {
  json out = envelope("dpsgd");
  json qs = json::array();
  const auto ds = deltas(c);
  const auto es = epsilons(r);
  for (std::size_t i = 0; i < ds.size(); ++i)
    qs.push_back(query("delta", ds[i], "epsilon", bracket(es[i].lower, es[i].upper)));
  out["queries"] = qs;
  if (s) {
    out["solve"] = solve_json(s->calibration);
    out["target"] = {{"delta", c.delta}, {"epsilon", run.solve->target_epsilon}};
  }
  if (r.has_mu) out["mu"] = bracket(r.mu.lower, r.mu.upper);
  if (c.mu_above > 0)
    out["mu_above"] = {{"level", c.mu_above},
                       {"mu", bracket(r.mu_window.lower, r.mu_window.upper)}};
  out["clt"] = clt_json(c, r);
  out["upper_certified"] = r.upper_certified;
  if (!r.poisson_epsilons.empty()) {
    json pq = json::array();
    for (std::size_t i = 0; i < ds.size(); ++i)
      pq.push_back(query("delta", ds[i], "epsilon",
                         bracket(r.poisson_epsilons[i].lower, r.poisson_epsilons[i].upper)));
    out["poisson_comparison"] = {
        {"queries", pq},
        {"note",
         "Poisson accounting of the same q, sigma and steps: another sampler, NOT "
         "this run's guarantee"}};
  }
  out["route"] = r.route;
  out["assumptions"] = assumptions_json(run, c, r);
  out["timing"] = timing(r.seconds + (s ? s->calibration.seconds : 0.0));
  return out;
}

// "q = 0.01024 (B/N = 512/50000), sigma = 1.1, 2940 steps (30 epochs x 98 ...)"
std::string phase_text(const dpsgd_run& run, const dpsgd_phase& p, const phase_origin& o) {
  std::string t = "q = " + fmt(p.q);
  if (o.batch_size > 0)
    t += " (B/N = " + std::to_string(o.batch_size) + "/" + std::to_string(run.dataset_size) + ")";
  t += ", sigma = " + fmt(p.sigma) + ", " + std::to_string(p.steps) + " steps";
  if (o.epochs > 0)
    t += " (" + fmt(o.epochs) + " epochs; " + steps_rule_text(run, o.batch_size) + ")";
  return t;
}

void print_solution(const dpsgd_run& run, const dpsgd_solution& s) {
  const calibration_result& r = s.calibration;
  const bool integer = r.param != "sigma";
  std::cout << "  solved: " << r.param << " = " << (integer ? fmt(r.value, 15) : fmt(r.value))
            << "   (the " << (r.smallest ? "smallest" : "largest") << " " << r.param
            << " found whose certified epsilon at delta = " << fmt(s.config.delta)
            << " is <= " << fmt(run.solve->target_epsilon)
            << (r.at_limit ? "; the end of its range" : "") << ")\n";
  if (integer && !r.at_limit && std::isfinite(r.certified_optimum_bound))
    std::cout << "          (" << r.param << " = " << fmt(r.certified_optimum_bound, 15)
              << " certainly exceeds the target)\n";
  else if (!integer && std::isfinite(r.certified_gap) && !r.at_limit)
    std::cout << "          the best " << r.param << " meeting the target is "
              << (r.smallest ? "> " : "< ") << fmt(r.certified_optimum_bound) << " (certified gap "
              << fmt(100 * r.certified_gap, 3) << "%)\n";
}

// Shuffled batches under add-remove: what is certified is a lower bound;
// the Poisson number of the same run is labelled as another sampler's.
void print_lower_bound_only(const std::vector<double>& ds, const std::vector<interval>& es) {
  for (std::size_t i = 0; i < ds.size(); ++i)
    std::cout << "  certified LOWER bound at delta = " << fmt(ds[i])
              << ": epsilon >= " << fmt_down(es[i].lower)
              << "   (no certified upper bound for this sampler)\n";
}

// The Poisson number of the same run, for one-step-per-epoch samplers.
void print_poisson_contrast(const std::vector<double>& ds, const dpsgd_report& r) {
  for (std::size_t i = 0; i < ds.size() && i < r.poisson_epsilons.size(); ++i)
    std::cout << "  (Poisson accounting of the same q, sigma, steps would say epsilon <= "
              << fmt_up(r.poisson_epsilons[i].upper) << " at delta = " << fmt(ds[i])
              << ": another sampler, NOT this run's guarantee)\n";
}

void print_dpsgd(const dpsgd_run& run, const dpsgd_config& c, const dpsgd_report& r,
                 const dpsgd_solution* s) {
  std::cout << "DP-SGD: " << to_string(c.sampling) << " sampling";
  if (c.max_batch_size > 0)
    std::cout << " (batches above " << c.max_batch_size << " of " << c.dataset_size
              << " records cut at random)";
  if (c.sampling == sampling_scheme::random_allocation)
    std::cout << " (each record in exactly " << allocation_uses(c) << " of the run's " << c.steps
              << " steps, chosen uniformly)";
  std::cout << ", " << to_string(c.neighbours) << " neighbours (sensitivity " << fmt(r.sensitivity)
            << " C)\n";
  const auto ps = dpsgd_phases(c);
  for (std::size_t i = 0; i < ps.size(); ++i)
    std::cout << (ps.size() > 1 ? "  phase " + std::to_string(i + 1) + ": " : "  run: ")
              << phase_text(run, ps[i], run.origins[i]) << "\n";
  if (s) print_solution(run, *s);
  const auto ds = deltas(c);
  const auto es = epsilons(r);
  if (!r.upper_certified) {
    print_lower_bound_only(ds, es);
  } else {
    for (std::size_t i = 0; i < ds.size(); ++i)
      std::cout << "  certified epsilon at delta = " << fmt(ds[i]) << ": [" << fmt_down(es[i].lower)
                << ", " << fmt_up(es[i].upper) << "]   (a bound"
                << (r.poisson_epsilons.empty() || c.sampling == sampling_scheme::balls_in_bins ||
                            c.sampling == sampling_scheme::random_allocation
                        ? ""
                        : " crediting no amplification")
                << ": epsilon <= " << fmt_up(es[i].upper) << ")\n";
  }
  print_poisson_contrast(ds, r);
  if (c.mu_above > 0)
    std::cout << "  GDP on tests with both errors >= " << fmt(c.mu_above) << ": mu in ["
              << fmt_down(r.mu_window.lower) << ", " << fmt_up(r.mu_window.upper)
              << "]   (certified: f >= G_mu there)\n";
  if (r.has_mu)
    std::cout << "  GDP summary on all of [0, 1]: mu in [" << fmt_down(r.mu.lower) << ", "
              << fmt_up(r.mu.upper) << "]   (set by the extreme tail alpha -> 0)\n";
  if (!std::isnan(r.clt_mu))
    std::cout << "  CLT estimate (Bu et al.):   mu = " << fmt(r.clt_mu)
              << ", epsilon = " << fmt(r.clt_epsilon) << "   NOT a bound; "
              << clt_relation(r.clt_epsilon, r.epsilon) << "\n";
  std::cout << "  route: " << r.route << "\n";
  std::cout << "  (" << fmt((r.seconds + (s ? s->calibration.seconds : 0.0)) * 1e3, 4) << " ms)\n";
}

// The run as solved: a solved epoch count or batch size is shown where the
// given ones are.
void record_solved(dpsgd_run& run, const dpsgd_solution& s) {
  const std::string& p = s.calibration.param;
  if (p == "epochs") run.origins.front().epochs = s.calibration.value;
  if (p == "batch-size")
    run.origins.front().batch_size = static_cast<std::int64_t>(s.calibration.value);
}

int run_dpsgd(const args& a) {
  dpsgd_run run = dpsgd_run_from(a);
  std::optional<dpsgd_solution> solution;
  if (run.solve) {
    solution = solve_dpsgd(run.config, *run.solve);
    record_solved(run, *solution);
  }
  const dpsgd_config& c = solution ? solution->config : run.config;
  const dpsgd_report r = solution ? solution->report : account_dpsgd(c);
  const dpsgd_solution* s = solution ? &*solution : nullptr;
  if (a.flag("json"))
    print_json(dpsgd_json(run, c, r, s));
  else
    print_dpsgd(run, c, r, s);
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "dpsgd",
    "DP-SGD in one call: certified epsilon, or the sigma/steps/epochs/batch size for a target",
    "usage: fdp dpsgd (--sigma S | --eps E [--solve sigma|steps|epochs|batch-size]) --delta D...\n"
    "                 (--steps T | --epochs E --dataset-size N --batch-size B | --q Q ...)\n"
    "                 [--steps-per-epoch ceil|floor|total|K] [--phase SPEC]...\n"
    "                 [--sampling poisson|truncated-poisson|without-replacement|shuffle|\n"
    "                  balls-in-bins|random-allocation] [--max-batch-size M] [--uses K]\n"
    "                 [--neighbours add-remove|zero-out|replace-one] [--sensitivity D]\n"
    "                 [--tolerance T]\n"
    "                 [--mu-above A] [--mu] [--json]\n\n"
    "Each step clips per-example gradients to norm C and adds N(0, sigma^2 C^2) to the sum\n"
    "of the batch; q = B/N. The output states the sampling scheme, neighbour relation and\n"
    "step count it assumed.\n\n"
    "Step count. --steps T, or --epochs E with a per-epoch rule (--steps-per-epoch):\n"
    "  ceil (default)  ceil(N/B) steps per epoch: a loader that keeps the last partial\n"
    "                  batch (PyTorch's DataLoader, Opacus); the largest common count\n"
    "  floor           floor(N/B): drop_last = True\n"
    "  total           ceil(E N / B) over the whole run (TF-Privacy's count; can be\n"
    "                  fewer steps than your loader runs)\n"
    "  K               exactly K steps per epoch\n"
    "Fractional epochs round the step count up.\n\n"
    "Solving. --eps E solves for a parameter, certified never to exceed E at the (one)\n"
    "--delta: sigma (the smallest; the default when --sigma is left out), or with --sigma\n"
    "given, --solve steps|epochs|batch-size (the largest; batch-size at fixed --epochs).\n"
    "Poisson sampling only. A target no value in range meets is an error that names the\n"
    "closest certified point.\n\n"
    "Phases. --phase sigma=S,q=Q,steps=T (repeatable; batch-size=B instead of q=, and\n"
    "epochs=E instead of steps=, with --dataset-size) for runs whose batch size or noise\n"
    "changes; a phase without sigma= takes --sigma, or the solved sigma (one sigma tied\n"
    "across those phases).\n\n"
    "Certified routes (the bracket contains the true epsilon):\n"
    "  poisson + add-remove (default) or zero-out (a record replaced by one with a zero\n"
    "    gradient): Poisson-subsampled Gaussian PLD, both orders;\n"
    "  poisson + replace-one: the PLD of (1-q) N(0) + q N(-1) vs (1-q) N(0) + q N(1)\n"
    "    (in units of C; Lebeda et al. 2025, Prop. 13);\n"
    "  truncated-poisson (any relation; --max-batch-size M, --dataset-size N): Poisson\n"
    "    batches of more than M records cut to M at random (padding short batches with\n"
    "    zero gradients changes nothing); the uncut Poisson pair mixed with the cut\n"
    "    batch's (the record swapped for one in the batch), the cut revealed;\n"
    "  without-replacement (a uniform batch of exactly qN records per step):\n"
    "    add-remove: the Poisson pair with shift 2 at rate q (the record swapped for\n"
    "    one in the batch; met when the other gradients oppose the record's: the\n"
    "    bracket contains the true epsilon); zero-out: the mirrored pair with bound 2\n"
    "    (an upper bound); replace-one: C_p(G_{2/sigma}) per step (Dong, Roth & Su\n"
    "    Thm 4.2) composed T times above, an input that meets the add-remove pair\n"
    "    below (a bracket on the run's epsilon, possibly wide).\n"
    "  shuffle: a certified LOWER bound (on the input where one gradient has norm C\n"
    "    and the others 0 the record's step is uniform over the full batches: the\n"
    "    balls-in-bins pair below, a lattice garbling of it), beside the Poisson\n"
    "    number of the same run, labelled as another sampler's; no amplified upper\n"
    "    bound: under zero-out and replace-one one crediting no amplification\n"
    "    (G_{D/sigma} per epoch), under add-remove none; replace-one with every\n"
    "    record used once per epoch (full batches, or the last one kept) also\n"
    "    takes tests on the input whose record's gradient is u against -u;\n"
    "  balls-in-bins (each record in one uniformly chosen step per epoch): each\n"
    "    epoch by its tightly dominating pair N(0, I_t) vs (1/t) sum_i N(D e_i/sigma, I_t)\n"
    "    (Chua et al. 2025), bracketed by two exact lattice pairs (a refinement above,\n"
    "    a garbling below): add-remove and zero-out two-sided and tight; replace-one\n"
    "    below, the larger of the zero-out pair of half the bound (the record replaced\n"
    "    by one with zero gradient) and tests on the input whose record's gradient is\n"
    "    u against -u (one phase), above, the zero-out pair's group-2 power (the\n"
    "    replacement as two zero-out steps). t = the run's steps per epoch when N and\n"
    "    B say, else floor(1/q)\n"
    "    above and ceil(1/q) below.\n"
    "  random-allocation (each record in exactly K of the run's T steps, chosen\n"
    "    uniformly; --uses K, by default the epoch count when whole, else q T):\n"
    "    above, K balls-in-bins epochs of floor(T/K) or ceil(T/K) steps (Feldman &\n"
    "    Shenfeld 2025's reduction); below, tests on the input whose outputs are the\n"
    "    dominating pair (sums of the outputs, of their likelihood ratios, of logs).\n"
    "    Tight when T/K is large (MNIST-like over 60 epochs: 0.33% wide); for few\n"
    "    steps per use the reduction is loose. Replace-one as for balls-in-bins.\n"
    "    One phase; not solvable.\n"

    "--sensitivity is the largest change of the clipped sum between neighbours, in units\n"
    "of C (default 1 for add-remove and zero-out, 2 for replace-one).\n\n"
    "GDP. The smallest mu with f >= G_mu on all of [0, 1] (--mu) is set by the extreme\n"
    "tail alpha -> 0, where DP-SGD behaves like the unsampled Gaussian (up to\n"
    "sqrt(T)/sigma): true but of little use, so it is not printed by default.\n"
    "--mu-above A gives what users mean: the smallest mu with f >= G_mu on every test\n"
    "whose type I and type II errors are both >= A, certified. The CLT estimate (Bu,\n"
    "Dong, Long & Su 2020) approximates the bulk of the curve; it is NOT a bound and\n"
    "can fall on either side of the certified bracket (the output says which).\n\n"
    "  --json   {\"queries\": [{\"delta\": D, \"epsilon\": {..}}], \"solve\": {..}, \"mu_above\": "
    "{..},\n"
    "           \"clt\": {..}, \"assumptions\": {\"sampling\", \"neighbours\", \"steps\", ..}, "
    "...}\n\n"
    "examples:\n"
    "  fdp dpsgd --dataset-size 50000 --batch-size 512 --epochs 30 --eps 3 --delta 1e-5\n"
    "  fdp dpsgd --q 0.0042666666666666667 --sigma 1.1 --steps 14062 --delta 1e-5 --mu-above 1e-6\n"
    "  fdp dpsgd --sigma 1.06 --epochs 20 --dataset-size 60000 --batch-size 256 --delta 1e-5 "
    "--delta 1e-6\n"
    "  fdp dpsgd --sigma 1.0 --dataset-size 60000 --batch-size 256 --eps 2 --delta 1e-5 --solve "
    "epochs\n"
    "  fdp dpsgd --sigma 1.1 --dataset-size 60000 --batch-size 256 --epochs 60 --delta 1e-5 "
    "--sampling truncated-poisson --max-batch-size 320\n"
    "  fdp dpsgd --sigma 1.1 --dataset-size 60000 --batch-size 256 --epochs 60 --delta 1e-5 "
    "--sampling random-allocation\n"
    "  fdp dpsgd --dataset-size 60000 --phase batch-size=256,epochs=5 --phase "
    "batch-size=1024,epochs=5 --eps 2 --delta 1e-5\n",
    {{"q", true, false, "sampling rate"},
     {"sigma", true, false, "noise multiplier"},
     {"steps", true, false, "number of steps"},
     {"epochs", true, false, "number of epochs"},
     {"dataset-size", true, false, "N"},
     {"batch-size", true, false, "B"},
     {"steps-per-epoch", true, false, "ceil|floor|total|K"},
     {"phase", true, true, "sigma=S,q=Q|batch-size=B,steps=T|epochs=E"},
     {"delta", true, true, "delta (repeatable)"},
     {"eps", true, false, "target epsilon: solve for a parameter"},
     {"solve", true, false, "sigma|steps|epochs|batch-size"},
     {"sampling", true, false,
      "poisson|truncated-poisson|without-replacement|shuffle|balls-in-bins|random-allocation"},
     {"max-batch-size", true, false, "M: truncated-poisson's largest batch"},
     {"uses", true, false, "K: random-allocation's steps per record"},
     {"neighbours", true, false, "add-remove|zero-out|replace-one"},
     {"sensitivity", true, false, "sensitivity in units of the clip norm"},
     {"tolerance", true, false, "relative bracket width"},
     {"mu-above", true, false, "GDP mu on tests with both errors >= A"},
     {"mu", false, false, "the whole-curve GDP summary"},
     {"no-mu", false, false, "(accepted; the whole-curve summary is off by default)"},
     {"json", false, false, "JSON output"}},
    run_dpsgd});

}  // namespace
}  // namespace fdp::cli
