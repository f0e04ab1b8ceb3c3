// The claim a group audit tests. A mechanism that is f-DP for neighbours is
// [1 - (1 - f)^{o k}]-DP for inputs k neighbour steps apart (Dong, Roth &
// Su 2019, "Gaussian Differential Privacy", Thm 2.14), so outputs on inputs
// at distance k are audited against that group curve, never against f
// itself: against f they would show a "violation" of a correct mechanism.
#pragma once

#include <cstdint>

#include "fdp/core/tradeoff.hpp"

namespace fdp::audit {

/// The k-fold group guarantee of `claim` (k = 1: the claim itself). The
/// audit tests both orderings of the pair against one claim, so a curve is
/// first made symmetric (min{f, f^-1}**, what holds for both orderings)
/// before the power, as DRS Thm 2.14 requires. Closed forms stay closed
/// (G_mu -> G_{k mu}, Laplace(mu) -> Laplace(k mu)); for f_{eps,delta} and
/// curves the result is the certified polygon at or below the exact power
/// (directed rounding, as fdp group's brackets), so a violation of it is a
/// violation of the group claim. Throws std::invalid_argument for k < 1.
tradeoff group_claim(const tradeoff& claim, std::int64_t k);

}  // namespace fdp::audit
