// What the accountants ask of a spec, answered from its kind's entry in the
// table (fdp/ops/spec_kind.hpp), with the defaults of absent hooks.
#include <cmath>
#include <limits>

#include "ops/kind_support.hpp"

namespace fdp {

compose_term make_term(const spec& s) {
  if (s.times < 1) {
    detail::throw_domain("compose", "times", static_cast<long long>(s.times),
                         "must be an integer >= 1 (spec '" + s.text + "')");
  }
  const spec_kind& k = s.kind();
  if (k.fold_times && s.times > 1) {
    compose_term t = make_term(k.fold_times(s));
    t.text = s.text;
    return t;
  }
  compose_term t = k.term ? k.term(s) : kinds::term_of_closed(k.closed(s));
  t.times = s.times;
  t.text = s.text;
  return t;
}

std::optional<tradeoff> single_tradeoff(const spec& s) {
  const spec_kind& k = s.kind();
  if (!k.closed) return std::nullopt;
  return k.closed(s);
}

double spec_closed_rounding(const spec& s) {
  const spec_kind& k = s.kind();
  return k.closed_rounding ? k.closed_rounding(s) : 0.0;
}

rdp_curve spec_rdp(const spec& s, const std::vector<double>& orders) {
  const spec_kind& k = s.kind();
  if (k.rdp) return k.rdp(s, orders);
  // Upper sums over the law (rdp_of_law): bounded loss supports only; above
  // order 256 they are too coarse to matter, and slow.
  const compose_term t = make_term(s);
  if (!std::isfinite(t.law->lo()) || !std::isfinite(t.law->hi())) {
    return {{}, 0.0, "no RDP bound for '" + s.text + "' (unbounded loss support)"};
  }
  const double inf = std::numeric_limits<double>::infinity();
  return {
      kinds::at_orders(orders, [&](double a) { return a <= 256 ? rdp_of_law(*t.law, a) : inf; }),
      0.0,
      {}};
}

ledger_form spec_ledger_form(const spec& s, const std::vector<std::pair<double, double>>* stored) {
  const spec_kind& k = s.kind();
  if (k.ledger) return k.ledger(s, stored);
  // The default: the kind's parameters are the key, the term's law the record.
  ledger_form f;
  f.key_name = k.name;
  for (const auto& key : k.keys) {
    if (key.kind == spec_key::type::text) {
      throw std::invalid_argument("ledger: spec '" + s.text +
                                  "' cannot be recorded (its kind has no ledger form)");
    }
    if (key.group.empty() || s.has(key.name))
      f.key_values.emplace_back(key.name, s.number(key.name));
  }
  f.law = make_term(s).law;
  return f;
}

}  // namespace fdp
