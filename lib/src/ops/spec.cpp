#include "fdp/ops/spec.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <stdexcept>

#include "fdp/core/bounded_reader.hpp"
#include "fdp/core/error.hpp"

namespace fdp {

const std::vector<spec_kind>& spec_kinds() {
  static const std::vector<spec_kind> kinds = {
      {"gdp", {"mu"}, {}, "mu-GDP, G_mu"},
      {"epsdelta", {"eps"}, {"delta"}, "f_{eps,delta} (delta defaults to 0)"},
      {"laplace", {"b"}, {"sensitivity"}, "Laplace mechanism, T(Lap(0,b), Lap(S,b))"},
      {"gaussian", {"sigma"}, {"sensitivity"}, "Gaussian mechanism, G_{D/sigma}"},
      {"subsampled-gaussian", {"sigma", "q"}, {"sensitivity"},
       "Gaussian mechanism under Poisson subsampling with rate q, add/remove neighbours"},
      {"subsampled-laplace", {"b", "q"}, {"sensitivity"},
       "Laplace mechanism under Poisson subsampling with rate q, add/remove neighbours"},
      {"curve", {"file"}, {}, "trade-off curve from a CSV of alpha,beta points"},
      {"id", {}, {}, "perfect privacy, Id(a) = 1 - a"},
  };
  return kinds;
}

double parse_number(const std::string& text, const std::string& what) {
  if (text.empty()) throw std::invalid_argument(what + ": empty value, expected a number");
  // Decimal notation only: [+-]digits[.digits][(e|E)[+-]digits]. strtod alone
  // would also take hexadecimal ("0x1p3"), "infinity", "nan(...)" and
  // leading blanks, none of which a user means as a privacy parameter.
  const auto digits = [&](std::size_t& i) {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  std::size_t i = 0;
  if (text[i] == '+' || text[i] == '-') ++i;
  std::size_t mantissa = digits(i);
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits(i);
  }
  bool decimal = mantissa > 0;
  if (decimal && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    decimal = digits(i) > 0;
  }
  if (!decimal || i != text.size()) {
    std::string word = text.substr((text[0] == '+' || text[0] == '-') ? 1 : 0);
    for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (word == "inf" || word == "infinity" || word == "nan" || word.rfind("nan(", 0) == 0) {
      throw std::invalid_argument(what + ": '" + text + "' must be finite");
    }
    throw std::invalid_argument(what + ": '" + text + "' is not a number");
  }
  // from_chars: the C locale's decimal point whatever the program's locale
  // (strtod under a decimal-comma locale would read "1.5" as 1). A leading
  // '+' is the syntax's, not from_chars'.
  const char* b = text.data() + (text[0] == '+' ? 1 : 0);
  const char* e = text.data() + text.size();
  double v = 0.0;
  const auto r = std::from_chars(b, e, v);
  if (r.ec == std::errc::result_out_of_range) {
    // Beyond the double range: an overflow is not finite; an underflow is 0. Which one: the decimal
    // exponent of the leading nonzero digit, mantissa position + exponent.
    const std::size_t ep = text.find_first_of("eE");
    const std::string mant = text.substr(0, ep);
    long long magnitude = 0;
    const std::size_t dot = mant.find('.');
    const std::size_t int_end = dot == std::string::npos ? mant.size() : dot;
    const std::size_t lead = mant.find_first_of("123456789");
    if (lead != std::string::npos) {
      magnitude = lead < int_end ? static_cast<long long>(int_end - lead) - 1
                                 : -static_cast<long long>(lead - int_end);
    }
    long long ex = 0;
    if (ep != std::string::npos) {
      std::size_t k = ep + 1;
      const bool neg = text[k] == '-';
      if (text[k] == '+' || text[k] == '-') ++k;
      for (; k < text.size() && ex < 100000000; ++k) ex = 10 * ex + (text[k] - '0');
      if (neg) ex = -ex;
    }
    if (lead != std::string::npos && magnitude + ex > 0) {
      throw std::invalid_argument(what + ": '" + text + "' must be finite");
    }
    v = 0.0;
  } else if (r.ec != std::errc() || r.ptr != e) {
    throw std::invalid_argument(what + ": '" + text + "' is not a number");
  }
  if (!std::isfinite(v)) throw std::invalid_argument(what + ": '" + text + "' must be finite");
  // (a zero is +0: "-0" or "-1e-400" is no negative parameter, and would print as "-0")
  return v == 0.0 ? 0.0 : v;
}

std::int64_t parse_count(const std::string& text, const std::string& what, std::int64_t lo,
                         std::int64_t hi) {
  const double v = parse_number(text, what);
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi)) {
    throw std::invalid_argument(what + ": '" + text + "' must be an integer in [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return static_cast<std::int64_t>(v);
}

spec parse_spec(const std::string& text) {
  spec s;
  s.text = text;
  const auto colon = text.find(':');
  s.name = text.substr(0, colon);
  const spec_kind* kind = nullptr;
  for (const auto& k : spec_kinds())
    if (k.name == s.name) kind = &k;
  if (!kind) {
    std::string names;
    for (const auto& k : spec_kinds()) names += (names.empty() ? "" : ", ") + k.name;
    throw std::invalid_argument("spec '" + text + "': unknown name '" + s.name +
                                "' (known: " + names + ")");
  }
  std::set<std::string> allowed(kind->required.begin(), kind->required.end());
  allowed.insert(kind->optional.begin(), kind->optional.end());
  allowed.insert("times");
  bool have_times = false;
  if (colon != std::string::npos) {
    std::string rest = text.substr(colon + 1);
    if (rest.empty()) throw std::invalid_argument("spec '" + text + "': nothing after ':'");
    std::stringstream ss(rest);
    std::string item;
    while (std::getline(ss, item, ',')) {
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw std::invalid_argument("spec '" + text + "': '" + item + "' is not KEY=VALUE");
      }
      const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
      if (!allowed.count(key)) {
        std::string keys;
        for (const auto& k : allowed) keys += (keys.empty() ? "" : ", ") + k;
        throw std::invalid_argument("spec '" + text + "': unknown key '" + key + "' for " +
                                    s.name + " (allowed: " + keys + ")");
      }
      if (key == "times") {
        if (have_times) throw std::invalid_argument("spec '" + text + "': key 'times' repeated");
        have_times = true;
        s.times = parse_count(val, "spec '" + text + "': times", 1, 1000000000000LL);
        continue;
      }
      if (s.params.count(key)) {
        throw std::invalid_argument("spec '" + text + "': key '" + key + "' repeated");
      }
      s.params[key] = val;
    }
    if (!text.empty() && text.back() == ',') {
      throw std::invalid_argument("spec '" + text + "': trailing ','");
    }
  }
  for (const auto& k : kind->required) {
    if (!s.params.count(k)) {
      throw std::invalid_argument("spec '" + text + "': missing required key '" + k + "' for " +
                                  s.name);
    }
  }
  return s;
}

