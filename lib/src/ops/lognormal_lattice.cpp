#include "ops/lognormal_lattice.hpp"

#include <boost/math/quadrature/gauss.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

#include "fdp/core/normal.hpp"

namespace fdp::detail {
namespace {

// The standard normal density of x(y) = (log y + mu^2/2)/mu, per unit y.
double lognormal_density(double y, double mu) {
  const double x = (std::log(y) + 0.5 * mu * mu) / mu;
  return norm_pdf(x) / (mu * y);
}

// One lattice cell by Gauss-Legendre (the density is smooth there; more
// nodes where the cell is wide relative to its position).

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

void apply_margin(window_seq& s) {
  // (cells below 1e-100, far in the lower tail, are left out: there the
  // density's relative error, ~u x^2, could pass the margin)
  for (double& x : s.v) x = x < 1e-100 ? 0.0 : x * (1.0 - kLatticeMargin);
}

}  // namespace

lattice_plan plan_lattice(double mu, std::int64_t steps, double cap_tail) {
  lattice_plan p;
  p.mu = mu;
  p.second_moment = std::exp(mu * mu);
  const double sd = std::sqrt(std::expm1(mu * mu));
  // Q(Y > cap) = Phi-bar((log cap - mu^2/2) / mu) = cap_tail
  p.cap = std::exp(norm_quantile_c(cap_tail) * mu + 0.5 * mu * mu);
  // (h = 0.08 sd(Y): the MNIST-like bracket is 0.23% wide, 0.18% at 0.02 sd
  // for four times the work)
  double want = std::max(0.08 * sd, p.cap / 131072.0);
  // The spread sends Y <= h partly to 0, where Q' has no mass: keep
  // P(every step <= h) = Phi(x_h)^t below 1e-10 where that costs at most
  // kLatticeMaxCells (it is a floor under the upper side's delta in the
  // other order; balls_in_bins_law.cpp checks what it came to).
  const double x_zero = norm_quantile(std::pow(1e-10, 1.0 / static_cast<double>(steps)));
  want = std::min(want, std::exp(x_zero * mu - 0.5 * mu * mu));
  p.h = std::exp2(std::floor(std::log2(want)));
  const double fewest =
      p.cap / static_cast<double>(steps <= 16 ? kLatticeMaxCellsShort : kLatticeMaxCells);
  if (p.h < fewest) p.h = std::exp2(std::ceil(std::log2(fewest)));
  p.cells = static_cast<std::int64_t>(std::ceil(p.cap / p.h));
  p.coarse = p.h > 0.5 * sd;
  return p;
}

// Cell k; the first, [0, h], in closed form: P(Y <= h) = Phi(x_h) and
// E[Y; Y <= h] = Phi(x_h - mu).
cell_moments lattice_cell(std::int64_t k, double h, double mu) {
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

// UPPER side: the mean-preserving spread of one step's Y onto 0, h, ...,
// cells h (each cell's mass split between its ends by the distance to the
// other end), Y beyond the cap left out.
window_seq spread_pmf(const lattice_plan& p) {
  window_seq s;
  s.v.assign(static_cast<std::size_t>(p.cells + 1), 0.0);
  for (std::int64_t k = 0; k < p.cells; ++k) {
    const cell_moments c = lattice_cell(k, p.h, p.mu);
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
  const cell_moments first = lattice_cell(0, p.h, p.mu);
  double arriving = first.mass, deficit = first.down;  // at v = h, in units of h
  std::int64_t target = 1;
  std::int64_t j = 1;  // next cell to take
  while (j < p.cells) {
    const cell_moments c = lattice_cell(j, p.h, p.mu);
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

}  // namespace fdp::detail
