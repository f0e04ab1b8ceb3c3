// The GDP summary on a window of tests: the smallest mu with f >= G_mu at
// every alpha where both errors are at least a level.
//
// Why. The whole-curve summary (composition::mu(), the smallest mu with
// f >= G_mu on all of [0, 1]) is set by the extreme tails. For DP-SGD
// (Poisson-subsampled Gaussian, T steps, noise sigma) the tail alpha -> 0
// behaves like the unsampled Gaussian, so that summary is sqrt(T)/sigma:
// true, but of no use. What users mean by "the run is about mu-GDP" is a
// statement about tests whose type I and type II errors are not astronomically
// small. This is that statement, certified:
//
//   mu_W(level) = max(0, sup_{alpha in W} g(alpha)),
//   g(alpha)    = Phi^{-1}(1 - alpha) - Phi^{-1}(f(alpha)),
//   W           = {alpha : alpha >= level and f(alpha) >= level},
//
// since f(alpha) >= G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) iff
// mu >= g(alpha). Both conditions in W are needed: for a symmetric f the
// point (alpha, f(alpha)) with f(alpha) < level mirrors the point
// (f(alpha), alpha) with a type I error below level, so "alpha >= level"
// alone would give back the whole-curve summary.
//
// Certificate. W is an interval [level, alpha*] (f decreases). On a cell
// [a, b] of alphas, Phi^{-1}(1 - alpha) <= Phi^{-1}(1 - a), and in W
// f(alpha) >= max(f(b), level); so sup over the cell of g is at most
// Phi^{-1}(1 - a) - Phi^{-1}(max(f_lower(b), level)), and the cell lies
// outside W when f_upper(a) < level. The lower end is g at grid points
// certainly inside W (f_lower >= level), computed with f_upper. Branch and
// bound splits the cell with the largest upper value.
//
// As level -> 0 the window grows to (0, 1) and mu_W to the whole-curve
// summary; the central-limit estimate (Bu, Dong, Long & Su 2020) describes
// the bulk of the curve, where mu_W(level) for moderate levels sits.
#pragma once

#include <functional>
#include <vector>

#include "fdp/core/tradeoff.hpp"
#include "fdp/ops/compose.hpp"

namespace fdp {

/// Brackets of f at each alpha (increasing alphas), e.g. composition::beta.
using beta_brackets = std::function<std::vector<interval>(const std::vector<double>&)>;

/// mu_W(level) of the trade-off function bracketed by `beta`, bracketed.
/// `symmetric`: f = f^-1 (then only alpha in [level, 1/2] is looked at).
/// level in (0, 0.5); throws std::invalid_argument otherwise.
interval gdp_mu_above(const beta_brackets& beta, double level, bool symmetric);

/// The same for a composition (its beta brackets; its f is symmetric).
interval gdp_mu_above(const composition& c, double level);

}  // namespace fdp
