// Reading black-box sample files (docs/cli.md): one output per line,
//   a number            "0.25", "-3e-7"
//   a vector            "1.5,2,-0.25"   (comma-separated numbers, same length on every line)
//   a token             "r3", "TTF-"    (anything else without a comma: a category)
// Every line of a file must be of the kind of its first line (a token file
// may not contain a line that reads as a number, and vice versa). Blank
// lines before an output, numbers out of the doubles' range (1e999), fields
// that are not numbers, vectors of a different length and tokens containing
// commas are errors naming the file and line. A trailing newline, blank
// lines at the end, '\r' before the newline (CRLF files), spaces or tabs
// around fields and (audit_options::skip_header) a header line are accepted.
//
// Non-finite numbers ("inf", "-inf", "nan", any case) are outputs like any
// other: an implementation that sometimes returns inf or NaN leaks through
// them, and refusing the file would hide that. They are placed on the real
// line as -inf -> -DBL_MAX, NaN -> the next double above -DBL_MAX, +inf ->
// DBL_MAX (nonfinite_output), the same map on both sides: a test on the
// mapped output is a test on a function of the output, so every bound stays
// certified (post-processing; a genuine output of +-DBL_MAX merely shares
// a cell with a non-finite one, which can only weaken the audit).
//
// Files are streamed through a fixed buffer (4 MiB; fdp/core/bounded_reader.hpp)
// and never held in memory as text; a line longer than kMaxSampleLineBytes is
// an error. Numeric files are read twice (selection lines, then evaluation
// lines against the chosen tests), so they must be regular files; token
// files are read once (pipes work). Numbers are parsed with std::from_chars
// (exact round-trip, no locale).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fdp/core/bounded_reader.hpp"

namespace fdp::audit {

/// Longest line of a sample file (without its newline): 1 MiB, a vector of
/// ~50,000 coordinates at full precision. The 4 MiB read buffer holds such a
/// line, so the limit costs no memory; beyond it a line is refused (an endless
/// line such as /dev/zero's ends the read there).
inline constexpr std::size_t kMaxSampleLineBytes = std::size_t{1} << 20;

/// The lines of a sample file: at most kMaxSampleLineBytes each, any number
/// of them (audits read up to 10^8 outputs; memory grows with the distinct
/// tokens and the selection lines kept, not with the file). Errors name the
/// file as "sample file 'PATH'".
class line_reader : public bounded_line_reader {
 public:
  /// Opens `path`; throws std::invalid_argument "sample file 'PATH': cannot be opened ..." if it
  /// cannot.
  explicit line_reader(const std::string& path)
      : bounded_line_reader(path, "sample file", kMaxSampleLineBytes) {}
};

enum class line_kind { number, vector, token };

/// Where a number read from a sample file lies on the audit's real line:
/// itself if finite, else the sentinel of the header comment.
double nonfinite_output(double x);

/// Parses comma-separated numbers in [b, e) into out (cleared first), with
/// non-finite ones mapped by nonfinite_output (so out is always finite).
/// Returns: 1 if every field is a number; 0 if the first field is not a
/// number (a token candidate); -1 if some field is out of the doubles'
/// range (1e999); -2 if a later field is not a number or a field is empty.
int parse_numbers(const char* b, const char* e, std::vector<double>& out);

}  // namespace fdp::audit