const std::string& spec::string(const std::string& key) const {
  auto it = params.find(key);
  if (it == params.end()) throw std::invalid_argument("spec '" + text + "': missing key '" + key + "'");
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
      m += (hi_open ? "< " : "<= ") + format_value(hi);  // (a cap far beyond any use: named only when hit)
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

curve read_curve_csv(const std::string& path) {
  bounded_line_reader in(path, "curve file", kMaxLineBytes, kMaxCurveFileBytes);
  std::vector<curve::point> pts;
  std::string line;
  bool header_seen = false;
  while (in.next(line)) {
    const std::uint64_t lineno = in.line();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto comma = line.find(',');
    const std::string where = "curve file '" + path + "' line " + std::to_string(lineno);
    if (comma == std::string::npos) throw std::invalid_argument(where + ": expected 'alpha,beta'");
    auto trim = [](std::string x) {
      const auto b = x.find_first_not_of(" \t"), e = x.find_last_not_of(" \t");
      return b == std::string::npos ? std::string() : x.substr(b, e - b + 1);
    };
    const std::string a = trim(line.substr(0, comma)), b = trim(line.substr(comma + 1));
    if (pts.empty() && !header_seen && (a == "alpha" || a == "a")) {
      header_seen = true;
      continue;
    }
    if (b.find(',') != std::string::npos) {
      throw std::invalid_argument(where + ": expected two columns 'alpha,beta'");
    }
    if (pts.size() == kMaxCurvePoints) {
      throw std::invalid_argument(where + ": more than " + std::to_string(kMaxCurvePoints) +
                                  " points (the limit)");
    }
    pts.push_back({parse_number(a, where + ": alpha"), parse_number(b, where + ": beta")});
  }
  if (pts.empty()) throw std::invalid_argument("curve file '" + path + "': no points");
  try {
    return curve::from_points(std::move(pts));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("curve file '" + path + "': " + e.what());
  }
}

namespace {
// sensitivity / scale must be a finite double: the message names the scale
// (gaussian:sigma=1e-300 failed as "gaussian(mu=inf)").
void ratio_is_finite(const spec& s, const char* key, double scale, double sensitivity) {
  if (!std::isfinite(sensitivity / scale)) {
    throw std::invalid_argument("spec '" + s.text + "': " + key + " = " + detail::format_value(scale) +
                                " is too small: sensitivity / " + key + " overflows (it must be >= sensitivity / 1e300)");
  }
}
}  // namespace

std::optional<tradeoff> single_tradeoff(const spec& s) {
  constexpr double inf = 1e300;
  if (s.name == "gdp") return tradeoff(gaussian(s.number("mu", 0, inf)));
  if (s.name == "epsdelta") {
    return tradeoff(eps_delta(s.number("eps", 0, inf), s.number_or("delta", 0.0, 0, 1)));
  }
  if (s.name == "laplace") {
    const double b = s.number("b", 0, inf, true);
    const double d = s.number_or("sensitivity", 1.0, 0, inf);
    ratio_is_finite(s, "b", b, d);
    return tradeoff(laplace(d / b));
  }
  if (s.name == "gaussian") {
    const double sigma = s.number("sigma", 0, inf, true);
    const double d = s.number_or("sensitivity", 1.0, 0, inf);
    ratio_is_finite(s, "sigma", sigma, d);
    return tradeoff(gaussian(d / sigma));
  }
  if (s.name == "curve") return tradeoff(read_curve_csv(s.string("file")));
  if (s.name == "id") return tradeoff(identity{});
  return std::nullopt;
}

}  // namespace fdp
