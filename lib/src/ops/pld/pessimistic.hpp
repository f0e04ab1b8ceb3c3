// Internal (not installed): the pessimistic discretization of a loss law
// ("connect the dots", fdp/ops/pld_grid.hpp), behind discretize().
#pragma once

#include "ops/pld/pld_grid.hpp"

namespace fdp::detail {

/// The law on the grid offset + k h over [lo, hi] (finite, within the
/// law's support and +-700), completed to full probability measures.
grid_pmf discretize_pessimistic(const loss_law& law, double h, double off, double lo, double hi);

}  // namespace fdp::detail
