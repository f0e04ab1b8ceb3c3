// Internal (not installed): one balls-in-bins step's likelihood ratio
// Y = e^{mu Z - mu^2/2} (Z ~ N(0,1): lognormal, mean 1) moved onto the
// lattice h N in two ways that bracket it in the Blackwell order
// (balls_in_bins_law.cpp, docs/formulas.md 9.6):
//   * spread_pmf: a mean-preserving spread (each Y split between the two
//     lattice points around it), E[Y' | Y] = Y: a refinement;
//   * contraction_pmf: a garbling whose every value is its own conditional
//     mean, E[Y | V = v] = v.
// In both the pair of the lattice law is (a, v a): P-masses a_v and Q-masses
// v a_v. Masses are at most the exact ones (Gauss-Legendre quadrature,
// measured within 1e-14 of mpmath, lowered by a relative margin; Y beyond
// the cap left out), as the sub-measure arguments there need.
#pragma once

#include <cstdint>

#include "ops/positive_convolution.hpp"

namespace fdp::detail {

/// The shifted step's Q-mass above the cap (left out).
inline constexpr double kLatticeCapTail = 1e-13;
/// Relative margin under the quadrature's masses (its error is below 1e-14).
inline constexpr double kLatticeMargin = 1e-13;

/// Most lattice cells of one step (the cap is reached with a coarser h);
/// short epochs (<= 16 steps, a few convolutions) may use 2x more, as the
/// h that keeps P(every step <= h) small is finer there.
inline constexpr std::int64_t kLatticeMaxCells = std::int64_t(1) << 18;
inline constexpr std::int64_t kLatticeMaxCellsShort = std::int64_t(1) << 19;

/// Sums of n steps' statistics are kept on their mean -+ kSumWindowZ
/// sqrt(n E[step^2]) (plus the largest step above): for nonnegative
/// summands P(S < ES - x) <= exp(-x^2 / (2 n E[step^2])) (a one-sided
/// Bernstein bound), e^{-z^2/2} ~ 2.6e-18 at z = 9.
inline constexpr double kSumWindowZ = 9.0;
/// Most points of a sum's window (a longer one is not built).
inline constexpr std::int64_t kMaxSumPoints = std::int64_t(1) << 22;

struct lattice_plan {
  double mu = 0.0, h = 0.0, cap = 0.0, second_moment = 0.0;
  std::int64_t cells = 0;  ///< lattice points 0..cells
  /// h above half of sd(Y): the lattice cannot resolve the bulk of Y (large
  /// mu, a heavy tail to reach); its laws would be valid but useless.
  bool coarse = false;
};

/// The lattice for mu = D / sigma and an epoch of `steps` steps: h a power of
/// two near 0.08 sd(Y) (smaller when P(every step <= h) could pass 1e-10,
/// coarser when the cap needs more than 2^17 cells, never more than
/// kLatticeMaxCells), the cap where the shifted step's tail is cap_tail.
lattice_plan plan_lattice(double mu, std::int64_t steps, double cap_tail = kLatticeCapTail);

/// One cell [k h, (k+1) h] of Y's law: its P-mass and its first moments
/// about both ends, up = E[(Y - kh)/h; cell], down = E[((k+1)h - Y)/h; cell].
struct cell_moments {
  double mass = 0.0, up = 0.0, down = 0.0;
};
cell_moments lattice_cell(std::int64_t k, double h, double mu);

/// The upper side's lattice law (P-masses at 0, h, ..., cells h).
window_seq spread_pmf(const lattice_plan& p);
/// The lower side's lattice law (P-masses at h, 2h, ...; none at 0).
window_seq contraction_pmf(const lattice_plan& p);

}  // namespace fdp::detail
