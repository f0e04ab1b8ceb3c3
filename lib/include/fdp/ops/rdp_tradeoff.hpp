// From a Renyi-DP curve to a trade-off function: the weakest f that every
// mechanism with that RDP curve satisfies, as a certified polygon below it.
//
// Theorem (data processing). Let the pair (P, Q) satisfy, at each order
// alpha_j > 1, D_alpha(P || Q) <= r_j and D_alpha(Q || P) <= r_j (RDP under
// a symmetric neighbour relation). A test that rejects with probability a
// under P and accepts with probability b under Q turns P and Q into
// Bernoulli(a) and Bernoulli(1 - b); Renyi divergences do not grow under
// post-processing, so
//   D_alpha(Bern(a) || Bern(1 - b)) <= r_j  and  D_alpha(Bern(1 - b) || Bern(a)) <= r_j.
// Hence f(a) >= b_j(a), the smallest b meeting both, at every order, and
//   f_RDP(a) = max_j b_j(a)
// is a trade-off lower bound for every such mechanism (Balle, Barthe,
// Gaboardi, Hsu & Sato 2020, "Hypothesis testing interpretations and Renyi
// differential privacy"; for a single order no pair can do better: the
// two-point pairs meet it, Asoodeh, Liao, Calmon, Kosut & Sankar 2021,
// "Three variants of differential privacy: lossless conversion and
// applications"). With the exponent form H(a, b) = a^alpha (1-b)^{1-alpha}
// + (1-a)^alpha b^{1-alpha} <= e^{(alpha-1) r}: H is jointly convex for
// alpha > 1 (a perspective), so each b_j is convex, and so is their max.
//
// Certificate. At each grid point a_i and each order the boundary b_j(a_i)
// is found by bracketing (its infeasible end, a lower value) and its
// tangent line by implicit differentiation; a tangent of a convex b_j lies
// below b_j <= f_RDP everywhere. The polygon is the upper envelope of those
// lines lowered by 1e-14 (the rounding of the point and slope over a < 1):
// at or below f_RDP, within about the squared grid step of it.
//
// zCDP (Bun & Steinke 2016): rho-zCDP is r(alpha) = rho alpha at every
// alpha > 1; fdp uses 113 orders from 1.001 to 10001.
#pragma once

#include <vector>

#include "fdp/core/curve.hpp"

namespace fdp {

/// A polygon at or below f_RDP for the orders (each > 1) and RDP values
/// (each finite, >= 0). Throws std::invalid_argument naming the bad entry.
curve rdp_tradeoff_lower(const std::vector<double>& orders, const std::vector<double>& rdp);

/// The orders rdp_tradeoff_lower uses for zCDP (rho alpha at each).
std::vector<double> zcdp_orders();

}  // namespace fdp
