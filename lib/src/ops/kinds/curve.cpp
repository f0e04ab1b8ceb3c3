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
  curve c = (stored && !stored->empty()) ? [&] {
    std::vector<curve::point> pts;
    for (const auto& xy : *stored) pts.push_back({xy.first, xy.second});
    return curve::from_points(std::move(pts));
  }()
                                          : read_curve_csv(s.string("file"));
  ledger_form f;
  for (std::size_t i = 0; i < c.size(); ++i) f.points.emplace_back(c.alpha()[i], c.beta()[i]);
  f.key_name = "curve";
  f.law = make_law(tradeoff(std::move(c)));
  return f;
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
