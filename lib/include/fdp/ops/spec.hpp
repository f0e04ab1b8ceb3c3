// Spec strings: one shell word naming a guarantee or a mechanism
// (../shared/CLI.md), e.g. "gdp:mu=1", "laplace:b=10,times=100",
// "subsampled-gaussian:sigma=1.1,q=0.004,times=14062".
//
// Grammar: NAME[:KEY=VALUE[,KEY=VALUE]...]. Every spec accepts times=N
// (N-fold self-composition, 1 <= N <= 1e12). Unknown names, unknown or
// repeated keys, missing required keys and malformed numbers throw
// std::invalid_argument whose message names the spec, the key and what is
// allowed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fdp/core/tradeoff.hpp"

namespace fdp {

struct spec {
  std::string text;                          ///< the original word
  std::string name;                          ///< e.g. "gdp"
  std::map<std::string, std::string> params; ///< keys other than times
  std::int64_t times = 1;

  /// A required finite number, validated against [lo, hi] (open ends when
  /// the flags say so). Throws naming the spec and key.
  double number(const std::string& key, double lo, double hi, bool lo_open = false,
                bool hi_open = false) const;
  /// An optional number with a default.
  double number_or(const std::string& key, double dflt, double lo, double hi,
                   bool lo_open = false, bool hi_open = false) const;
  const std::string& string(const std::string& key) const;
  bool has(const std::string& key) const { return params.count(key) > 0; }
};

/// The spec names fdp accepts and their keys (for --help and errors).
struct spec_kind {
  std::string name;
  std::vector<std::string> required, optional;
  std::string meaning;
};
const std::vector<spec_kind>& spec_kinds();

/// Parses and validates the shape of a spec (name and keys; values are
/// checked when used).
spec parse_spec(const std::string& text);

/// Parses a strictly formatted finite double ("1e-5", "0.25"); throws
/// std::invalid_argument "what: 'text' is not a number" otherwise.
double parse_number(const std::string& text, const std::string& what);

/// Parses a positive integer.
std::int64_t parse_count(const std::string& text, const std::string& what, std::int64_t lo,
                         std::int64_t hi);

/// The closed-form trade-off function of ONE application of the spec
/// (times ignored), if the spec has one: gdp, epsdelta, laplace, gaussian,
/// curve, id. std::nullopt for subsampled mechanisms (numeric only).
std::optional<tradeoff> single_tradeoff(const spec& s);

/// Limits of a curve CSV: 10^6 points (far beyond any curve fdp writes or a
/// paper tabulates; a curve of that size already costs ~50 MB in a ledger),
/// in at most 64 MiB (~60 bytes a line at full precision, with comments),
/// lines of at most kMaxLineBytes (fdp/core/bounded_reader.hpp).
inline constexpr std::size_t kMaxCurvePoints = 1000000;
inline constexpr std::uint64_t kMaxCurveFileBytes = std::uint64_t{64} << 20;

/// Reads a curve CSV (alpha,beta per line; '#' comments and one optional
/// header line allowed) into a validated curve. Throws naming the file and
/// line, also for input beyond the limits above (checked while reading:
/// /dev/zero fails at its first line).
curve read_curve_csv(const std::string& path);

}  // namespace fdp
