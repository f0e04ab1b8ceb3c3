// Spec kind "gdp": mu-GDP, the guarantee G_mu = T(N(0,1), N(mu,1))
// (Dong, Roth & Su, "Gaussian Differential Privacy", JRSS-B 2022).
#include "ops/kind_support.hpp"

namespace fdp {
namespace {

tradeoff closed(const spec& s) { return tradeoff(gaussian(s.number("mu"))); }

// Gaussian kinds start close to the answer (G_a (x) G_b = G_sqrt(a^2 + b^2),
// DRS), hence the small first step of the search; mu itself starts at 1.
calibration_param calibrate_mu() {
  calibration_param c;
  c.key = "mu";
  c.first_step = 1.04;
  return c;
}

}  // namespace

spec_kind spec_kind_gdp() {
  spec_kind k;
  k.name = "gdp";
  k.doc = "mu-GDP, G_mu";
  k.example = "gdp:mu=1";
  k.keys = {required_key("mu", "M", kNonNegative, "GDP parameter")};
  k.closed = closed;
  k.rdp = kinds::gaussian_rdp;
  k.clt = kinds::gaussian_clt;
  k.edgeworth = kinds::gaussian_edgeworth;
  k.calibration = {calibrate_mu(), kinds::calibrate_times()};
  k.ledger = kinds::gaussian_ledger;
  return k;
}

}  // namespace fdp
