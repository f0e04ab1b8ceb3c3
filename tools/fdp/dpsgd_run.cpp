#include "dpsgd_run.hpp"

#include <cmath>
#include <sstream>

#include "fdp/core/error.hpp"

namespace fdp::cli {
namespace {

constexpr long long kMaxCount = 1000000000000LL;

// --steps-per-epoch ceil|floor|total|K
void read_steps_rule(const args& a, dpsgd_run& run) {
  const std::string r = a.value_or("steps-per-epoch", "ceil");
  if (!r.empty() && r.find_first_not_of("0123456789") == std::string::npos) {
    run.exact_per_epoch = a.integer_or("steps-per-epoch", 0, 1, kMaxCount);
    return;
  }
  try {
    run.rule = parse_epoch_steps_rule(r);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what(), "steps-per-epoch");
  }
}

std::int64_t steps_for_epochs(const dpsgd_run& run, double epochs, std::int64_t batch) {
  if (run.exact_per_epoch > 0) return dpsgd_steps_exact(epochs, run.exact_per_epoch);
  if (run.dataset_size == 0) throw usage_error("--epochs needs --dataset-size and --batch-size");
  return dpsgd_steps(epochs, run.dataset_size, batch, run.rule);
}

double rate_of_batch(const dpsgd_run& run, std::int64_t batch) {
  if (run.dataset_size == 0) throw usage_error("a batch size needs --dataset-size", "batch-size");
  if (batch > run.dataset_size) {
    throw usage_error("--batch-size = " + std::to_string(batch) +
                          " must be <= --dataset-size = " + std::to_string(run.dataset_size),
                      "batch-size");
  }
  return static_cast<double>(batch) / static_cast<double>(run.dataset_size);
}

// The first phase from the flat options (--q or --batch-size, --steps or
// --epochs, --sigma).
void read_flat_phase(const args& a, dpsgd_run& run) {
  dpsgd_config& c = run.config;
  phase_origin o;
  if (a.has("batch-size")) o.batch_size = a.integer_or("batch-size", 0, 1, kMaxCount);
  if (a.has("q")) {
    c.q = a.number("q", 0, 1, true, false);
    if (o.batch_size > 0 && std::fabs(c.q - rate_of_batch(run, o.batch_size)) > 1e-9 * c.q) {
      throw usage_error("--q = " + detail::format_value(c.q) +
                            " disagrees with --batch-size / --dataset-size = " +
                            detail::format_value(rate_of_batch(run, o.batch_size)) +
                            " (give one or make them agree)",
                        "q");
    }
  } else if (o.batch_size > 0) {
    c.q = rate_of_batch(run, o.batch_size);
  } else if (!(run.solve && run.solve->param == "batch-size")) {
    throw usage_error("--q is required (or --dataset-size N --batch-size B, giving q = B/N)");
  }
  if (a.has("steps") && a.has("epochs"))
    throw usage_error("give either --steps or --epochs, not both");
  const bool solving_count =
      run.solve && (run.solve->param == "steps" || run.solve->param == "epochs");
  if (a.has("steps")) {
    c.steps = a.integer_or("steps", 0, 1, kMaxCount);
  } else if (a.has("epochs")) {
    o.epochs = a.number("epochs", 0, 1e9, true);
    const bool solving_batch = run.solve && run.solve->param == "batch-size";
    if (o.batch_size == 0 && run.exact_per_epoch == 0 && !solving_batch)
      throw usage_error("--epochs needs --dataset-size and --batch-size (or --steps-per-epoch K)");
    if (o.batch_size > 0 || run.exact_per_epoch > 0)
      c.steps = steps_for_epochs(run, o.epochs, o.batch_size);
  } else if (!solving_count) {
    throw usage_error("give --steps T, or --epochs E with --dataset-size N and --batch-size B");
  }
  if (a.has("sigma")) c.sigma = a.number("sigma", 0, 1e300, true);
  // (balls-in-bins: the loader's bins per epoch, when the run says)
  if (run.exact_per_epoch > 0)
    c.steps_per_epoch = run.exact_per_epoch;
  else if (o.batch_size > 0 && run.rule != epoch_steps_rule::total)
    c.steps_per_epoch = run.rule == epoch_steps_rule::ceil
                            ? (run.dataset_size + o.batch_size - 1) / o.batch_size
                            : run.dataset_size / o.batch_size;
  run.origins.push_back(o);
}

// --phase sigma=S,q=Q|batch-size=B,steps=T|epochs=E
dpsgd_phase read_phase(const dpsgd_run& run, const std::string& text, double default_sigma,
                       phase_origin& o) {
  dpsgd_phase p;
  p.sigma = default_sigma;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq),
                      value = eq == std::string::npos ? "" : item.substr(eq + 1);
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
      throw usage_error("--phase '" + text + "': " + key + " must be a number > 0", "phase");
    if (key == "sigma")
      p.sigma = v;
    else if (key == "q" && v <= 1)
      p.q = v;
    else if (key == "batch-size" && v == std::floor(v))
      o.batch_size = static_cast<std::int64_t>(v);
    else if (key == "steps" && v == std::floor(v) && v <= kMaxCount)
      p.steps = static_cast<std::int64_t>(v);
    else if (key == "epochs")
      o.epochs = v;
    else
      throw usage_error("--phase '" + text + "': '" + item +
                            "' is not one of sigma=S, q=Q (in (0, 1]), batch-size=B, steps=T, "
                            "epochs=E (whole numbers for batch-size and steps)",
                        "phase");
  }
  if (o.batch_size > 0) p.q = rate_of_batch(run, o.batch_size);
  if (o.epochs > 0) p.steps = steps_for_epochs(run, o.epochs, o.batch_size);
  if (p.q == 0 || p.steps == 0)
    throw usage_error("--phase '" + text + "' needs q= or batch-size=, and steps= or epochs=",
                      "phase");
  return p;
}

