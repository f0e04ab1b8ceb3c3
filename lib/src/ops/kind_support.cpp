#include "ops/kind_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

namespace fdp::kinds {

compose_term term_of_closed(const tradeoff& f) {
  compose_term t;
  t.closed = f;
  t.law = make_law(f);
  try {
    t.gdp_cap = gdp_summary(f);
  } catch (const evaluation_error&) {
    // (a polygon beyond double range: no cap)
  }
  return t;
}

void require_finite_ratio(const spec& s, const char* key, double scale, double sensitivity) {
  if (!std::isfinite(sensitivity / scale)) {
    throw std::invalid_argument("spec '" + s.text + "': " + key + " = " +
                                detail::format_value(scale) + " is too small: sensitivity / " +
                                key + " overflows (it must be >= sensitivity / 1e300)");
  }
}

double quotient_rounding(double d, double scale) {
  return std::fma(d / scale, scale, -d) == 0.0 ? 0.0 : std::numeric_limits<double>::epsilon() / 2;
}

double floor_half_grid(double x, double h) {
  const double k = 2.0 * x / h, r = std::round(k);
  if (std::fabs(k - r) <= 1e-9 * std::max(1.0, k)) return x;
  return std::floor(k) * h / 2.0;
}

ledger_form ledger_of_polygon(const std::string& key_name, const stored_points* stored,
                              const std::function<curve()>& from_file) {
  curve c = [&] {
    if (!stored || stored->empty()) return from_file();
    std::vector<curve::point> pts;
    for (const auto& xy : *stored) pts.push_back({xy.first, xy.second});
    return curve::from_points(std::move(pts));
  }();
  ledger_form f;
  for (std::size_t i = 0; i < c.size(); ++i) f.points.emplace_back(c.alpha()[i], c.beta()[i]);
  f.key_name = key_name;
  f.law = make_law(tradeoff(std::move(c)));
  return f;
}

calibration_param calibrate_noise(const char* key, double (*start)(const spec&, double)) {
  calibration_param c;
  c.key = key;
  c.smallest = true;
  c.start = start;
  return c;
}

calibration_param calibrate_times() {
  calibration_param c;
  c.key = "times";
  c.lo = 1.0;
  c.hi = 1e12;
  return c;
}

double probe_number(const spec& probe, const char* key, double dflt) {
  try {
    return probe.has(key) ? probe.number(key, 0, 1e300) : dflt;
  } catch (const std::invalid_argument&) {
    return dflt;
  }
}

double gaussian_mu(const spec& s) { return std::get<gaussian>(s.kind().closed(s).get()).mu; }

// Mironov 2017, Prop. 7 (fdp/ops/rdp_curves.hpp).
rdp_curve gaussian_rdp(const spec& s, const std::vector<double>& orders) {
  const double mu = gaussian_mu(s);
  return {at_orders(orders, [mu](double a) { return rdp_gaussian(mu, a); }), 0.0, {}};
}

// G_mu: L ~ N(-mu^2/2, mu^2) under P, so KL(P||Q) = mu^2/2, Var_P(L) = mu^2 (DRS Sec. 3.2).
clt_moments gaussian_clt(const spec& s) {
  const double mu = gaussian_mu(s);
  return {0.5 * mu * mu, mu * mu, {}};
}

loss_cumulants gaussian_edgeworth(const spec& s) { return gaussian_loss_cumulants(gaussian_mu(s)); }

ledger_form gaussian_ledger_of(double mu) {
  ledger_form f;
  f.gaussian = true;
  f.mu = mu;
  f.key_name = "gaussian";
  f.key_values = {{"mu", mu}};
  f.law = make_law(gaussian(mu));
  return f;
}

ledger_form gaussian_ledger(const spec& s, const stored_points*) {
  // (validates every parameter the way compose does)
  const compose_term t = make_term(s);
  const double mu = std::get<gaussian>(t.closed->get()).mu;
  if (mu == 0) {
    ledger_form f;
    f.identity = true;
    return f;
  }
  return gaussian_ledger_of(mu);
}

spec_key neighbours_key() {
  return choice_key("neighbours", neighbour_words(), to_string(neighbour_relation::add_remove),
                    "how neighbouring datasets differ: a record added or removed, replaced by "
                    "a record contributing zero, or replaced by any record");
}

spec_key poisson_sampling_key() {
  return choice_key("sampling", {"poisson"}, "poisson",
                    "batch sampling: each record joins each batch independently with "
                    "probability q");
}

neighbour_relation neighbours_of(const spec& s) { return parse_neighbours(s.choice("neighbours")); }

}  // namespace fdp::kinds
