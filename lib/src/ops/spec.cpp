#include "fdp/ops/spec.hpp"

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "fdp/core/bounded_reader.hpp"
#include "fdp/core/error.hpp"

namespace fdp {

namespace {

// The keys a kind's words may carry: its own and times.
const std::set<std::string>* word_keys_of(const std::string& name) {
  static const std::map<std::string, std::set<std::string>> keys = [] {
    std::map<std::string, std::set<std::string>> m;
    for (const auto& k : spec_kinds()) {
      auto& set = m[k.name];
      for (const auto& key : k.keys) set.insert(key.name);
      set.insert("times");
    }
    return m;
  }();
  auto it = keys.find(name);
  return it == keys.end() ? nullptr : &it->second;
}

// Required keys present; of each group of alternatives exactly one.
void check_presence(const spec& s, const spec_kind& kind) {
  const std::string where = "spec '" + s.text + "': ";
  for (const auto& k : kind.keys) {
    if (k.required() && !s.has(k.name)) {
      throw std::invalid_argument(where + "missing required key '" + k.name + "' for " + s.name);
    }
  }
  std::map<std::string, std::vector<std::string>> groups, given;
  for (const auto& k : kind.keys) {
    if (k.group.empty()) continue;
    groups[k.group].push_back("'" + k.name + "'");
    if (s.has(k.name)) given[k.group].push_back("'" + k.name + "'");
  }
  for (const auto& [g, names] : groups) {
    const auto& got = given[g];
    auto join = [](const std::vector<std::string>& v, const char* sep) {
      std::string out;
      for (const auto& x : v) out += (out.empty() ? "" : sep) + x;
      return out;
    };
    if (got.empty()) {
      throw std::invalid_argument(where + "missing required key " + join(names, " or ") + " for " +
                                  s.name);
    }
    if (got.size() > 1) {
      throw std::invalid_argument(where + "keys " + join(got, " and ") + " give the same " + g +
                                  "; give one of them");
    }
  }
}

}  // namespace

spec parse_spec(const std::string& text) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& k : spec_kinds()) v.push_back(k.name);
    return v;
  }();
  spec_word w = parse_spec_word(text, names, word_keys_of);
  spec s;
  s.text = text;
  s.name = w.name;
  for (auto& [key, value] : w.values) {
    if (key == "times") {
      s.times = parse_count(value, "spec '" + text + "': times", 1, 1000000000000LL);
    } else {
      s.params[key] = std::move(value);
    }
  }
  const spec_kind& kind = s.kind();
  check_presence(s, kind);
  // every value against the table's range, now: the same message whichever command reads it
  for (const auto& k : kind.keys) {
    if (k.kind == spec_key::type::choice) {
      (void)s.choice(k.name);
    } else if (k.kind != spec_key::type::text && s.has(k.name)) {
      (void)s.number(k.name);
    }
  }
  return s;
}

const spec_kind& spec::kind() const {
  const spec_kind* k = find_spec_kind(name);
  if (!k) {
    throw std::invalid_argument("spec '" + text + "': unknown name '" + name +
                                "' (known: " + spec_kind_names() + ")");
  }
  return *k;
}

double spec::number(const std::string& key) const {
  const spec_key* k = kind().key(key);
  if (!k || k->kind == spec_key::type::text || k->kind == spec_key::type::choice) {
    throw std::logic_error("spec kind '" + name + "' has no numeric key '" + key + "'");
  }
  if (!has(key)) {
    if (k->default_value) return *k->default_value;
    throw std::invalid_argument("spec '" + text + "': missing key '" + key + "'");
  }
  if (k->kind == spec_key::type::integer) {
    return static_cast<double>(parse_count(params.at(key), "spec '" + text + "': " + key,
                                           static_cast<std::int64_t>(k->range.lo),
                                           static_cast<std::int64_t>(k->range.hi)));
  }
  return number(key, k->range.lo, k->range.hi, k->range.lo_open, k->range.hi_open);
}