void read_phases(const args& a, dpsgd_run& run) {
  for (const char* flat : {"q", "batch-size", "steps", "epochs"}) {
    if (a.has(flat))
      throw usage_error(
          std::string("--") + flat + " and --phase do not mix: give every phase with --phase",
          flat);
  }
  const double sigma = a.has("sigma") ? a.number("sigma", 0, 1e300, true) : 0.0;
  bool first = true;
  for (const std::string& text : a.all("phase")) {
    phase_origin o;
    const dpsgd_phase p = read_phase(run, text, sigma, o);
    if (first) {
      run.config.q = p.q, run.config.sigma = p.sigma, run.config.steps = p.steps;
      first = false;
    } else {
      run.config.later_phases.push_back(p);
    }
    run.origins.push_back(o);
  }
}

// --eps E [--solve P]: P defaults to sigma when --sigma is not given.
void read_solve(const args& a, dpsgd_run& run) {
  if (!a.has("eps")) {
    if (a.has("solve")) throw usage_error("--solve needs a target --eps", "solve");
    return;
  }
  dpsgd_solve s;
  s.target_epsilon = a.number("eps", 0, 1e300, true);
  s.param = a.value_or("solve", a.has("sigma") && !a.has("phase") ? "" : "sigma");
  if (s.param.empty())
    throw usage_error("--eps with --sigma: say what to solve for (--solve steps|epochs|batch-size)",
                      "solve");
  if (s.param != "sigma" && s.param != "steps" && s.param != "epochs" && s.param != "batch-size")
    throw usage_error("--solve '" + s.param + "' must be one of sigma, steps, epochs, batch-size",
                      "solve");
  if (s.param == "sigma" && a.has("sigma") && !a.has("phase"))
    throw usage_error("--solve sigma: leave --sigma out", "sigma");
  // the solved quantity must be left out
  const std::vector<std::string> solved_flags =
      s.param == "steps"        ? std::vector<std::string>{"steps"}
      : s.param == "epochs"     ? std::vector<std::string>{"epochs", "steps"}
      : s.param == "batch-size" ? std::vector<std::string>{"batch-size", "q", "steps"}
                                : std::vector<std::string>{};
  for (const auto& f : solved_flags)
    if (a.has(f)) throw usage_error("--solve " + s.param + ": leave --" + f + " out", f);
  if (s.param != "sigma" && a.has("phase"))
    throw usage_error("--solve " + s.param + " works on a single phase (no --phase)", "solve");
  if (s.param != "sigma" && !a.has("sigma"))
    throw usage_error("--solve " + s.param + " needs --sigma", "sigma");
  if (a.all("delta").size() > 1)
    throw usage_error(
        "--eps solves at one --delta; give one (or account for several after solving)", "delta");
  run.solve = s;
}

}  // namespace

// Truncated Poisson: --max-batch-size M and the dataset size N it cuts from.
void read_batch_cap(const args& a, dpsgd_run& run) {
  dpsgd_config& c = run.config;
  const bool truncated = c.sampling == sampling_scheme::truncated_poisson;
  if (!truncated) {
    if (a.has("max-batch-size"))
      throw usage_error("--max-batch-size applies to --sampling truncated-poisson only",
                        "max-batch-size");
    return;
  }
  if (!a.has("max-batch-size"))
    throw usage_error("--sampling truncated-poisson needs --max-batch-size M (the largest batch)",
                      "max-batch-size");
  if (run.dataset_size == 0)
    throw usage_error("--sampling truncated-poisson needs --dataset-size N", "dataset-size");
  c.max_batch_size = a.integer_or("max-batch-size", 0, 1, kMaxCount);
  c.dataset_size = run.dataset_size;
}

