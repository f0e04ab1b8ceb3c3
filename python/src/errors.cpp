// Exceptions. pybind11 already turns std::invalid_argument (fdp's bad-input
// error, a one-line message naming the parameter and its range) into
// ValueError with that message; fdp::evaluation_error (a valid question the
// engine cannot answer within its limits) becomes fdp.EvaluationError, a
// RuntimeError.
#include "bindings.hpp"
#include "fdp/core/error.hpp"

namespace fdp::python {

void bind_errors(pybind11::module_& m) {
  pybind11::register_exception<fdp::evaluation_error>(m, "EvaluationError", PyExc_RuntimeError);
}

}  // namespace fdp::python
