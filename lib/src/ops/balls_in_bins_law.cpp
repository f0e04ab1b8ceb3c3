// balls_in_bins_laws (fdp/ops/loss_law.hpp): certified upper and lower laws
// for one epoch of balls-in-bins batches (each record in one uniformly
// chosen step of t), Gaussian noise.
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
// law of S. No closed form; this file builds two pairs with exactly known
// masses, one provably LESS private (the upper side: composed bounds stay
// upper bounds) and one provably MORE private (the lower side):
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
//    the shifted step exceeds it with probability 1e-13) is left out, and
//    the t-fold convolution is computed by long-double FFTs certified from
//    below (positive_convolution.hpp), each partial sum kept on a window that
//    holds all but a negligible part of it.
// 3. Garbling (the lower side). Each Y is sent to a lattice value v with
//    E[Y | V = v] = v (lognormal_lattice.hpp, contraction_pmf): a
//    post-processing whose epoch ratio is again exactly s/t. Leaving out
//    mass at the same ratio removes outcomes, which lowers every
//    hockey-stick divergence: the same sub-measure arithmetic serves.
//
// The engine then discretizes the two atomic laws like any other: the
// refinement pessimistically (upper side), the garbling optimistically
// (lower side, compose_term::law_opt).
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "fdp/core/error.hpp"
#include "fdp/core/families.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/loss_law.hpp"
#include "ops/lognormal_lattice.hpp"
#include "ops/positive_convolution.hpp"

namespace fdp {
namespace {

using detail::kMaxSumPoints;
using detail::kSumWindowZ;
using detail::lattice_plan;
using detail::window_seq;

// The window [lo, hi] of lattice indices kept for a sum of n steps' Y: n
// -+ kSumWindowZ sqrt(n E Y^2), plus the cap above.
void window_of(const lattice_plan& p, std::int64_t n, std::int64_t& lo, std::int64_t& hi) {
  const double nd = static_cast<double>(n);
  const double spread = kSumWindowZ * std::sqrt(nd * p.second_moment);
  lo = static_cast<std::int64_t>(std::max(0.0, std::floor((nd - spread) / p.h)));
  hi = static_cast<std::int64_t>(std::ceil((nd + spread + p.cap) / p.h));
}

// The n-fold convolution power of one step's lattice law, each partial sum
// on its window; every entry at most the exact one.
window_seq sum_of_steps(const lattice_plan& p, const window_seq& one, std::int64_t n) {
  return detail::convolution_power(
      one, n, [&](std::int64_t m, std::int64_t& lo, std::int64_t& hi) { window_of(p, m, lo, hi); });
}

// The lattice pair's Q-side for one step, b_v = v a_v (each entry at most
// the exact one, as a's).
window_seq first_moments(const lattice_plan& p, const window_seq& one) {
  window_seq b = one;
  for (std::size_t i = 0; i < b.v.size(); ++i)
    b.v[i] *= static_cast<double>(one.k0 + static_cast<std::int64_t>(i)) * p.h;
  return b;
}

// The atomic law of the lattice pair of a t-step sum: P(s) = a^{*t}(s), Q(s) =
// (s/t) P(s) = (b * a^{*(t-1)})(s) (each step is the shifted one with
// probability 1/t). Both are computed, each a lower bound entrywise: where
// P(s) is tiny beside the FFT's error but Q(s) is not (the far tail, where
// s/t is large) the Q-side keeps it. Kept: the larger of the two lower
// bounds on P(s) (Q's times t/s), with Q at exactly s/t times it.
std::shared_ptr<const loss_law> lattice_sum_law(const lattice_plan& p, const window_seq& one,
                                                std::int64_t steps, const std::string& name) {
  const window_seq rest = sum_of_steps(p, one, steps - 1);
  std::int64_t lo = 0, hi = 0;
  window_of(p, steps, lo, hi);
  const auto [pm, qm] = detail::convolve_lower_twice(rest, one, first_moments(p, one), lo, hi);
  const double t = static_cast<double>(steps);
  std::vector<loss_atom> atoms;
  atoms.reserve(pm.v.size());
  double p_zero = 0.0;
  for (std::int64_t k = pm.k0; k < pm.k0 + static_cast<std::int64_t>(pm.v.size()); ++k) {
    const double s = static_cast<double>(k) * p.h;
    double mass = pm.v[static_cast<std::size_t>(k - pm.k0)];
    const std::int64_t iq = k - qm.k0;
    if (s > 0 && iq >= 0 && iq < static_cast<std::int64_t>(qm.v.size()))
      mass = std::max(mass, qm.v[static_cast<std::size_t>(iq)] * (t / s) * (1 - 1e-15));
    if (!(mass > 0)) continue;
    if (s == 0.0) {
      p_zero += mass;  // (every step at 0: Q' has no mass there, loss -inf)
      continue;
    }
    atoms.push_back({std::log(s / t), mass, mass * (s / t)});
  }
  return discrete_law(std::move(atoms), p_zero, 0.0, false,
                      "balls-in-bins epoch of " + std::to_string(steps) + " steps (" + name + ")");
}

// The last few laws built (calibration and the CLI's several accountants ask
// for the same epoch again; a law of a long epoch takes ~0.5 s).
class law_cache {
 public:
  std::optional<law_bracket> find(double sigma, std::int64_t steps, bool upper, bool lower,
                                  double relaxed) {
    std::lock_guard<std::mutex> lk(m_);
    for (const auto& e : entries_)
      if (e.sigma == sigma && e.steps == steps && e.upper == upper && e.lower == lower &&
          e.relaxed == relaxed)
        return e.laws;
    return std::nullopt;
  }
  void add(double sigma, std::int64_t steps, bool upper, bool lower, double relaxed,
           const law_bracket& laws) {
    std::lock_guard<std::mutex> lk(m_);
    if (entries_.size() >= 8) entries_.erase(entries_.begin());
    entries_.push_back({sigma, steps, upper, lower, relaxed, laws});
  }

