// Shared helpers for the golden-table tests: read a table written by
// tests/golden/gen_golden.py and keep track of the largest error seen.
//
// Table format: '#' comment lines, then one header line of column names, then
// comma-separated rows. Numbers outside double range (e.g. 3.7e-350) are
// parsed with strtod, which gives 0 / a subnormal / inf; the tests then use
// the log column for those rows.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef FDP_TEST_DATA_DIR
#error "FDP_TEST_DATA_DIR must point at tests/golden"
#endif

namespace fdp::test {

struct golden_table {
  std::string path;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;

  std::size_t column(const std::string& name) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name) return i;
    throw std::runtime_error(path + ": no column '" + name + "'");
  }
};

inline golden_table load_golden(const std::string& name) {
  golden_table t;
  t.path = std::string(FDP_TEST_DATA_DIR) + "/" + name;
  std::ifstream in(t.path);
  if (!in) throw std::runtime_error("cannot open golden table " + t.path);
  std::string line;
  // (a field in double quotes may hold commas: the generators' method notes)
  auto split = [](const std::string& s) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (char ch : s) {
      if (ch == '"')
        quoted = !quoted;
      else if (ch == ',' && !quoted)
        out.emplace_back();
      else
        out.back() += ch;
    }
    return out;
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (t.columns.empty()) {
      t.columns = split(line);
      continue;
    }
    auto r = split(line);
    if (r.size() != t.columns.size()) throw std::runtime_error(t.path + ": bad row '" + line + "'");
    t.rows.push_back(std::move(r));
  }
  if (t.rows.empty()) throw std::runtime_error(t.path + ": no rows");
  return t;
}

/// strtod, accepting values beyond double range (0 / subnormal / +-inf).
inline double to_double(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') throw std::runtime_error("not a number: '" + s + "'");
  return v;
}

/// A row's number in column `name`, NaN where the cell is blank (not available).
inline double number_or_nan(const golden_table& t, const std::vector<std::string>& row,
                            const std::string& name) {
  const std::string& v = row[t.column(name)];
  return v.empty() ? std::nan("") : to_double(v);
}

/// |computed - truth| / |truth| (absolute error when truth == 0).
inline double rel_err(double computed, double truth) {
  if (computed == truth) return 0.0;  // also equal infinities
  if (std::isnan(computed) || std::isinf(computed) || std::isinf(truth)) return INFINITY;
  return truth == 0.0 ? std::fabs(computed) : std::fabs(computed - truth) / std::fabs(truth);
}

/// The largest error over a table, with the row where it happened. Printed
/// (and recorded as a gtest property) by report().
struct max_error {
  std::string name;
  double value = 0.0;
  std::string where;
  std::size_t count = 0;

  explicit max_error(std::string n) : name(std::move(n)) {}
  void update(double err, const std::string& at) {
    ++count;
    if (err > value || std::isnan(err)) {
      value = err;
      where = at;
    }
  }
  void report() const {
    std::ostringstream os;
    os.precision(3);
    os << value;
    std::cout << "[golden] max " << name << " = " << os.str() << " over " << count << " values (at "
              << (where.empty() ? std::string("-") : where) << ")\n";
    ::testing::Test::RecordProperty("max_" + name, os.str());
  }
};

}  // namespace fdp::test
