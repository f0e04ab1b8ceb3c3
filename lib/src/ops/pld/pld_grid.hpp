// Privacy-loss distributions on a uniform grid, and their composition.
//
// Two discretizations of a loss law on the grid l_k = offset + k h, both
// exact statements about trade-off functions (Blackwell order), not
// approximations of a density:
//
// * pessimistic — "connect the dots" (Doroshenko, Ghazi, Kamath, Kumar &
//   Manurangsi, PETS 2022): the mass of each grid bin (l_{k-1}, l_k] is split
//   between its two end points so that both the P- and the Q-mass are
//   preserved; the tails beyond the grid go to its end points and to the
//   infinite atoms. Every outcome is a mixture of the two grid atoms that
//   bracket it, so the true pair is a post-processing (garbling) of the
//   discretized one: its trade-off curve is the polygon of tangent lines of
//   f at the grid slopes, at or below f.
// * optimistic — an exact garbling onto the grid: sweeping down from the
//   largest loss, consecutive outcomes (with fractions of atoms where needed)
//   are merged into groups whose likelihood ratio is exactly e^{l_k}; the
//   remainder at the far end that cannot be balanced is dropped (removing
//   outcomes lowers every hockey-stick divergence) or kept on the grid with
//   its ratio miss as an error (an asymmetric law with atoms at both ends
//   is also swept bottom-up, and the smaller error kept). Its curve is a
//   polygon inscribed in f with grid slopes, at or above f.
//
// Both are refinement/garbling statements, so they hold for T(P,Q) and for
// T(Q,P) at once and survive composition (the tensor product is monotone in
// the Blackwell order, DRS Prop. 3.2). Both are second-order accurate in h
// (the composed curve moves by O(n h^2), not O(n h) as with rounding).
//
// Composition convolves the Q-masses (orientation T(P,Q)) or the P-masses
// (orientation T(Q,P)) with real FFTs (FFTW3), n-fold self-composition by
// powering the transform. Every composed result carries certified error
// terms: the mass outside the FFT window (Chernoff bounds computed from the
// discretized laws), the FFT rounding error (a Higham-style bound, Accuracy
// and Stability of Numerical Algorithms, Thm 24.2, with a safety factor),
// and the rounding of the discretized masses: each atom carries an absolute
// error bound (err_p, err_q) against an exactly valid refinement / garbling
// (an optimistic group whose ratio misses e^{l_k} needs it in one
// orientation only: above e^{l_k}, T(P,Q)'s implied P-mass q e^{-l_k} is
// larger than the group's, which only lowers T(P,Q)'s deltas, so the miss
// goes to err_p alone; below, to err_q alone);
// with M_i(t), D_i(t) the tilted sums of the masses and of the error bounds,
// the composed measure of {loss > eps} moves by at most
//   e^{K(t) - t eps} (prod_i (1 + D_i(t)/M_i(t))^{n_i} - 1)   for every t >= 0,
// an exact bound (expand the product of (mass + error) measures) that decays
// in eps, so the GDP summary stays finite. The pessimistic split's rounding
// is amplified by 1/(e^h - 1) (a cell's mass is divided by the difference of
// its ends' likelihood ratios), so on fine grids it dominates D; but it only
// moves mass between neighbours (grid_pmf::shift_p / shift_q), and delta's
// integrand (1 - e^{eps - l})_+ is 1-Lipschitz in l and zero below eps.
// Telescoping the product term by term (j), a move of mass s by h under the
// other factors' measure nu changes delta by at most h s nu{> eps - l_top}
// <= h s e^{t l_top} e^{K_nu(t) - t eps}, with l_top the move's upper end;
// so with A_j(t) the tilted sum of the other errors and S_j(t) that of the
// moves (each weighted at its upper end), delta moves by at most
//   e^{-t eps} sum_j [prod_{i<j} (M_i + D_i)^{n_i}] [prod_{i>j} M_i^{n_i}]
//     ((M_j + D_j)^{n_j} - M_j^{n_j}) / D_j (A_j + min(h, 1) S_j)
// (equal to the bound above when A_j + S_j = D_j; the smaller one is used).
//
// Both grow like n times the errors' sums: at n = 10^7 steps they exceeded
// delta = 1e-9 itself. For laws whose interval masses are consistent (P
// and Q of one outcome set, loss_law::consistent_masses) the pessimistic
// side has the eta form instead (docs/formulas.md 12.2): the grid is the
// exact discretization, within 1 +- r, of a pair (P, Q') whose loss is
// moved by at most eta, so the truth at eps is at most e^{n eta} (1 -
// r)^{-n} times the computed delta at eps - n eta (an upper bound only).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "fdp/ops/loss_law.hpp"

