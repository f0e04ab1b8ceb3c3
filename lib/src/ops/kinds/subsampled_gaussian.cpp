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
  int group;  // K: the examples one user contributes (user-level accounting)
};
params params_of(const spec& s) {
  return {s.number("sigma"), s.number("q"), s.number("sensitivity"),
          static_cast<int>(s.number("group"))};
}

// User-level DP-SGD: a user's K examples each enter a Poisson batch with
// probability q, so J ~ Binomial(K, q) of them do, and their clipped
// gradients (each of norm <= d) move the sum by at most J d, all K aligned
// being the worst case: P = N(0, sigma^2), Q = sum_j Bin(K, q)(j) N(j d,
// sigma^2) (the accounting of TF-Privacy's compute_dp_sgd_privacy_lib for
// users with several examples; Ganesh 2024). Weights below the double range
// are left out (the rest is renormalized by at most 1e-300 relative).
std::shared_ptr<const loss_law> group_law(const params& p) {
  std::vector<double> shifts, weights;
  for (int j = 0; j <= p.group; ++j) {
    const double k = p.group, jj = j;
    const double log_w = std::lgamma(k + 1) - std::lgamma(jj + 1) - std::lgamma(k - jj + 1) +
                         jj * std::log(p.q) + (k - jj) * std::log1p(-p.q);
    const double w = p.q == 1.0 ? (j == p.group ? 1.0 : 0.0) : std::exp(log_w);
    if (w > 0) shifts.push_back(jj * p.d), weights.push_back(w);
  }
  double total = 0.0;
  for (double w : weights) total += w;
  for (double& w : weights) w /= total;
  return gaussian_mixture_law(p.sigma, std::move(shifts), std::move(weights));
}

compose_term term(const spec& s) {
  const params p = params_of(s);
  compose_term t;
  if (p.group > 1 && p.q < 1.0) {
    t.law = group_law(p);
  } else {
    const double d = p.d * p.group;  // (q = 1: all K examples, a shift of K d)
    t.law = subsampled_gaussian_law(p.sigma, d, p.q);
    if (p.q == 1.0) t.closed = tradeoff(gaussian(d / p.sigma));
  }
  // Poisson subsampling only mixes P into Q: f_q >= f = G_{d/sigma} in
  // both orders (DRS Thm 4.2: C_q(f) >= f); a mixture of shifts up to K d
  // is at least as private as the shift K d (the hockey-stick divergence is
  // jointly convex, and largest for the largest shift)
  t.gdp_cap = p.group * p.d / p.sigma;
  return t;
}

// The hooks below have formulas for one example per user only.
void require_one_example(const params& p, const spec& s, const char* what) {
  if (p.group > 1)
    throw std::invalid_argument("spec '" + s.text + "': " + what +
                                " is available for group = 1 only (the compositions are)");
}

// Mironov, Talwar & Zhang 2019, Sec. 3.3: integer orders only.
rdp_curve rdp(const spec& s, const std::vector<double>& orders) {
  const params p = params_of(s);
  if (p.group > 1) return {{}, 0.0, "no RDP formula for group > 1 (fdp composes its PLD)"};
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
  if (p.group > 1) return {0.0, 0.0, "no CLT formula for group > 1"};
  const double mu0 = p.d / p.sigma;
  const double m2 = p.q < 1 ? p.q * p.q * std::expm1(mu0 * mu0) : mu0 * mu0;
  return {0.5 * m2, m2, {}};
}

// (sensitivity d with noise sigma is sensitivity 1 with noise sigma/d)
loss_cumulants edgeworth(const spec& s) {
  const params p = params_of(s);
  require_one_example(p, s, "the Edgeworth expansion");
  return subsampled_gaussian_loss_cumulants(p.sigma / p.d, p.q);
}

ledger_form ledger(const spec& s, const kinds::stored_points*) {
  (void)make_term(s);  // (validates every parameter the way compose does)
  const params p = params_of(s);
  const double sr = p.sigma / (p.d * (p.q == 1.0 ? p.group : 1));
  if (p.q == 1.0) return kinds::gaussian_ledger_of(1.0 / sr);
  ledger_form f;
  if (p.group > 1) {
    f.key_name = "subsampled-gaussian-group";
    f.key_values = {{"s", sr}, {"q", p.q}, {"group", static_cast<double>(p.group)}};
    f.law = group_law({sr, p.q, 1.0, p.group});
    return f;
  }
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
            optional_key("sensitivity", "S", 1.0, kPositive, "l2 sensitivity"),
            integer_key("group", "K", 1, 1, 1000,
                        "examples per user (user-level accounting: Binomial(K, q) of them "
                        "in a batch)")};
  k.term = term;
  k.rdp = rdp;
  k.clt = clt;
  k.edgeworth = edgeworth;
  k.calibration = calibration();
  k.ledger = ledger;
  return k;
}

}  // namespace fdp
