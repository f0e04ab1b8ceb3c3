// antipodal_allocation_epsilon_lower (fdp/ops/random_allocation.hpp):
// certified lower bounds on epsilon for random allocation (each record in
// exactly k of t steps; balls-in-bins epochs are the case k = epochs of t =
// epochs x steps per epoch, see below) under REPLACE-ONE neighbours, from
// tests an adversary can run.
//
// The input. The record's clipped gradient is u at every step in one
// dataset and -u in the other (|u| = D/2: the sum moves by D, the bound),
// every other gradient 0. Along u the outputs are exactly
//   P = E_S N(+mu 1_S, I_t)   and   Q = E_S N(-mu 1_S, I_t),   mu = |u|/sigma,
// S the record's uniform k-subset. (The zero-out input, u against 0, is a
// replace-one input too, but with half the distance: this one leaks more.)
//
// The tests: every threshold of W = sum_i V(x_i), V(x) the cell of phi(x) =
// sinh(mu x) on a lattice of step h (clamped at -+M: any function of the
// outputs gives a valid test). W is a sum over all t steps, so its law does
// not depend on which steps S holds: t - k unshifted steps and k shifted by
// +mu under P, by -mu under Q, exactly, for random allocation and for
// balls-in-bins alike (one shifted step per epoch). Why sinh: an epoch's
// privacy loss is log sum_i e^{mu x_i} - log sum_i e^{-mu x_i}, whose first
// order in the small per-step terms is proportional to sum_i sinh(mu x_i).
// And the sum of the outputs, N(+k mu, t) against N(-k mu, t) (GDP with
// 2 k mu / sqrt(t), closed form), for where the lattice is not built.
//
// Certification as random_allocation_lower.cpp's: each cell's masses under
// N(0, 1) and N(-+mu, 1) are normal intervals of the SAME cell boundaries
// (norm_interval_shifted: no rounding of boundary - mu moves the set),
// accurate to 5e-14 relative and stored lowered by 1e-13 (mu's own rounding
// moves them by far less); the convolutions are certified from below; the
// tails are bounded above from the stored masses' exact totals
// (threshold_tests.hpp). The clamp leaves nothing out.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "fdp/core/normal.hpp"
#include "fdp/ops/random_allocation.hpp"
#include "ops/lognormal_lattice.hpp"
#include "ops/positive_convolution.hpp"
#include "ops/threshold_tests.hpp"

