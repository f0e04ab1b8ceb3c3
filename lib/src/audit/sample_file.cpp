#include "fdp/audit/sample_file.hpp"

#include <charconv>
#include <cmath>
#include <limits>

namespace fdp::audit {

double nonfinite_output(double x) {
  constexpr double kMax = std::numeric_limits<double>::max();
  if (std::isnan(x)) return std::nextafter(-kMax, 0.0);
  if (std::isinf(x)) return x > 0 ? kMax : -kMax;
  return x;
}

int parse_numbers(const char* b, const char* e, std::vector<double>& out) {
  out.clear();
  const char* p = b;
  bool first = true;
  for (;;) {
    while (p < e && (*p == ' ' || *p == '\t')) ++p;
    if (p < e && *p == '+') ++p;
    double x;
    const auto r = std::from_chars(p, e, x);
    if (r.ec != std::errc() && r.ec != std::errc::result_out_of_range) return first ? 0 : -2;
    if (r.ec == std::errc::result_out_of_range) {
      // Overflow to +-inf or underflow: from_chars leaves x unset; decide by the exponent.
      return -1;
    }
    const char* q = r.ptr;
    while (q < e && (*q == ' ' || *q == '\t')) ++q;
    if (q < e && *q != ',') return first ? 0 : -2;
    out.push_back(nonfinite_output(x));
    first = false;
    if (q == e) return 1;
    p = q + 1;
    if (p == e) return -2;  // trailing comma
  }
}

}  // namespace fdp::audit
