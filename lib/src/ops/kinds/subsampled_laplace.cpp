// Spec kind "subsampled-laplace": the Laplace mechanism (scale b) on a
// Poisson subsample of rate q, one record contributing at most S (l1):
// P = Lap(0, b), Q = (1 - q) Lap(0, b) + q Lap(S, b) and the reverse order,
// under add-remove neighbours and under zero-out ones (a record replaced by
// one contributing 0 moves the sum as removing it does). Replace-one: at
// q = 1 the Laplace mechanism with sensitivity 2S; below, no dominating pair
// is implemented (dp_accounting refuses it too). No closed form for q < 1:
// the composition is the PLD engine's; RDP by upper sums over its law.
#include <cmath>

#include "ops/kind_support.hpp"

namespace fdp {
namespace {

struct params {
  double b, q, d;
};

// Replace-one as the Laplace mechanism of sensitivity 2S (q = 1), or refused.
params params_of(const spec& s) {
  params p{s.number("b"), s.number("q"), s.number("sensitivity")};
  if (kinds::neighbours_of(s) != neighbour_relation::replace_one) return p;
  if (p.q < 1.0)
    throw std::invalid_argument(
        "spec '" + s.text +
        "': replace-one neighbours are accounted for q = 1 only (no dominating pair for the "
        "Poisson-subsampled Laplace mechanism under replace-one is implemented); use "
        "neighbours=add-remove or zero-out, or subsampled-gaussian");
  p.d *= 2.0;
  return p;
}

compose_term term(const spec& s) {
  const params p = params_of(s);
  compose_term t;
  t.law = subsampled_laplace_law(p.b, p.d, p.q);
  if (p.q == 1.0) t.closed = tradeoff(laplace(p.d / p.b));
  // subsampling only mixes P into Q: f_q >= the Laplace curve (DRS Thm 4.2)
  if (std::isfinite(p.d / p.b)) t.gdp_cap = gdp_summary(tradeoff(laplace(p.d / p.b)));
  return t;
}

// At q = 1 the mechanism is the Laplace curve of d/b; below, no cumulants here.
loss_cumulants edgeworth(const spec& s) {
  const params p = params_of(s);
  if (p.q < 1) {
    throw std::invalid_argument("spec '" + s.text +
                                "': no Edgeworth cumulants for subsampled-laplace with q < 1 "
                                "(only q = 1, the Laplace mechanism)");
  }
  return laplace_loss_cumulants(p.d / p.b);
}

ledger_form ledger(const spec& s, const kinds::stored_points*) {
  (void)make_term(s);  // (validates every parameter the way compose does)
  const params p = params_of(s);
  const double br = p.b / p.d;
  ledger_form f;
  if (p.q == 1.0) {
    f.key_name = "laplace";
    f.key_values = {{"mu", 1.0 / br}};
    f.law = make_law(laplace(1.0 / br));
    return f;
  }
  f.key_name = "subsampled-laplace";
  f.key_values = {{"s", br}, {"q", p.q}};
  f.law = subsampled_laplace_law(br, 1.0, p.q);
  return f;
}

// b as for the Laplace mechanism, times q (subsampling's amplification to first order).
double start_b(const spec& probe, double mu) {
  const double T = static_cast<double>(probe.times);
  const double sens = kinds::probe_number(probe, "sensitivity", 1.0),
               q = kinds::probe_number(probe, "q", 1.0);
  return sens * std::sqrt(T) * q / mu;
}

// (a start from the subsampled Gaussian's CLT limit at sigma = 1: rough, and only a start)
double start_q(const spec& probe, double mu) {
  const double T = static_cast<double>(probe.times);
  const double s = 1.0 / kinds::probe_number(probe, "sensitivity", 1.0);
  return std::clamp(mu / std::sqrt(T * std::expm1(1.0 / (s * s))), 1e-9, 1.0);
}

std::vector<calibration_param> calibration() {
  calibration_param b, q, sensitivity;
  b.key = "b";
  b.smallest = true;
  b.start = start_b;
  q.key = "q";
  q.hi = 1.0;
  q.start = start_q;
  sensitivity.key = "sensitivity";
  return {b, q, sensitivity, kinds::calibrate_times()};
}

}  // namespace

spec_kind spec_kind_subsampled_laplace() {
  spec_kind k;
  k.name = "subsampled-laplace";
  k.doc = "Laplace mechanism under Poisson subsampling with rate q";
  k.example = "subsampled-laplace:b=2,q=0.02,times=100";
  k.keys = {required_key("b", "B", kPositive, "noise scale"),
            required_key("q", "Q", kRate, "Poisson sampling rate"),
            optional_key("sensitivity", "S", 1.0, kPositive,
                         "l1 bound on one record's contribution (its add/remove sensitivity)"),
            kinds::neighbours_key(), kinds::poisson_sampling_key()};
  k.term = term;
  k.edgeworth = edgeworth;
  k.calibration = calibration();
  k.ledger = ledger;
  return k;
}

}  // namespace fdp
