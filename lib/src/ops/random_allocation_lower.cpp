// random_allocation_epsilon_lower (fdp/ops/random_allocation.hpp): certified
// lower bounds on epsilon for one round of random allocation of k out of t
// steps, Gaussian noise, from tests an adversary can run.
//
// The input. Let the record's clipped gradient be D at every step and every
// other gradient 0 (add-remove: the record present or absent; zero-out: its
// gradient D or 0). The outputs are then exactly P = N(0, I_t) without the
// record and Q = E_S N(mu 1_S, I_t) with it, mu = D / sigma, S a uniform
// k-subset of the t steps. Any test's errors on this pair bound the
// mechanism's privacy: if it is (eps, delta)-DP, then for every event A
//   Q(A) <= e^eps P(A) + delta   and   P(A) <= e^eps Q(A) + delta,
// so eps >= log((Q(A) - delta) / P(A)) and the mirror image.
//
// The tests, each every threshold of one statistic (both directions):
// 1. The sum of the outputs: N(0, t) against N(k mu, t), a Gaussian pair,
//    eps >= the GDP curve's at mu_sum = k mu / sqrt(t) (closed form).
// 2. The sum of the steps' likelihood ratios on a lattice: with Y_i = e^{mu
//    x_i - mu^2/2}, the statistic S = sum_i floor(Y_i / h). Each step's
//    cell index has P-masses a_j = P(Y in cell j) and, for a step the record
//    is in, masses b_j = E_P[Y; cell j] (dQ/dP = Y for one shifted
//    coordinate); the record is in exactly k steps whichever S it drew, so
//    S has law a^{*t} under P and a^{*(t-k)} * b^{*k} under Q, exactly. For
//    k = 1, sum_i Y_i is the pair's sufficient statistic (its likelihood
//    ratio is that sum over t) and these thresholds are nearly the optimal
//    tests; for k > 1 it is the first-order term of the ratio.
// 3. For 1 < k < t, instead of 2: sum_i g(Y_i), g(y) = log(1 + c y), each
//    step's value taken at its cell's midpoint and rounded down to a grid
//    (any function of the cells will do), c a multiple of z = k/(t-k)
//    (log_statistic_scales). The ratio e_k(Y)/C(t,k) is the k-th
//    coefficient of prod_i (1 + w Y_i), which a saddle point near w = z
//    makes close to a function of this sum; against Monte Carlo of the pair
//    it closes most of test 2's gap (2 of 20 steps, sigma 1, delta 1e-3:
//    1.599 -> 1.672, truth ~1.676; S3b-like, 100 of 10^4 at sigma 0.8,
//    delta 1e-5: 8.416 -> 9.530), and g's compressed range makes it far
//    cheaper (0.3 s against 4.4 s there). Its laws are built as 2's.
// 4. The largest output M: P(M <= x) = Phi(x)^t, Q(M <= x) = Phi(x)^(t-k)
//    Phi(x - mu)^k whichever k-subset holds the record (fdp/ops/
//    max_statistic.hpp, its tests "M > x" and "M <= x" in closed form).
//    Where sigma is small the record's steps stand out and this is the
//    sharpest of the four; it needs no lattice, so it serves below sigma
//    ~0.7 too (2 of 1000 steps at sigma 0.6, delta 1e-5: 0.36 from the sum
//    alone, now the max's).
// Certification: the cell masses (quadrature, lognormal_lattice.hpp) and the
// convolutions (long-double FFTs, positive_convolution.hpp) are each at most
// the exact ones, so every tail sum computed is a lower bound. A tail is
// bounded ABOVE (tails): the stored step masses are within a relative
// margin of the true ones, the exact convolution of the stored masses has
// a known total (the product of the steps' totals), and a step's Y passes
// the lattice's top with a known chance; summation rounding on top.
#include "fdp/ops/random_allocation.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "fdp/core/normal.hpp"
#include "fdp/ops/max_statistic.hpp"
#include "ops/lognormal_lattice.hpp"
#include "ops/positive_convolution.hpp"
#include "ops/threshold_tests.hpp"

