// The oracle bound: the yardstick of audit power (docs/architecture.md).
//
// For a built-in mechanism whose output law on the two inputs is known, the
// oracle is the best lower bound any auditor could certify with the same
// number of samples per side and the same confidence: it knows the best
// test in advance, so it needs no selection split and no multiple-testing
// correction, and it is credited with exactly the expected counts n P(E) and
// n Q(E), plugged into Clopper-Pearson bounds at level (1 - confidence)/2 each:
//   oracle_eps = max over events E and both orderings of
//                ln((cp_lower(n Q(E), n) - delta) / cp_upper(n P(E), n)).
// Events searched: for categorical outputs every subset of the outcomes
// (at most 16 outcomes with positive probability) or else the
// likelihood-ratio prefixes; for real outputs the Neyman-Pearson tests of
// the exact trade-off curve of the pair (Laplace, Gaussian, inverted-scale
// histogram when one coordinate moves) or all threshold tests of the exact
// CDF (noisy max value, Laplace and exponential noise). Mechanisms not
// covered (vector outputs of the sparse-vector value variant, the
// floating-point textbook Laplace) have no oracle (nullopt).
//
// An auditor's achieved/oracle ratio below 1 measures what sample splitting,
// the union bound and the search cost; it can exceed 1 only by luck (the
// oracle uses expected counts) or when the auditor's events lie outside the
// oracle's family (not the case for the families above).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fdp/mech/mechanism.hpp"

namespace fdp::audit {

/// Exact probabilities of a family of events under the two inputs.
struct event_law {
  std::vector<double> p0, p1;  ///< P_input0(E_i), P_input1(E_i)
  std::string family;          ///< what the events are
};

/// The exact event law of the pair, where fdp knows it (see above).
std::optional<event_law> exact_event_law(const mech::mechanism& m,
                                         const std::vector<double>& input0,
                                         const std::vector<double>& input1);

struct oracle_bound {
  double epsilon = 0;                    ///< best certifiable epsilon lower bound (>= 0)
  double mu = 0;                         ///< best certifiable mu lower bound (>= 0)
  double alpha = 0, one_minus_beta = 0;  ///< exact P(E), Q(E) of the epsilon-optimal event
  int ordering = 0;
};

/// The oracle bound with n0, n1 samples per side at `confidence`, epsilon at `delta`.
oracle_bound oracle(const event_law& law, double n0, double n1, double confidence,
                    double delta = 0.0);

}  // namespace fdp::audit
