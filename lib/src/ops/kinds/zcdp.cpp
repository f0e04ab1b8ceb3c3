// Spec kind "zcdp": any rho-zCDP mechanism (Bun & Steinke 2016: Renyi DP
// rho alpha at every order alpha > 1), composed through the weakest
// trade-off function that every such mechanism satisfies
// (fdp/ops/rdp_tradeoff.hpp: a certified polygon below it). A mechanism
// known only by its zCDP parameter can so be composed with everything else.
#include "ops/kind_support.hpp"
#include "fdp/ops/rdp_tradeoff.hpp"
#include "ops/rdp_polygon_cache.hpp"

namespace fdp {
namespace {

std::vector<double> rdp_at(double rho, const std::vector<double>& orders) {
  return kinds::at_orders(orders, [rho](double a) { return rho * a; });
}

// zcdp:rho=R,times=T is zcdp:rho=R*T (zCDP composes by adding rho, also
// adaptively; Bun & Steinke 2016, Lemma 2.3): one conversion instead of T
// (50 x rho 0.01 at delta 1e-5: 5.99 composed per step, 4.74 folded).
spec fold_times(const spec& s) {
  const double rho = s.number("rho") * static_cast<double>(s.times);
  if (!(rho <= 1e3)) {
    throw std::invalid_argument("zcdp: rho * times = " + detail::format_value(rho) +
                                " must be <= 1000 (spec '" + s.text + "')");
  }
  return parse_spec("zcdp:rho=" + detail::format_value(rho));
}

tradeoff closed(const spec& s) {
  const std::vector<double> orders = zcdp_orders();
  return tradeoff(kinds::cached_rdp_polygon(orders, rdp_at(s.number("rho"), orders)));
}

rdp_curve rdp(const spec& s, const std::vector<double>& orders) {
  return {rdp_at(s.number("rho"), orders), 0.0, {}};
}

// rho grows with the privacy loss: the largest rho that meets a target.
calibration_param calibrate_rho() {
  calibration_param c;
  c.key = "rho";
  c.smallest = false;
  c.lo = 1e-8;
  c.hi = 1e3;
  return c;
}

}  // namespace

spec_kind spec_kind_zcdp() {
  spec_kind k;
  k.name = "zcdp";
  k.doc = "any rho-zCDP mechanism, through the trade-off function its RDP curve rho*alpha implies";
  k.example = "zcdp:rho=0.5";
  k.keys = {
      required_key("rho", "R", value_range{0.0, 1e3, true, false},
                   "zCDP parameter: Renyi DP rho*alpha at every order alpha > 1, in (0, 1000]")};
  k.closed = closed;
  k.fold_times = fold_times;
  k.rdp = rdp;
  k.calibration = {calibrate_rho(), kinds::calibrate_times()};
  return k;
}

}  // namespace fdp
