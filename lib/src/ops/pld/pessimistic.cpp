#include "ops/pld/pessimistic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "fdp/core/error.hpp"

#include "ops/pld/numbers.hpp"

namespace fdp::detail {
namespace {
// Compensated (Neumaier) sum of v plus `extra`.
double total_mass(const std::vector<double>& v, double extra) {
  double s = extra, c = 0.0;
  for (double x : v) {
    const double t = s + x;
    c += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
    s = t;
  }
  return s + c;
}

// The pessimistic completion. P and Q are probability measures, so the
// grid must hold all of each (up to the error bounds it carries). A law
// whose interval masses miss part of the line (a subsampled Laplace law
// once lost 0.13% of P between its bottom atom and the first cell: its
// inverse loss is flat there) would make a grid below the truth; the
// missing P-mass is put at loss -inf and the missing Q-mass at +inf
// instead, where any outcomes are dominated (the pair (P - lost_P,
// Q - lost_Q) plus a perfectly distinguishing remainder is a refinement of
// the true pair). Within the grid's own error bounds nothing changes.
void complete_masses(grid_pmf& r) {
  const double tp = total_mass(r.p, r.p_neg_inf), tq = total_mass(r.q, r.q_pos_inf);
  const double ep =
      total_mass(r.err_p, r.p_neg_inf_err) + 8 * kU * static_cast<double>(r.p.size() + 1);
  const double eq =
      total_mass(r.err_q, r.q_pos_inf_err) + 8 * kU * static_cast<double>(r.q.size() + 1);
  if (1.0 - tp > ep) {
    r.p_neg_inf_err += ep + kU * r.p_neg_inf;
    r.p_neg_inf += 1.0 - tp;
  }
  if (1.0 - tq > eq) {
    r.q_pos_inf_err += eq + kU * r.q_pos_inf;
    r.q_pos_inf += 1.0 - tq;
  }
}

// What the relative (eta) form of the errors needs from the cells
// (pld_grid.hpp: grid_pmf::eta_loss): the largest move of a cell's ratio
// that makes its clamped split exact, and the masses too close to the
// underflow to be relatively accurate (counted whole, absolutely).
struct cell_eta {
  bool ok = true;
  double clamp = 0.0, tiny = 0.0;
  void note(const mass2& m, double numer, double u_raw, double h) {
    constexpr double kTiny = 1e-290;
    if (!(m.p > 0 || m.q > 0)) return;
    if (m.p < kTiny || m.q < kTiny) {
      // (a mass near the underflow has no relative accuracy, so neither has
      // the cell's ratio: its atoms are counted whole; a cell of one measure
      // only, with no ratio to move, too)
      tiny += 2.0 * (m.p + m.q);
      return;
    }
    // numer / p = (q / p) e^{-l_{k-1}} - 1: below 0 the ratio is under
    // e^{l_{k-1}}, above e^h - 1 over e^{l_k}
    if (u_raw < 0)
      clamp = std::max(clamp, -std::log1p(numer / m.p));
    else if (u_raw > m.p)
      clamp = std::max(clamp, std::log1p(numer / m.p) - h);
  }
};

// The eta form of a finished pessimistic grid (pld_grid.hpp). The cells'
// masses are the law's masses of one outcome set each, within rel =
// law.mass_rel(); moving Q by a factor 1 +- 2 rel + 16 u (the masses' and
// the split's roundings) and by the boundary's and the clamps' loss errors
// makes every split exact, and the atoms' own roundings add 8 u relative.
void set_eta_form(grid_pmf& r, const loss_law& law, const cell_eta& c, double lo, double hi) {
  const double eb = law.boundary_error(lo, hi), rel = law.mass_rel();
  if (!c.ok || !(eb >= 0) || !std::isfinite(eb) || !(rel >= kIntervalRel && rel < 1e-6)) return;
  r.eta_loss = eb + c.clamp + 2 * rel + 16 * kU;
  r.eta_rel = rel + 8 * kU;
  // (each atom may also be off by an underflow's 2^-1074 absolutely)
  r.eta_abs = c.tiny + 4.9e-324 * 4.0 * static_cast<double>(r.p.size() + 2);
}

}  // namespace

grid_pmf discretize_pessimistic(const loss_law& law, double h, double off, double lo, double hi) {
  grid_pmf r;
  r.h = h;
  r.offset = off;
  std::int64_t klo = static_cast<std::int64_t>(std::floor((lo - off) / h + 1e-9));
  std::int64_t khi = static_cast<std::int64_t>(std::ceil((hi - off) / h - 1e-9));
  // The grid's ends reach the cuts (or the law's own ends) as computed: an
  // end atom a rounding above the top grid point was folded into +inf (a
  // curve with atoms at +-log 2 put 1e-15 there, and its epsilon at delta 0
  // read [0.693, inf]).
  {
    const double top = std::min(hi, law.hi()), bot = std::max(lo, law.lo());
    const auto Lk = [&](std::int64_t k) { return off + static_cast<double>(k) * h; };
    if (std::isfinite(top))
      while (Lk(khi) < top) ++khi;
    if (std::isfinite(bot))
      while (Lk(klo) > bot) --klo;
  }
  if (khi < klo) khi = klo;
  r.k0 = klo;
  const std::size_t n = static_cast<std::size_t>(khi - klo + 1);
  r.p.assign(n, 0.0);
  r.q.assign(n, 0.0);
  r.err_p.assign(n, 0.0);
  r.err_q.assign(n, 0.0);
  r.shift_p.assign(n, 0.0);
  r.shift_q.assign(n, 0.0);
  auto L = [&](std::int64_t k) { return off + static_cast<double>(k) * h; };
  cell_eta ce;
  ce.ok = law.consistent_masses();
  // bottom: the tangent of slope -e^{l_klo} takes the Q-mass; the P excess goes to -inf
  {
    const mass2 b = law.mass(-kInf, L(klo));
    const double pp = b.q > 0 ? b.q * std::exp(-L(klo)) : 0.0;
    r.q[0] += b.q;
    r.p[0] += std::min(pp, b.p);
    r.p_neg_inf += std::max(0.0, b.p - pp);
    if (b.p > pp) r.p_neg_inf_err += kMassRel * (pp + b.p);
    if (std::min(b.q, pp) < 1e-290) ce.tiny += 2.0 * (b.q + std::min(pp, b.p));  // (its atom)
    r.err_q[0] += kMassRel * b.q;
    r.err_p[0] += kMassRel * (pp + b.p);
  }
  const double em1 = std::expm1(h);
  for (std::int64_t k = klo + 1; k <= khi; ++k) {
    const mass2 m = law.mass(L(k - 1), L(k));
    if (!(m.p > 0 || m.q > 0)) continue;
    const double lk = L(k), lk1 = L(k - 1);
    // P-mass sent to the upper end: u e^{l_k} + (p - u) e^{l_{k-1}} = q.
    const double numer = (m.q > 0 ? m.q * std::exp(-lk1) : 0.0) - m.p;
    double u = numer / em1;
    if (ce.ok) ce.note(m, numer, u, h);
    u = std::clamp(u, 0.0, m.p);
    const double w = m.p - u;
    const std::size_t i = static_cast<std::size_t>(k - klo);
    const double el = std::exp(lk), el1 = std::exp(lk1);
    const double qu = u * el, qw = w * el1;
    r.p[i] += u;
    r.q[i] += qu;
    r.p[i - 1] += w;
    r.q[i - 1] += qw;
    // The law's masses are accurate to kMassRel (and the numerator's own
    // rounding, a few kU of its terms): u misses the exact split u* by at
    // most du, amplified by 1/(e^h - 1). Against the exact split, the error
    // is P-mass u - u* moved from l_{k-1} to l_k (Q-mass (u - u*) e^{l_{k-1}},
    // plus (u - u*) e^{l_{k-1}} (e^h - 1) more at l_k), and the mass error
    // p - p* at l_{k-1}: the move is a shift (shift_p / shift_q), the rest
    // absolute; err_p / err_q hold both.
    const double du =
        (kMassRel + 4 * kU) * ((m.q > 0 ? m.q * std::exp(-lk1) : 0.0) + m.p) / em1 + 4 * kU * m.p;
    const double d = std::min(m.p, du);
    r.shift_p[i] += d;
    r.shift_q[i] += d * el1;
    r.err_p[i] += d + kMassRel * u;
    r.err_q[i] += d * el + kMassRel * qu;
    r.err_p[i - 1] += d + kMassRel * (w + m.p);
    r.err_q[i - 1] += d * el1 + kMassRel * (qw + m.p * el1);
  }
  // top: the tangent of slope -e^{l_khi} takes the P-mass; the Q excess goes to +inf
  {
    const mass2 t = law.mass(L(khi), kInf);
    const double qq = t.p > 0 ? t.p * std::exp(L(khi)) : 0.0;
    r.p[n - 1] += t.p;
    r.q[n - 1] += std::min(qq, t.q);
    r.q_pos_inf += std::max(0.0, t.q - qq);
    if (t.q > qq) r.q_pos_inf_err += kMassRel * (qq + t.q);
    if (std::min(t.p, qq) < 1e-290) ce.tiny += 2.0 * (t.p + std::min(qq, t.q));
    r.err_p[n - 1] += kMassRel * t.p;
    r.err_q[n - 1] += kMassRel * (qq + t.q);
  }
  // (the law's own masses are exact; adding them to a fold rounds once)
  r.p_neg_inf += law.p_neg_inf();
  r.q_pos_inf += law.q_pos_inf();
  if (r.p_neg_inf_err > 0) r.p_neg_inf_err += kU * r.p_neg_inf;
  if (r.q_pos_inf_err > 0) r.q_pos_inf_err += kU * r.q_pos_inf;
  complete_masses(r);
  if (ce.ok) set_eta_form(r, law, ce, L(klo), L(khi));
  return r;
}

}  // namespace fdp::detail
