// Spec kind "epsdelta": (eps, delta)-DP as the trade-off function
// f_{eps,delta}(a) = max{0, 1 - delta - e^eps a, e^-eps (1 - delta - a)}
// (Dong, Roth & Su 2022; Wasserman & Zhou 2010).
#include <cmath>
#include <variant>

#include "ops/kind_support.hpp"

namespace fdp {
namespace {

eps_delta params(const spec& s) { return eps_delta(s.number("eps"), s.number("delta")); }

tradeoff closed(const spec& s) { return tradeoff(params(s)); }

// Its own pair (Dwork & Roth Thm 3.16, 3.20).
std::optional<std::pair<double, double>> classic(const spec& s) {
  const eps_delta f = params(s);
  return std::make_pair(f.eps, f.delta);
}

// f_{eps,0} is randomized response's (rdp_pure); the delta part apart.
rdp_curve rdp(const spec& s, const std::vector<double>& orders) {
  const eps_delta f = params(s);
  return {kinds::at_orders(orders, [&](double a) { return rdp_pure(f.eps, a); }), f.delta, {}};
}

// Randomized response's loss is +-eps with P-masses 1/(1+e^eps), e^eps/(1+e^eps):
// KL = eps tanh(eps/2), Var_P(L) = eps^2 / cosh^2(eps/2). A delta > 0 puts
// mass at loss -inf under P: the functionals are infinite.
clt_moments clt(const spec& s) {
  const eps_delta f = params(s);
  if (f.delta > 0) return {0.0, 0.0, "'" + s.text + "' has delta > 0 (infinite CLT functionals)"};
  const double c = std::cosh(0.5 * f.eps);
  return {f.eps * std::tanh(0.5 * f.eps), f.eps * f.eps / (c * c), {}};
}

ledger_form ledger(const spec& s, const kinds::stored_points*) {
  const eps_delta f = std::get<eps_delta>(make_term(s).closed->get());
  ledger_form r;
  if (f.eps == 0 && f.delta == 0) {
    r.identity = true;
    return r;
  }
  r.key_name = "epsdelta";
  r.key_values = {{"eps", f.eps}, {"delta", f.delta}};
  r.law = make_law(f);
  r.span = 2 * f.eps;
  // optimistic side: f_{eps',delta} with eps' <= eps on the grid is a garbling
  r.garble = [f](double h) -> std::shared_ptr<const loss_law> {
    const double e = kinds::floor_half_grid(f.eps, h);
    if (e == f.eps) return nullptr;
    return std::shared_ptr<const loss_law>(make_law(tradeoff(eps_delta(e, f.delta))));
  };
  return r;
}

calibration_param calibrate_eps() {
  calibration_param c;
  c.key = "eps";
  return c;
}

}  // namespace

spec_kind spec_kind_epsdelta() {
  spec_kind k;
  k.name = "epsdelta";
  k.doc = "f_{eps,delta}, (eps, delta)-DP (delta defaults to 0)";
  k.example = "epsdelta:eps=1,delta=1e-6";
  k.keys = {required_key("eps", "E", kNonNegative, "privacy parameter eps"),
            optional_key("delta", "D", 0.0, kUnitInterval,
                         "mass at loss +inf (the delta of (eps, delta)-DP)")};
  k.closed = closed;
  k.classic = classic;
  k.rdp = rdp;
  k.clt = clt;
  k.calibration = {calibrate_eps(), kinds::calibrate_times()};
  k.ledger = ledger;
  return k;
}

}  // namespace fdp
