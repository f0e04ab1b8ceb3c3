// The grammar of spec words: one shell word NAME[:KEY=VALUE[,KEY=VALUE]...],
// e.g. "laplace:eps=1,times=10". Shared by the spec table (fdp/ops/spec.hpp:
// guarantees and mechanisms that compose) and the mechanism catalogue
// (fdp/mech/registry.hpp: mechanisms to sample), so that both read words the
// same way and refuse them with the same messages. It lives in core because
// ops and mech both depend on core and neither on the other.
//
// Values are texts here; numbers in them are decimal and finite
// (parse_number). Every error is a std::invalid_argument whose one line
// names the word and what is allowed:
//   spec 'gdpp:mu=1': unknown name 'gdpp' (known: curve, epsdelta, ...)
//   spec 'gdp:sigma=1': unknown key 'sigma' for gdp (allowed: mu, times)
//   spec 'gdp:mu=1,mu=2': key 'mu' repeated
//   spec 'gdp:': nothing after ':'
//   spec 'gdp:mu': 'mu' is not KEY=VALUE
//   spec 'gdp:mu=1,': trailing ','
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fdp {

/// Parses a strictly formatted finite double ("1e-5", "0.25"); throws
/// std::invalid_argument "what: 'text' is not a number" (or "must be
/// finite") otherwise.
double parse_number(const std::string& text, const std::string& what);

/// Parses an integer in [lo, hi] written as a number ("100", "1e6"); throws
/// "what: 'text' must be an integer in [lo, hi]" otherwise.
std::int64_t parse_count(const std::string& text, const std::string& what, std::int64_t lo,
                         std::int64_t hi);

/// A word split into its name and its KEY=VALUE items (keys unique).
struct spec_word {
  std::string text;
  std::string name;
  std::map<std::string, std::string> values;
};

/// The keys a name accepts; nullptr for an unknown name.
using word_keys = std::function<const std::set<std::string>*(const std::string& name)>;

/// Splits `text` and checks its shape: the name must be known (`names`, in
/// the order the error message lists them, and keys_of(name) != nullptr),
/// every key one of keys_of(name), none repeated. Values are not checked.
spec_word parse_spec_word(const std::string& text, const std::vector<std::string>& names,
                          const word_keys& keys_of);

}  // namespace fdp