namespace fdp {

enum class pld_side { pessimistic, optimistic };

/// One law discretized on l_k = offset + k h, k = k0 .. k0 + size - 1.
struct grid_pmf {
  double h = 0.0, offset = 0.0;
  std::int64_t k0 = 0;
  std::vector<double> p, q;
  double p_neg_inf = 0.0, q_pos_inf = 0.0;
  /// Absolute error bounds of p_neg_inf / q_pos_inf: the rounding of finite
  /// mass folded into them (pessimistic side: the tails beyond the grid's
  /// ends). 0 when nothing was folded: they are then the law's own masses.
  double p_neg_inf_err = 0.0, q_pos_inf_err = 0.0;
  double dropped_p = 0.0, dropped_q = 0.0;  ///< optimistic: mass removed
  /// optimistic: of dropped_*, the mass the sweep failed to place (0 but for
  /// steps far below its on-grid tolerance; see optimistic.cpp)
  double lost_p = 0.0, lost_q = 0.0;
  double leftover = 0.0;  ///< optimistic: mass of a final group kept with a ratio mismatch (P
                          ///< top-down, Q bottom-up)
  /// Absolute error bounds per atom (P- and Q-masses) against an exactly
  /// valid refinement / garbling of the law.
  std::vector<double> err_p, err_q;
  /// Of those bounds, the part that only moves mass by one step (pessimistic
  /// side: the rounding of a cell's split between its two ends): at most
  /// shift_p[i] of P-mass (shift_q[i] of Q-mass) may have to move between
  /// atoms i - 1 and i. err_p / err_q include it at both atoms, so a
  /// consumer may ignore these; compose_grid uses them (a move by h changes
  /// delta(eps) by at most h times the mass moved). Empty: none.
  std::vector<double> shift_p, shift_q;
  /// The eta form of the errors (laws with consistent_masses()).
  /// Pessimistic side (eta_loss >= 0): the finite atoms are, within a
  /// factor 1 +- eta_rel each (and eta_abs in all, for masses near the
  /// underflow), the exact pessimistic discretization of a pair (P, Q')
  /// with |log dQ'/dQ| <= eta_loss everywhere; eta_loss < 0: not given.
  double eta_loss = -1.0, eta_rel = 0.0, eta_abs = 0.0;
  double loss(std::int64_t k) const { return offset + static_cast<double>(k) * h; }
};

/// Discretizes `law` on the grid with spacing h and the given offset, on the
/// grid-index range covering [lo_cut, hi_cut] intersected with the law's
/// support (mass beyond the cut is handled soundly as described above).
/// coarse > 0 (optimistic side, laws without atoms): in an infinite tail
/// whose remaining mass is small, groups may span several grid steps; the
/// delta(eps) curve of the result (either orientation) moves by at most
/// `coarse` against coarse = 0. It saves work (most grid points of a heavy
/// tail carry negligible mass) and costs only that much tightness: the
/// result is a valid garbling either way.
grid_pmf discretize(const loss_law& law, double h, double offset, double lo_cut, double hi_cut,
                    pld_side side, double coarse = 0.0);

namespace detail {
struct composition_sums;  // the certificate's sums over the terms (internal: ops/pld/terms.hpp)
/// The composed masses on a window [klo, klo + m.size()), with what their
/// certificate needs from the transform: the bound on its error's 2-norm,
/// and the exponential tilt it was computed under (tilt_cut: the masses
/// below this index are noise, zeroed). windowed = false: no window at all,
/// every finite mass is a Chernoff tail.
struct window_masses {
  std::int64_t klo = 0;
  std::vector<double> m;
  double fft_l2 = 0.0, tilt = 0.0, tilt_k = 0.0;
  /// A tilted composition's own rounding as a relative bound instead:
  /// every composed mass, untilted, is within a factor [1 - tilt_rel, 1 +
  /// tilt_rel] of the exact untilted composition of the same inputs, and
  /// fft_l2_rel bounds the rest of the FFT error (tilt_rel = 0: not given;
  /// fft_l2 holds it all).
  double tilt_rel = 0.0, fft_l2_rel = 0.0;
  std::size_t tilt_cut = 0;
  bool windowed = false;
  /// A tilt was asked for but its window did not fit the cap: the plain
  /// window stands, and the tilted mass outside it is all error.
  bool tilt_clipped = false;
};
}  // namespace detail

/// A composed loss distribution of one orientation: masses m_k of the
/// measure under which the loss is integrated (Q for T(P,Q)), on
/// lambda_k = offset + (k0 + k) h, plus the mass at +inf, with the
/// certified error terms needed to turn sums into bounds.
class composed_pld {
 public:
  /// An exact lattice law (no discretization, no FFT): masses m_k of the
  /// integrating measure at lambda = offset + (k0 + k) h, mass m_inf at +inf.
  /// Used for closed forms whose loss lives on a lattice (k-fold f_{eps,0}).
  /// m_inf_rel: a relative bound on m_inf's rounding (0: exact).
  static composed_pld from_lattice(double h, double offset, std::int64_t k0, std::vector<double> m,
                                   double m_inf, double m_inf_rel);
  /// A composition from its sums over the terms (offset, support, mass at
  /// +inf, Chernoff and mass-error data) and its masses on a window: the
  /// window's tails are bounded from the sums (compose_grid, the ledger).
  static composed_pld from_sums(const detail::composition_sums& s, double h,
                                detail::window_masses w);
  /// delta(eps) = m_inf + sum_k m_k (1 - e^{eps - lambda_k})_+ as computed.
  double delta_raw(double eps) const;
  /// Its finite part, sum_k m_k (1 - e^{eps - lambda_k})_+, as computed (not
  /// absorbed into m_inf's rounding).
  double fin_raw(double eps) const;
  /// The same with first_above(eps) already known.
  double fin_raw_at(std::size_t j, double eps) const;
  /// Upper / lower bounds on the delta(eps) of the exactly composed
  /// discretized laws (adds or subtracts the error terms). For a pessimistic
  /// composition the upper bound bounds the truth; for an optimistic one the
  /// lower bound does.
  double delta_upper(double eps) const;
  double delta_lower(double eps) const;
  /// f(a) bounds from the profile: sup_eps (1 - delta(eps) - e^eps a).
  double beta_from_upper_delta(double a) const;  ///< uses delta_upper (a lower bound on f)
  double beta_from_lower_delta(double a) const;  ///< uses delta_lower (an upper bound on f)
  /// The lines behind beta_from_lower_delta: f(a) <= min(1 - a, max_k
  /// (c_k - e^{eps_k} a)); appends (eps_k, c_k), two per grid interval.
  void upper_lines(std::vector<double>& eps, std::vector<double>& c) const;
  /// The polygon of the computed masses at a (O(log n)).
  double beta_raw(double a) const;
  /// The loss lambda_j where the computed polygon has slope -e^{lambda} at a
  /// (its tangent point).
  double tangent_loss(double a) const;
  /// A bound on every error term at once (FFT, window tails, mass errors).
  double max_slack() const;
  /// The FFT's share of the error terms of delta(eps) (the transform's and
  /// the powers' rounding, and a tilt's), as delta_upper adds it.
  double fft_error_at(double eps) const;
  double lo() const { return offset_ + static_cast<double>(k0_) * h_; }
  double lo_loss() const { return lo(); }
  double hi() const {
    return offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(m_.size()) - 1) * h_;
  }
  double m_inf() const { return m_inf_; }
  /// Bounds on the true mass at +inf: m_inf() with the relative margin for
  /// the product's rounding (m_inf_rel_) and the folded masses' error
  /// (m_inf_err_).
  double m_inf_upper() const { return m_inf_ * (1 + m_inf_rel_) + m_inf_err_; }
  double m_inf_lower() const { return std::max(0.0, m_inf_ * (1 - m_inf_rel_) - m_inf_err_); }
  /// The top of the composed support (the window may end below it).
  double support_top() const { return offset_ + static_cast<double>(top_index_) * h_; }
  std::size_t size() const { return m_.size(); }
  /// Composed with a tilt whose window did not fit (window_masses).
  bool tilt_clipped() const { return tilt_clipped_; }
  double h() const { return h_; }
  /// Error terms (for reporting).
  double fft_error_l2() const { return fft_l2_; }
  double window_tail() const { return tail_lo_ + tail_hi_; }

