// fdp::account_dpsgd (fdp/budget/dpsgd.hpp): the certified DP-SGD budget
// with the route it was certified by and the CLT estimate (not a bound).
#include "bindings.hpp"
#include "fdp/budget/dpsgd.hpp"

namespace fdp::python {
namespace {

namespace py = pybind11;

py::dict report_dict(const dpsgd_report& r) {
  py::dict d;
  d["route"] = r.route;
  d["sensitivity"] = r.sensitivity;
  d["epsilon"] = py::make_tuple(r.epsilon.lower, r.epsilon.upper);
  if (r.has_mu) d["mu"] = py::make_tuple(r.mu.lower, r.mu.upper);
  d["clt_mu"] = r.clt_mu;
  d["clt_epsilon"] = r.clt_epsilon;
  d["clt_formula"] = r.clt_formula;
  d["seconds"] = r.seconds;
  return d;
}

}  // namespace

void bind_dpsgd(py::module_& m) {
  m.def(
      "account_dpsgd",
      [](double q, double sigma, std::int64_t steps, double delta, const std::string& sampling,
         const std::string& neighbours, double sensitivity, bool gdp_summary) {
        dpsgd_config c;
        c.q = q;
        c.sigma = sigma;
        c.steps = steps;
        c.delta = delta;
        c.sampling = parse_sampling(sampling);
        c.neighbours = parse_neighbours(neighbours);
        c.sensitivity = sensitivity;
        c.gdp_summary = gdp_summary;
        dpsgd_report r;
        {
          py::gil_scoped_release release;
          r = account_dpsgd(c);
        }
        return report_dict(r);
      },
      py::arg("q"), py::arg("sigma"), py::arg("steps"), py::arg("delta"),
      py::arg("sampling") = "poisson", py::arg("neighbours") = "add-remove",
      py::arg("sensitivity") = 0.0, py::arg("gdp_summary") = true);
  m.def(
      "dpsgd_steps",
      [](double epochs, std::int64_t n, std::int64_t b, const std::string& rule) {
        return dpsgd_steps(epochs, n, b, parse_epoch_steps_rule(rule));
      },
      py::arg("epochs"), py::arg("dataset_size"), py::arg("batch_size"),
      py::arg("steps_per_epoch") = "ceil");
}

}  // namespace fdp::python
