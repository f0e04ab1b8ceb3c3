// Spec kind "id": perfect privacy, Id(a) = 1 - a (the two distributions are
// equal). Costs nothing in every accountant.
#include "ops/kind_support.hpp"

namespace fdp {
namespace {

tradeoff closed(const spec&) { return tradeoff(identity{}); }

rdp_curve rdp(const spec&, const std::vector<double>& orders) {
  return {std::vector<double>(orders.size(), 0.0), 0.0, {}};
}

std::optional<std::pair<double, double>> classic(const spec&) { return std::make_pair(0.0, 0.0); }

clt_moments clt(const spec&) { return {0.0, 0.0, {}}; }

ledger_form ledger(const spec& s, const kinds::stored_points*) {
  (void)make_term(s);
  ledger_form f;
  f.identity = true;
  return f;
}

}  // namespace

spec_kind spec_kind_id() {
  spec_kind k;
  k.name = "id";
  k.doc = "perfect privacy, Id(a) = 1 - a";
  k.example = "id";
  k.closed = closed;
  k.rdp = rdp;
  k.classic = classic;
  k.clt = clt;
  k.ledger = ledger;
  return k;
}

}  // namespace fdp
