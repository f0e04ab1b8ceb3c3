// Spec kind "laplace": the Laplace mechanism with noise scale b on a query of
// l1 sensitivity S (Dwork & Roth Def. 3.3, Thm 3.6). Its exact trade-off
// function is T(Lap(0, b), Lap(S, b)), the Laplace curve of mu = S / b
// (Dong, Roth & Su 2022). The same mechanism is given by its eps = S / b
// (as the mechanism catalogue's laplace:eps=E).
#include <boost/math/quadrature/gauss.hpp>
#include <cmath>
#include <variant>

#include "ops/kind_support.hpp"

namespace fdp {
namespace {

// mu = sensitivity / b, or eps as given.
laplace mechanism(const spec& s) {
  if (s.has("eps")) return laplace(s.number("eps"));
  const double b = s.number("b"), d = s.number("sensitivity");
  kinds::require_finite_ratio(s, "b", b, d);
  return laplace(d / b);
}

tradeoff closed(const spec& s) { return tradeoff(mechanism(s)); }

// mu = sensitivity / b, exact only when the division is; eps given: exact.
double closed_rounding(const spec& s) {
  if (s.has("eps")) return 0.0;
  return kinds::quotient_rounding(s.number("sensitivity"), s.number("b"));
}

// eps-DP with eps = mu (Dwork & Roth Thm 3.6).
std::optional<std::pair<double, double>> classic(const spec& s) {
  return std::make_pair(mechanism(s).mu, 0.0);
}

// Mironov 2017, Prop. 6.
rdp_curve rdp(const spec& s, const std::vector<double>& orders) {
  const double mu = mechanism(s).mu;
  return {kinds::at_orders(orders, [mu](double a) { return rdp_laplace(mu, a); }), 0.0, {}};
}

// KL = mu + e^-mu - 1; E_P L^2 = mu^2 (1 + e^-mu)/2 + (1/2) int_0^mu (2x - mu)^2 e^-x dx
// (L is -mu w.p. 1/2, mu w.p. e^-mu/2, 2x - mu on (0, mu) with density e^-x/2).
clt_moments clt(const spec& s) {
  const double m = mechanism(s).mu;
  const double em = std::exp(-m);
  const double k = m + std::expm1(-m);
  double integral;  // int_0^m (2x - m)^2 e^{-x} dx
  if (m > 0.1) {
    integral = (m * m - 4 * m + 8) - em * (m * m + 4 * m + 8);
  } else {
    // small m: the closed form cancels; 20-point Gauss-Legendre is exact to
    // rounding for this smooth integrand on [0, m <= 0.1]
    integral = boost::math::quadrature::gauss<double, 20>::integrate(
        [m](double x) { return (2 * x - m) * (2 * x - m) * std::exp(-x); }, 0.0, m);
  }
  const double e2 = 0.5 * m * m * (1 + em) + 0.5 * integral;
  return {k, std::max(0.0, e2 - k * k), {}};
}

loss_cumulants edgeworth(const spec& s) { return laplace_loss_cumulants(mechanism(s).mu); }

ledger_form ledger(const spec& s, const kinds::stored_points*) {
  const double mu = std::get<laplace>(make_term(s).closed->get()).mu;
  ledger_form f;
  if (mu == 0) {
    f.identity = true;
    return f;
  }
  f.key_name = "laplace";
  f.key_values = {{"mu", mu}};
  f.law = make_law(laplace(mu));
  f.span = 2 * mu;
  // optimistic side: Lap(mu') with mu' <= mu on the grid is a garbling
  f.garble = [mu](double h) -> std::shared_ptr<const loss_law> {
    const double m = kinds::floor_half_grid(mu, h);
    if (m == mu) return nullptr;
    return std::shared_ptr<const loss_law>(
        make_law(m > 0 ? tradeoff(laplace(m)) : tradeoff(identity{})));
  };
  return f;
}

// The scale meeting mu-GDP if the composition were Gaussian (a rough start).
double start_b(const spec& probe, double mu) {
  const double T = static_cast<double>(probe.times);
  return kinds::probe_number(probe, "sensitivity", 1.0) * std::sqrt(T) / mu;
}

std::vector<calibration_param> calibration() {
  calibration_param b, sensitivity;
  b.key = "b";
  b.smallest = true;
  b.start = start_b;
  sensitivity.key = "sensitivity";
  return {b, sensitivity, kinds::calibrate_times()};
}

}  // namespace

spec_kind spec_kind_laplace() {
  spec_kind k;
  k.name = "laplace";
  k.doc = "Laplace mechanism, T(Lap(0,b), Lap(S,b)), i.e. eps = S/b";
  k.example = "laplace:b=10";
  k.keys = {alternative_key("noise scale", "b", "B", kPositive, "noise scale"),
            alternative_key("noise scale", "eps", "E", kNonNegative,
                            "instead of b: eps = sensitivity / b"),
            optional_key("sensitivity", "S", 1.0, kNonNegative, "l1 sensitivity")};
  k.closed = closed;
  k.closed_rounding = closed_rounding;
  k.classic = classic;
  k.rdp = rdp;
  k.clt = clt;
  k.edgeworth = edgeworth;
  k.calibration = calibration();
  k.ledger = ledger;
  return k;
}

}  // namespace fdp
