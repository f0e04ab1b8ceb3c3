// Group privacy (fdp/ops/group.hpp): the guarantee for groups of k records,
// a tradeoff_bracket answering with brackets like a composition.
#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "interruptible.hpp"
#include "fdp/ops/group.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp::python {
namespace {

namespace py = pybind11;
using pair = std::tuple<double, double>;

template <class Q>
pair released(const tradeoff_bracket& g, Q q) {
  py::gil_scoped_release release;
  const interval r = q(g);
  return {r.lower, r.upper};
}

tradeoff_bracket group_texts(const std::vector<std::string>& texts, std::int64_t k,
                             double tolerance, double delta_hint) {
  std::vector<spec> specs;
  for (const auto& t : texts) specs.push_back(parse_spec(t));
  compose_options o;
  o.tolerance = tolerance;
  o.delta_hint = delta_hint;
  return interruptible([&] { return group(specs, k, o); });
}

}  // namespace

void bind_group(py::module_& m) {
  py::class_<tradeoff_bracket> cls(m, "GroupGuarantee");
  cls.def_property_readonly("method", &tradeoff_bracket::method);
  cls.def("epsilon", [](const tradeoff_bracket& g, double d) {
    return released(g, [d](const tradeoff_bracket& x) { return x.epsilon(d); });
  });
  cls.def("delta", [](const tradeoff_bracket& g, double e) {
    return released(g, [e](const tradeoff_bracket& x) { return x.delta(e); });
  });
  cls.def("beta", [](const tradeoff_bracket& g, double a) {
    return released(g, [a](const tradeoff_bracket& x) { return x.beta(a); });
  });
  cls.def("mu", [](const tradeoff_bracket& g) {
    return released(g, [](const tradeoff_bracket& x) { return x.mu(); });
  });
  m.def("group", &group_texts, py::arg("specs"), py::arg("k"), py::arg("tolerance") = 3e-3,
        py::arg("delta_hint") = 1e-5);
}

}  // namespace fdp::python
