// balls_in_bins_law (fdp/ops/loss_law.hpp): a certified UPPER law for one
// epoch of balls-in-bins batches (each record in one uniformly chosen step
// of t), Gaussian noise.
//
// The pair. Chua, Ghazi, Harrison, Kamath, Kumar, Leeman, Manurangsi, Sinha
// & Zhang ("Balls-and-Bins Sampling for DP-SGD", AISTATS 2025) show that the
// adaptive batch linear queries of one such epoch are tightly dominated by
//   P = N(0, I_t),   Q = (1/t) sum_i N(mu e_i, I_t),   mu = D / sigma,
// under add-remove neighbours (the record absent / present; the others'
// steps do not move); zero-out neighbours give the same pair (the zeroed
// record's step carries no gradient). Across epochs the allocations are
// independent, so E epochs are dominated by the E-fold product.
//
// Its likelihood ratio is dQ/dP = S/t with S = sum_i Y_i, Y_i = e^{mu x_i -
// mu^2/2} iid under P (lognormal, mean 1), so the pair is determined by the
// law of S. No closed form; this file builds a pair that is provably LESS
// private (so the composed bounds stay upper bounds) with exactly known
// masses:
//
// 1. Spread. Send each Y to the lattice h N by a mean-preserving split
//    between the two lattice points around it (weight (Y - (k-1)h)/h to kh).
//    S' = sum Y'_i then satisfies E[S' | x] = S, so R' = S'/t is larger than
//    R = S/t in the convex order. The pair (P', Q') with P' = law of S' and
//    dQ'/dP' = s/t is a valid pair (E[R'] = 1) whose hockey-stick divergences
//    E(R' - c)_+ and E(1 - c R')_+ (both orders) are all at least the true
//    pair's: by Blackwell's theorem the true pair is a garbling of it. The
//    spread adds variance <= h^2/4 per step, second order: h is a small
//    fraction of sd(Y).
// 2. Sub-measure. Any part of P' may be left out (with its Q' part at the same
//    ratio): completing the rest with P-mass at loss -inf and Q-mass at +inf
//    (the engine does, discretize_pessimistic) splits outcomes into
//    perfectly distinguishing ones, a refinement. So every mass below only
//    needs to be AT MOST the exact one: the lattice masses are computed by
//    quadrature and lowered by a relative margin, Y beyond the cap c (where
//    the shifted step exceeds it with probability < 1e-15) is left out, and
//    the t-fold convolution is computed by long-double FFTs certified from
//    below (positive_convolution.hpp), each partial sum kept on a window that
//    holds all but a negligible part of it.
//
// The engine then discretizes this atomic law pessimistically like any other.
// The lower side of a balls-in-bins term is another law (max_shift_law, a
// garbling); this one is only ever used as the upper side.
#include <boost/math/quadrature/gauss.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "fdp/core/error.hpp"
#include "fdp/core/families.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/loss_law.hpp"
#include "ops/positive_convolution.hpp"

