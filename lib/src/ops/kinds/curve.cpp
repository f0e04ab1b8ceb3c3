// Spec kind "curve": a trade-off function given as a CSV of alpha,beta points
// (read_curve_csv: the polygon through them, validated convex and
// non-increasing). Composed as its polygon's finite law.
#include "ops/kind_support.hpp"

namespace fdp {
namespace {

tradeoff closed(const spec& s) { return tradeoff(read_curve_csv(s.string("file"))); }

// The ledger keeps the points themselves (the file may change or go): the key
// is their hash, and a stored entry is replayed from its points.
ledger_form ledger(const spec& s, const kinds::stored_points* stored) {
  return kinds::ledger_of_polygon("curve", stored,
                                  [&] { return read_curve_csv(s.string("file")); });
}

}  // namespace

spec_kind spec_kind_curve() {
  spec_kind k;
  k.name = "curve";
  k.doc = "trade-off curve from a CSV of alpha,beta points";
  k.example = "curve:file=PATH.csv";
  k.keys = {text_key("file", "PATH",
                     "CSV file of alpha,beta points (a header line and # comments allowed)")};
  k.closed = closed;
  k.calibration = {kinds::calibrate_times()};
  k.ledger = ledger;
  return k;
}

}  // namespace fdp
