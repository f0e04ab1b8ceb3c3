#include "cli.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "fdp/core/error.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp::cli {

std::map<std::string, command>& registry() {
  static std::map<std::string, command> r;
  return r;
}

registrar::registrar(command c) { registry()[c.name] = std::move(c); }

namespace {

// "-d 1e-5": a word with one dash and a letter is an option spelled
// wrong, not a spec (a spec never starts with '-'). The message names the
// options it may have meant: those whose name starts with what follows
// the dash.
usage_error single_dash_error(const std::string& word, const std::string& cmd,
                              const std::vector<option_def>& defs) {
  const std::string stem = word.substr(1);
  std::string meant;
  int n = 0;
  for (const auto& d : defs) {
    if (d.name.compare(0, stem.size(), stem) != 0 || n == 3) continue;
    meant += (n++ ? " or --" : "--") + d.name;
  }
  return usage_error("unknown option " + word + ": options take two dashes" +
                         (meant.empty() ? "" : " (" + meant + "?)") + "; see 'fdp " + cmd +
                         " --help'",
                     stem);
}

bool single_dash_option(const std::string& a) {
  return a.size() >= 2 && a[0] == '-' && std::isalpha(static_cast<unsigned char>(a[1]));
}

}  // namespace

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
        throw usage_error("unknown option --" + name + " (see 'fdp " + cmd + " --help')", name);
      }
      const option_def& d = *it->second;
      if (d.takes_value && !inline_val) {
        if (i + 1 >= argv.size()) throw usage_error("option --" + name + " needs a value", name);
        val = argv[++i];
      } else if (!d.takes_value && inline_val) {
        throw usage_error("option --" + name + " takes no value", name);
      }
      if (!d.repeatable && values_.count(name)) {
        throw usage_error("option --" + name + " given more than once", name);
      }
      values_[name].push_back(val);
    } else if (single_dash_option(a)) {
      throw single_dash_error(a, cmd, defs);
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
  if (it == values_.end()) throw usage_error("missing required option --" + name, name);
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
    // (the value as given: the shortest decimal that reads back)
    os << what << " = " << detail::format_value(v) << " must be ";
    os.precision(6);  // (the bounds are round numbers: 1e+300, not 1.0000000000000001e+300)
    const bool above = hi_open ? v >= hi : v > hi;
    if (hi >= 1e300 && !above) {
      os << (lo_open ? "> " : ">= ") << lo;
    } else {
      os << "in " << (lo_open ? "(" : "[") << lo << ", " << hi << (hi_open ? ")" : "]");
    }
    throw usage_error(os.str(), what.compare(0, 2, "--") == 0 ? what.substr(2) : "");
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
