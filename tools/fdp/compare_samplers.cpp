// fdp compare --sampling all: one DP-SGD run (a subsampled-gaussian spec:
// sigma, q, sensitivity, neighbours, times) under every batch sampler fdp
// knows, side by side: what each data loader's run is certified to leak. A
// sampler with no proven upper bound shows its certified LOWER bound; one
// with no sound analysis under the run's neighbour relation shows why.
#include "compare_samplers.hpp"

#include <cstdio>
#include <iostream>
#include <optional>

#include "fdp/budget/dpsgd.hpp"

namespace fdp::cli {
namespace {

struct sampler_row {
  sampling_scheme sampling;
  std::optional<dpsgd_report> report;  // (none: refused)
  std::string refusal;
};

const sampling_scheme kSamplers[] = {sampling_scheme::poisson,
                                     sampling_scheme::truncated_poisson,
                                     sampling_scheme::without_replacement,
                                     sampling_scheme::shuffle,
                                     sampling_scheme::balls_in_bins,
                                     sampling_scheme::random_allocation};

// A row that needs what the spec does not give (truncated Poisson's cap).
std::string missing_input(sampling_scheme s, const dpsgd_config& base) {
  if (s == sampling_scheme::truncated_poisson && base.max_batch_size == 0)
    return "needs a batch cap: give the spec sampling=truncated-poisson,max-batch=M,"
           "dataset-size=N";
  if (s == sampling_scheme::random_allocation) {
    try {
      dpsgd_config c = base;
      c.sampling = s;
      allocation_uses(c);
    } catch (const std::invalid_argument&) {
      return "needs a whole number of steps per record, q x steps = " +
             fmt(base.q * static_cast<double>(base.steps)) +
             " (run fdp dpsgd --sampling random-allocation --uses K)";
    }
  }
  return "";
}

// The DP-SGD run a subsampled-gaussian spec describes (dpsgd_config_of).
dpsgd_config config_of(const spec& s, double delta, double tolerance) {
  dpsgd_config c;
  try {
    c = dpsgd_config_of(s);
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--sampling all: ") + e.what(), "sampling");
  }
  c.delta = delta;
  c.tolerance = tolerance;
  return c;
}

std::vector<sampler_row> account_every_sampler(const dpsgd_config& base) {
  std::vector<sampler_row> rows;
  for (sampling_scheme s : kSamplers) {
    dpsgd_config c = base;
    c.sampling = s;
    if (s != sampling_scheme::truncated_poisson) c.max_batch_size = c.dataset_size = 0;
    // (a scheme without its input: its row gives the reason; any other bad
    // input is the whole command's error. Every scheme has a certified
    // route under every relation: a bracket, or shuffle's lower bound.)
    sampler_row row{s, std::nullopt, missing_input(s, base)};
    if (row.refusal.empty()) row.report = account_dpsgd(c);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string what_it_is(const sampler_row& r, neighbour_relation n) {
  if (!r.report) return "refused: " + r.refusal;
  // (fixed-size batches: under zero-out the bracket is on the mirrored pair
  // of twice the bound, an upper bound that need not be tight; under
  // add-remove the pair is met by an input, and under replace-one the lower
  // end is such an input's, so those brackets are the run's)
  if (r.sampling == sampling_scheme::without_replacement && n == neighbour_relation::replace_one)
    return "certified bracket: the true epsilon is inside (DRS Thm 4.2's C_p(G)^T above, an "
           "input that meets the add/remove pair below; can be wide)";
  if (r.sampling == sampling_scheme::without_replacement && n == neighbour_relation::zero_out)
    return "certified UPPER bound: a bracket on the mirrored pair with twice the bound, at or "
           "above the run's epsilon";
  // (truncated Poisson: the bracket is on the pair that also reveals whether
  // the batch was cut, which the run need not leak)
  if (r.sampling == sampling_scheme::truncated_poisson)
    return "certified UPPER bound: a bracket on the pair that also reveals each cut, at or "
           "above the run's epsilon";
  // (balls-in-bins: the epoch's tightly dominating pair bracketed, except
  // that replace-one's upper end credits no amplification; with q alone the
  // epoch may have floor(1/q) or ceil(1/q) steps, both covered)
  if (r.sampling == sampling_scheme::balls_in_bins && n != neighbour_relation::replace_one)
    return "certified bracket: the true epsilon is inside (epochs of floor(1/q) steps above, "
           "ceil(1/q) below)";
  if (r.sampling == sampling_scheme::balls_in_bins && r.report->upper_certified)
    return "certified bracket: tests on the input u against -u below, the zero-out pair's "
           "group-2 power above (can be wide)";
  if (r.sampling == sampling_scheme::random_allocation)
    return n == neighbour_relation::replace_one
               ? "certified bracket: tests on the input u against -u below, the zero-out "
                 "pair's group-2 power above (can be wide)"
               : "certified bracket: the true epsilon is inside (k balls-in-bins epochs of "
                 "about T/k steps above, tests on the dominating pair below; wide when T/k is "
                 "small)";
  const bool one_step_per_epoch =
      r.sampling == sampling_scheme::shuffle || r.sampling == sampling_scheme::balls_in_bins;
  if (r.report->upper_certified && one_step_per_epoch)
    return "certified bracket, its upper end crediting NO amplification (the run can be far "
           "below it)";
  if (r.report->upper_certified) return "certified bracket: the true epsilon is inside";
  return "certified LOWER bound only: the run leaks at least this; no upper bound in fdp";
}

void print_samplers(const spec& s, const dpsgd_config& c, const std::vector<sampler_row>& rows) {
  std::cout << "one DP-SGD run under every batch sampler: " << s.text << "\n"
            << "  (" << to_string(c.neighbours) << " neighbours, sensitivity " << fmt(c.sensitivity)
            << " C, " << c.steps << " steps; epsilon at delta = " << fmt(c.delta) << ")\n\n";
  char buf[512];
  std::snprintf(buf, sizeof buf, "  %-20s %-26s %s\n", "sampler", "epsilon", "what it is");
  std::cout << buf;
  for (const auto& r : rows) {
    std::string value = "n/a";
    if (r.report) {
      const interval e = r.report->epsilon;
      value = r.report->upper_certified
                  ? "[" + fmt_down(e.lower, 7) + ", " + fmt_up(e.upper, 7) + "]"
                  : ">= " + fmt_down(e.lower, 7);
    }
    std::snprintf(buf, sizeof buf, "  %-20s %-26s %s\n", to_string(r.sampling).c_str(),
                  value.c_str(), what_it_is(r, c.neighbours).c_str());
    std::cout << buf;
  }
  std::cout << "\n  Each row is that sampler's own guarantee; never read one row's number as "
               "another's.\n";
}

json samplers_json(const spec& s, const dpsgd_config& c, const std::vector<sampler_row>& rows) {
  json out = envelope("compare");
  out["specs"] = json::array({s.text});
  json js = json::array();
  for (const auto& r : rows) {
    json j;
    j["sampling"] = to_string(r.sampling);
    if (r.report) {
      const interval e = r.report->epsilon;
      j["queries"] = json::array(
          {query("delta", c.delta, "epsilon", bracket(e.lower, e.upper))});  // (no upper: null)
      j["upper_certified"] = r.report->upper_certified;
      j["meaning"] = what_it_is(r, c.neighbours);  // (upper bound, bracket or lower bound)
      j["route"] = r.report->route;
    } else {
      j["refused"] = r.refusal;
    }
    js.push_back(j);
  }
  out["samplers"] = js;
  out["assumptions"] = {{"neighbours", to_string(c.neighbours)},
                        {"sensitivity", c.sensitivity},
                        {"steps", c.steps},
                        {"tolerance", c.tolerance}};
  return out;
}

}  // namespace

int run_compare_samplers(const std::vector<spec>& specs, double delta, double tolerance,
                         bool as_json) {
  if (specs.size() != 1)
    throw usage_error(
        "--sampling all takes exactly one spec (a subsampled-gaussian DP-SGD run), "
        "not " +
            std::to_string(specs.size()),
        "sampling");
  const dpsgd_config c = config_of(specs[0], delta, tolerance);
  const std::vector<sampler_row> rows = account_every_sampler(c);
  if (as_json)
    print_json(samplers_json(specs[0], c, rows));
  else
    print_samplers(specs[0], c, rows);
  return 0;
}

}  // namespace fdp::cli
