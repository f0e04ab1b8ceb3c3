// fdp::compose and its answers. A composition is immutable once composed
// (its lazily built beta envelopes are guarded by std::call_once in the
// library), so one object can be queried from several Python threads; every
// query that may sweep the composed grids releases the GIL.
#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "interruptible.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/compose_queries.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp::python {
namespace {

using pair = std::tuple<double, double>;
pair as_pair(const interval& r) { return {r.lower, r.upper}; }

compose_method method_from(const std::string& m) {
  if (m == "auto") return compose_method::automatic;
  if (m == "exact") return compose_method::exact;
  if (m == "pld") return compose_method::pld;
  throw std::invalid_argument("method = '" + m + "' must be one of auto, exact, pld");
}

// Options as the CLI's defaults, with the ones a caller may set.
composition compose_texts(const std::vector<std::string>& texts, double tolerance,
                          double delta_hint, const std::string& method, std::size_t max_memory) {
  std::vector<spec> specs;
  for (const auto& t : texts) specs.push_back(parse_spec(t));
  compose_options o;
  o.method = method_from(method);
  o.tolerance = tolerance;
  o.delta_hint = delta_hint;
  o.max_memory = max_memory;
  return interruptible([&] { return compose(specs, o); });
}

// Compositions tuned for queries as fdp compose tunes them
// (compose_for_queries): (the one answering epsilon at `deltas`, the one
// answering delta at `epsilons`).
std::pair<composition, composition> compose_queries(const std::vector<std::string>& texts,
                                                    double tolerance, const std::string& method,
                                                    std::size_t max_memory,
                                                    const std::vector<double>& deltas,
                                                    const std::vector<double>& epsilons) {
  std::vector<spec> specs;
  for (const auto& t : texts) specs.push_back(parse_spec(t));
  compose_options o;
  o.method = method_from(method);
  o.tolerance = tolerance;
  o.max_memory = max_memory;
  // (the copy of the delta composition too without the GIL, as before)
  return interruptible([&] {
    query_compositions q = compose_for_queries(specs, o, deltas, epsilons);
    composition for_deltas = q.delta_source();
    return std::make_pair(std::move(q.for_epsilons), std::move(for_deltas));
  });
}

// A scalar query with the GIL released (a root search or a grid sweep).
template <class Q>
pair released(const composition& c, Q q) {
  py::gil_scoped_release release;
  return as_pair(q(c));
}

void bind_queries(py::class_<composition>& cls) {
  cls.def("epsilon", [](const composition& c, double d) {
    return released(c, [d](const composition& x) { return x.epsilon(d); });
  });
  cls.def("delta", [](const composition& c, double e) {
    return released(c, [e](const composition& x) { return x.delta(e); });
  });
  cls.def("beta", [](const composition& c, double a) {
    return released(c, [a](const composition& x) { return x.beta(a); });
  });
  cls.def("mu", [](const composition& c) {
    return released(c, [](const composition& x) { return x.mu(); });
  });
  cls.def("epsilon_array", [](const composition& c, const in_array& d) {
    return map_interval(d, [&c](double x) { return c.epsilon(x); });
  });
  cls.def("delta_array", [](const composition& c, const in_array& e) {
    return map_interval(e, [&c](double x) { return c.delta(x); });
  });
  // (one library call for the whole array: a sweep over the envelopes)
  // (straight from the input array into the two output arrays, no copies:
  // the input is a C-contiguous float64 array this call holds; as with any
  // NumPy routine that releases the GIL, another thread writing to it
  // meanwhile gets unspecified answers for the entries it touched)
  cls.def("beta_array", [](const composition& c, const in_array& a) {
    py::array_t<double> lo(shape_of(a)), hi(shape_of(a));
    const double* alphas = a.data();
    double* l = lo.mutable_data();
    double* h = hi.mutable_data();
    const auto n = static_cast<std::size_t>(a.size());
    {
      py::gil_scoped_release release;
      c.beta(alphas, n, l, h);
    }
    return std::make_pair(lo, hi);
  });
}

}  // namespace

void bind_composition(py::module_& m) {
  py::class_<composition> cls(m, "Composition");
  cls.def_property_readonly("method", &composition::method);
  cls.def_property_readonly("is_exact", &composition::is_exact);
  cls.def_property_readonly("symmetric", &composition::symmetric);
  cls.def_property_readonly("grid_step", &composition::grid_step);
  cls.def_property_readonly("grid_size", &composition::grid_size);
  cls.def_property_readonly("refinements", &composition::refinements);
  cls.def_property_readonly("grid_limit", &composition::grid_limit_name);
  bind_queries(cls);
  m.def("compose", &compose_texts, py::arg("specs"), py::arg("tolerance") = 3e-3,
        py::arg("delta_hint") = 1e-5, py::arg("method") = "auto",
        py::arg("max_memory") = compose_options::kDefaultMaxMemory);
  m.def("compose_queries", &compose_queries, py::arg("specs"), py::arg("tolerance"),
        py::arg("method"), py::arg("max_memory"), py::arg("deltas"), py::arg("epsilons"));
  m.def(
      "parse_spec",
      [](const std::string& text) {
        const spec s = parse_spec(text);
        return py::make_tuple(s.name, s.params, s.times);
      },
      py::arg("text"), "Validates a spec: (name, params, times); ValueError naming the key.");
}

}  // namespace fdp::python