namespace fdp {
namespace {

using detail::lattice_plan;
using detail::lattice_test_bound;
using detail::tails;
using detail::tails_of;
using detail::window_seq;

// (a statistic's law wider than kMaxSumPoints is not built: its test is
// skipped)
using detail::kMaxSumPoints;
using detail::kSumWindowZ;

// One step's statistic, an integer-valued function of its Y's lattice cell:
// P-masses and the shifted step's masses on 0 .. size-1 (each at most the
// exact one), with the moments that size the windows of sums.
struct step_law {
  window_seq p, q;
  double mean_p = 0, m2_p = 0, mean_q = 0, m2_q = 0;
  long double total_p = 0, total_q = 0;  ///< the stored masses' sums
  double margin = 0;                     ///< true masses are at most stored / (1 - margin)
};

// Quadrature masses agree with mpmath to 5e-14 and are stored lowered by
// kLatticeMargin (1e-13): the true ones are at most stored / (1 - 3e-13).
// Test 3 lowers its sums of cells by 1e-13 more.
constexpr double kCellMargin = 3e-13, kBinnedMargin = 5e-13;

void moments(const window_seq& s, long double& total, double& mean, double& m2) {
  long double m0 = 0, m1 = 0, s2 = 0;
  for (std::size_t j = 0; j < s.v.size(); ++j) {
    const long double x = static_cast<long double>(s.k0) + j;
    m0 += s.v[j];
    m1 += x * s.v[j];
    s2 += x * x * s.v[j];
  }
  total = m0;
  mean = static_cast<double>(m1);
  m2 = static_cast<double>(s2);
}

step_law with_moments(window_seq p, window_seq q, double margin) {
  step_law l{std::move(p), std::move(q)};
  moments(l.p, l.total_p, l.mean_p, l.m2_p);
  moments(l.q, l.total_q, l.mean_q, l.m2_q);
  l.margin = margin;
  return l;
}

// Cell masses: P(Y in cell j) and E_P[Y; cell j] (the shifted step's
// mass: dQ/dP = Y for one shifted coordinate), lowered by the quadrature's
// margin; Y beyond the cap left out.
std::pair<std::vector<double>, std::vector<double>> cell_masses(const lattice_plan& p) {
  std::vector<double> a(static_cast<std::size_t>(p.cells)), b(a.size());
  auto lowered = [](double x) { return x < 1e-100 ? 0.0 : x * (1.0 - detail::kLatticeMargin); };
  for (std::int64_t j = 0; j < p.cells; ++j) {
    const detail::cell_moments c = detail::lattice_cell(j, p.h, p.mu);
    a[static_cast<std::size_t>(j)] = lowered(c.mass);
    b[static_cast<std::size_t>(j)] = lowered(p.h * (static_cast<double>(j) * c.mass + c.up));
  }
  return {std::move(a), std::move(b)};
}

// Test 2's statistic (k = 1): the cell index itself.
step_law cell_index_law(const std::vector<double>& a, const std::vector<double>& b) {
  return with_moments({0, a}, {0, b}, kCellMargin);
}

// Test 3's statistic: floor(g(y_j) / hg), g(y) = log(1 + z y) at the cell's
// midpoint y_j, hg a twelfth of g's spread (fewer than 2^18 values). Cells
// sharing a value are summed in long double (at most 2^19 terms: relative
// error below 2^19 2^-64 ~ 3e-14) and lowered by 1e-13 relative.
step_law log_statistic_law(const lattice_plan& p, const std::vector<double>& a,
                           const std::vector<double>& b, double z) {
  auto g = [&](std::size_t j) { return std::log1p(z * (static_cast<double>(j) + 0.5) * p.h); };
  double mean = 0, m2 = 0;
  for (std::size_t j = 0; j < a.size(); ++j) mean += a[j] * g(j), m2 += a[j] * g(j) * g(j);
  const double sd = std::sqrt(std::max(0.0, m2 - mean * mean));
  const double top = g(a.size() - 1);
  const double hg = std::max(sd / 12.0, top / 262144.0);
  const auto values = static_cast<std::size_t>(top / hg) + 1;
  std::vector<long double> pa(values, 0.0L), qb(values, 0.0L);
  for (std::size_t j = 0; j < a.size(); ++j) {
    const auto w = std::min(values - 1, static_cast<std::size_t>(g(j) / hg));
    pa[w] += a[j];
    qb[w] += b[j];
  }
  auto down = [](const std::vector<long double>& v) {
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) r[i] = static_cast<double>(v[i] * (1 - 1e-13L));
    return r;
  };
  return with_moments({0, down(pa)}, {0, down(qb)}, kBinnedMargin);
}

// The multiples of z = k/(t-k) whose log statistics are tried: the best
// one shifts below z when a use has few steps (2 of 20 at sigma 1, delta
// 1e-5: 2.504 at z, 2.669 at 0.35 z; 5 of 100: 2.877 at 0.7 z), and is z
// itself beyond (100 of 10^4 at sigma 0.8; 60 of 14100 at sigma 1.1 is flat
// to 1e-4 across them). Each is a valid test, so the largest bound stands.
std::vector<double> log_statistic_scales(std::int64_t t, std::int64_t k) {
  if (t >= 64 * k) return {1.0};
  return {0.35, 0.7, 1.0};
}

// The window of a sum of `plain` unshifted and `moved` shifted steps.
void sum_window(const step_law& l, std::int64_t plain, std::int64_t moved, std::int64_t& lo,
                std::int64_t& hi) {
  const double n = static_cast<double>(plain), m = static_cast<double>(moved);
  const double mean = n * l.mean_p + m * l.mean_q;
  const double spread = kSumWindowZ * std::sqrt(n * l.m2_p + m * l.m2_q);
  lo = static_cast<std::int64_t>(std::max(0.0, std::floor(mean - spread)));
  hi = static_cast<std::int64_t>(
      std::ceil(mean + spread + static_cast<double>(std::max(l.p.v.size(), l.q.v.size()))));
}

// s re-indexed onto [lo, hi] (zeros where it has no entries).
window_seq on_window(const window_seq& s, std::int64_t lo, std::int64_t hi) {
  window_seq r{lo, std::vector<double>(static_cast<std::size_t>(hi - lo + 1), 0.0)};
  for (std::size_t i = 0; i < s.v.size(); ++i) {
    const std::int64_t k = s.k0 + static_cast<std::int64_t>(i);
    if (k >= lo && k <= hi) r.v[static_cast<std::size_t>(k - lo)] = s.v[i];
  }
  return r;
}

// The laws of the sum of t steps' statistic under P (no step shifted) and
// Q (k shifted), on one common window, entries at most the exact ones;
// empty when the window would be too large.
std::pair<window_seq, window_seq> sum_laws(const step_law& l, std::int64_t t, std::int64_t k) {
  std::int64_t lo = 0, hi = 0, lo_q = 0, hi_q = 0;
  sum_window(l, t, 0, lo, hi);
  sum_window(l, t - k, k, lo_q, hi_q);
  lo = std::min(lo, lo_q);
  hi = std::max(hi, hi_q);
  if (hi - lo > kMaxSumPoints) return {};
  auto plain = [&](std::int64_t m, std::int64_t& a, std::int64_t& b) { sum_window(l, m, 0, a, b); };
  auto moved = [&](std::int64_t m, std::int64_t& a, std::int64_t& b) { sum_window(l, 0, m, a, b); };
  const window_seq rest = detail::convolution_power(l.p, t - k, plain);
  const window_seq in_p = detail::convolution_power(l.p, k, plain);
  const window_seq in_q = detail::convolution_power(l.q, k, moved);
  const auto [lp, lq] = detail::convolve_lower_twice(rest, in_p, in_q, lo, hi);
  if (lp.v.empty() || lq.v.empty()) return {};
  return {on_window(lp, lo, hi), on_window(lq, lo, hi)};
}

// The tails of the sum's laws under P (t plain steps) and Q (k of them
// shifted), with what bounds them from above: the exact totals of the
// stored step masses' convolutions, and the chance that a step's Y passed
// the lattice's top (P(Y > top) = Phi(-x), Q(Y > top) = Phi(mu - x), x =
// (log top + mu^2/2) / mu; shaded up).
std::pair<tails, tails> tails_of_sums(const lattice_plan& p, const step_law& l,
                                      const window_seq& lp, const window_seq& lq, std::int64_t t,
                                      std::int64_t k) {
  const double top = static_cast<double>(p.cells) * p.h;
  const double x = (std::log(top) + 0.5 * p.mu * p.mu) / p.mu;
  // (cells stored as 0 for masses below 1e-100, cell_masses, add at most
  // cells x 1e-100 to P and top times that to Q)
  const double dropped = static_cast<double>(p.cells) * 1e-100;
  const double beyond_p = norm_cdf(-x) * (1 + 1e-12) + dropped;
  const double beyond_q = norm_cdf(p.mu - x) * (1 + 1e-12) + top * dropped;
  const auto plain = static_cast<long double>(t - k), moved = static_cast<long double>(k);
  const long double total_p = std::exp((plain + moved) * std::log(l.total_p));
  const long double total_q = std::exp(plain * std::log(l.total_p) + moved * std::log(l.total_q));
  return {tails_of(lp, total_p, t, l.margin, static_cast<double>(t) * beyond_p),
          tails_of(lq, total_q, t, l.margin,
                   static_cast<double>(plain) * beyond_p + static_cast<double>(moved) * beyond_q)};
}

}  // namespace

