#include "ops/pld/terms.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ops/pld/numbers.hpp"

namespace fdp::detail {

namespace {
// The eta form of a pessimistic grid (pld_grid.hpp): its masses are within
// 1 +- r of the exact ones, so the exact ones within 1 / (1 - r) of them.
void take_eta_form(oriented_term& t, const grid_pmf& g) {
  if (!(g.eta_loss >= 0)) return;  // (t.rel stays +inf: no eta form)
  t.rel = std::nextafter(g.eta_rel / (1.0 - g.eta_rel), kInf);
  t.eta = g.eta_loss;
  t.eta_abs = g.eta_abs;
}
}  // namespace

oriented_term orient(const grid_pmf& g, bool use_p, double h) {
  oriented_term t;
  const std::size_t n = g.p.size();
  if (!use_p) {
    t.x = g.q;
    t.off = g.offset;
    t.k0 = g.k0;
    t.inf = g.q_pos_inf;
    t.inf_err = g.q_pos_inf_err;
    t.e = g.err_q;
  } else {
    t.x.assign(g.p.rbegin(), g.p.rend());
    t.off = -g.offset;
    t.k0 = -(g.k0 + static_cast<std::int64_t>(n) - 1);
    t.inf = g.p_neg_inf;
    t.inf_err = g.p_neg_inf_err;
    t.e.assign(g.err_p.rbegin(), g.err_p.rend());
  }
  t.full = g.dropped_p == 0 && g.dropped_q == 0 && g.leftover == 0;
  double s2 = 0.0;
  for (double v : t.x) t.fin += v, s2 += v * v;
  t.l2 = std::sqrt(s2);
  t.all = std::min(1.0, t.fin + t.inf);
  // error bounds in the orientation's measure, plus input rounding
  if (t.e.size() != t.x.size()) t.e.assign(t.x.size(), 0.0);
  for (std::size_t k = 0; k < t.e.size(); ++k) t.e[k] += 8 * kU * std::fabs(t.x[k]);
  t.a = shift_discounted_errors(g, use_p, t.e, h);
  for (double v : t.x) t.s0 += std::max(0.0, v);
  for (double v : t.e) t.e0 += v;
  if (t.a.empty()) t.a0 = t.e0;
  for (double v : t.a) t.a0 += v;
  take_eta_form(t, g);
  return t;
}

void tilt_sums(oriented_term& t, double h, const std::vector<double>& tilts) {
  tilted_log_mgfs(t.x, t.off, h, t.k0, tilts, t.km);
  tilted_log_mgfs(t.e, t.off, h, t.k0, tilts, t.ke);
  t.ka.clear();
  if (!t.a.empty()) tilted_log_mgfs(t.a, t.off, h, t.k0, tilts, t.ka);
}

composition_sums::composition_sums(std::vector<double> ts)
    : tilts(std::move(ts)), K(tilts.size(), 0.0), acc(tilts.size()) {}

void composition_sums::add(const oriented_term& t, std::int64_t n, double h) {
  const double nn = static_cast<double>(n);
  off += nn * t.off;
  base += n * t.k0;
  top += n * (t.k0 + static_cast<std::int64_t>(t.x.size()) - 1);
  lmin += nn * (t.off + static_cast<double>(t.k0) * h);
  lmax += nn * (t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(t.x.size()) - 1) * h);
  terms += nn;
  distinct += 1.0;
  err_in += nn * t.l2;
  // Mass at +inf. A full probability measure (every pessimistic pmf; an
  // optimistic one unless its garbling removed mass) has T = 1 exactly: its
  // factor is (1 - I)^n, free of the rounding of the computed fin + I (which
  // at 1 - u made f_{1,1e-5}^(x)1e12 read m_inf = 1 - 1.1e-4 against the truth
  // 1 - e^-1e7, and at 1 + u pushes m_inf above the truth by n ulps). The
  // others have T = min(1, fin + I) as computed, and every one of them scales
  // the product's mass at +inf, also without mass there of its own.
  all_full = all_full && t.full;
  if (t.inf > 0) inf_apps += n, inf_one = t.inf;
  if (t.full) {
    if (t.inf > 0) inf_lg += nn * std::log1p(-std::min(1.0, t.inf)), inf_adds += 1;
  } else {
    inf_lt += nn * std::log(t.all);
    nf_apps += n;
    inf_adds += 1;
    if (t.all > 0 && t.inf > 0)
      inf_lg += nn * std::log1p(-std::min(1.0, t.inf / t.all)), inf_adds += 1;
  }
  inf_err += nn * t.inf_err;  // (m_inf moves by at most n_i per unit of I_i)
  // Chernoff and the mass-error bounds (a term with errors but no finite
  // mass counts too: its factor is D)
  acc0.add(std::log(t.s0), std::log(t.e0), std::log(t.a0), nn);
  for (std::size_t i = 0; i < tilts.size(); ++i) {
    K[i] += nn * t.km[i];
    acc[i].add(t.km[i], t.ke[i], t.a.empty() ? t.ke[i] : t.ka[i], nn);
  }
  shifts = shifts || !t.a.empty();
  // The eta form: every term must have one
  if (!std::isfinite(t.rel)) {
    log1p_rel = kInf;
    return;
  }
  log1p_rel += nn * std::log1p(t.rel);
  eta += nn * t.eta;
  eta_abs += nn * t.eta_abs;
}

