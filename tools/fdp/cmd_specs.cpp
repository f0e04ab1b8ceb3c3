// fdp specs: the table of spec kinds (fdp/ops/spec_kind.hpp) — every kind
// with its keys, their ranges and defaults, and what each accountant can do
// with it. The CLI tests generate their bad-input cases from --json.
#include <iostream>

#include "cli.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp::cli {
namespace {

const char* type_name(spec_key::type t) {
  switch (t) {
    case spec_key::type::number:
      return "number";
    case spec_key::type::integer:
      return "integer";
    case spec_key::type::text:
      return "text";
    case spec_key::type::choice:
      return "choice";
  }
  return "?";
}

// "(0, 1e+300]"
std::string range_text(const spec_key& k) {
  if (k.kind == spec_key::type::text || k.kind == spec_key::type::choice) return "";
  return std::string(k.range.lo_open ? "(" : "[") + fmt(k.range.lo) + ", " + fmt(k.range.hi) +
         (k.range.hi_open ? ")" : "]");
}

// The accountants beyond compose/curve/group that take this kind.
std::vector<std::string> hooks(const spec_kind& k) {
  std::vector<std::string> h;
  if (k.closed) h.push_back("closed-form");
  h.push_back("rdp");  // (a default for bounded laws; refused with the reason otherwise)
  if (k.classic) h.push_back("classic");
  if (k.clt) h.push_back("clt-estimate");
  if (k.edgeworth) h.push_back("edgeworth");
  if (!k.calibration.empty()) h.push_back("calibrate");
  bool text_key = false;
  for (const auto& key : k.keys) text_key = text_key || key.kind == spec_key::type::text;
  if (k.ledger || !text_key) h.push_back("ledger");
  return h;
}

json key_json(const spec_key& k) {
  json j;
  j["name"] = k.name;
  j["type"] = type_name(k.kind);
  if (k.kind == spec_key::type::choice) {
    j["choices"] = k.choices;
    j["default"] = k.default_choice;
  } else if (k.kind != spec_key::type::text) {
    j["lo"] = k.range.lo;
    j["hi"] = k.range.hi;
    j["lo_open"] = k.range.lo_open;
    j["hi_open"] = k.range.hi_open;
  }
  if (k.kind != spec_key::type::choice)
    j["default"] = k.default_value ? json(*k.default_value) : json(nullptr);
  j["required"] = k.required();
  j["group"] = k.group.empty() ? json(nullptr) : json(k.group);
  j["doc"] = k.doc;
  return j;
}

json kind_json(const spec_kind& k) {
  json j;
  j["name"] = k.name;
  j["usage"] = k.usage();
  j["doc"] = k.doc;
  j["example"] = k.example;
  json keys = json::array();
  for (const auto& key : k.keys) keys.push_back(key_json(key));
  j["keys"] = keys;
  j["hooks"] = hooks(k);
  json cal = json::array();
  for (const auto& c : k.calibration) cal.push_back(c.key);
  j["calibratable"] = cal;
  return j;
}

void print_kind(const spec_kind& k) {
  std::cout << "  " << k.usage() << "\n      " << k.doc << "\n";
  for (const auto& key : k.keys) {
    std::cout << "      " << key.name << ": " << key.doc;
    if (key.kind == spec_key::type::choice) {
      std::cout << "; one of " << key.metavar << "; default " << key.default_choice;
    } else if (key.kind != spec_key::type::text) {
      std::cout << "; in " << range_text(key);
    }
    if (key.default_value) std::cout << "; default " << fmt(*key.default_value);
    std::cout << "\n";
  }
  std::string h;
  for (const auto& x : hooks(k)) h += (h.empty() ? "" : ", ") + x;
  std::cout << "      accounting: " << h;
  if (!k.calibration.empty()) {
    std::string c;
    for (const auto& p : k.calibration) c += (c.empty() ? "" : " ") + p.key;
    std::cout << " (calibrate --solve " << c << ")";
  }
  std::cout << "\n      example: " << k.example << "\n\n";
}

int run_specs(const args& a) {
  if (!a.positional().empty())
    throw usage_error("fdp specs takes no SPEC (see 'fdp specs --help')");
  if (a.flag("json")) {
    json list = json::array();
    for (const auto& k : spec_kinds()) list.push_back(kind_json(k));
    json out = envelope("specs");
    out["kinds"] = list;
    out["common_keys"] = json::array({{{"name", "times"},
                                       {"type", "integer"},
                                       {"lo", 1},
                                       {"hi", 1000000000000LL},
                                       {"default", 1},
                                       {"doc", "N-fold self-composition"}}});
    print_json(out);
    return 0;
  }
  std::cout << "Spec kinds (NAME[:KEY=VALUE,...], one shell word; every kind also takes\n"
               "times=N, 1 <= N <= 1e12, its N-fold composition; keys joined by | are\n"
               "the same parameter in other units: give exactly one of them)\n\n";
  for (const auto& k : spec_kinds()) print_kind(k);
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "specs",
    "list the spec kinds: their keys, ranges, defaults and accountants",
    "usage: fdp specs [--json]\n\n"
    "Every kind of spec that compose, curve, group, calibrate, ledger, compare,\n"
    "clt and audit --claim read, from the one table of spec kinds: its keys with\n"
    "their allowed ranges, defaults and units, and which accountants take it\n"
    "(closed-form: an exact trade-off function; rdp, classic, clt-estimate:\n"
    "compare's rows; edgeworth: clt --edgeworth; calibrate: the parameters\n"
    "calibrate solves for; ledger).\n\n"
    "  --json   {\"kinds\": [{name, usage, doc, example, keys: [{name, type, lo, hi,\n"
    "           lo_open, hi_open, default, required, group, doc}], hooks,\n"
    "           calibratable}], \"common_keys\": [times]}\n\n"
    "examples:\n"
    "  fdp specs\n"
    "  fdp specs --json\n",
    {{"json", false, false, "JSON output"}},
    run_specs});

}  // namespace
}  // namespace fdp::cli
