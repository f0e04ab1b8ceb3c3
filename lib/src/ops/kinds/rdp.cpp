// Spec kind "rdp": a mechanism known only by its Renyi-DP curve, given as a
// CSV of order,rdp rows (orders > 1), composed through the weakest
// trade-off function every mechanism with that curve satisfies
// (fdp/ops/rdp_tradeoff.hpp: a certified polygon below it).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/kind_support.hpp"
#include "ops/rdp_polygon_cache.hpp"

namespace fdp {
namespace {

struct rdp_table {
  std::vector<double> orders, values;  // sorted by order
};

rdp_table read_table(const std::string& path) {
  auto rows = read_two_column_csv(path, "rdp file", "order", "rdp");
  std::sort(rows.begin(), rows.end());
  rdp_table t;
  for (const auto& [o, r] : rows) {
    if (!(o > 1 && o <= 1e6))
      throw std::invalid_argument("rdp file '" + path + "': order " + detail::format_value(o) +
                                  " must be in (1, 1e6]");
    if (!(r >= 0 && r <= 1e4))
      throw std::invalid_argument("rdp file '" + path + "': rdp " + detail::format_value(r) +
                                  " at order " + detail::format_value(o) +
                                  " must be finite and in [0, 1e4]");
    if (!t.orders.empty() && o == t.orders.back())
      throw std::invalid_argument("rdp file '" + path + "': order " + detail::format_value(o) +
                                  " is given twice");
    t.orders.push_back(o);
    t.values.push_back(r);
  }
  return t;
}

curve polygon(const spec& s) {
  const rdp_table t = read_table(s.string("file"));
  return kinds::cached_rdp_polygon(t.orders, t.values);
}

tradeoff closed(const spec& s) { return tradeoff(polygon(s)); }

// RDP at any order from the table: an RDP curve never decreases in the
// order (van Erven & Harremoes 2014, Thm 3), so the value at the next
// tabulated order at or above alpha bounds it; none above: +inf.
rdp_curve rdp(const spec& s, const std::vector<double>& orders) {
  const rdp_table t = read_table(s.string("file"));
  return {kinds::at_orders(orders,
                           [&](double a) {
                             double best = std::numeric_limits<double>::infinity();
                             for (std::size_t j = 0; j < t.orders.size(); ++j)
                               if (t.orders[j] >= a) best = std::min(best, t.values[j]);
                             return best;
                           }),
          0.0,
          {}};
}

// The ledger keeps the polygon's points (the file may change or go), as
// for curve specs.
ledger_form ledger(const spec& s, const kinds::stored_points* stored) {
  return kinds::ledger_of_polygon("rdp", stored, [&] { return polygon(s); });
}

}  // namespace

spec_kind spec_kind_rdp() {
  spec_kind k;
  k.name = "rdp";
  k.doc =
      "a mechanism known by its Renyi-DP curve (CSV of order,rdp), through the trade-off "
      "function it implies";
  k.example = "rdp:file=PATH.csv";
  k.keys = {text_key("file", "PATH",
                     "CSV of order,rdp rows (orders > 1; a header line and # comments allowed)")};
  k.closed = closed;
  k.rdp = rdp;
  k.calibration = {kinds::calibrate_times()};
  k.ledger = ledger;
  return k;
}

}  // namespace fdp
