#include "audit_claim.hpp"

#include <vector>

#include "fdp/ops/spec.hpp"

namespace fdp::cli {

std::optional<composition> claim_composition(const args& a, std::string& text) {
  const auto specs_text = a.all("claim");
  if (specs_text.empty()) return std::nullopt;
  std::vector<spec> specs;
  for (const auto& s : specs_text) specs.push_back(parse_spec(s));
  for (std::size_t i = 0; i < specs_text.size(); ++i) text += (i ? " (x) " : "") + specs_text[i];
  return compose(specs);
}

tradeoff claim_from(const args& a, const mech::mechanism* m, std::string& text) {
  if (auto c = claim_composition(a, text)) {
    if (c->is_exact()) return *c->exact();
    return tradeoff(c->lower_curve(800));
  }
  if (!m) {
    throw usage_error(std::string("--claim SPEC is required with ") +
                      (a.has("stats-in") ? "--stats-in" : "--samples0/--samples1") +
                      " (e.g. --claim epsdelta:eps=1)");
  }
  tradeoff t = m->claim();
  text = t.describe() + " (the mechanism's claim)";
  return t;
}

}  // namespace fdp::cli
