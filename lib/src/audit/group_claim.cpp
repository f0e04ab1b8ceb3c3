#include "fdp/audit/group_claim.hpp"

#include <stdexcept>
#include <string>
#include <variant>

#include "fdp/core/curve.hpp"
#include "fdp/ops/group.hpp"

namespace fdp::audit {

tradeoff group_claim(const tradeoff& claim, std::int64_t k) {
  if (k < 1) {
    throw std::invalid_argument("audit(group=" + std::to_string(k) +
                                "): the group size must be an integer >= 1");
  }
  if (k == 1) return claim;
  if (const auto* c = std::get_if<curve>(&claim.get())) {
    return fdp::group(tradeoff(symmetrize_hull(*c)), k);
  }
  return fdp::group(claim, k);
}

}  // namespace fdp::audit
