// Spec strings: one shell word naming a guarantee or a mechanism, e.g.
// "gdp:mu=1", "laplace:b=10,times=100",
// "subsampled-gaussian:sigma=1.1,q=0.004,times=14062".
//
// Grammar: NAME[:KEY=VALUE[,KEY=VALUE]...] (fdp/core/spec_grammar.hpp). The
// names and their keys come from the table of spec kinds
// (fdp/ops/spec_kind.hpp); every spec also accepts times=N (N-fold
// self-composition, 1 <= N <= 1e12). parse_spec refuses unknown names,
// unknown or repeated keys, missing required keys, alternatives given twice
// or not at all, malformed numbers and values outside the table's ranges,
// with a std::invalid_argument whose message names the spec, the key and
// what is allowed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fdp/core/spec_grammar.hpp"
#include "fdp/core/tradeoff.hpp"
#include "fdp/ops/spec_kind.hpp"

namespace fdp {

struct spec {
  std::string text;                           ///< the original word
  std::string name;                           ///< e.g. "gdp"
  std::map<std::string, std::string> params;  ///< keys other than times
  std::int64_t times = 1;

  /// The kind's numeric or integer key, checked against the table's range;
  /// its default when absent. Throws naming the spec and key.
  double number(const std::string& key) const;
  /// A required finite number, validated against [lo, hi] (open ends when
  /// the flags say so). Throws naming the spec and key.
  double number(const std::string& key, double lo, double hi, bool lo_open = false,
                bool hi_open = false) const;
  /// An optional number with a default.
  double number_or(const std::string& key, double dflt, double lo, double hi, bool lo_open = false,
                   bool hi_open = false) const;
  const std::string& string(const std::string& key) const;
  /// The kind's choice key: the word given (one of the table's) or its
  /// default. Throws naming the spec, the key and the allowed words.
  const std::string& choice(const std::string& key) const;
  bool has(const std::string& key) const { return params.count(key) > 0; }
  /// The table's entry for `name` (throws for an unknown name).
  const spec_kind& kind() const;
};

/// What a spec is accounted under that its numbers do not show: the words
/// of its kind's choice keys, defaults included (for the subsampled kinds,
/// "neighbours" and "sampling"), as (key, word) in the table's order. Empty
/// for kinds without them (their sensitivity is the largest change between
/// neighbours, whatever the relation).
std::vector<std::pair<std::string, std::string>> spec_assumptions(const spec& s);

/// Parses a spec and validates it against the table (name, keys, values;
/// a curve's file is read when used).
spec parse_spec(const std::string& text);

/// The closed-form trade-off function of ONE application of the spec
/// (times ignored), if its kind has one (spec_kind::closed); std::nullopt
/// for subsampled mechanisms (numeric only).
std::optional<tradeoff> single_tradeoff(const spec& s);

/// Limits of a curve CSV: 10^6 points (far beyond any curve fdp writes or a
/// paper tabulates; a curve of that size already costs ~50 MB in a ledger),
/// in at most 64 MiB (~60 bytes a line at full precision, with comments),
/// lines of at most kMaxLineBytes (fdp/core/bounded_reader.hpp).
inline constexpr std::size_t kMaxCurvePoints = 1000000;
inline constexpr std::uint64_t kMaxCurveFileBytes = std::uint64_t{64} << 20;

/// Reads a CSV of two numeric columns (`col1,col2` per line; '#' comments,
/// blank lines and one optional header line naming col1 allowed), within the
/// limits above. `what` names the file in messages ("curve file").
std::vector<std::pair<double, double>> read_two_column_csv(const std::string& path,
                                                           const std::string& what,
                                                           const std::string& col1,
                                                           const std::string& col2,
                                                           const std::string& noun = "rows");

/// Reads a curve CSV (alpha,beta per line; '#' comments and one optional
/// header line allowed) into a validated curve. Throws naming the file and
/// line, also for input beyond the limits above (checked while reading:
/// /dev/zero fails at its first line).
curve read_curve_csv(const std::string& path);

}  // namespace fdp
