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
// The tests, all thresholds of one statistic:
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
// Certification: the cell masses (quadrature, lognormal_lattice.hpp) and the
// convolutions (long-double FFTs, positive_convolution.hpp) are each at most
// the exact ones, so every tail sum computed is a lower bound; a tail is
// bounded ABOVE by one minus the computed mass of its complement (the mass
// the lattice left out, beyond the cap or the windows, may lie anywhere).
// Summation rounding is added on top.
#include "fdp/ops/random_allocation.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "fdp/core/error.hpp"
#include "fdp/ops/convert.hpp"
#include "ops/lognormal_lattice.hpp"
#include "ops/positive_convolution.hpp"

namespace fdp {
namespace {

using detail::lattice_plan;
using detail::window_seq;

// Largest window (points) of the statistic's law; beyond it test 2 is skipped.
constexpr std::int64_t kMaxPoints = std::int64_t(1) << 22;

// One step's cell index floor(Y / h) on cells 0 .. cells-1 (Y beyond the cap
// left out): P-masses and the shifted step's masses, lowered by the
// quadrature's margin.
std::pair<window_seq, window_seq> cell_index_laws(const lattice_plan& p) {
  window_seq a{0, std::vector<double>(static_cast<std::size_t>(p.cells), 0.0)};
  window_seq b = a;
  auto lowered = [](double x) { return x < 1e-100 ? 0.0 : x * (1.0 - detail::kLatticeMargin); };
  for (std::int64_t j = 0; j < p.cells; ++j) {
    const detail::cell_moments c = detail::lattice_cell(j, p.h, p.mu);
    const auto i = static_cast<std::size_t>(j);
    a.v[i] = lowered(c.mass);
    b.v[i] = lowered(p.h * (static_cast<double>(j) * c.mass + c.up));
  }
  return {std::move(a), std::move(b)};
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

// The laws of S under P and Q on one common window (entries at most the
// exact ones); empty when the lattice cannot serve.
std::pair<window_seq, window_seq> statistic_laws(double mu, std::int64_t t, std::int64_t k) {
  const lattice_plan p = detail::plan_lattice(mu, t);
  if (p.coarse) return {};
  std::int64_t lo = 0, hi = 0, lo_q = 0, hi_q = 0;
  detail::window_of(p, t, lo, hi);
  detail::window_of(p, t, lo_q, hi_q, k);
  lo = std::min(lo, lo_q);
  hi = std::max(hi, hi_q);
  if (hi - lo > kMaxPoints) return {};
  const auto [a, b] = cell_index_laws(p);
  const window_seq rest = detail::sum_of_steps(p, a, t - k);
  const window_seq in_p = detail::sum_of_steps(p, a, k);
  const window_seq in_q = detail::sum_of_steps(p, b, k, true);
  const auto [lp, lq] = detail::convolve_lower_twice(rest, in_p, in_q, lo, hi);
  if (lp.v.empty() || lq.v.empty()) return {};
  return {on_window(lp, lo, hi), on_window(lq, lo, hi)};
}

// Tail sums of a sub-probability law on its window: below[j] = mass of
// indices < j, from the left; above[j] = mass of indices >= j, from the
// right (each accumulated from its small end); `missing` bounds the mass
// the law lacks (1 - total, plus the summation's rounding).
struct tails {
  std::vector<long double> below, above;
  long double missing = 0;
};

tails tails_of(const window_seq& s) {
  const std::size_t n = s.v.size();
  tails t;
  t.below.assign(n + 1, 0.0L);
  t.above.assign(n + 1, 0.0L);
  for (std::size_t j = 0; j < n; ++j) t.below[j + 1] = t.below[j] + s.v[j];
  for (std::size_t j = n; j-- > 0;) t.above[j] = t.above[j + 1] + s.v[j];
  // (n long-double additions of terms summing to <= 1: error < n 2^-64)
  const long double rounding = static_cast<long double>(n + 1) * 0x1p-63L;
  t.missing = std::max(0.0L, 1.0L - std::max(t.below[n], t.above[0])) + rounding;
  return t;
}

// The best eps over all thresholds of S, both orders, at one delta.
double lattice_test_bound(const tails& p, const tails& q, double delta) {
  const long double d = delta, up = 1.0L + 0x1p-40L, down = 1.0L - 0x1p-40L;
  long double best = 0.0L;
  for (std::size_t j = 0; j < p.below.size(); ++j) {
    // A = {S >= j}: Q(A) from below, P(A) from above
    const long double qa = q.above[j] * down, pa = (p.above[j] + p.missing) * up;
    if (qa > d) best = std::max(best, std::log((qa - d) / pa));
    // A = {S < j}: P(A) from below, Q(A) from above
    const long double pb = p.below[j] * down, qb = (q.below[j] + q.missing) * up;
    if (pb > d) best = std::max(best, std::log((pb - d) / qb));
  }
  return static_cast<double>(best);
}

}  // namespace

std::vector<double> random_allocation_epsilon_lower(double sigma, std::int64_t steps,
                                                    std::int64_t uses,
                                                    const std::vector<double>& deltas) {
  const char* fn = "random_allocation_epsilon_lower";
  detail::require_finite_pos(sigma, fn, "sigma");
  detail::require(steps >= 1 && steps <= 100000000, fn, "steps", static_cast<double>(steps),
                  "must be an integer in [1, 1e8]");
  detail::require(uses >= 1 && uses <= steps, fn, "uses", static_cast<double>(uses),
                  "must be an integer in [1, steps]");
  for (double d : deltas) detail::require(d > 0 && d < 1, fn, "delta", d, "must be in (0, 1)");
  const double mu = 1.0 / sigma;
  const double mu_sum = static_cast<double>(uses) * mu / std::sqrt(static_cast<double>(steps));
  std::vector<double> eps;
  // (test 1's closed form, shaded by far more than its rounding)
  for (double d : deltas) eps.push_back(std::max(0.0, gdp_eps(mu_sum, d) * (1 - 1e-9) - 1e-12));
  const auto [lp, lq] = statistic_laws(mu, steps, uses);
  if (lp.v.empty() || lq.v.empty()) return eps;
  const tails tp = tails_of(lp), tq = tails_of(lq);
  for (std::size_t i = 0; i < deltas.size(); ++i)
    eps[i] = std::max(eps[i], lattice_test_bound(tp, tq, deltas[i]));
  return eps;
}

}  // namespace fdp
