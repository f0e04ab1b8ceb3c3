// _fdp: the compiled half of the `fdp` Python package (python/fdp/ is the
// other half: Interval, the vectorizing wrappers, the accountants).
#include "bindings.hpp"

PYBIND11_MODULE(_fdp, m) {
  m.doc() = "fdp's C++ core (certified f-DP accounting); use the `fdp` package instead.";
  fdp::python::bind_errors(m);
  fdp::python::bind_closed_forms(m);
  fdp::python::bind_composition(m);
  fdp::python::bind_calibrate(m);
  fdp::python::bind_dpsgd(m);
  fdp::python::bind_group(m);
  fdp::python::bind_audit(m);
  fdp::python::bind_ledger(m);
  fdp::python::bind_clt(m);
  fdp::python::bind_events(m);
}
