// Internal (not installed): the numbers the PLD kernel's certificates rest on.
#pragma once

#include <cstdint>
#include <limits>

namespace fdp::detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kU = std::numeric_limits<double>::epsilon() / 2;  // unit roundoff
// Relative accuracy assumed for a law's interval masses (the laws are
// tested to ~1e-15; this leaves a margin).
inline constexpr double kMassRel = 64 * kU;
// Largest FFT length fdp will allocate (2^26 doubles ~ 0.5 GiB per buffer).
inline constexpr std::int64_t kMaxGrid = std::int64_t(1) << 26;

/// The most points a grid window may span so that its transform, whose
/// length good_size rounds up by less than 1.5 (spectrum.hpp), stays within
/// `cap` points: the one fit rule of the tilted windows (compose_grid.cpp's
/// window_for, compose.cpp's tilt_fits and note_tilt_room).
inline double window_points_within(double cap) { return cap / 1.5; }
// Compositions of at least this many terms in all compute their transforms
// in long double (compose_grid): double's rounding, amplified about n-fold
// by the power, would swamp small deltas.
inline constexpr double kLongDoubleTerms = 1 << 20;

}  // namespace fdp::detail
