// libFuzzer target: black-box sample files (fdp/audit/sample_file.hpp) and
// the audit of two of them (fdp::audit::audit_files, what `fdp audit
// --samples0 --samples1` runs).
// Input: the bytes of sample file 0, optionally followed by a NUL byte and
// the bytes of sample file 1 (without one, both files are the same bytes).
// Accepted failure: std::invalid_argument (the documented "PATH:LINE: ..."
// errors, and a line over kMaxSampleLineBytes). Invariants: no line returned
// is longer than that; parse_numbers returns one of its four codes and only
// finite numbers; the audit verdict is one of the three, with finite,
// non-negative epsilon and mu lower bounds.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "fdp/audit/audit.hpp"
#include "fdp/audit/sample_file.hpp"
#include "fdp/core/families.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto* nul = static_cast<const std::uint8_t*>(std::memchr(data, 0, size));
  const std::size_t n0 = nul ? static_cast<std::size_t>(nul - data) : size;
  const std::string f0 = fdp::fuzz::write_file("samples0.txt", data, n0);
  const std::string f1 = nul ? fdp::fuzz::write_file("samples1.txt", nul + 1, size - n0 - 1) : f0;

  // The streaming reader alone: every line, every field (a line over
  // kMaxSampleLineBytes is refused with std::invalid_argument).
  try {
    fdp::audit::line_reader r(f0);
    const char *b, *e;
    std::vector<double> vals;
    std::uint64_t lines = 0;
    while (r.next(b, e)) {
      ++lines;
      FUZZ_CHECK(b <= e && r.line() == lines);
      FUZZ_CHECK(static_cast<std::size_t>(e - b) <= fdp::audit::kMaxSampleLineBytes);
      const int rc = fdp::audit::parse_numbers(b, e, vals);
      FUZZ_CHECK(rc >= -2 && rc <= 1);
      if (rc == 1) {
        FUZZ_CHECK(!vals.empty());
        for (double v : vals) FUZZ_CHECK(std::isfinite(v));
      }
    }
    FUZZ_CHECK(r.bytes_consumed() == n0);
  } catch (const std::invalid_argument&) {
  }

  fdp::audit::audit_options opt;
  opt.threads = 1;
  opt.oracle = false;
  opt.selection_fraction = 0.5;
  opt.curve_tests = 4;
  try {
    const auto rep = fdp::audit::audit_files(f0, f1, fdp::tradeoff(fdp::gaussian(1.0)), opt);
    const auto& r = rep.result;
    FUZZ_CHECK(r.verdict == "violation" || r.verdict == "consistent" ||
               r.verdict == "inconclusive");
    FUZZ_CHECK(std::isfinite(r.epsilon_lower) && r.epsilon_lower >= 0.0);
    FUZZ_CHECK(std::isfinite(r.mu_lower) && r.mu_lower >= 0.0);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
