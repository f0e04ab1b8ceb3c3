// Internal: the RDP -> trade-off polygon of rdp_tradeoff_lower, remembered
// per (orders, values). Building it takes tens of milliseconds and a spec is
// turned into a term many times (compose, calibrate, the ledger), so the
// zcdp and rdp spec kinds share this cache (thread-safe, a few dozen entries).
#pragma once

#include <vector>

#include "fdp/core/curve.hpp"

namespace fdp::kinds {

curve cached_rdp_polygon(const std::vector<double>& orders, const std::vector<double>& rdp);

}  // namespace fdp::kinds
