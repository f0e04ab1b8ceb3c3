// Internal (not installed): the sums the PLD kernel's certificate is made of
// (tilted log-sums of masses and error bounds, and the error bound
// accumulator), shared by compose_grid and the ledger's incremental PLD, and
// the tail cuts of a loss law.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fdp/ops/loss_law.hpp"
#include "ops/pld/pld_grid.hpp"

namespace fdp::detail {

/// log sum_i x_i e^{t lambda_i} with lambda_i = off + (k0 + i) h over the
/// positive x_i, for every tilt t of ts (out[j] for ts[j]), by Horner's rule
/// in s = e^{-|t| h} <= 1 anchored at the extreme loss for the sign of t
/// (nothing overflows); +1e-9 covers the rounding of the recurrence, so each
/// result is an upper bound. One pass over x per sign serves all the tilts
/// of that sign.
void tilted_log_mgfs(const std::vector<double>& x, double off, double h, std::int64_t k0,
                     const std::vector<double>& ts, std::vector<double>& out);

/// Bounds on how far the composed measure's mass errors move delta (see
/// pld_grid.hpp), in logs, accumulated one term at a time from each term's
/// (tilted) log-sums of masses lm, of error bounds le and of the errors with
/// their shifts discounted la (log of A_j + min(h, 1) S_j), and its count n:
/// log_product() = log(prod (M_i + D_i)^{n_i} - prod M_i^{n_i}), and
/// log_shift() = log sum_j [prod_{i<j} (M_i + D_i)^{n_i}] [prod_{i>j} M_i^{n_i}]
///   ((M_j + D_j)^{n_j} - M_j^{n_j}) / D_j (A_j + min(h, 1) S_j).
/// Any order of the terms gives a bound (each telescopes the product
/// differently): adding term j multiplies the shift sum so far by
/// M_j^{n_j} and adds that term's own share.
struct error_bound_acc {
  double lmd = 0.0;  // sum n log(M + D)
  double r = 0.0;    // sum n log(1 + D / M) (+inf once a term has D > 0 = M)
  double ls;         // log of the shift sum (-inf: empty)
  error_bound_acc();
  void add(double lm, double le, double la, double n);
  double log_product() const;
  double log_shift() const { return ls; }
};

/// A grid pmf's error bounds in one orientation (e: its err_q, or err_p
/// reflected, plus input rounding) with the split's shifts discounted:
/// a_k = max(0, e_k - up_k - up_{k+1}) + 4 kU e_k + min(h, 1) up_k, up_k the
/// shift whose upper end is atom k (pld_grid.hpp). Empty when the pmf has
/// no shifts.
std::vector<double> shift_discounted_errors(const grid_pmf& g, bool use_p,
                                            const std::vector<double>& e, double h);

/// A loss beyond which the law's mass is at most tau on both measures (the
/// law's own end when finite): doubling steps of law.scale() outward from 0,
/// then `bisections` halvings of the last step.
double loss_cut(const loss_law& law, double tau, bool upper, int bisections);

}  // namespace fdp::detail
