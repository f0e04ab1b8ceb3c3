// Internal: the sort of real-valued selection outputs, on several threads.
//
// Doubles are ordered by their IEEE-754 total-order key (order_key: -0 before
// +0, NaNs at the ends by sign), a total order on bit patterns, so the sorted
// array is one and the same whatever the algorithm or the thread count: the
// audit's plan for a seed does not depend on --threads. (Arrays of fewer
// than 256 values are sorted by std::sort on one thread, as before.)
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "fdp/core/raw_vector.hpp"

namespace fdp::audit::detail {

/// Monotone map of doubles (IEEE-754 total order) to unsigned integers.
inline std::uint64_t order_key(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return (u >> 63) ? ~u : (u | (std::uint64_t{1} << 63));
}
/// The inverse of order_key.
inline double from_order_key(std::uint64_t k) {
  const std::uint64_t u = (k >> 63) ? (k & ~(std::uint64_t{1} << 63)) : ~k;
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

/// Sorts v ascending by order_key on up to `threads` threads (>= 1): an LSD
/// radix sort whose every pass counts digits per thread chunk and scatters
/// the chunks in parallel at offsets ordered (digit, chunk), which keeps each
/// pass stable and so gives exactly the one-thread result.
void sort_doubles(raw_vector<double>& v, unsigned threads);

/// std::merge(a, b) (operator<, a's element first among equals) on up to
/// `threads` threads: the output is cut into equal ranges at merge-path
/// co-ranks (Odeh, Green, Mwassi, Shmueli & Birk, "Merge Path", IPDPSW 2012)
/// and each range merged on its own, which gives exactly std::merge's array.
raw_vector<double> merge_doubles(const raw_vector<double>& a, const raw_vector<double>& b,
                                 unsigned threads);

}  // namespace fdp::audit::detail
