#include "fdp/audit/score_file.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "fdp/audit/sample_file.hpp"

namespace fdp::audit {
namespace {

[[noreturn]] void row_error(const line_reader& r, const std::string& what) {
  throw std::invalid_argument(r.path() + ":" + std::to_string(r.line()) + ": " + what);
}

std::string trim(const char* b, const char* e) {
  while (b < e && (*b == ' ' || *b == '\t')) ++b;
  while (e > b && (e[-1] == ' ' || e[-1] == '\t')) --e;
  return std::string(b, e);
}

std::vector<std::string> fields_of(const char* b, const char* e) {
  std::vector<std::string> f;
  const char* p = b;
  for (const char* q = b;; ++q) {
    if (q == e || *q == ',') {
      f.push_back(trim(p, q));
      if (q == e) break;
      p = q + 1;
    }
  }
  return f;
}

/// A score field: a number (non-finite ones placed by nonfinite_output).
bool parse_score(const std::string& s, double& x) {
  std::vector<double> v;
  if (parse_numbers(s.data(), s.data() + s.size(), v) != 1 || v.size() != 1) return false;
  x = v[0];
  return true;
}

/// One data row into `row`, checked against the column count of the first.
void parse_row(const line_reader& r, const std::vector<std::string>& f, std::size_t columns,
               score_row& row) {
  if (f.size() != columns) {
    row_error(r, std::to_string(f.size()) + " fields, but the first row has " +
                     std::to_string(columns) + " (score,in[,canary[,run]])");
  }
  if (!parse_score(f[0], row.score)) row_error(r, "score '" + f[0] + "' is not a number");
  if (f[1] != "0" && f[1] != "1") {
    row_error(r, "inclusion bit '" + f[1] + "' must be 0 (out) or 1 (in)");
  }
  row.in = f[1] == "1";
  row.canary = columns >= 3 ? f[2] : std::string("canary");
  row.run = columns >= 4 ? f[3] : std::string();
  if (columns >= 3 && row.canary.empty()) row_error(r, "empty canary id");
  if (columns >= 4 && row.run.empty()) row_error(r, "empty run id");
}

}  // namespace

score_table read_scores(const std::string& path) {
  line_reader r(path);
  score_table t;
  t.path = path;
  std::size_t columns = 0;
  std::uint64_t blank = 0;
  bool seen_first = false;  // (a header may only be the first row)
  std::set<std::pair<std::string, std::string>> seen;
  const char *b, *e;
  while (r.next(b, e)) {
    const std::string line = trim(b, e);
    if (line.empty()) {
      if (!blank) blank = r.line();
      continue;
    }
    if (blank) {
      throw std::invalid_argument(path + ":" + std::to_string(blank) +
                                  ": empty line (blank lines only at the end of the file)");
    }
    if (line[0] == '#') continue;
    const auto f = fields_of(b, e);
    double x;
    // The header: a first row that is neither a score nor an inclusion bit.
    const bool first = !seen_first;
    seen_first = true;
    if (first && !parse_score(f[0], x) && (f.size() < 2 || (f[1] != "0" && f[1] != "1"))) continue;
    if (columns == 0) {
      if (f.size() < 2 || f.size() > 4) {
        row_error(r, std::to_string(f.size()) + " fields; a row is score,in[,canary[,run]]");
      }
      columns = f.size();
      t.has_canary = columns >= 3;
      t.has_run = columns >= 4;
    }
    score_row row;
    parse_row(r, f, columns, row);
    if (t.has_run && !seen.emplace(row.canary, row.run).second) {
      row_error(r, "canary '" + row.canary + "' appears twice in run '" + row.run + "'");
    }
    t.rows.push_back(std::move(row));
  }
  if (t.rows.empty()) throw std::invalid_argument(path + ": no score rows");
  return t;
}

std::vector<canary_scores> by_canary(const score_table& t) {
  std::vector<canary_scores> out;
  std::unordered_map<std::string, std::size_t> at;
  for (const auto& row : t.rows) {
    auto it = at.find(row.canary);
    if (it == at.end()) {
      it = at.emplace(row.canary, out.size()).first;
      out.push_back({row.canary, {}, {}});
    }
    (row.in ? out[it->second].in : out[it->second].out).push_back(row.score);
  }
  for (const auto& c : out) {
    const char* empty = c.in.empty() ? "in" : (c.out.empty() ? "out" : nullptr);
    if (empty) {
      throw std::invalid_argument(t.path + ": canary '" + c.id + "' has no '" + empty +
                                  "' scores (rows with in = " + (c.in.empty() ? "1" : "0") +
                                  "); both classes are needed");
    }
  }
  return out;
}

}  // namespace fdp::audit
