#include "fdp/audit/group_claim.hpp"

#include <stdexcept>
#include <string>
#include <variant>

#include "fdp/core/curve.hpp"
#include "fdp/ops/group.hpp"
#include "ops/group_bounds.hpp"

namespace fdp::audit {

tradeoff group_claim(const tradeoff& claim, std::int64_t k) {
  if (k < 1) {
    throw std::invalid_argument("audit(group=" + std::to_string(k) +
                                "): the group size must be an integer >= 1");
  }
  if (k == 1) return claim;
  // Polygons: the certified polygon at or below the power (directed
  // rounding, ops/group_bounds.hpp), so that a violation of it is a
  // violation of the exact group claim, not of a value a few ulps too high.
  if (const auto* c = std::get_if<curve>(&claim.get())) {
    return tradeoff(fdp::detail::group_bounds(*c, k, fdp::detail::group_input::symmetrized).lower);
  }
  if (const auto* e = std::get_if<eps_delta>(&claim.get()); e && e->eps > 0) {
    return tradeoff(fdp::detail::group_bounds(*e, k).lower);
  }
  return fdp::group(claim, k);  // closed forms, and f_{0,delta} -> f_{0, min(1, k delta)}
}

}  // namespace fdp::audit
