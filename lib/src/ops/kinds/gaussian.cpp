// Spec kind "gaussian": the Gaussian mechanism with noise sigma on a query of
// l2 sensitivity S, exactly G_{S/sigma} (Dong, Roth & Su 2022); or given by
// that mu directly (the catalogue's gaussian:mu=M).
#include <cmath>
#include <limits>

#include "ops/kind_support.hpp"

namespace fdp {
namespace {

tradeoff closed(const spec& s) {
  if (s.has("mu")) return tradeoff(gaussian(s.number("mu")));
  const double sigma = s.number("sigma"), d = s.number("sensitivity");
  kinds::require_finite_ratio(s, "sigma", sigma, d);
  return tradeoff(gaussian(d / sigma));
}

// mu = sensitivity / sigma, exact only when the division is; mu given: exact.
double closed_rounding(const spec& s) {
  if (s.has("mu")) return 0.0;
  return kinds::quotient_rounding(s.number("sensitivity"), s.number("sigma"));
}

// (closed_form_bounds.hpp rounds the bracket outward by the rounding)
compose_term term(const spec& s) {
  compose_term t = kinds::term_of_closed(closed(s));
  t.closed_rel = closed_rounding(s);
  return t;
}

// sigma meeting mu-GDP if the composition were exactly G (it is): S sqrt(T) / mu.
double start_sigma(const spec& probe, double mu) {
  const double T = static_cast<double>(probe.times);
  return kinds::probe_number(probe, "sensitivity", 1.0) * std::sqrt(T) / mu;
}

std::vector<calibration_param> calibration() {
  calibration_param sigma, sensitivity;
  sigma.key = "sigma";
  sigma.smallest = true;
  sigma.start = start_sigma;
  sensitivity.key = "sensitivity";
  for (auto* c : {&sigma, &sensitivity}) c->first_step = 1.04;  // (the start is close: gdp.cpp)
  return {sigma, sensitivity, kinds::calibrate_times()};
}

}  // namespace

spec_kind spec_kind_gaussian() {
  spec_kind k;
  k.name = "gaussian";
  k.doc = "Gaussian mechanism, G_{S/sigma}";
  k.example = "gaussian:sigma=2";
  k.keys = {alternative_key("noise", "sigma", "SIGMA", kPositive, "noise standard deviation"),
            alternative_key("noise", "mu", "M", kNonNegative,
                            "instead of sigma: mu = sensitivity / sigma"),
            optional_key("sensitivity", "S", 1.0, kNonNegative, "l2 sensitivity")};
  k.closed = closed;
  k.term = term;
  k.closed_rounding = closed_rounding;
  k.rdp = kinds::gaussian_rdp;
  k.clt = kinds::gaussian_clt;
  k.edgeworth = kinds::gaussian_edgeworth;
  k.calibration = calibration();
  k.ledger = kinds::gaussian_ledger;
  return k;
}

}  // namespace fdp
