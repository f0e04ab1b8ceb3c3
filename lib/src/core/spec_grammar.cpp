#include "fdp/core/spec_grammar.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace fdp {

namespace {

// The decimal exponent of a decimal number's leading nonzero digit (its
// position in the mantissa plus the exponent): > 0 for a number that
// overflows a double, <= 0 for one that underflows. 0 for a zero.
long long decimal_exponent(const std::string& text) {
  const std::size_t ep = text.find_first_of("eE");
  const std::string mant = text.substr(0, ep);
  const std::size_t dot = mant.find('.');
  const std::size_t int_end = dot == std::string::npos ? mant.size() : dot;
  const std::size_t lead = mant.find_first_of("123456789");
  if (lead == std::string::npos) return 0;
  const long long magnitude = lead < int_end ? static_cast<long long>(int_end - lead) - 1
                                             : -static_cast<long long>(lead - int_end);
  long long ex = 0;
  if (ep != std::string::npos) {
    std::size_t k = ep + 1;
    const bool neg = text[k] == '-';
    if (text[k] == '+' || text[k] == '-') ++k;
    for (; k < text.size() && ex < 100000000; ++k) ex = 10 * ex + (text[k] - '0');
    if (neg) ex = -ex;
  }
  return magnitude + ex;
}

}  // namespace

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
    // Beyond the double range: an overflow is not finite; an underflow is 0.
    if (decimal_exponent(text) > 0)
      throw std::invalid_argument(what + ": '" + text + "' must be finite");
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

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& x : items) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

spec_word parse_spec_word(const std::string& text, const std::vector<std::string>& names,
                          const word_keys& keys_of) {
  spec_word w;
  w.text = text;
  const auto colon = text.find(':');
  w.name = text.substr(0, colon);
  const std::set<std::string>* allowed = keys_of(w.name);
  const std::string where = "spec '" + text + "': ";
  if (!allowed) {
    throw std::invalid_argument(where + "unknown name '" + w.name + "' (known: " + join(names) +
                                ")");
  }
  if (colon == std::string::npos) return w;
  const std::string rest = text.substr(colon + 1);
  if (rest.empty()) throw std::invalid_argument(where + "nothing after ':'");
  std::stringstream ss(rest);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw std::invalid_argument(where + "'" + item + "' is not KEY=VALUE");
    }
    const std::string key = item.substr(0, eq);
    if (!allowed->count(key)) {
      throw std::invalid_argument(where + "unknown key '" + key + "' for " + w.name +
                                  " (allowed: " + join({allowed->begin(), allowed->end()}) + ")");
    }
    if (!w.values.emplace(key, item.substr(eq + 1)).second) {
      throw std::invalid_argument(where + "key '" + key + "' repeated");
    }
  }
  // (getline yields no empty item after a last ',')
  if (text.back() == ',') throw std::invalid_argument(where + "trailing ','");
  return w;
}

}  // namespace fdp
