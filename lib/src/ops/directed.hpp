// Directed rounding in double arithmetic, for bounds that must hold exactly
// (the certified group powers in group_bounds.cpp).
//
// Each operation returns the round-to-nearest result, moved one ulp outward
// unless an error-free transformation shows it exact: up() >= the exact real
// result, dn() <= it. Round-to-nearest is off by at most half an ulp, so one
// ulp always suffices; exact results (0 + 0, 1 - 0.25, 2 * 0.5) stay exact,
// which keeps f(0) = 1 or f = 0 from turning into rounding noise. The error
// terms: TwoSum for sums (exact for any finite operands), fma for products
// and quotients (exact unless the error term underflows: near the subnormal
// range the result is moved outward unconditionally). Overflow goes to +-inf
// on the outward side and to +-DBL_MAX on the inward one. No fesetround:
// the compiler may fold or reorder under a changed mode, the error terms it
// may not (no -ffast-math here).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace fdp::detail::directed {

inline double next_up(double x) {
  if (std::isnan(x) || x == std::numeric_limits<double>::infinity()) return x;
  if (x == 0.0) return std::numeric_limits<double>::denorm_min();
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  u += x > 0 ? 1 : -1;
  std::memcpy(&x, &u, sizeof u);
  return x;
}

inline double next_dn(double x) { return -next_up(-x); }

// Below this magnitude the error term of a product or quotient may
// underflow (2^-1022 + 53 bits of headroom).
constexpr double kTiny = 0x1p-968;

// sign of (exact - rounded) for r = fl(a + b); 0 when exact.
inline int sum_error_sign(double a, double b, double r) {
  const double bb = r - a;
  const double e = (a - (r - bb)) + (b - bb);
  return e > 0 ? 1 : (e < 0 ? -1 : 0);
}

inline double add_up(double a, double b) {
  const double r = a + b;
  if (std::isinf(r))
    return (std::isinf(a) || std::isinf(b)) ? r : (r > 0 ? r : -std::numeric_limits<double>::max());
  return sum_error_sign(a, b, r) > 0 ? next_up(r) : r;
}
inline double add_dn(double a, double b) { return -add_up(-a, -b); }
inline double sub_up(double a, double b) { return add_up(a, -b); }
inline double sub_dn(double a, double b) { return add_dn(a, -b); }

inline double mul_up(double a, double b) {
  if (a == 0.0 || b == 0.0) return 0.0;  // (also 0 * inf: the callers' slopes may be inf)
  const double r = a * b;
  if (std::isinf(r))
    return (std::isinf(a) || std::isinf(b) || r > 0) ? r : -std::numeric_limits<double>::max();
  if (std::fabs(r) < kTiny) return next_up(r);
  const double e = std::fma(a, b, -r);
  return e > 0 ? next_up(r) : r;
}
inline double mul_dn(double a, double b) { return -mul_up(-a, b); }

inline double div_up(double a, double b) {
  if (a == 0.0 && b != 0.0) return 0.0;
  const double r = a / b;
  if (std::isinf(r))
    return (std::isinf(a) || b == 0.0 || r > 0) ? r : -std::numeric_limits<double>::max();
  if (std::isinf(b)) return r;  // (a finite: exactly 0)
  if (std::fabs(r) < kTiny || std::fabs(a) < kTiny) return next_up(r);
  const double rem = std::fma(-r, b, a);  // a - r b, exact
  return (rem > 0) == (b > 0) && rem != 0 ? next_up(r) : r;
}
inline double div_dn(double a, double b) { return -div_up(-a, b); }

// a + b c with every step rounded up / down (b c by mul_*, then the sum).
inline double fma_up(double a, double b, double c) { return add_up(a, mul_up(b, c)); }
inline double fma_dn(double a, double b, double c) { return add_dn(a, mul_dn(b, c)); }

}  // namespace fdp::detail::directed
