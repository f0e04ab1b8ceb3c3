// fdp's error policy, in one place.
//
// - A caller error (a parameter outside its documented domain, input that does
//   not parse, a curve that is not a trade-off function) throws
//   std::invalid_argument whose message reads
//       "function(param=value): what is allowed"
//   so that the CLI can print it verbatim as its one-line diagnostic.
// - A numerical routine that fails to converge, or a resource limit (a grid
//   that would not fit in memory), throws fdp::evaluation_error.
// - No function returns NaN. A result that is mathematically infinite (an
//   epsilon that does not exist at a given delta) is +infinity, documented as
//   such at the function.
#pragma once

#include <cmath>
#include <charconv>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fdp {

/// Thrown when a numerical method fails (no convergence, no bracket, a grid
/// beyond the memory limit). Distinct from caller errors.
class evaluation_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A grid that would need more points than its limit (the memory ceiling):
/// `needed` and `limit` let a caller choose a coarser grid that fits.
class grid_limit_error : public evaluation_error {
 public:
  grid_limit_error(const std::string& what, double needed, double limit)
      : evaluation_error(what), needed(needed), limit(limit) {}
  double needed, limit;
};

namespace detail {

// The shortest decimal that reads back as v ("1e-05", not 1.0000000000000001e-05).
inline std::string format_value(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
/// A computed number in a sentence: `digits` significant digits
/// ("2.074719326", not every digit of the double; user-given values keep
/// format_value, which reads back exactly).
inline std::string format_computed(double v, int digits = 10) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits);
  return std::string(buf, r.ptr);
}
inline std::string format_value(long long v) { return std::to_string(v); }
inline std::string format_value(int v) { return std::to_string(v); }
inline std::string format_value(long v) { return std::to_string(v); }
inline std::string format_value(unsigned long v) { return std::to_string(v); }
inline std::string format_value(unsigned long long v) { return std::to_string(v); }
inline std::string format_value(const std::string& v) { return "'" + v + "'"; }
inline std::string format_value(const char* v) { return std::string("'") + v + "'"; }

/// Throws std::invalid_argument "func(param=value): allowed".
template <class T>
[[noreturn]] void throw_domain(const char* func, const char* param, const T& value,
                               const std::string& allowed) {
  throw std::invalid_argument(std::string(func) + "(" + param + "=" + format_value(value) +
                              "): " + allowed);
}

/// Requires `ok`; otherwise throws as throw_domain.
template <class T>
inline void require(bool ok, const char* func, const char* param, const T& value,
                    const std::string& allowed) {
  if (!ok) throw_domain(func, param, value, allowed);
}

/// lo <= x <= hi and x is not NaN.
inline void require_in(double x, double lo, double hi, const char* func, const char* param) {
  if (!(x >= lo && x <= hi)) {
    throw_domain(func, param, x, "must be in [" + format_value(lo) + ", " + format_value(hi) + "]");
  }
}

inline void require_finite_nonneg(double x, const char* func, const char* param) {
  if (!(std::isfinite(x) && x >= 0)) throw_domain(func, param, x, "must be finite and >= 0");
}

inline void require_finite_pos(double x, const char* func, const char* param) {
  if (!(std::isfinite(x) && x > 0)) throw_domain(func, param, x, "must be finite and > 0");
}

}  // namespace detail
}  // namespace fdp
