// fdp mechanisms: the mechanism catalogue (fdp/mech/registry.hpp).
#include <cmath>
#include <iostream>

#include "cli.hpp"
#include "fdp/core/error.hpp"
#include "fdp/mech/registry.hpp"

namespace fdp::cli {
namespace {

const char* norm_name(mech::neighbour_relation::kind k) {
  switch (k) {
    case mech::neighbour_relation::kind::l1:
      return "l1";
    case mech::neighbour_relation::kind::l2:
      return "l2";
    case mech::neighbour_relation::kind::linf:
      return "linf";
    case mech::neighbour_relation::kind::replace:
      return "replace";
  }
  return "?";
}

std::string join(const std::vector<double>& v) {
  std::string s;
  // (the shortest decimals that read back: 0.1, not 0.10000000000000001)
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + detail::format_value(v[i]);
  return s;
}

// The claim of the catalogue's example as a spec of the table (what
// `fdp compose` and `fdp audit --claim` read).
std::string example_claim_spec(const mech::mechanism_info& m) {
  return mech::make_mechanism(m.example_spec)->claim_spec();
}

json info_json(const mech::mechanism_info& m) {
  json j;
  j["name"] = m.name;
  j["flawed"] = m.flawed;
  j["summary"] = m.summary;
  json ps = json::array();
  for (const auto& p : m.params) {
    json q;
    q["key"] = p.key;
    q["default"] = p.default_value.empty() ? json(nullptr) : json(p.default_value);
    q["meaning"] = p.meaning;
    ps.push_back(q);
  }
  j["params"] = ps;
  j["claim"] = m.claim;
  j["claim_spec"] = example_claim_spec(m);
  j["exact"] = m.exact.empty() ? json(nullptr) : json(m.exact);
  j["neighbours"] = m.neighbours;
  j["output"] = m.output;
  j["example"] = {{"spec", m.example_spec}, {"input", m.example_input}};
  return j;
}

void print_catalogue_human() {
  bool flawed_header = false;
  std::cout << "Mechanisms (fdp sample --mechanism NAME:key=value,... --input V --samples N)\n\n";
  for (const auto& m : mech::catalogue()) {
    if (m.flawed && !flawed_header) {
      std::cout << "Known-flawed variants (test targets for auditors; never use them):\n\n";
      flawed_header = true;
    }
    std::cout << "  " << m.name << "\n      " << m.summary << "\n      params:";
    for (const auto& p : m.params) {
      std::cout << " " << p.key << (p.default_value.empty() ? "" : "=" + p.default_value);
    }
    std::cout << "\n      claim:      " << m.claim << "   (" << m.example_spec << " claims "
              << example_claim_spec(m) << ")\n";
    if (!m.exact.empty()) std::cout << "      exact:      " << m.exact << "\n";
    std::cout << "      neighbours: " << m.neighbours << "\n      output:     " << m.output
              << "\n      example:    fdp sample --mechanism " << m.example_spec << " --input "
              << join(m.example_input) << " --samples 3\n\n";
  }
}

int describe(const std::string& spec, bool as_json) {
  const auto m = mech::make_mechanism(spec);
  const auto nb = m->neighbours();
  const auto exact = m->exact_tradeoff();
  if (as_json) {
    json j = envelope("mechanisms");
    j["spec"] = m->spec();
    j["name"] = m->name();
    j["flawed"] = m->flawed();
    j["description"] = m->description();
    j["reference"] = m->reference();
    j["claim"] = m->claim().describe();
    j["claim_spec"] = m->claim_spec();
    j["exact"] = exact ? json(exact->describe()) : json(nullptr);
    j["neighbours"] = {{"norm", norm_name(nb.norm)},
                       {"bound", num(nb.bound)},
                       {"monotone", nb.monotone},
                       {"text", nb.text}};
    j["accuracy"] = m->accuracy().empty() ? json(nullptr) : json(m->accuracy());
    if (m->flawed()) j["flaw"] = m->flaw();
    json pairs = json::array();
    for (const auto& p : m->exposing_pairs()) {
      json q;
      q["input0"] = p.input0;
      q["input1"] = p.input1;
      q["note"] = p.note;
      const auto te = m->true_epsilon(p.input0.size());
      q["true_epsilon"] = te ? num(*te) : json(nullptr);
      q["true_epsilon_unbounded"] = te && std::isinf(*te);
      pairs.push_back(q);
    }
    j["pairs"] = pairs;
    print_json(j);
    return 0;
  }
  std::cout << m->spec() << (m->flawed() ? "   [KNOWN-FLAWED]" : "") << "\n  " << m->description()
            << "\n  reference:  " << m->reference() << "\n  claim:      " << m->claim().describe()
            << "   (spec: " << m->claim_spec() << ")"
            << "\n  exact:      " << (exact ? exact->describe() : "unknown")
            << "\n  neighbours: " << nb.text << "\n";
  if (!m->accuracy().empty()) std::cout << "  accuracy:   " << m->accuracy() << "\n";
  if (m->flawed()) std::cout << "  flaw:       " << m->flaw() << "\n";
  for (const auto& p : m->exposing_pairs()) {
    std::cout << "  pair:       " << join(p.input0) << "  vs  " << join(p.input1) << "   ("
              << p.note << ")";
    if (const auto te = m->true_epsilon(p.input0.size())) {
      std::cout << "  true eps = " << fmt(*te);
    }
    std::cout << "\n";
  }
  return 0;
}

int run_mechanisms(const args& a) {
  if (a.positional().size() > 1) throw usage_error("give at most one mechanism spec");
  if (a.positional().size() == 1) return describe(a.positional()[0], a.flag("json"));
  if (a.flag("json")) {
    json list = json::array();
    for (const auto& m : mech::catalogue()) list.push_back(info_json(m));
    json j = envelope("mechanisms");
    j["mechanisms"] = list;
    print_json(j);
  } else {
    print_catalogue_human();
  }
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "mechanisms",
    "list the mechanism catalogue, or describe one mechanism",
    "usage: fdp mechanisms [NAME:key=value,...] [--json]\n\n"
    "Without a spec: every mechanism in the catalogue with its parameters (=default),\n"
    "claimed guarantee, exact trade-off where known, neighbour relation, output format\n"
    "and an example; the known-flawed variants (auditor test targets) are listed last.\n"
    "Each claim is also given as a spec that 'fdp compose' and 'fdp audit --claim'\n"
    "accept (e.g. laplace:eps=1 claims epsdelta:eps=1; JSON \"claim_spec\").\n"
    "With a spec: that mechanism's claim and exact trade-off as trade-off functions,\n"
    "its neighbour relation, accuracy statement, and for flawed variants the flaw, the\n"
    "true epsilon and the neighbouring inputs that expose it.\n\n"
    "  --json   one JSON object: {\"mechanisms\": [...]} or the description of the spec\n\n"
    "examples:\n"
    "  fdp mechanisms\n"
    "  fdp mechanisms --json\n"
    "  fdp mechanisms laplace:eps=0.1\n"
    "  fdp mechanisms svt-lyu-alg4:eps=0.1,c=1 --json\n",
    {{"json", false, false, "print one JSON object"}},
    run_mechanisms});

}  // namespace
}  // namespace fdp::cli