const std::string& spec::choice(const std::string& key) const {
  const spec_key* k = kind().key(key);
  if (!k || k->kind != spec_key::type::choice)
    throw std::logic_error("spec kind '" + name + "' has no choice key '" + key + "'");
  if (!has(key)) return k->default_choice;
  const std::string& v = params.at(key);
  for (const auto& c : k->choices)
    if (v == c) return v;
  std::string allowed;
  for (const auto& c : k->choices) allowed += (allowed.empty() ? "" : ", ") + c;
  throw std::invalid_argument("spec '" + text + "': " + key + " = '" + v + "' must be one of " +
                              allowed);
}

std::vector<std::pair<std::string, std::string>> spec_assumptions(const spec& s) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& k : s.kind().keys)
    if (k.kind == spec_key::type::choice) out.emplace_back(k.name, s.choice(k.name));
  return out;
}

const std::string& spec::string(const std::string& key) const {
  auto it = params.find(key);
  if (it == params.end())
    throw std::invalid_argument("spec '" + text + "': missing key '" + key + "'");
  return it->second;
}

double spec::number(const std::string& key, double lo, double hi, bool lo_open,
                    bool hi_open) const {
  const std::string what = "spec '" + text + "': " + key;
  const double v = parse_number(string(key), what);
  const bool ok = (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  if (!ok) {
    using detail::format_value;
    std::string m = what + " = " + format_value(v) + " must be ";
    if (hi >= 1e300 && (lo_open ? v > lo : v >= lo)) {
      m += (hi_open ? "< " : "<= ") +
           format_value(hi);  // (a cap far beyond any use: named only when hit)
    } else if (hi >= 1e300) {
      m += (lo_open ? "> " : ">= ") + format_value(lo);
    } else {
      m += "in " + std::string(lo_open ? "(" : "[") + format_value(lo) + ", " + format_value(hi) +
           (hi_open ? ")" : "]");
    }
    throw std::invalid_argument(m);
  }
  return v;
}

double spec::number_or(const std::string& key, double dflt, double lo, double hi, bool lo_open,
                       bool hi_open) const {
  return has(key) ? number(key, lo, hi, lo_open, hi_open) : dflt;
}

std::vector<std::pair<double, double>> read_two_column_csv(const std::string& path,
                                                           const std::string& what,
                                                           const std::string& col1,
                                                           const std::string& col2,
                                                           const std::string& noun) {
  bounded_line_reader in(path, what, kMaxLineBytes, kMaxCurveFileBytes);
  std::vector<std::pair<double, double>> rows;
  std::string line;
  bool header_seen = false;
  auto trim = [](std::string x) {
    const auto b = x.find_first_not_of(" \t\r"), e = x.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : x.substr(b, e - b + 1);
  };
  while (in.next(line)) {
    const std::uint64_t lineno = in.line();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto comma = line.find(',');
    const std::string where = what + " '" + path + "' line " + std::to_string(lineno);
    const std::string pair = "'" + col1 + "," + col2 + "'";
    if (comma == std::string::npos) throw std::invalid_argument(where + ": expected " + pair);
    const std::string a = trim(line.substr(0, comma)), b = trim(line.substr(comma + 1));
    if (rows.empty() && !header_seen && (a == col1 || a == col1.substr(0, 1))) {
      header_seen = true;
      continue;
    }
    if (b.find(',') != std::string::npos)
      throw std::invalid_argument(where + ": expected two columns " + pair);
    if (rows.size() == kMaxCurvePoints) {
      throw std::invalid_argument(where + ": more than " + std::to_string(kMaxCurvePoints) + " " +
                                  noun + " (the limit)");
    }
    rows.emplace_back(parse_number(a, where + ": " + col1), parse_number(b, where + ": " + col2));
  }
  if (rows.empty()) throw std::invalid_argument(what + " '" + path + "': no " + noun);
  return rows;
}

curve read_curve_csv(const std::string& path) {
  std::vector<curve::point> pts;
  for (const auto& [a, b] : read_two_column_csv(path, "curve file", "alpha", "beta", "points"))
    pts.push_back({a, b});
  try {
    return curve::from_points(std::move(pts));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("curve file '" + path + "': " + e.what());
  }
}

}  // namespace fdp