 private:
  void finish();
  static void set_tilt_form(composed_pld& r, const detail::window_masses& w);
  std::size_t first_above(double eps) const;
  double tail_bound_above(double eps) const;
  /// The computed finite part at eps with its error terms but the mass
  /// errors (tails: those above eps, or all of them).
  struct finite_parts {
    std::size_t j = 0;
    double fin = 0, tails = 0, fft = 0, above = 0;
  };
  finite_parts parts_at(double eps, bool all_tails) const;
  /// How far the terms' mass errors (and fin_raw's rounding) move delta(eps).
  double mass_error(double eps, const finite_parts& f) const;
  double mass_error_above(double eps) const;
  /// delta_upper's two forms: the absolute error terms, and the eta form.
  double delta_upper_absolute(double eps) const;
  double delta_upper_eta(double eps) const;
  double slack(std::size_t j) const;
  double slack_of(std::size_t j, double l2) const;
  /// A bound on sum_{i >= j} |error of m_i| from the transform (and, when
  /// tilted, the tilt's rounding): slack(j), or with the tilt's rounding
  /// as a relative factor on the mass above lambda_{j-1} plus `tails` (the
  /// mass above the window), the smaller.
  double fft_error(std::size_t j, double tails) const;

  double h_ = 0, offset_ = 0;
  std::int64_t k0_ = 0;
  std::vector<double> m_;
  std::vector<double> sm_, se_;  // suffix sums of m and m e^{-lambda}
  double m_inf_ = 0;
  double m_inf_rel_ = 1e-12;  // compose_grid's blanket margin; a lattice states its own
  double lattice_rel_ = 0;    // a lattice's mass error, relative to the masses above eps (0: none)
  double m_inf_err_ = 0;      // sum of n_i x the terms' folded-mass errors (d m_inf / d I_i <= n_i)
  double loss_err_ = 0;       // bound on the rounding of the loss positions offset + k h
  double tail_lo_ = 0, tail_hi_ = 0;  // window tail masses (Chernoff)
  double fft_l2_ = 0;                 // bound on the 2-norm of the FFT error
  // Exponential tilt of the FFT (compose_grid's tilt_delta): the transforms
  // worked on m_k e^{tilt_ lambda_k - tilt_k_}, so the FFT error of m_k is
  // e^{tilt_k_ - tilt_ lambda_k} times a vector of 2-norm fft_l2_.
  double tilt_ = 0, tilt_k_ = 0;
  std::size_t tilt_cut_ = 0;    // below this index the tilted masses are noise (zeroed)
  bool tilt_clipped_ = false;   // the tilted window did not fit (window_masses)
  std::int64_t top_index_ = 0;  // the composed support ends here
  // mass-error bound: log of e^{K(t)} (prod (1 + D_i/M_i)^{n_i} - 1) at cher_t_
  // (and at t = 0 in err0_)
  std::vector<double> err_k_;
  double err0_ = 0;
  // The eta form (has_eta_, an upper bound only): the truth at eps is at
  // most (1 + rel_rho_) times the computed delta at eps - eta_shift_, plus
  // eta_abs_.
  bool has_eta_ = false;
  double rel_rho_ = 0, eta_shift_ = 0, eta_abs_ = 0;
  // the rounding of fin_raw relative to the mass above eps: the suffix sums
  // (compensated; the e^{-h} recurrence of se_ adds up to ~2u / (1 - e^{-h}))
  double fin_rel_ = 0;
  // the tilt's rounding as a relative factor (set_tilt_form): tilt_factor_
  // on the mass above eps, the FFT error without it in fft_l2_rel_
  bool has_tilt_form_ = false;
  double tilt_factor_ = 0, fft_l2_rel_ = 0;
  // Chernoff data: composed log-MGF at fixed t values, for tails beyond the window.
  std::vector<double> cher_t_, cher_k_;
  // min over the positive tilts t of (k_t - t eps), as the lower envelope of
  // those lines (built by finish(); a query is a binary search, not a scan)
  struct line_min {
    std::vector<double> t, k, x;  // hull lines by increasing t; x: breakpoints
    void build(const std::vector<double>& ts, const std::vector<double>& ks);
    double at(double eps) const;  // +inf without lines
  };
  line_min tail_env_, err_env_;
};

