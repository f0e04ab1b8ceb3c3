// What the spec-kind tests share: refusals with their messages, and the
// bracket fdp gives for one row of a golden table (tuned as fdp compose
// tunes it: compose_for_queries).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "../golden/golden_csv.hpp"
#include "fdp/ops/compose_queries.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp::test {

/// b contains truth, up to the truth's own rounding: rel |truth| + abs.
inline void expect_contains(const interval& b, long double truth, const std::string& what,
                            long double rel, long double abs) {
  const long double slack = rel * std::fabs(truth) + abs;
  EXPECT_LE(b.lower, truth + slack)
      << what << ": [" << b.lower << ", " << b.upper << "] vs " << static_cast<double>(truth);
  EXPECT_GE(b.upper, truth - slack)
      << what << ": [" << b.lower << ", " << b.upper << "] vs " << static_cast<double>(truth);
}

/// Each text must make `make(text)` throw std::invalid_argument with a
/// message containing its needle.
template <class Make>
void expect_refused(const std::vector<std::pair<std::string, std::string>>& cases, Make make) {
  for (const auto& [text, needle] : cases) {
    try {
      make(text);
      ADD_FAILURE() << text << ": not refused";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
          << text << ": " << e.what() << " (expected '" << needle << "')";
    }
  }
}

/// The bracket of `query` ("eps": epsilon at delta = arg; "delta": delta at
/// eps = arg) for one spec, composed for that query alone.
inline interval query_bracket(const std::string& spec_text, const std::string& query, double arg) {
  const bool eps_query = query == "eps";
  const query_compositions q = compose_for_queries(
      {parse_spec(spec_text)}, {}, eps_query ? std::vector<double>{arg} : std::vector<double>{},
      eps_query ? std::vector<double>{} : std::vector<double>{arg});
  return eps_query ? q.for_epsilons.epsilon(arg) : q.delta_source().delta(arg);
}

/// One row of a spec-kind golden table (columns spec, query, arg, value).
struct golden_query {
  std::string spec;   ///< with ',' and ';' restored (the CSV writes ';' and '_')
  std::string query;  ///< "eps" (arg = delta) or "delta" (arg = eps)
  std::string arg_text;
  double arg;
  long double value;  ///< the truth, read to long double
  std::string what() const { return spec + " " + query + " at " + arg_text; }
};

/// The rows of tests/golden/<file>: in spec texts ';' stands for ',' and
/// '_' for ';' (commas separate the CSV's columns).
inline std::vector<golden_query> golden_queries(const std::string& file) {
  const auto table = load_golden(file);
  const std::size_t cs = table.column("spec"), cq = table.column("query"), ca = table.column("arg"),
                    cv = table.column("value");
  std::vector<golden_query> out;
  for (const auto& row : table.rows) {
    std::string text = row[cs];
    std::replace(text.begin(), text.end(), ';', ',');
    std::replace(text.begin(), text.end(), '_', ';');
    out.push_back(
        {text, row[cq], row[ca], to_double(row[ca]), std::strtold(row[cv].c_str(), nullptr)});
  }
  return out;
}

}  // namespace fdp::test
