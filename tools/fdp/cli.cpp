#include "cli.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "fdp/ops/spec.hpp"

namespace fdp::cli {

std::map<std::string, command>& registry() {
  static std::map<std::string, command> r;
  return r;
}

registrar::registrar(command c) { registry()[c.name] = std::move(c); }

args::args(const std::string& cmd, const std::vector<std::string>& argv,
           const std::vector<option_def>& defs)
    : command_(cmd) {
  std::map<std::string, const option_def*> by_name;
  for (const auto& d : defs) by_name[d.name] = &d;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
      std::string name = a.substr(2), val;
      bool inline_val = false;
      const auto eq = name.find('=');
      if (eq != std::string::npos) {
        val = name.substr(eq + 1);
        name = name.substr(0, eq);
        inline_val = true;
      }
      auto it = by_name.find(name);
      if (it == by_name.end()) {
        throw usage_error("unknown option --" + name + " (see 'fdp " + cmd + " --help')");
      }
      const option_def& d = *it->second;
      if (d.takes_value && !inline_val) {
        if (i + 1 >= argv.size()) throw usage_error("option --" + name + " needs a value");
        val = argv[++i];
      } else if (!d.takes_value && inline_val) {
        throw usage_error("option --" + name + " takes no value");
      }
      if (!d.repeatable && values_.count(name)) {
        throw usage_error("option --" + name + " given more than once");
      }
      values_[name].push_back(val);
    } else {
      positional_.push_back(a);
    }
  }
}

std::vector<std::string> args::all(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::string args::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw usage_error("missing required option --" + name);
  return it->second.front();
}

std::string args::value_or(const std::string& name, const std::string& dflt) const {
  return has(name) ? value(name) : dflt;
}

double check_range(const std::string& what, double v, double lo, double hi, bool lo_open,
                   bool hi_open) {
  const bool ok = (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  if (!ok) {
    std::ostringstream os;
    os.precision(17);
    os << what << " = " << v << " must be ";
    os.precision(6);  // (the bounds are round numbers: 1e+300, not 1.0000000000000001e+300)
    const bool above = hi_open ? v >= hi : v > hi;
    if (hi >= 1e300 && !above) {
      os << (lo_open ? "> " : ">= ") << lo;
    } else {
      os << "in " << (lo_open ? "(" : "[") << lo << ", " << hi << (hi_open ? ")" : "]");
    }
    throw usage_error(os.str());
  }
  return v;
}

double args::number(const std::string& name, double lo, double hi, bool lo_open,
                    bool hi_open) const {
  const double v = parse_number(value(name), "--" + name);
  return check_range("--" + name, v, lo, hi, lo_open, hi_open);
}

double args::number_or(const std::string& name, double dflt, double lo, double hi, bool lo_open,
                       bool hi_open) const {
  return has(name) ? number(name, lo, hi, lo_open, hi_open) : dflt;
}

std::vector<double> args::numbers(const std::string& name, double lo, double hi, bool lo_open,
                                  bool hi_open) const {
  std::vector<double> out;
  for (const auto& s : all(name)) {
    out.push_back(check_range("--" + name, parse_number(s, "--" + name), lo, hi, lo_open, hi_open));
  }
  return out;
}

long long args::integer_or(const std::string& name, long long dflt, long long lo,
                           long long hi) const {
  if (!has(name)) return dflt;
  return parse_count(value(name), "--" + name, lo, hi);
}

std::string spec_kinds_text() {
  std::string out =
      "spec kinds (one shell word each; every kind also takes times=N; 'fdp specs'\n"
      "lists their keys, ranges and defaults):\n";
  for (const auto& k : spec_kinds()) {
    const std::string u = k.usage();
    out += "  " + u +
           (u.size() < 40 ? std::string(40 - u.size(), ' ') : "\n" + std::string(42, ' ')) + k.doc +
           "\n";
  }
  return out;
}

void print_json(const json& j) { std::cout << j.dump(1) << "\n"; }

json num(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json bracket(double lower, double upper) {
  json j;
  j["lower"] = num(lower);
  j["upper"] = num(upper);
  return j;
}

std::string fmt(double x, int digits) {
  if (std::isnan(x)) return "n/a";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(digits);
  os << x;
  return os.str();
}

namespace {
// x printed to `digits` digits on the side `up` (or down): the nearest
// rounding, moved by one unit of its last digit when it fell on the wrong
// side of x.
std::string fmt_directed(double x, int digits, bool up) {
  std::string s = fmt(x, digits);
  if (!std::isfinite(x)) return s;
  double v = std::strtod(s.c_str(), nullptr);
  if (up ? v >= x : v <= x) return s;
  const double unit = std::pow(10.0, std::floor(std::log10(std::fabs(v))) - (digits - 1));
  for (int i = 1; i <= 4; ++i) {
    s = fmt(up ? v + i * unit : v - i * unit, digits);
    const double w = std::strtod(s.c_str(), nullptr);
    if (up ? w >= x : w <= x) return s;
  }
  return fmt(x, 17);  // (every double reads back exactly at 17 digits)
}
}  // namespace

std::string fmt_down(double x, int digits) { return fmt_directed(x, digits, false); }
std::string fmt_up(double x, int digits) { return fmt_directed(x, digits, true); }

}  // namespace fdp::cli