namespace fdp {
namespace {

using detail::window_seq;

// Cells per side of the clamped lattice, and the lattice step in units of
// phi's standard deviation under N(0, 1): M = 512 h = 64 sd. Clamping there
// costs nothing where sigma >= ~1 (MNIST-like, 60 of 14040 steps at sigma
// 1.1: 4.2265 against 4.2262 at 256 sd) and helps below, where sinh's
// heavy tails only add noise (10 of 1000 at sigma 0.6: 7.10 against 6.14).
constexpr std::int64_t kHalfCells = 512;
constexpr double kCellsPerSd = 8.0;
constexpr double kStoredLowering = 1e-13, kCellMargin = 3e-13;

// One step's cell masses: unshifted, shifted by +mu and by -mu, on the cell
// indices 0 .. 2 kHalfCells - 1 (cell j holds phi in [(j - J) h, (j - J + 1)
// h), the end cells open to -+inf).
struct index_moments {
  double mean = 0, var = 0;
};
struct step_cells {
  window_seq base, plus, minus;
  index_moments m_base, m_plus, m_minus;
};

index_moments moments_of(const window_seq& s) {
  long double m0 = 0, m1 = 0, m2 = 0;
  for (std::size_t j = 0; j < s.v.size(); ++j) {
    const long double x = static_cast<long double>(s.k0) + static_cast<long double>(j);
    m0 += s.v[j], m1 += x * s.v[j], m2 += x * x * s.v[j];
  }
  const long double mean = m1 / m0;
  return {static_cast<double>(mean), static_cast<double>(std::max(0.0L, m2 / m0 - mean * mean))};
}

step_cells antipodal_cells(double mu) {
  const double sd_phi = std::sqrt(0.5 * std::expm1(2 * mu * mu));
  const double h = sd_phi / kCellsPerSd;
  const std::int64_t n = 2 * kHalfCells;
  // (cell boundary between cells j - 1 and j: phi = (j - J) h)
  auto edge = [&](std::int64_t j) {
    if (j <= 0) return -std::numeric_limits<double>::infinity();
    if (j >= n) return std::numeric_limits<double>::infinity();
    return std::asinh(static_cast<double>(j - kHalfCells) * h) / mu;
  };
  auto stored = [](double m) { return m < 1e-100 ? 0.0 : m * (1 - kStoredLowering); };
  step_cells c;
  c.base.v.resize(static_cast<std::size_t>(n));
  c.plus.v.resize(c.base.v.size());
  c.minus.v.resize(c.base.v.size());
  for (std::int64_t j = 0; j < n; ++j) {
    const double lo = edge(j), hi = edge(j + 1);
    const auto i = static_cast<std::size_t>(j);
    c.base.v[i] = stored(norm_interval(lo, hi));
    c.plus.v[i] = stored(norm_interval_shifted(lo, hi, mu, 0.0));
    c.minus.v[i] = stored(norm_interval_shifted(lo, hi, -mu, 0.0));
  }
  c.m_base = moments_of(c.base);
  c.m_plus = moments_of(c.plus);
  c.m_minus = moments_of(c.minus);
  return c;
}

long double total(const window_seq& s) {
  long double t = 0;
  for (double x : s.v) t += x;
  return t;
}

// The window kept for a sum of m unshifted and n shifted steps (moments
// a and b): its mean -+ kSumWindowZ sd, widened by a step's range (a sum
// of few steps is not yet normal), within the possible sums. (What a
// window drops is counted by the tails' deficit.)
void sum_window(const index_moments& a, std::int64_t m, const index_moments& b, std::int64_t n,
                std::int64_t& lo, std::int64_t& hi) {
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  const double range = 2.0 * kHalfCells;
  const double mean = md * a.mean + nd * b.mean;
  const double spread = detail::kSumWindowZ * std::sqrt(md * a.var + nd * b.var) + range;
  lo = static_cast<std::int64_t>(std::max(0.0, std::floor(mean - spread)));
  hi = static_cast<std::int64_t>(std::min((md + nd) * (range - 1), std::ceil(mean + spread)));
}

detail::sum_window window_for(const index_moments& a) {
  return
      [a](std::int64_t m, std::int64_t& lo, std::int64_t& hi) { sum_window(a, m, a, 0, lo, hi); };
}

// The threshold tests of W at each delta (0 where the sum's window would
// be too large).
std::vector<double> lattice_tests(double mu, std::int64_t steps, std::int64_t uses,
                                  const std::vector<double>& deltas) {
  std::vector<double> eps(deltas.size(), 0.0);
  const step_cells c = antipodal_cells(mu);
  const std::int64_t plain = steps - uses;
  std::int64_t lo = 0, hi = 0, lo_q = 0, hi_q = 0;
  sum_window(c.m_base, plain, c.m_plus, uses, lo, hi);
  sum_window(c.m_base, plain, c.m_minus, uses, lo_q, hi_q);
  lo = std::min(lo, lo_q);
  hi = std::max(hi, hi_q);
  if (hi - lo > detail::kMaxSumPoints) return eps;
  const window_seq rest = detail::convolution_power(c.base, plain, window_for(c.m_base));
  const window_seq up = detail::convolution_power(c.plus, uses, window_for(c.m_plus));
  const window_seq down = detail::convolution_power(c.minus, uses, window_for(c.m_minus));
  const auto [lp, lq] = detail::convolve_lower_twice(rest, up, down, lo, hi);
  if (lp.v.empty() || lq.v.empty()) return eps;
  const long double rest_total = std::pow(total(c.base), static_cast<long double>(steps - uses));
  const long double n_uses = static_cast<long double>(uses);
  const long double total_p = rest_total * std::pow(total(c.plus), n_uses);
  const long double total_q = rest_total * std::pow(total(c.minus), n_uses);
  // (cells stored as 0 below 1e-100: at most that much each, per step)
  const double dropped = static_cast<double>(steps) * 2.0 * kHalfCells * 1e-100;
  // (-mu's law sits lower: it is the tests' "P")
  const detail::tails tq = detail::tails_of(lq, total_q, steps, kCellMargin, dropped);
  const detail::tails tp = detail::tails_of(lp, total_p, steps, kCellMargin, dropped);
  for (std::size_t i = 0; i < deltas.size(); ++i)
    eps[i] = detail::lattice_test_bound(tq, tp, deltas[i]);
  return eps;
}

}  // namespace

std::vector<double> antipodal_allocation_epsilon_lower(double sigma, std::int64_t steps,
                                                       std::int64_t uses,
                                                       const std::vector<double>& deltas) {
  detail::require_allocation_arguments("antipodal_allocation_epsilon_lower", sigma, steps, uses,
                                       deltas);
  const double mu = 1.0 / sigma;
  const double mu_sum =
      2.0 * static_cast<double>(uses) * mu / std::sqrt(static_cast<double>(steps));
  std::vector<double> eps;
  // (the sum of the outputs, closed form)
  for (double d : deltas) eps.push_back(detail::gaussian_test_epsilon(mu_sum, d));
  // (sinh overflows its lattice's scale past mu ~ 13: the sum alone there)
  if (mu > 13.0) return eps;
  const std::vector<double> lattice = lattice_tests(mu, steps, uses, deltas);
  for (std::size_t i = 0; i < deltas.size(); ++i) eps[i] = std::max(eps[i], lattice[i]);
  return eps;
}

}  // namespace fdp
