// Internal (not installed): what the certificate of a composition is made
// of, term by term. A discretized law enters a composition in one
// orientation (an oriented_term: the masses the composition integrates,
// their error bounds and their sums), and composition_sums adds up, over
// the terms and their counts n_i, everything the certified bounds need
// besides the composed masses themselves: the composed offset and support,
// the mass at loss +inf with the bound on its rounding, the composed
// log-MGFs and mass-error bounds at a set of tilts (Chernoff), and what the
// FFT's rounding bound needs (input norms, multiplications). compose_grid
// builds the sums once; the ledger (budget/incremental_pld) one term at a
// time as mechanisms arrive. Both turn them into a composed_pld with
// composed_pld::from_sums.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/pld/numbers.hpp"
#include "ops/pld/pld_grid.hpp"
#include "ops/pld/sums.hpp"

namespace fdp::detail {

/// One discretized law in one orientation: T(P,Q) integrates the Q-masses
/// on l_k = off + (k0 + k) h; T(Q,P) the P-masses, reflected.
struct oriented_term {
  std::vector<double> x;  ///< masses
  std::vector<double> e;  ///< their error bounds, plus 8 ulps of input rounding
  std::vector<double> a;  ///< e with the split's shifts discounted (empty: no shifts)
  double off = 0.0;
  std::int64_t k0 = 0;
  double fin = 0.0;      ///< sum of x
  double all = 0.0;      ///< min(1, fin + inf)
  double inf = 0.0;      ///< mass at loss +inf
  double inf_err = 0.0;  ///< its error bound (finite mass folded into it; 0: none)
  double l2 = 0.0, s0 = 0.0, e0 = 0.0,
         a0 = 0.0;                 ///< |x|_2, sum max(x, 0), sum e, sum a (e0 if no shifts)
  bool full = true;                ///< nothing removed by the discretization (fin + inf = 1)
  std::vector<double> km, ke, ka;  ///< tilted log-sums of x, e, a (tilt_sums)
  /// The eta form of the errors (pessimistic side, pld_grid.hpp; +inf rel:
  /// none): the exact discretization of a pair whose loss is moved by at
  /// most eta is within a factor 1 + rel of the masses, plus eta_abs in all.
  double rel = kInf, eta = 0.0, eta_abs = 0.0;
};

oriented_term orient(const grid_pmf& g, bool use_p, double h);
/// The term's tilted log-sums at the given tilts (tilted_log_mgfs).
void tilt_sums(oriented_term& t, double h, const std::vector<double>& tilts);

/// The sums over the terms of a composition (see the header comment).
struct composition_sums {
  std::vector<double> tilts;
  double off = 0.0, lmin = 0.0, lmax = 0.0;  ///< composed offset and support ends (losses)
  std::int64_t base = 0, top = 0;            ///< the same as grid indices
  std::vector<double> K;                     ///< composed log-MGF per tilt
  error_bound_acc acc0;                      ///< mass errors, flat
  std::vector<error_bound_acc> acc;          ///< and per tilt
  /// The eta form (oriented_term::rel, eta): the truth is at most 1 +
  /// rel_factor() times the computed delta at eps - eta_shift() (pld_grid.hpp).
  double log1p_rel = 0.0;           ///< sum n log1p(r) (+inf: a term has no eta form)
  double eta = 0.0, eta_abs = 0.0;  ///< sum n eta, sum n eta_abs
  bool shifts = false;
  double err_in = 0.0;    ///< sum n |x|_2 (input norm of the transforms)
  double terms = 0.0;     ///< sum n
  double distinct = 0.0;  ///< the number of terms (add() calls)
  // mass at +inf: prod T^n (1 - prod (1 - I/T)^n), T a term's total
  // (1 for a full measure), as inf_lt = sum n log T (terms not full) and
  // inf_lg = sum n log1p(-I/T); its rounding needs the sums' additions, the
  // applications of terms not full, and the single application's own mass.
  double inf_lt = 0.0, inf_lg = 0.0, inf_one = 0.0, inf_err = 0.0;
  std::int64_t inf_adds = 0, inf_apps = 0, nf_apps = 0;
  bool all_full = true;

  explicit composition_sums(std::vector<double> tilts);
  void add(const oriented_term& t, std::int64_t n, double h);

  /// The mass at +inf and a relative bound on its rounding (0: exact, one
  /// application of one full measure whose mass is the law's own).
  double m_inf() const;
  double m_inf_rel() const;
  /// Mass-error bounds (logs of the product / shift bounds; pld_grid.hpp):
  /// flat, and at tilts()[i] (the shift bound only for t > 0).
  double err0() const;
  double log_err_at(std::size_t i) const;
  /// e^{sum n eta} prod (1 + r_i)^{n_i} - 1, rounded up (+inf: no eta form).
  double rel_factor() const;
  /// The eta form's shift of epsilon, sum n eta, rounded up (0: not the eta form).
  double eta_shift() const;
  /// The Chernoff window [y_lo, y_hi] in losses holding all but `tail` of
  /// the finite mass on each side, within the support (the ends may cross).
  void window(double tail, double& y_lo, double& y_hi) const;
  /// Crossed ends meet at a point inside the support (the finite mass is
  /// then at most 2 tail in all).
  void meet_crossed(double& y_lo, double& y_hi) const;
  /// The grid indices [klo, khi] of a window [y_lo, y_hi], one step beyond
  /// each end, within the support.
  void indices(double y_lo, double y_hi, double h, std::int64_t& klo, std::int64_t& khi) const;
};

/// The rounding of a composed transform and its inverse, as a bound on the
/// 2-norm of the composed masses' error (Higham, Accuracy and Stability of
/// Numerical Algorithms, Thm 24.2: each transform's 2-norm error <= gamma
/// times its input's, gamma = 10 u log2 N with a safety factor; the
/// product moves by at most the sum of its factors' moves since they have
/// modulus <= 1; each complex multiplication rounds by 3u relative, and
/// z^n by squaring like n of them: an early error is raised to the later
/// powers), with err_in = sum n |x|_2 and `mults` the multiplications per
/// frequency: gamma (err_in + |z|_2) + 3u mults |z|_2 + u.
double fft_rounding_normwise(double err_in, double mults, std::int64_t N, double zn);

}  // namespace fdp::detail
