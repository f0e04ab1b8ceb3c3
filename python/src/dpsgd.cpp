// fdp::account_dpsgd and fdp::solve_dpsgd (fdp/budget/dpsgd.hpp): the
// certified DP-SGD budget of a run (phases, several deltas, GDP on a window
// of tests), or the sigma / steps / epochs / batch size that meets a target.
#include <pybind11/stl.h>

#include <tuple>

#include "bindings.hpp"
#include "interruptible.hpp"
#include "fdp/budget/dpsgd.hpp"

namespace fdp::python {
namespace {

namespace py = pybind11;

using phase_tuple = std::tuple<double, double, std::int64_t>;  // (q, sigma, steps)

py::tuple pair(const interval& i) { return py::make_tuple(i.lower, i.upper); }

py::dict report_dict(const dpsgd_config& c, const dpsgd_report& r) {
  py::dict d;
  d["route"] = r.route;
  d["sensitivity"] = r.sensitivity;
  d["epsilon"] = pair(r.epsilon);
  py::list more;
  for (const interval& e : r.more_epsilons) more.append(pair(e));
  d["more_epsilons"] = more;
  if (r.has_mu) d["mu"] = pair(r.mu);
  if (c.mu_above > 0) d["mu_above"] = pair(r.mu_window);
  d["clt_mu"] = r.clt_mu;
  d["clt_epsilon"] = r.clt_epsilon;
  d["clt_formula"] = r.clt_formula;
  d["seconds"] = r.seconds;
  d["upper_certified"] = r.upper_certified;
  py::list poisson;
  for (const interval& e : r.poisson_epsilons) poisson.append(pair(e));
  d["poisson_epsilons"] = poisson;
  py::list phases;
  for (const auto& p : dpsgd_phases(c)) phases.append(py::make_tuple(p.q, p.sigma, p.steps));
  d["phases"] = phases;
  return d;
}

// The run: its first phase, the later ones and what is reported.
dpsgd_config config_of(double q, double sigma, std::int64_t steps,
                       const std::vector<double>& deltas, const std::string& sampling,
                       const std::string& neighbours, double sensitivity, bool gdp_summary,
                       double mu_above, const std::vector<phase_tuple>& later) {
  if (deltas.empty()) throw std::invalid_argument("dpsgd: delta: give at least one");
  dpsgd_config c;
  c.q = q;
  c.sigma = sigma;
  c.steps = steps;
  c.delta = deltas.front();
  c.more_deltas.assign(deltas.begin() + 1, deltas.end());
  c.sampling = parse_sampling(sampling);
  c.neighbours = parse_neighbours(neighbours);
  c.sensitivity = sensitivity;
  c.gdp_summary = gdp_summary;
  c.mu_above = mu_above;
  for (const auto& [pq, ps, pt] : later) c.later_phases.push_back({pq, ps, pt});
  return c;
}

}  // namespace

void bind_dpsgd(py::module_& m) {
  m.def(
      "account_dpsgd",
      [](double q, double sigma, std::int64_t steps, const std::vector<double>& deltas,
         const std::string& sampling, const std::string& neighbours, double sensitivity,
         bool gdp_summary, double mu_above, const std::vector<phase_tuple>& later,
         std::int64_t max_batch_size, std::int64_t dataset_size, std::int64_t steps_per_epoch,
         std::int64_t uses) {
        dpsgd_config c = config_of(q, sigma, steps, deltas, sampling, neighbours, sensitivity,
                                   gdp_summary, mu_above, later);
        c.max_batch_size = max_batch_size;  // (truncated Poisson; validated by account_dpsgd)
        c.dataset_size = dataset_size;
        c.steps_per_epoch = steps_per_epoch;  // (balls-in-bins; ignored unless it fits q)
        c.uses = uses;                        // (random allocation; validated by account_dpsgd)
        return report_dict(c, interruptible([&] { return account_dpsgd(c); }));
      },
      py::arg("q"), py::arg("sigma"), py::arg("steps"), py::arg("deltas"),
      py::arg("sampling") = "poisson", py::arg("neighbours") = "add-remove",
      py::arg("sensitivity") = 0.0, py::arg("gdp_summary") = false, py::arg("mu_above") = 0.0,
      py::arg("later_phases") = std::vector<phase_tuple>{}, py::arg("max_batch_size") = 0,
      py::arg("dataset_size") = 0, py::arg("steps_per_epoch") = 0, py::arg("uses") = 0);
  m.def(
      "solve_dpsgd",
      [](double target_eps, double delta, const std::string& param, double q, double sigma,
         std::int64_t steps, std::int64_t dataset_size, std::int64_t batch_size, double epochs,
         const std::string& rule, const std::string& sampling, const std::string& neighbours,
         double sensitivity, double mu_above, const std::vector<phase_tuple>& later) {
        const dpsgd_config c = config_of(q, sigma, steps, {delta}, sampling, neighbours,
                                         sensitivity, false, mu_above, later);
        dpsgd_solve w;
        w.param = param;
        w.target_epsilon = target_eps;
        w.dataset_size = dataset_size;
        w.batch_size = batch_size;
        w.epochs = epochs;
        w.rule = parse_epoch_steps_rule(rule);
        const dpsgd_solution s = interruptible([&] { return solve_dpsgd(c, w); });
        py::dict d = report_dict(s.config, s.report);
        d["value"] = s.calibration.value;
        d["certified_gap"] = s.calibration.certified_gap;
        d["certified_optimum_bound"] = s.calibration.certified_optimum_bound;
        d["at_limit"] = s.calibration.at_limit;
        d["evaluations"] = s.calibration.evaluations;
        return d;
      },
      py::arg("target_eps"), py::arg("delta"), py::arg("param"), py::arg("q"), py::arg("sigma"),
      py::arg("steps"), py::arg("dataset_size"), py::arg("batch_size"), py::arg("epochs"),
      py::arg("steps_per_epoch"), py::arg("sampling"), py::arg("neighbours"),
      py::arg("sensitivity"), py::arg("mu_above"), py::arg("later_phases"));
  m.def(
      "dpsgd_steps",
      [](double epochs, std::int64_t n, std::int64_t b, const std::string& rule) {
        return dpsgd_steps(epochs, n, b, parse_epoch_steps_rule(rule));
      },
      py::arg("epochs"), py::arg("dataset_size"), py::arg("batch_size"),
      py::arg("steps_per_epoch") = "ceil");
}

}  // namespace fdp::python
