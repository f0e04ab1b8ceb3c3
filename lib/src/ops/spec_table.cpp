// The table of spec kinds (fdp/ops/spec_kind.hpp): built from one function per
// file in lib/src/ops/kinds, listed by CMake in the generated spec_kinds.inc.
#include <algorithm>
#include <set>
#include <stdexcept>

#include "fdp/ops/spec.hpp"

namespace fdp {

#define FDP_SPEC_KIND(file) spec_kind spec_kind_##file();
#include "ops/spec_kinds.inc"
#undef FDP_SPEC_KIND

namespace {

// A kind that contradicts itself is a programming error: found the first time
// the table is used (every test binary uses it).
void check_kind(const spec_kind& k, std::set<std::string>& names) {
  auto bad = [&](const std::string& what) {
    throw std::logic_error("spec kind '" + k.name + "': " + what);
  };
  if (k.name.empty() || !names.insert(k.name).second) bad("empty or repeated name");
  if (!k.closed && !k.term) bad("neither a closed form nor a term");
  std::set<std::string> keys{"times"};
  for (const auto& key : k.keys) {
    if (!keys.insert(key.name).second) bad("key '" + key.name + "' repeated or reserved");
    if (key.kind == spec_key::type::text && !key.required()) bad("a text key must be required");
    if (key.kind == spec_key::type::choice &&
        std::find(key.choices.begin(), key.choices.end(), key.default_choice) == key.choices.end())
      bad("choice key '" + key.name + "' has a default that is not one of its choices");
  }
  for (const auto& c : k.calibration) {
    if (c.key != "times" && !k.key(c.key)) bad("calibrates the unknown key '" + c.key + "'");
  }
}

}  // namespace

const std::vector<spec_kind>& spec_kinds() {
  static const std::vector<spec_kind> table = [] {
    std::vector<spec_kind> t;
#define FDP_SPEC_KIND(file) t.push_back(spec_kind_##file());
#include "ops/spec_kinds.inc"
#undef FDP_SPEC_KIND
    std::set<std::string> names;
    for (const auto& k : t) check_kind(k, names);
    return t;
  }();
  return table;
}

const spec_kind* find_spec_kind(const std::string& name) {
  for (const auto& k : spec_kinds())
    if (k.name == name) return &k;
  return nullptr;
}

std::string spec_kind_names() {
  std::string s;
  for (const auto& k : spec_kinds()) s += (s.empty() ? "" : ", ") + k.name;
  return s;
}

const spec_key* spec_kind::key(const std::string& key_name) const {
  for (const auto& k : keys)
    if (k.name == key_name) return &k;
  return nullptr;
}

std::string spec_kind::usage() const {
  std::string req, opt;
  std::set<std::string> done;
  for (const auto& k : keys) {
    if (!done.insert(k.name).second) continue;
    if (k.required()) {
      req += (req.empty() ? "" : ",") + k.name + "=" + k.metavar;
    } else if (!k.group.empty()) {
      // the alternatives of a group as one item: b=B|eps=E
      std::string alt;
      for (const auto& a : keys) {
        if (a.group != k.group) continue;
        alt += (alt.empty() ? "" : "|") + a.name + "=" + a.metavar;
        done.insert(a.name);
      }
      req += (req.empty() ? "" : ",") + alt;
    } else {
      opt += "[," + k.name + "=" + k.metavar + "]";
    }
  }
  if (req.empty() && opt.empty()) return name;
  if (req.empty()) return name + "[:" + opt.substr(2);  // (the first optional key opens the list)
  return name + ":" + req + opt;
}

spec_key required_key(std::string name, std::string metavar, value_range r, std::string doc) {
  spec_key k;
  k.name = std::move(name);
  k.range = r;
  k.metavar = std::move(metavar);
  k.doc = std::move(doc);
  return k;
}

spec_key optional_key(std::string name, std::string metavar, double dflt, value_range r,
                      std::string doc) {
  spec_key k = required_key(std::move(name), std::move(metavar), r, std::move(doc));
  k.default_value = dflt;
  return k;
}

spec_key alternative_key(std::string group, std::string name, std::string metavar, value_range r,
                         std::string doc) {
  spec_key k = required_key(std::move(name), std::move(metavar), r, std::move(doc));
  k.group = std::move(group);
  return k;
}

spec_key integer_key(std::string name, std::string metavar, double dflt, double lo, double hi,
                     std::string doc) {
  spec_key k = optional_key(std::move(name), std::move(metavar), dflt, {lo, hi, false, false},
                            std::move(doc));
  k.kind = spec_key::type::integer;
  return k;
}

spec_key conditional_integer_key(std::string name, std::string metavar, double lo, double hi,
                                 std::string doc) {
  spec_key k =
      required_key(std::move(name), std::move(metavar), {lo, hi, false, false}, std::move(doc));
  k.kind = spec_key::type::integer;
  k.conditional = true;
  return k;
}

spec_key text_key(std::string name, std::string metavar, std::string doc) {
  spec_key k = required_key(std::move(name), std::move(metavar), {}, std::move(doc));
  k.kind = spec_key::type::text;
  return k;
}

spec_key choice_key(std::string name, std::vector<std::string> choices, std::string dflt,
                    std::string doc) {
  spec_key k;
  k.name = std::move(name);
  k.kind = spec_key::type::choice;
  for (const auto& c : choices) k.metavar += (k.metavar.empty() ? "" : "|") + c;
  k.choices = std::move(choices);
  k.default_choice = std::move(dflt);
  k.doc = std::move(doc);
  return k;
}

}  // namespace fdp
