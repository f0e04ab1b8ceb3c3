// The numeric state behind a composition: its composed grids, one per side
// and orientation, plainly and with an exponential tilt, and the lattice law
// of an exact result that has one. compose.hpp keeps it opaque (the engine's
// headers stay internal); compose.cpp builds it and reads its bounds.
#pragma once

#include <optional>

#include "ops/pld/pld_grid.hpp"

namespace fdp::detail {

struct composition_grids {
  std::optional<composed_pld> lattice;  // exact lattice law of an exact result, when it has one
  std::optional<composed_pld> pess, opt, inv_pess, inv_opt;
  // The same grids composed with an exponential tilt at delta_hint (small
  // delta_hint only): bounds near that delta far below the FFT's error floor.
  std::optional<composed_pld> pess_t, opt_t, inv_pess_t, inv_opt_t;
};

}  // namespace fdp::detail