std::vector<double> random_allocation_epsilon_lower(double sigma, std::int64_t steps,
                                                    std::int64_t uses,
                                                    const std::vector<double>& deltas) {
  detail::require_allocation_arguments("random_allocation_epsilon_lower", sigma, steps, uses,
                                       deltas);
  const double mu = 1.0 / sigma;
  const double mu_sum = static_cast<double>(uses) * mu / std::sqrt(static_cast<double>(steps));
  std::vector<double> eps;
  // (test 1, closed form)
  for (double d : deltas) eps.push_back(detail::gaussian_test_epsilon(mu_sum, d));
  // (test 4, the largest output: closed-form laws, any sigma)
  const max_statistic_pair largest{sigma, 1.0, steps, uses};
  for (std::size_t i = 0; i < deltas.size(); ++i)
    eps[i] = std::max(eps[i], max_statistic_epsilon_lower(largest, deltas[i]));
  const lattice_plan p = detail::plan_lattice(mu, steps);
  if (p.coarse) return eps;
  const auto [a, b] = cell_masses(p);
  // (k = 1: the cell index, nearly sufficient; 1 < k < t: the log
  // statistic, as good or better than the cell index and, its values
  // compressed, far cheaper; k = t: test 1 is optimal)
  std::vector<step_law> stats;
  if (uses == 1) {
    stats.push_back(cell_index_law(a, b));
  } else if (uses < steps) {
    const double z = static_cast<double>(uses) / static_cast<double>(steps - uses);
    for (double scale : log_statistic_scales(steps, uses))
      stats.push_back(log_statistic_law(p, a, b, scale * z));
  }
  for (const step_law& l : stats) {
    const auto [lp, lq] = sum_laws(l, steps, uses);
    if (lp.v.empty()) continue;
    const auto [tp, tq] = tails_of_sums(p, l, lp, lq, steps, uses);
    for (std::size_t i = 0; i < deltas.size(); ++i)
      eps[i] = std::max(eps[i], lattice_test_bound(tp, tq, deltas[i]));
  }
  return eps;
}

}  // namespace fdp
