// Canary score files: membership-inference scores of canaries from training
// runs with and without them, for `fdp audit --scores` (many runs; Nasr et
// al. 2023) and `fdp audit --one-run` (one run; Steinke, Nasr & Jagielski
// 2023). One comma-separated row per (canary, run):
//
//   score,in,canary,run      (header: optional; '#' lines are comments)
//   0.731,1,c17,run3
//
//   score   a number: higher or lower for members, either way (inf, -inf
//           and nan are scores too, placed as in sample files,
//           nonfinite_output in sample_file.hpp);
//   in      1 if the canary was in that run's training set, 0 if not;
//   canary  an id (any text without commas); optional: one canary;
//   run     an id; optional: every row is its own run.
//
// Every row must have the columns of the first data row. Refused, naming
// the file and line: a field that is not a number / not 0 or 1, an empty
// id, the same (canary, run) twice, a file without rows; and, naming the
// canary, a canary whose "in" or "out" class is empty (no test can compare
// the two sides then). Blank lines may end the file, as in sample files.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fdp::audit {

struct score_row {
  double score = 0;
  bool in = false;
  std::string canary, run;
};

struct score_table {
  std::string path;
  std::vector<score_row> rows;
  bool has_canary = false, has_run = false;  ///< which optional columns were given
};

/// Reads and checks a score file (see above). Throws std::invalid_argument
/// "PATH:LINE: what" (or "PATH: canary 'ID' has no ... scores").
score_table read_scores(const std::string& path);

/// The scores of one canary, by class.
struct canary_scores {
  std::string id;
  std::vector<double> in, out;
};

/// Rows grouped by canary, in order of first appearance.
std::vector<canary_scores> by_canary(const score_table& t);

}  // namespace fdp::audit
