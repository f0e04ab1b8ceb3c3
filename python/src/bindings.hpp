// The parts of the _fdp extension module, one file each (module.cpp calls
// them in this order).
#pragma once

#include <pybind11/pybind11.h>

namespace fdp::python {

void bind_errors(pybind11::module_& m);
void bind_closed_forms(pybind11::module_& m);
void bind_composition(pybind11::module_& m);
void bind_calibrate(pybind11::module_& m);
void bind_dpsgd(pybind11::module_& m);
void bind_group(pybind11::module_& m);
void bind_audit(pybind11::module_& m);
void bind_ledger(pybind11::module_& m);
void bind_clt(pybind11::module_& m);
void bind_events(pybind11::module_& m);

}  // namespace fdp::python
