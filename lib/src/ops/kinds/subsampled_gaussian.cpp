// Spec kind "subsampled-gaussian": the Gaussian mechanism (noise sigma,
// sensitivity S) on a Poisson subsample of rate q, add/remove neighbours:
// P = N(0, sigma^2), Q = (1 - q) N(0, sigma^2) + q N(S, sigma^2) (DP-SGD's
// step; Koskela, Jalko & Honkela 2020; Zhu, Dong & Wang 2022). No closed form
// for q < 1: the composition is the PLD engine's.
#include <cmath>
#include <limits>

#include "ops/kind_support.hpp"

namespace fdp {
namespace {

struct params {
  double sigma, q, d;
};
params params_of(const spec& s) {
  return {s.number("sigma"), s.number("q"), s.number("sensitivity")};
}

compose_term term(const spec& s) {
  const params p = params_of(s);
  compose_term t;
  t.law = subsampled_gaussian_law(p.sigma, p.d, p.q);
  if (p.q == 1.0) t.closed = tradeoff(gaussian(p.d / p.sigma));
  // Poisson subsampling only mixes P into Q: f_q >= f = G_{d/sigma} in
  // both orders (DRS Thm 4.2: C_q(f) >= f)
  t.gdp_cap = p.d / p.sigma;
  return t;
}

// Mironov, Talwar & Zhang 2019, Sec. 3.3: integer orders only.
rdp_curve rdp(const spec& s, const std::vector<double>& orders) {
  const params p = params_of(s);
  const double inf = std::numeric_limits<double>::infinity();
  return {kinds::at_orders(orders,
                           [&](double a) {
                             return a == std::floor(a)
                                        ? rdp_subsampled_gaussian(p.sigma / p.d, p.q, a)
                                        : inf;
                           }),
          0.0,
          {}};
}

// Bu, Dong, Long & Su 2020's limit: as G_m with m^2 = q^2 (e^{(S/sigma)^2} - 1).
clt_moments clt(const spec& s) {
  const params p = params_of(s);
  const double mu0 = p.d / p.sigma;
  const double m2 = p.q < 1 ? p.q * p.q * std::expm1(mu0 * mu0) : mu0 * mu0;
  return {0.5 * m2, m2, {}};
}

// (sensitivity d with noise sigma is sensitivity 1 with noise sigma/d)
loss_cumulants edgeworth(const spec& s) {
  const params p = params_of(s);
  return subsampled_gaussian_loss_cumulants(p.sigma / p.d, p.q);
}

ledger_form ledger(const spec& s, const kinds::stored_points*) {
  (void)make_term(s);  // (validates every parameter the way compose does)
  const params p = params_of(s);
  const double sr = p.sigma / p.d;
  if (p.q == 1.0) return kinds::gaussian_ledger_of(1.0 / sr);
  ledger_form f;
  f.key_name = "subsampled-gaussian";
  f.key_values = {{"s", sr}, {"q", p.q}};
  f.law = subsampled_gaussian_law(sr, 1.0, p.q);
  return f;
}

// Starts: sigma from Bu et al.'s CLT limit (m^2 = q^2 T (e^{1/s^2} - 1) = mu^2),
// q from the same solved for q.
double start_sigma(const spec& probe, double mu) {
  const double T = static_cast<double>(probe.times);
  const double sens = kinds::probe_number(probe, "sensitivity", 1.0),
               q = kinds::probe_number(probe, "q", 1.0);
  if (q < 1) return sens / std::sqrt(std::log1p(mu * mu / (q * q * T)));
  return sens * std::sqrt(T) / mu;
}

double start_q(const spec& probe, double mu) {
  const double T = static_cast<double>(probe.times);
  const double s =
      kinds::probe_number(probe, "sigma", 1.0) / kinds::probe_number(probe, "sensitivity", 1.0);
  return std::clamp(mu / std::sqrt(T * std::expm1(1.0 / (s * s))), 1e-9, 1.0);
}

std::vector<calibration_param> calibration() {
  calibration_param sigma, q, sensitivity;
  sigma.key = "sigma";
  sigma.smallest = true;
  sigma.start = start_sigma;
  q.key = "q";
  q.hi = 1.0;
  q.start = start_q;
  sensitivity.key = "sensitivity";
  for (auto* c : {&sigma, &q, &sensitivity}) c->first_step = 1.04;  // (the start is close: gdp.cpp)
  return {sigma, q, sensitivity, kinds::calibrate_times()};
}

}  // namespace

spec_kind spec_kind_subsampled_gaussian() {
  spec_kind k;
  k.name = "subsampled-gaussian";
  k.doc = "Gaussian mechanism under Poisson subsampling with rate q, add/remove neighbours";
  k.example = "subsampled-gaussian:sigma=1.1,q=0.01,times=1000";
  k.keys = {required_key("sigma", "SIGMA", kPositive, "noise standard deviation"),
            required_key("q", "Q", kRate, "Poisson sampling rate"),
            optional_key("sensitivity", "S", 1.0, kPositive, "l2 sensitivity")};
  k.term = term;
  k.rdp = rdp;
  k.clt = clt;
  k.edgeworth = edgeworth;
  k.calibration = calibration();
  k.ledger = ledger;
  return k;
}

}  // namespace fdp