namespace fdp {
namespace {

using detail::window_seq;

// Q-mass of the shifted step above the cap, and the mass margin of the
// quadrature (its error is far below; a margin keeps the lattice masses at
// or below the exact ones).
constexpr double kCapTail = 1e-15;
constexpr double kQuadratureMargin = 1e-12;
// Partial sums of n steps are kept on [n - z sqrt(n E Y^2), n + z sqrt(n E Y^2)
// + cap]: for nonnegative summands P(S < ES - x) <= exp(-x^2 / (2 n E Y^2))
// (a one-sided Bernstein bound), e^{-z^2/2} ~ 2.6e-18 at z = 9.
constexpr double kWindowZ = 9.0;
// Largest window (points) of the final sum; beyond it no law is built.
constexpr std::int64_t kMaxPoints = std::int64_t(1) << 22;

struct lattice_plan {
  double mu = 0.0, h = 0.0, cap = 0.0, second_moment = 0.0;
  std::int64_t cells = 0;  // lattice points 0..cells
};

lattice_plan plan_lattice(double mu, std::int64_t steps) {
  lattice_plan p;
  p.mu = mu;
  p.second_moment = std::exp(mu * mu);
  const double sd = std::sqrt(std::expm1(mu * mu));
  // Q(Y > cap) = Phi-bar((log cap - mu^2/2) / mu) = kCapTail
  p.cap = std::exp(norm_quantile_c(kCapTail) * mu + 0.5 * mu * mu);
  // (h = 0.08 sd(Y): the MNIST-like bracket is 0.23% wide, 0.18% at 0.02 sd
  // for four times the work)
  double want = std::max(0.08 * sd, p.cap / 131072.0);
  // The spread sends Y <= h partly to 0, where Q' has no mass: keep
  // P(every step <= h) = Phi(x_h)^t below 1e-10 (it is a floor under the
  // upper side's delta in the other order).
  const double x_zero = norm_quantile(std::pow(1e-10, 1.0 / static_cast<double>(steps)));
  want = std::min(want, std::exp(x_zero * mu - 0.5 * mu * mu));
  p.h = std::exp2(std::floor(std::log2(want)));
  p.cells = static_cast<std::int64_t>(std::ceil(p.cap / p.h));
  return p;
}

// The standard normal density of x(y) = (log y + mu^2/2)/mu, per unit y.
double lognormal_density(double y, double mu) {
  const double x = (std::log(y) + 0.5 * mu * mu) / mu;
  return norm_pdf(x) / (mu * y);
}

// One lattice cell [k h, (k+1) h] of Y's law, by Gauss-Legendre (the
// density is smooth there; more nodes where the cell is wide relative to
// its position): its P-mass and its first moments about both ends,
// up = E[(Y - kh)/h; cell] and down = E[((k+1)h - Y)/h; cell] (up + down = mass).
struct cell_moments {
  double mass = 0.0, up = 0.0, down = 0.0;
};

template <int N>
cell_moments cell_by_quadrature(std::int64_t k, double h, double mu) {
  using gl = boost::math::quadrature::gauss<double, N>;
  const auto& xs = gl::abscissa();
  const auto& ws = gl::weights();
  const double left = static_cast<double>(k) * h;
  cell_moments c;
  auto add = [&](double node, double w) {  // node in [-1, 1]
    const double xi = 0.5 * (1.0 + node);
    const double f = 0.5 * w * lognormal_density(left + h * xi, mu);
    c.up += xi * f;
    c.down += (1.0 - xi) * f;
  };
  for (std::size_t i = 0; i < xs.size(); ++i) {
    add(xs[i], ws[i]);
    if (xs[i] != 0.0) add(-xs[i], ws[i]);
  }
  c.up *= h;
  c.down *= h;
  c.mass = c.up + c.down;
  return c;
}

// Cell k; the first, [0, h], in closed form: P(Y <= h) = Phi(x_h) and
// E[Y; Y <= h] = Phi(x_h - mu).
cell_moments cell(std::int64_t k, double h, double mu) {
  if (k == 0) {
    const double xh = (std::log(h) + 0.5 * mu * mu) / mu;
    cell_moments c;
    c.mass = norm_cdf(xh);
    c.up = std::min(c.mass, norm_cdf(xh - mu) / h);
    c.down = c.mass - c.up;
    return c;
  }
  if (k <= 32) return cell_by_quadrature<20>(k, h, mu);
  if (k <= 1024) return cell_by_quadrature<10>(k, h, mu);
  return cell_by_quadrature<5>(k, h, mu);
}

void apply_margin(window_seq& s) {
  for (double& x : s.v) x *= 1.0 - kQuadratureMargin;
}

// UPPER side: the mean-preserving spread of one step's Y onto 0, h, ...,
// cells h (each cell's mass split between its ends by the distance to the
// other end), Y beyond the cap left out.
window_seq spread_pmf(const lattice_plan& p) {
  window_seq s;
  s.v.assign(static_cast<std::size_t>(p.cells + 1), 0.0);
  for (std::int64_t k = 0; k < p.cells; ++k) {
    const cell_moments c = cell(k, p.h, p.mu);
    s.v[static_cast<std::size_t>(k)] += c.down;
    s.v[static_cast<std::size_t>(k + 1)] += c.up;
  }
  apply_margin(s);
  return s;
}

// LOWER side: a garbling of one step's Y onto the lattice h, 2h, ... whose
// every value v is the conditional mean of the Y sent to it, E[Y | V = v] = v,
// so that the garbled epoch's likelihood ratio is again s/t. Greedy, upwards:
// what arrives at v = kh from below (the rest of a cell under v) falls short
// of v by a deficit D = E[v - Y; arriving]; it is balanced by taking cells
// k, k+1, ... (whole, then the fraction beta of the last one that closes
// the gap) down to v, each with surplus E[Y - v; taken] > 0. The rest of
// the last cell goes up to its top end, as the next value's arriving mass.
// Nothing goes to 0 (a conditional mean of 0 is impossible): cell 0 goes
// up whole; what would need cells beyond the cap is left out (removing
// outcomes lowers every hockey-stick divergence: still below the truth).
window_seq contraction_pmf(const lattice_plan& p) {
  window_seq s;
  s.v.assign(static_cast<std::size_t>(p.cells + 1), 0.0);
  const cell_moments first = cell(0, p.h, p.mu);
  double arriving = first.mass, deficit = first.down;  // at v = h, in units of h
  std::int64_t target = 1;
  std::int64_t j = 1;  // next cell to take
  while (j < p.cells) {
    const cell_moments c = cell(j, p.h, p.mu);
    // surplus of cell j about the target: E[(Y - target h)/h; cell j]
    const double surplus = c.up + static_cast<double>(j - target) * c.mass;
    if (surplus <= deficit) {
      arriving += c.mass;
      deficit -= surplus;
      ++j;
      continue;
    }
    const double beta = deficit / surplus;
    s.v[static_cast<std::size_t>(target)] = arriving + beta * c.mass;
    arriving = (1.0 - beta) * c.mass;
    deficit = (1.0 - beta) * c.down;
    target = ++j;
  }
  apply_margin(s);
  return s;
}

// The window kept for a partial sum of n steps.
void window_of(const lattice_plan& p, std::int64_t n, std::int64_t& lo, std::int64_t& hi) {
  const double nd = static_cast<double>(n);
  const double spread = kWindowZ * std::sqrt(nd * p.second_moment);
  lo = static_cast<std::int64_t>(std::max(0.0, std::floor((nd - spread) / p.h)));
  hi = static_cast<std::int64_t>(std::ceil((nd + spread + p.cap) / p.h));
}

// The t-fold convolution power of one step's spread law, by squaring, each
// partial sum on its window; every entry at most the exact one.
window_seq sum_of_steps(const lattice_plan& p, const window_seq& one, std::int64_t t) {
  window_seq result, base = one;
  std::int64_t have = 0, base_n = 1;
  std::int64_t lo = 0, hi = 0;
  for (std::int64_t rest = t; rest > 0; rest >>= 1) {
    if (rest & 1) {
      if (have == 0) {
        result = base;
      } else {
        window_of(p, have + base_n, lo, hi);
        result = detail::convolve_lower(result, base, lo, hi);
      }
      have += base_n;
    }
    if (rest > 1) {
      window_of(p, 2 * base_n, lo, hi);
      base = detail::convolve_lower(base, base, lo, hi);
      base_n *= 2;
    }
  }
  return result;
}

// The atomic law of the lattice pair: P-masses of the t-step sum, Q = s/t P.
std::shared_ptr<const loss_law> lattice_sum_law(const lattice_plan& p, const window_seq& one,
                                                std::int64_t steps, const std::string& name) {
  const window_seq sum = sum_of_steps(p, one, steps);
  const double t = static_cast<double>(steps);
  std::vector<loss_atom> atoms;
  atoms.reserve(sum.v.size());
  double p_zero = 0.0;
  for (std::size_t i = 0; i < sum.v.size(); ++i) {
    const double mass = sum.v[i];
    if (!(mass > 0)) continue;
    const double s = static_cast<double>(sum.k0 + static_cast<std::int64_t>(i)) * p.h;
    if (s == 0.0) {
      p_zero += mass;  // (every step at 0: Q' has no mass there, loss -inf)
      continue;
    }
    atoms.push_back({std::log(s / t), mass, mass * (s / t)});
  }
  return discrete_law(std::move(atoms), p_zero, 0.0, false,
                      "balls-in-bins epoch of " + std::to_string(steps) + " steps (" + name + ")");
}

}  // namespace

law_bracket balls_in_bins_laws(double sigma, std::int64_t steps, bool upper, bool lower) {
  detail::require_finite_pos(sigma, "balls_in_bins_laws", "sigma");
  detail::require(steps >= 1 && steps <= 100000000, "balls_in_bins_laws", "steps",
                  static_cast<double>(steps), "must be an integer in [1, 1e8]");
  if (steps == 1) {  // one step: the Gaussian pair itself
    std::shared_ptr<const loss_law> g(make_law(gaussian{1.0 / sigma}).release());
    return {upper ? g : nullptr, lower ? g : nullptr};
  }
  const lattice_plan p = plan_lattice(1.0 / sigma, steps);
  std::int64_t lo = 0, hi = 0;
  window_of(p, steps, lo, hi);
  if (hi - lo > kMaxPoints || p.cells > kMaxPoints) return {};
  law_bracket r;
  if (upper) r.upper = lattice_sum_law(p, spread_pmf(p), steps, "upper law, a refinement");
  if (lower) r.lower = lattice_sum_law(p, contraction_pmf(p), steps, "lower law, a garbling");
  return r;
}

}  // namespace fdp
