// Composing for a set of queries: the engine tuned and refined so that each
// answer asked for, not only the epsilon at one delta, meets the tolerance.
//
// compose(specs, opt) tunes its grid for opt.delta_hint and judges its
// refinement by the epsilon bracket there. Callers that ask for epsilons at
// several deltas and deltas at several epsilons (fdp compose, the Python
// package) use compose_for_queries instead:
//  * the epsilons are answered by a composition tuned for the smallest
//    asked delta that has a finite epsilon (a delta at or below the mass at
//    infinite loss has none, whatever the grid);
//  * the deltas at epsilons, when that composition leaves one wider than the
//    tolerance, by a second one tuned for the smallest such delta and refined
//    until every delta bracket meets the tolerance (compose_options::
//    delta_at_eps), starting from the step the first one predicts.
// Every answer of either composition is certified; the tuning only decides
// how narrow they are.
#pragma once

#include <optional>
#include <vector>

#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {

struct query_compositions {
  /// Answers epsilon(delta), beta, mu and curves; the options it used.
  composition for_epsilons;
  compose_options options;
  /// Answers delta(eps) when set (otherwise for_epsilons does).
  std::optional<composition> for_deltas;

  const composition& delta_source() const { return for_deltas ? *for_deltas : for_epsilons; }
};

/// Composes specs for epsilon queries at `deltas` (each in [0, 1]) and delta
/// queries at `epsilons` (any real). opt.delta_hint is replaced by the
/// smallest positive delta asked (kept when none is). Throws what compose
/// throws, and std::invalid_argument for a NaN query.
query_compositions compose_for_queries(const std::vector<spec>& specs, const compose_options& opt,
                                       const std::vector<double>& deltas,
                                       const std::vector<double>& epsilons);

}  // namespace fdp
