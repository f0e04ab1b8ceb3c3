// fdp::calibrate (fdp/budget/calibrate.hpp): one spec parameter for a
// target epsilon; `value` meets the target by a certified upper bound.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "interruptible.hpp"
#include "fdp/budget/calibrate.hpp"

namespace fdp::python {
namespace {

namespace py = pybind11;

py::dict result_dict(const calibration_result& r) {
  py::dict d;
  d["param"] = r.param;
  d["value"] = r.value;
  d["lo"] = r.lo;
  d["hi"] = r.hi;
  d["epsilon"] = py::make_tuple(r.epsilon.lower, r.epsilon.upper);
  d["certified_optimum_bound"] = r.certified_optimum_bound;
  d["certified_gap"] = r.certified_gap;
  d["smallest"] = r.smallest;
  d["at_limit"] = r.at_limit;
  d["evaluations"] = r.evaluations;
  d["seconds"] = r.seconds;
  return d;
}

}  // namespace

void bind_calibrate(py::module_& m) {
  m.def(
      "calibrate",
      [](const std::string& spec_text, const std::string& param, double target_eps, double delta,
         const std::vector<std::string>& others) {
        return result_dict(
            interruptible([&] { return calibrate(spec_text, param, target_eps, delta, others); }));
      },
      py::arg("spec"), py::arg("param"), py::arg("target_eps"), py::arg("delta"),
      py::arg("others") = std::vector<std::string>{});
  m.def("calibratable_params", &calibratable_params, py::arg("spec_name"));
}

}  // namespace fdp::python
