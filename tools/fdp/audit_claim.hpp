// The claim of `fdp audit`, from its --claim specs (composed) or the
// mechanism's own: shared by the sampling audits (cmd_audit.cpp) and the
// canary-score audits (audit_scores.cpp).
#pragma once

#include <optional>
#include <string>

#include "cli.hpp"
#include "fdp/core/tradeoff.hpp"
#include "fdp/mech/mechanism.hpp"
#include "fdp/ops/compose.hpp"

namespace fdp::cli {

/// The composition of the --claim specs (a lower polygon when it is not a
/// closed form: a violation of the polygon is a violation of the claim),
/// else the mechanism's own claim; usage_error when neither is given.
/// `text` receives the claim's words.
tradeoff claim_from(const args& a, const mech::mechanism* m, std::string& text);

/// The composed --claim specs, or nullopt when there is no --claim.
std::optional<composition> claim_composition(const args& a, std::string& text);

}  // namespace fdp::cli
