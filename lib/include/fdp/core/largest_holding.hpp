// The largest x >= 0 at which a monotone-looking check still holds, found
// by doubling and then bisection, keeping only points the check has passed.
// Certified lower bounds use it to invert a certified test: whatever the
// computed test's monotonicity, the x returned was checked.
#pragma once

namespace fdp {

/// The largest x (to a relative 1e-9, from below) with holds(x) true, among
/// 0, 1, 2, 4, ... and the bisection between the last passing and the first
/// failing of them; 0 when holds(0) fails. The doubling stops once the next
/// point would pass `cap`, returning the last one that held.
template <class Check>
double largest_holding(Check holds, double cap) {
  if (!holds(0.0)) return 0.0;
  double lo = 0.0, hi = 1.0;
  while (holds(hi)) {
    lo = hi;
    hi *= 2;
    if (hi > cap) return lo;
  }
  for (int it = 0; it < 200 && hi - lo > 1e-9 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (holds(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace fdp
