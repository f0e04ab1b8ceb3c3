// The mechanism catalogue: every mechanism by name, with its parameters,
// claim, neighbour relation and an example; and construction from a spec
// word "NAME:key=value,..." in the grammar the spec table uses
// (fdp/core/spec_grammar.hpp: the same parser and the same messages for
// unknown names or keys, repeated keys and malformed words).
//
// Values are checked by the factories (std::invalid_argument,
// "function(param=value): allowed"): missing required keys, malformed or
// non-finite numbers, out-of-range values (eps <= 0, c < 1, delta outside
// [0, 1), ...), conflicting keys (laplace: eps and b).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fdp/mech/mechanism.hpp"

namespace fdp::mech {

/// A parsed spec: name and key=value texts (values checked by the factory).
struct mechanism_spec {
  std::string text, name;
  std::map<std::string, std::string> values;
  bool has(const std::string& key) const { return values.count(key) > 0; }
  /// A finite number (parse_number); `dflt` when absent.
  double number(const std::string& key) const;
  double number_or(const std::string& key, double dflt) const;
  /// A positive integer in [lo, hi].
  std::uint64_t count_or(const std::string& key, std::uint64_t dflt, std::uint64_t lo,
                         std::uint64_t hi) const;
  /// 0/1/true/false.
  bool flag_or(const std::string& key, bool dflt) const;
};

struct param_doc {
  std::string key;
  std::string default_value;  ///< empty: required (or one of alternatives, see meaning)
  std::string meaning;
};

struct mechanism_info {
  std::string name;
  std::string summary;
  std::vector<param_doc> params;
  std::string claim;       ///< the claimed guarantee, symbolically
  std::string exact;       ///< the exact trade-off, symbolically ("" if unknown)
  std::string neighbours;  ///< the neighbour relation
  std::string output;      ///< what one output is
  bool flawed = false;
  std::string example_spec;
  std::vector<double> example_input;
  std::function<std::unique_ptr<mechanism>(const mechanism_spec&)> make;
};

/// The whole catalogue, correct mechanisms first, then the flawed ones.
const std::vector<mechanism_info>& catalogue();

/// Parses the shape of a spec (name known, keys allowed and not repeated).
mechanism_spec parse_mechanism_spec(const std::string& text);

/// Builds the mechanism a spec describes.
std::unique_ptr<mechanism> make_mechanism(const std::string& spec);

/// Parses a comma-separated vector of finite numbers ("1,2,3"); throws
/// naming `what` for an empty vector or a bad element.
std::vector<double> parse_answers(const std::string& text, const std::string& what = "input");

}  // namespace fdp::mech