// Random allocation: --uses K, each record's number of steps in the run;
// by default the epoch count when it is whole (each record once per epoch
// on average), else q x steps must be whole (the library checks).
void read_uses(const args& a, dpsgd_run& run) {
  dpsgd_config& c = run.config;
  if (c.sampling != sampling_scheme::random_allocation) {
    if (a.has("uses"))
      throw usage_error("--uses applies to --sampling random-allocation only", "uses");
    return;
  }
  if (a.has("uses")) {
    c.uses = a.integer_or("uses", 0, 1, kMaxCount);
    try {  // (the library's rule, named as the option; steps 0: being solved for)
      if (c.steps > 0) allocation_uses(c);
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what(), prefix = "dpsgd: ";
      throw usage_error("--" + (m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m), "uses");
    }
    return;
  }
  const double e = run.origins.empty() ? 0.0 : run.origins.front().epochs;
  if (e > 0 && e == std::floor(e)) c.uses = static_cast<std::int64_t>(e);
}

dpsgd_run dpsgd_run_from(const args& a) {
  if (!a.positional().empty()) throw usage_error("unexpected argument '" + a.positional()[0] + "'");
  dpsgd_run run;
  dpsgd_config& c = run.config;
  const std::vector<double> deltas = a.numbers("delta", 0, 1, true, true);
  if (deltas.empty()) throw usage_error("--delta is required", "delta");
  c.delta = deltas.front();
  c.more_deltas.assign(deltas.begin() + 1, deltas.end());
  c.sampling = parse_sampling(a.value_or("sampling", "poisson"));
  try {
    c.neighbours = parse_neighbours(a.value_or("neighbours", "add-remove"));
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--") + e.what(), "neighbours");
  }
  c.sensitivity = a.number_or("sensitivity", 0.0, 0, 1e300, true);
  c.tolerance = a.number_or("tolerance", c.tolerance, 0, 0.5, true, true);
  c.gdp_summary = a.flag("mu");
  c.mu_above = a.number_or("mu-above", 0.0, 0, 0.5, true, true);
  if (a.has("dataset-size")) run.dataset_size = a.integer_or("dataset-size", 0, 1, kMaxCount);
  read_batch_cap(a, run);
  read_steps_rule(a, run);
  read_solve(a, run);
  if (a.has("phase")) {
    read_phases(a, run);
    // (a given count is every phase's: the library checks it against each q)
    if (run.exact_per_epoch > 0) c.steps_per_epoch = run.exact_per_epoch;
  } else {
    read_flat_phase(a, run);
  }
  read_uses(a, run);
  if (run.solve) {
    dpsgd_solve& s = *run.solve;
    s.dataset_size = run.dataset_size;
    s.batch_size = run.origins.front().batch_size;
    s.epochs = run.origins.front().epochs;
    s.rule = run.rule;
    if ((s.param == "epochs" || s.param == "batch-size") && run.exact_per_epoch > 0)
      throw usage_error("--solve " + s.param +
                            " needs the per-epoch rule ceil, floor or total, not an exact count",
                        "steps-per-epoch");
    if (s.param == "batch-size" && (run.dataset_size == 0 || s.epochs == 0))
      throw usage_error("--solve batch-size needs --dataset-size and --epochs", "solve");
    if (s.param == "epochs" && s.batch_size == 0)
      throw usage_error("--solve epochs needs --dataset-size and --batch-size", "solve");
  } else if (c.sigma == 0) {
    throw usage_error("--sigma is required (or --eps E to solve for it)", "sigma");
  }
  return run;
}

std::string steps_rule_text(const dpsgd_run& run, std::int64_t batch) {
  if (run.exact_per_epoch > 0)
    return std::to_string(run.exact_per_epoch) + " steps per epoch (given)";
  const std::int64_t n = run.dataset_size;
  switch (run.rule) {
    case epoch_steps_rule::ceil:
      return std::to_string((n + batch - 1) / batch) +
             " steps per epoch: ceil(N/B), a loader that keeps the last partial batch";
    case epoch_steps_rule::floor:
      return std::to_string(n / batch) + " steps per epoch: floor(N/B), drop_last";
    case epoch_steps_rule::total:
      return "T = ceil(E N / B) over the run, no per-epoch rounding";
  }
  return "";
}

}  // namespace fdp::cli
