// solve_dpsgd: DP-SGD's noise multiplier, step count, epochs or batch size
// for a target epsilon, as a calibration over a one-parameter family of
// Poisson-subsampled Gaussian compositions (calibrate.hpp: the answer's
// certified upper bound meets the target).
#include <algorithm>
#include <cmath>

#include "fdp/budget/dpsgd.hpp"
#include "fdp/core/error.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp {
namespace {

std::vector<spec> specs_of(const std::vector<dpsgd_phase>& ps, double sensitivity,
                           neighbour_relation n) {
  std::vector<spec> out;
  for (const auto& p : ps) out.push_back(parse_spec(dpsgd_phase_spec(p, sensitivity, n)));
  return out;
}

// One sigma for every phase whose sigma is 0. Start: Bu et al.'s CLT
// solved for sigma on the first tied phase with the GDP mu of the target
// (a starting point only).
calibration_family sigma_family(const dpsgd_config& c, double target, double delta, double d) {
  const std::vector<dpsgd_phase> ps = dpsgd_phases(c);
  calibration_family f;
  f.param = "sigma";
  f.smallest = true;
  f.lo = 1e-3;
  f.hi = 1e6;
  f.first_step = 1.04;
  std::vector<dpsgd_phase> fixed;
  const dpsgd_phase* tied = nullptr;
  for (const auto& p : ps) {
    if (p.sigma > 0)
      fixed.push_back(p);
    else if (!tied)
      tied = &p;
  }
  if (!tied)
    throw std::invalid_argument("dpsgd: --solve sigma needs a phase without its own sigma");
  const double mu = std::max(1e-6, std::min(50.0, gdp_mu(target, delta)));
  const double ratio = mu * mu / (tied->q * tied->q * static_cast<double>(tied->steps));
  f.start = d / std::sqrt(std::log1p(ratio));
  if (!std::isfinite(f.start) || f.start <= 0) f.start = 1.0;
  f.limit = fixed.empty() ? std::vector<spec>{} : specs_of(fixed, d, c.neighbours);
  f.specs_at = [ps, d, n = c.neighbours](double x) {
    std::vector<dpsgd_phase> run = ps;
    for (auto& p : run)
      if (p.sigma == 0) p.sigma = x;
    return specs_of(run, d, n);
  };
  return f;
}

// The first (only) phase with its step count set by x.
calibration_family integer_family(const std::string& param, const dpsgd_config& c,
                                  const dpsgd_solve& w, double d) {
  if (!c.later_phases.empty())
    throw std::invalid_argument("dpsgd: --solve " + param + " works on a single phase");
  calibration_family f;
  f.param = param;
  f.smallest = false;
  f.integer = true;
  const dpsgd_phase base{c.q, c.sigma, c.steps};
  if (param == "steps") {
    f.hi = 1e12;
    f.specs_at = [base, d, n = c.neighbours](double x) {
      dpsgd_phase p = base;
      p.steps = static_cast<std::int64_t>(x);
      return specs_of({p}, d, n);
    };
    return f;
  }
  detail::require(w.dataset_size >= 1, "dpsgd", "dataset_size",
                  static_cast<long long>(w.dataset_size),
                  "must be >= 1 (--solve " + param + " needs the dataset size)");
  if (param == "epochs") {
    detail::require(w.batch_size >= 1 && w.batch_size <= w.dataset_size, "dpsgd", "batch_size",
                    static_cast<long long>(w.batch_size), "must be in [1, dataset_size]");
    f.hi = 1e6;
    f.specs_at = [base, w, d, n = c.neighbours](double x) {
      dpsgd_phase p = base;
      p.steps = dpsgd_steps(x, w.dataset_size, w.batch_size, w.rule);
      return specs_of({p}, d, n);
    };
    return f;
  }
  detail::require(w.epochs > 0, "dpsgd", "epochs", w.epochs, "must be > 0 to solve for batch-size");
  f.hi = static_cast<double>(w.dataset_size);
  f.specs_at = [base, w, d, n = c.neighbours](double x) {
    dpsgd_phase p = base;
    const auto b = static_cast<std::int64_t>(x);
    p.q = static_cast<double>(b) / static_cast<double>(w.dataset_size);
    p.steps = dpsgd_steps(w.epochs, w.dataset_size, b, w.rule);
    return specs_of({p}, d, n);
  };
  return f;
}

// The configuration at the solved value.
dpsgd_config solved_config(dpsgd_config c, const dpsgd_solve& w, double x) {
  if (w.param == "sigma") {
    if (c.sigma == 0) c.sigma = x;
    for (auto& p : c.later_phases)
      if (p.sigma == 0) p.sigma = x;
  } else if (w.param == "steps") {
    c.steps = static_cast<std::int64_t>(x);
  } else if (w.param == "epochs") {
    c.steps = dpsgd_steps(x, w.dataset_size, w.batch_size, w.rule);
  } else {
    const auto b = static_cast<std::int64_t>(x);
    c.q = static_cast<double>(b) / static_cast<double>(w.dataset_size);
    c.steps = dpsgd_steps(w.epochs, w.dataset_size, b, w.rule);
  }
  return c;
}

}  // namespace

dpsgd_solution solve_dpsgd(const dpsgd_config& c, const dpsgd_solve& w) {
  detail::require(std::isfinite(w.target_epsilon) && w.target_epsilon > 0, "dpsgd", "eps",
                  w.target_epsilon, "must be finite and > 0");
  detail::require(c.delta > 0 && c.delta < 1, "dpsgd", "delta", c.delta, "must be in (0, 1)");
  if (c.sampling != sampling_scheme::poisson) {
    throw std::invalid_argument(
        "dpsgd: solving for a parameter needs --sampling poisson (the other samplers: account "
        "for given parameters instead)");
  }
  const double d = dpsgd_sensitivity(c);
  calibration_family f;
  if (w.param == "sigma")
    f = sigma_family(c, w.target_epsilon, c.delta, d);
  else if (w.param == "steps" || w.param == "epochs" || w.param == "batch-size")
    f = integer_family(w.param, c, w, d);
  else
    throw std::invalid_argument("dpsgd: --solve '" + w.param +
                                "' must be one of sigma, steps, epochs, batch-size");
  calibration_options o;
  o.search_tolerance = c.tolerance;
  dpsgd_solution s;
  try {
    s.calibration = calibrate_family(f, w.target_epsilon, c.delta, o);
  } catch (const std::invalid_argument& e) {
    // (the search's messages name it "calibrate:"; here it is dpsgd's)
    const std::string m = e.what(), own = "calibrate: ";
    throw std::invalid_argument("dpsgd: " + (m.rfind(own, 0) == 0 ? m.substr(own.size()) : m));
  }
  s.config = solved_config(c, w, s.calibration.value);
  s.config.tolerance = std::min(c.tolerance, o.final_tolerance);
  s.report = account_dpsgd(s.config);
  // both brackets are certified: keep their intersection (the calibration's
  // is the one whose upper end was checked against the target)
  const interval& e = s.calibration.epsilon;
  s.report.epsilon = {std::max(e.lower, s.report.epsilon.lower),
                      std::min(e.upper, s.report.epsilon.upper)};
  return s;
}

}  // namespace fdp
