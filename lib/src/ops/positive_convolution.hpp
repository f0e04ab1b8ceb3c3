// Internal (not installed): convolutions of nonnegative sequences that are
// certified from BELOW, entry by entry, for constructions whose soundness
// needs every computed mass to be at most the exact one (a sub-measure of an
// exactly known measure; see balls_in_bins_law.cpp).
//
// An FFT convolution's rounding is absolute, not relative: an entry far
// below the largest is only known to within that error. The transforms here
// run in long double (FFTW's fftwl, unit roundoff 2^-64) so that the error,
// about 1e-17 of the inputs' 1-norms, is negligible beside any mass that
// matters; each output is then lowered by the bound and clamped at 0.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace fdp::detail {

/// A nonnegative sequence on the integer window [k0, k0 + v.size()).
struct window_seq {
  std::int64_t k0 = 0;
  std::vector<double> v;
};

/// Entries c~_k <= (a * b)_k for every k, computed by a long-double FFT and
/// lowered by its error bound (Higham-style, as the PLD kernel's), keeping
/// only the window [lo, hi] of the product (entries outside are dropped:
/// still a lower bound, entrywise). Requires a, b >= 0.
window_seq convolve_lower(const window_seq& a, const window_seq& b, std::int64_t lo,
                          std::int64_t hi);

/// a * b1 and a * b2 on the same window, as above, sharing a's transform.
std::pair<window_seq, window_seq> convolve_lower_twice(const window_seq& a, const window_seq& b1,
                                                       const window_seq& b2, std::int64_t lo,
                                                       std::int64_t hi);

/// The window [lo, hi] kept for a sum of m summands.
using sum_window = std::function<void(std::int64_t m, std::int64_t& lo, std::int64_t& hi)>;

/// The n-fold convolution power of a nonnegative sequence, by squaring, each
/// partial sum of m summands kept on window(m); every entry at most the
/// exact one (n = 0: the point mass at 0).
window_seq convolution_power(const window_seq& one, std::int64_t n, const sum_window& window);

}  // namespace fdp::detail
