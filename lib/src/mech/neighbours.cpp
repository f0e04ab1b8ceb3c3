#include "fdp/mech/neighbours.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace fdp::mech {
namespace {

// ceil(x / bound), forgiving a relative rounding error of 1e-9: a norm
// computed in double may land a few ulps above an exact multiple.
std::int64_t steps(double x, double bound) {
  if (x <= 0) return 0;
  const double q = x / bound;
  const double r = std::round(q);
  const double c = (std::fabs(q - r) <= 1e-9 * std::max(1.0, r)) ? r : std::ceil(q);
  // (capped at 2^53 so that the monotone case's sum cannot overflow)
  if (!(c < 9007199254740992.0)) return std::int64_t{1} << 53;
  return static_cast<std::int64_t>(c);
}

}  // namespace

std::int64_t neighbour_distance(const neighbour_relation& r, const std::vector<double>& a,
                                const std::vector<double>& b) {
  if (a.size() != b.size()) {
    throw std::invalid_argument("neighbour_distance: the inputs have " + std::to_string(a.size()) +
                                " and " + std::to_string(b.size()) +
                                " answers; neighbours must have the same length");
  }
  using kind = neighbour_relation::kind;
  if (r.norm == kind::replace) return a == b ? 0 : 1;
  double l1 = 0, l2 = 0, up = 0, down = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = b[i] - a[i];
    l1 += std::fabs(d);
    l2 = std::hypot(l2, d);
    up = std::max(up, d);
    down = std::max(down, -d);
  }
  switch (r.norm) {
    case kind::l1:
      return steps(l1, r.bound);
    case kind::l2:
      return steps(l2, r.bound);
    case kind::linf:
      if (!r.monotone) return steps(std::max(up, down), r.bound);
      return steps(up, r.bound) + steps(down, r.bound);
    case kind::replace:
      break;
  }
  return a == b ? 0 : 1;
}

}  // namespace fdp::mech
