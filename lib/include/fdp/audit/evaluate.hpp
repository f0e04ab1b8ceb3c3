// From the evaluation split's counts to certified statements.
//
// The confidence statement, exactly. Let g = 1 - confidence. The plan
// (select.hpp) fixed, before any evaluation output was drawn, a finite list
// of tests and for each a level g_t, with sum over tests of (2 or 4) g_t <= g
// (plan::total_error). For each test t with rejection event E and ordering
// (P, Q) the evaluation split gives independent counts kP ~ Bin(nP, P(E)),
// kQ ~ Bin(nQ, Q(E)), and
//   alpha_U = cp_upper(kP, nP, g_t)      >= alpha = P(E)      except w.p. <= g_t,
//   beta_U  = 1 - cp_lower(kQ, nQ, g_t)  >= beta  = 1 - Q(E)  except w.p. <= g_t,
// and for band (curve) tests also the lower ends alpha_L, beta_L. By the
// union bound all of these bounds hold simultaneously with probability at
// least 1 - g = confidence. Every statement below is a deterministic
// consequence of them, so all statements hold together at that confidence:
//   - T(P, Q)(alpha_U) <= beta_U for each test (T non-increasing), and
//     T(Q, P)(beta_U) <= alpha_U for its mirror (the complement event as a
//     test of the other ordering), so the true two-ordering curve
//     g = min{T(P0,P1), T(P1,P0)}** lies below the lower convex hull of the
//     points (alpha_U, beta_U) and (beta_U, alpha_U) (beta_upper of the
//     curve), and any f-DP claim with f(alpha_U) > beta_U or
//     f(beta_U) > alpha_U is violated (the witness reported is the
//     violating point with the largest gap f(alpha_U) - beta_U); f-DP for the pair
//     requires g >= f;
//   - (eps, delta)-DP implies 1 - beta <= e^eps alpha + delta for every
//     test of either ordering, hence epsilon_lower = max over tests and
//     mirrors of ln((1 - beta_U - delta) / alpha_U), floored at 0;
//   - mu-GDP implies beta >= G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu),
//     hence mu_lower = max_t Phi^{-1}(1 - alpha_U) - Phi^{-1}(beta_U), floored at 0.
// A zero count gives alpha_U = 1 - g_t^{1/nP} > 0, so epsilon_lower is
// finite and grows like ln(nP Q(E) / ln(1/g_t)) for a support-type event: no
// cap at ln(1/0.01).
//
// Verdict:
//   violation     some test certifies f(alpha_U) > beta_U (exit code 3);
//   inconclusive  no certified violation, and either the claim test
//                 (chosen on the selection split for the claim) violates
//                 the claim by the uncorrected single-test bounds at level
//                 g/2 per side, or the sample count is too small for any
//                 outcome to certify a violation; samples_needed is the
//                 per-side sample count at which the observed frequencies
//                 (resp. the most extreme outcome) would certify one;
//   consistent    otherwise: no evidence against the claim at this sample size;
//                 the reason says when no test had anything to learn from
//                 (nothing_learned: every event held for none or all of the
//                 evaluation outputs, as with outputs that never repeat);
//   vacuous       the claim's curve is 0 on (0, 1] (f_{eps,1}, say): no
//                 outcome of any sample size can reject it (checked first).
// The beta_lower edge of the curve band is the lower convex hull of the
// band tests' (alpha_L, beta_L) (capped by the estimate): with the other
// bounds it brackets the trade-off curve of the evaluated tests. It is not
// a lower bound on the true curve (there may be better tests the auditor
// did not find): no finite sample can certify privacy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fdp/audit/plan.hpp"
#include "fdp/core/tradeoff.hpp"

namespace fdp::audit {

struct test_result {
  std::size_t index = 0;  ///< into plan::tests
  std::uint64_t kP = 0, nP = 0, kQ = 0, nQ = 0;
  double alpha_hat = 0, beta_hat = 0;
  double alpha_upper = 1, beta_upper = 1;
  double alpha_lower = 0, beta_lower = 0;  ///< band tests; else the point estimates
  /// max of ln((1 - beta_U - delta) / alpha_U) and its mirror
  /// ln((1 - alpha_U - delta) / beta_U); -inf if neither is defined
  double epsilon = 0;
  double mu = 0;          ///< Phi^{-1}(1 - alpha_U) - Phi^{-1}(beta_U) (same for the mirror)
  double claim_beta = 0;  ///< f(alpha_U)
  double margin = 0;      ///< max over the test and its mirror; > 0 iff a certified violation
  bool violation = false;
  bool mirror = false;  ///< the margin is attained by the mirror (complement, other ordering)
};

struct witness {
  std::size_t test = 0;  ///< into audit_result::tests
  bool mirror = false;   ///< the witness is the test's mirror (complement event, other ordering)
  double alpha = 0, beta = 0, claim_beta = 0;
};

struct audit_result {
  std::string verdict;  ///< "violation", "consistent", "inconclusive" or "vacuous"
  std::string reason;   ///< one sentence
  double confidence = 0.95;
  double delta = 0.0;
  std::uint64_t selection[2] = {0, 0}, evaluation[2] = {0, 0};
  double epsilon_lower = 0.0;
  double mu_lower = 0.0;
  std::optional<witness> w;
  std::optional<double> samples_needed;  ///< per side, total (selection + evaluation)
  std::vector<test_result> tests;
  double error_budget = 0.0;  ///< sum of the levels of all bounds (<= 1 - confidence)
  /// Every evaluated test's event held for none or all evaluation outputs on
  /// both sides: the bounds carry no information about the mechanism.
  bool nothing_learned = false;
};

/// Evaluates the plan's tests on the evaluation counts against `claim`.
audit_result evaluate(const plan& p, const eval_counts& counts, const tradeoff& claim,
                      double delta = 0.0);

struct curve_point {
  double alpha, beta_lower, beta_upper, beta_estimate;
};

/// The empirical two-ordering trade-off curve and its band (see the header
/// comment) at a grid of alphas (uniform, log-spaced from 1e-8 and every hull
/// vertex). beta_upper is a certified upper bound on the true curve.
std::vector<curve_point> empirical_curve(const audit_result& r);

}  // namespace fdp::audit