double composition_sums::rel_factor() const {
  // (n log1p(r) and their sum round by (distinct + 2) u relative; expm1
  // by u more: the 1e-12 covers the rest)
  if (!std::isfinite(log1p_rel)) return kInf;
  const double v = std::expm1(log1p_rel + eta);
  return std::nextafter(v * (1 + 1e-12 + 4 * kU * (distinct + 4.0)), kInf);
}

double composition_sums::eta_shift() const {
  if (!std::isfinite(log1p_rel) || eta == 0) return 0.0;
  return std::nextafter(eta * (1 + 4 * kU * (distinct + 2.0)), kInf);
}

double composition_sums::m_inf() const {
  // One application of a full measure with mass at +inf, the others with
  // none: that mass itself, exactly (an f_{1,1e-5} at delta = 1e-5 read
  // epsilon [1, inf] under a margin).
  if (inf_apps == 1 && all_full) return inf_one;
  return std::max(0.0, -std::exp(inf_lt) * std::expm1(inf_lg));
}

double composition_sums::m_inf_rel() const {
  if (inf_apps == 1 && all_full) return 0.0;
  // log1p, expm1, exp: 2u each; n x log1p(.): u; a sum of k same-sign terms:
  // k u; -expm1(L) moves by at most L's relative error (|L| e^L / (1 - e^L)
  // <= 1); log T of a term that is not full: u per application (T rounds
  // near 1), so exp(inf_lt) carries nf_apps u. Doubled.
  return 2.0 * kU * (10.0 + static_cast<double>(inf_adds) + static_cast<double>(nf_apps));
}

double composition_sums::err0() const {
  const double e = std::exp(acc0.log_product());
  return shifts ? std::min(e, std::exp(acc0.log_shift())) : e;
}

double composition_sums::log_err_at(std::size_t i) const {
  double ek = acc[i].log_product();
  // (the shifts' bound holds for t >= 0 only: it bounds nu{> eps - l} by a Chernoff bound)
  if (shifts && tilts[i] > 0) ek = std::min(ek, acc[i].log_shift());
  return ek;
}

void composition_sums::window(double tail, double& y_lo, double& y_hi) const {
  const double lt = std::log(tail);
  y_hi = lmax, y_lo = lmin;
  for (std::size_t i = 0; i < tilts.size(); ++i) {
    if (!std::isfinite(K[i])) continue;
    const double y = (K[i] - lt) / tilts[i];
    if (tilts[i] > 0)
      y_hi = std::min(y_hi, y);
    else
      y_lo = std::max(y_lo, y);
  }
}

void composition_sums::meet_crossed(double& y_lo, double& y_hi) const {
  // Crossed bounds: the finite part's mass above y_hi and below y_lo is at
  // most `tail` each, so with y_hi < y_lo it is at most 2 tail in all (its
  // total is negligible: f_{1,1e-5}^(x)1e8 keeps (1 - 1e-5)^1e8 = e^-1000 of
  // it). Any point between them bounds both sides as well; the window shrinks
  // to one of them inside the support (y_hi <= lmax and y_lo >= lmin, so
  // [max(y_hi, lmin), min(y_lo, lmax)] is not empty); spanning [y_hi, y_lo]
  // instead asked for 1e9 points there.
  if (y_hi < y_lo) y_hi = y_lo = 0.5 * (std::max(y_hi, lmin) + std::min(y_lo, lmax));
}

void composition_sums::indices(double y_lo, double y_hi, double h, std::int64_t& klo,
                               std::int64_t& khi) const {
  klo = std::max(static_cast<std::int64_t>(std::floor((y_lo - off) / h)) - 1, base);
  khi = std::min(static_cast<std::int64_t>(std::ceil((y_hi - off) / h)) + 1, top);
  if (khi < klo) khi = klo;
}

double fft_rounding_normwise(double err_in, double mults, std::int64_t N, double zn) {
  const double gamma = 10.0 * kU * std::log2(static_cast<double>(N));
  return gamma * (err_in + zn) + 3.0 * kU * mults * zn + kU;
}

}  // namespace fdp::detail