 private:
  struct entry {
    double sigma;
    std::int64_t steps;
    bool upper, lower;
    double relaxed;
    law_bracket laws;
  };
  std::mutex m_;
  std::vector<entry> entries_;
};

law_cache& cache() {
  static law_cache c;
  return c;
}

// The lattice at the usual cap, or at the first of the caps leaving out
// 1e-12, 1e-11, ..., up to max_tail (at most 1e-7) of the shifted step's
// tail that is fine enough (sigma 0.6: 1e-10; sigma 0.5: 1e-7).
lattice_plan plan_for(double sigma, std::int64_t steps, double max_tail) {
  lattice_plan p = detail::plan_lattice(1.0 / sigma, steps);
  const double most = 1.01 * std::min(max_tail, 1e-7);
  for (double tail = 1e-12; p.coarse && tail <= most; tail *= 10)
    p = detail::plan_lattice(1.0 / sigma, steps, tail);
  return p;
}

law_bracket build_laws(double sigma, std::int64_t steps, bool upper, bool lower, double relaxed) {
  if (steps == 1) {  // one step: the Gaussian pair itself
    std::shared_ptr<const loss_law> g(make_law(gaussian{1.0 / sigma}).release());
    return {upper ? g : nullptr, lower ? g : nullptr};
  }
  const lattice_plan p = plan_for(sigma, steps, relaxed);
  std::int64_t lo = 0, hi = 0;
  window_of(p, steps, lo, hi);
  if (p.coarse || hi - lo > kMaxSumPoints) return {};
  law_bracket r;
  if (upper) r.upper = lattice_sum_law(p, detail::spread_pmf(p), steps, "upper law, a refinement");
  if (lower)
    r.lower = lattice_sum_law(p, detail::contraction_pmf(p), steps, "lower law, a garbling");
  // (an upper law with P-mass at loss -inf beyond 1e-10, where h could not
  // be fine enough near 0 for few steps, would floor delta: left out)
  if (r.upper && r.upper->p_neg_inf() > 1e-10) r.upper = nullptr;
  return r;
}

// The pair (P, (1 - rho) P + rho Q) of an atomic law's (P, Q): each atom's
// likelihood ratio r becomes 1 - rho + rho r, its Q-mass (1 - rho) p + rho q
// (P's mass at -inf gets the finite ratio 1 - rho). A kernel that garbles
// (P', Q') into (P, Q) garbles the mixtures alike, so a refinement (or a
// garbling) stays one.
std::shared_ptr<const loss_law> diluted(const std::shared_ptr<const loss_law>& law, double rho) {
  if (!law || rho == 1.0) return law;
  std::vector<loss_atom> atoms;
  const double keep = 1.0 - rho;
  if (law->p_neg_inf() > 0)
    atoms.push_back({std::log1p(-rho), law->p_neg_inf(), keep * law->p_neg_inf()});
  for (const loss_atom& a : law->atoms())
    atoms.push_back({std::log1p(rho * std::expm1(a.loss)), a.p, keep * a.p + rho * a.q});
  return discrete_law(std::move(atoms), 0.0, rho * law->q_pos_inf(), false,
                      law->describe() + ", diluted to rate " + detail::format_value(rho));
}

}  // namespace

law_bracket balls_in_bins_laws(double sigma, std::int64_t steps, bool upper, bool lower, double rho,
                               double relaxed_cap_tail) {
  detail::require_finite_pos(sigma, "balls_in_bins_laws", "sigma");
  detail::require(steps >= 1 && steps <= 100000000, "balls_in_bins_laws", "steps",
                  static_cast<double>(steps), "must be an integer in [1, 1e8]");
  detail::require(rho > 0 && rho <= 1, "balls_in_bins_laws", "rho", rho, "must be in (0, 1]");
  if (steps == 1 && rho < 1.0) {
    // (one step diluted is the Poisson-subsampled Gaussian pair at rate rho,
    // exactly; `diluted` maps atoms only, and left the one step's Gaussian
    // law, which has none, with no mass: its lower bound read 0)
    std::shared_ptr<const loss_law> g(subsampled_gaussian_law(sigma, 1.0, rho).release());
    return {upper ? g : nullptr, lower ? g : nullptr};
  }
  std::optional<law_bracket> r = cache().find(sigma, steps, upper, lower, relaxed_cap_tail);
  if (!r) {
    r = build_laws(sigma, steps, upper, lower, relaxed_cap_tail);
    cache().add(sigma, steps, upper, lower, relaxed_cap_tail, *r);
  }
  return {diluted(r->upper, rho), diluted(r->lower, rho)};
}

}  // namespace fdp
