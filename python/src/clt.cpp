// fdp.clt and fdp.edgeworth: the CLT approximation of a composition with its
// Berry-Esseen band (fdp/ops/clt.hpp) and the Edgeworth expansion
// (fdp/ops/edgeworth.hpp), the numbers of `fdp clt`. Both are
// APPROXIMATIONS, labelled so in Python (is_bound = False); only the band is
// a theorem.
#include <pybind11/stl.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "fdp/budget/classic.hpp"
#include "fdp/core/error.hpp"
#include "fdp/ops/clt.hpp"
#include "fdp/ops/edgeworth.hpp"
#include "fdp/ops/spec.hpp"
#include "fdp/ops/spec_kind.hpp"

namespace fdp::python {
namespace {

std::vector<spec> specs_of(const std::vector<std::string>& texts) {
  if (texts.empty()) throw std::invalid_argument("specs: at least one spec is required");
  std::vector<spec> specs;
  for (const auto& t : texts) specs.push_back(parse_spec(t));
  return specs;
}

clt_approximation clt_of(const std::vector<std::string>& texts) {
  const std::vector<spec> specs = specs_of(texts);
  py::gil_scoped_release release;
  return clt(specs);
}

// The composition's loss cumulants; a kind without the hook is refused
// naming the kinds that have one (as `fdp clt --edgeworth`).
loss_cumulants cumulants_of(const std::vector<spec>& specs) {
  loss_cumulants sum;
  for (const auto& s : specs) {
    const auto hook = s.kind().edgeworth;
    if (!hook) {
      std::string with;
      for (const auto& k : spec_kinds())
        if (k.edgeworth) with += (with.empty() ? "" : ", ") + k.name;
      throw std::invalid_argument("edgeworth: spec '" + s.text +
                                  "' has no Edgeworth cumulants (supported: " + with + ")");
    }
    sum = sum + times(hook(s), s.times);
  }
  return sum;
}

// beta at each alpha in (0, 1); NaN where the expansion does not cross alpha
// (documented: the CLI reports null there).
py::array_t<double> edgeworth_array(const std::vector<std::string>& texts, const in_array& a) {
  const loss_cumulants cum = cumulants_of(specs_of(texts));
  std::vector<double> v = copy_of(a);
  for (double x : v) detail::require(x > 0 && x < 1, "edgeworth", "alpha", x, "must be in (0, 1)");
  {
    py::gil_scoped_release release;
    for (double& x : v) {
      try {
        x = edgeworth_beta(cum, x);
      } catch (const evaluation_error&) {
        x = std::numeric_limits<double>::quiet_NaN();
      }
    }
  }
  return array_from(v, shape_of(a));
}

}  // namespace

void bind_clt(py::module_& m) {
  py::class_<clt_approximation> cls(m, "CltApproximation");
  cls.def_property_readonly("applicable", &clt_approximation::applicable);
  cls.def_property_readonly("reason", &clt_approximation::reason);
  cls.def_property_readonly("mu", &clt_approximation::clt_mu);
  cls.def_property_readonly("gamma", &clt_approximation::gamma);
  cls.def_property_readonly("band_valid", &clt_approximation::band_valid);
  cls.def("band", [](const clt_approximation& c, double alpha) -> py::object {
    detail::require(alpha >= 0 && alpha <= 1, "clt.band", "alpha", alpha, "must be in [0, 1]");
    const std::optional<interval> b = c.band(alpha);
    if (!b) return py::none();
    return py::make_tuple(b->lower, b->upper);
  });
  cls.def("beta", [](const clt_approximation& c, double alpha) {
    detail::require(alpha >= 0 && alpha <= 1, "clt.beta", "alpha", alpha, "must be in [0, 1]");
    return c.beta(alpha);
  });
  m.def("clt", &clt_of, py::arg("specs"));
  // The one CLT rule of compose, compare, dpsgd and `fdp clt` for terms
  // without a Berry-Esseen band: mu from the terms' central limits (Bu et
  // al.'s G_m for Poisson-subsampled Gaussians), or why there is none.
  m.def(
      "clt_limits",
      [](const std::vector<std::string>& texts) {
        const clt_estimate e = clt_estimate_of(specs_of(texts), 0.5);
        py::dict d;
        d["applicable"] = e.applicable;
        d["mu"] = e.mu;
        d["reason"] = e.reason;
        return d;
      },
      py::arg("specs"));
  m.def("edgeworth", &edgeworth_array, py::arg("specs"), py::arg("alphas"));
}

}  // namespace fdp::python