/// Composes terms (pmf_i, n_i): Q-law of T(P,Q) if use_p is false, P-law
/// reflected (the Q-law of T(Q,P)) if true. tail is the window tail mass
/// target (Chernoff). All pmfs must share h.
///
/// tilt_delta > 0 computes the transforms on exponentially tilted masses
/// (m_k e^{theta lambda_k}, theta the Chernoff tilt of the tilt_delta
/// quantile of the composed loss) and untilts the result: the FFT's
/// rounding, ~1e-16 relative to the largest mass, is then relative to the
/// masses near that quantile instead, so delta(eps) ~ tilt_delta keeps its
/// precision when tilt_delta is far below the FFT's error floor. Bounds far
/// below the quantile get looser (they are the untilted composition's job).
/// max_points > 0 lowers the grid limit (grid_limit_error beyond it).
/// chernoff_beyond_limit: a window beyond the limit is not an error; the
/// result then has no window (no transform is computed) and its bounds are
/// the Chernoff bounds of the composed moment generating function alone:
/// delta_upper(eps) = m_inf + min(1, e^{K(t) - t eps}) plus the mass errors
/// (the finite mass above eps bounds its hockey-stick share), delta_lower =
/// the mass at +inf. Valid at any size; tight only for far-out eps.
/// `trace`, when set, receives the Chernoff profile and the window chosen.
/// `long_double`: transforms and powers in long double whatever the number
/// of terms (from kLongDoubleTerms on they always are).
composed_pld compose_grid(const std::vector<const grid_pmf*>& pmfs,
                          const std::vector<std::int64_t>& times, bool use_p, double tail,
                          double tilt_delta = 0.0, std::int64_t max_points = 0,
                          bool chernoff_beyond_limit = false,
                          const std::function<void(const std::string&)>& trace = {},
                          bool long_double = false);

namespace detail {
/// a + b (a, b >= 0) rounded one ulp up / down when b > 0: a bound's finite
/// part must not vanish in the rounding of the mass at +inf it is added to.
double sum_up(double a, double b);
double sum_down(double a, double b);
}  // namespace detail

}  // namespace fdp
