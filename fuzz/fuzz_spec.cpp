// libFuzzer target: spec strings (fdp/ops/spec.hpp).
// Input: the spec text. parse_spec, then every number the spec carries
// through spec::number, then single_tradeoff (kinds with a text key excluded:
// curve specs read a file, covered by fuzz_curve_csv) evaluated at a few alphas.
// Accepted failures: std::invalid_argument (the documented parse and range
// errors), std::domain_error. Invariants: beta in [0, 1], non-increasing.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fdp/ops/spec.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)fdp::parse_number(text, "fuzz");
  } catch (const std::invalid_argument&) {
  }
  try {
    (void)fdp::parse_count(text, "fuzz", 1, 1000000000000LL);
  } catch (const std::invalid_argument&) {
  }
  fdp::spec s;
  try {
    s = fdp::parse_spec(text);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  FUZZ_CHECK(s.times >= 1 && s.times <= 1000000000000LL);
  for (const auto& kv : s.params) {
    try {
      const double v = s.number(kv.first, -1e300, 1e300);
      FUZZ_CHECK(std::isfinite(v));
    } catch (const std::invalid_argument&) {
    }
  }
  for (const auto& key : s.kind().keys)
    if (key.kind == fdp::spec_key::type::text) return 0;  // (a file: fuzz_curve_csv's)
  try {
    const auto f = fdp::single_tradeoff(s);
    if (!f) return 0;
    double prev = 1.0;
    for (double a : {0.0, 1e-300, 1e-12, 1e-3, 0.25, 0.5, 0.75, 1 - 1e-12, 1.0}) {
      const double b = fdp::beta(*f, a);
      FUZZ_CHECK(b >= 0.0 && b <= 1.0);
      FUZZ_CHECK(b <= prev + 1e-12);
      prev = b;
    }
    (void)f->describe();
  } catch (const std::invalid_argument&) {
  } catch (const std::domain_error&) {
  }
  return 0;
}
