// Closed forms, scalar and element-wise: the GDP profile and its inverses
// (fdp/ops/convert.hpp, fdp/core/gdp_profile.hpp) and the trade-off
// functions of the families (fdp/core/families.hpp). The scalar entry points
// are separate functions (not numpy ufuncs) so that a call on two floats
// costs a few hundred nanoseconds.
#include "arrays.hpp"
#include "bindings.hpp"
#include "fdp/core/families.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp::python {
namespace {

double g_beta(double mu, double alpha) { return beta(gaussian(mu), alpha); }
double laplace_beta(double mu, double alpha) { return beta(laplace(mu), alpha); }

// Binds name(x, y) on floats and name_array(x, y) on arrays of one shape.
template <class F>
void def_pair(py::module_& m, const char* name, F f, const char* doc) {
  m.def(name, f, py::arg("x"), py::arg("y"), doc);
  const std::string array_name = std::string(name) + "_array";
  m.def(
      array_name.c_str(),
      [f, name](const in_array& x, const in_array& y) { return map_binary(x, y, f, name); },
      py::arg("x"), py::arg("y"), doc);
}

}  // namespace

void bind_closed_forms(py::module_& m) {
  def_pair(m, "gdp_eps", &gdp_eps,
           "gdp_eps(mu, delta): smallest eps >= 0 with delta_mu(eps) <= delta");
  def_pair(m, "gdp_delta", &gdp_delta, "gdp_delta(mu, eps): the mu-GDP privacy profile");
  def_pair(m, "gdp_mu", &gdp_mu, "gdp_mu(eps, delta): largest mu that implies (eps, delta)-DP");
  def_pair(m, "gdp_beta", &g_beta, "gdp_beta(mu, alpha): G_mu(alpha)");
  def_pair(m, "laplace_beta", &laplace_beta, "laplace_beta(mu, alpha): the Laplace trade-off");
  m.def(
      "epsdelta_beta",
      [](double eps, double delta, double alpha) { return beta(eps_delta(eps, delta), alpha); },
      py::arg("eps"), py::arg("delta"), py::arg("alpha"));
  m.def(
      "epsdelta_beta_array",
      [](double eps, double delta, const in_array& alpha) {
        const eps_delta f(eps, delta);  // validated once, before the loop
        return map_unary(alpha, [f](double a) { return beta(f, a); });
      },
      py::arg("eps"), py::arg("delta"), py::arg("alpha"));
}

}  // namespace fdp::python
