#include "ops/pld/pld_grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "fdp/core/error.hpp"

#include "ops/pld/numbers.hpp"
#include "ops/pld/terms.hpp"

namespace fdp {

using detail::kInf;
using detail::kU;

namespace detail {
// a + b for a, b >= 0, rounded up / down: the mass at +inf plus a finite
// part far below its ulp (f_{0.012,1e-6} (x) f_{0.012,0}^80 at delta 1e-6:
// 1e-6 + 1e-22 rounds to 1e-6, and the upper end of epsilon read 0.898
// where the truth is 0.972) must not vanish in an upper bound.
double sum_up(double a, double b) {
  const double s = a + b;
  return b > 0 ? std::nextafter(s, kInf) : s;
}
double sum_down(double a, double b) {
  const double s = a + b;
  return b > 0 && s > 0 ? std::nextafter(s, 0.0) : s;
}
}  // namespace detail

namespace {
// The relative rounding of sm - c se (c <= 1) against the mass above eps:
// the compensated suffix sums sm 2u, the e^{-h} recurrence of se
// 2u / (1 - e^{-h}), and the difference a few u.
double summation_rounding(double h) { return (2.0 / -std::expm1(-h) + 8.0) * kU; }
}  // namespace

composed_pld composed_pld::from_lattice(double h, double offset, std::int64_t k0,
                                        std::vector<double> m, double m_inf, double m_inf_rel) {
  composed_pld r;
  r.h_ = h;
  r.offset_ = offset;
  r.k0_ = k0;
  r.m_ = std::move(m);
  r.m_inf_ = m_inf;
  r.m_inf_rel_ = m_inf_rel;
  r.top_index_ = k0 + static_cast<std::int64_t>(r.m_.size()) - 1;
  // (offset + k h: the offset's own rounding, the product's and the sum's)
  r.loss_err_ = 4 * kU * (2 * std::fabs(offset) + std::fabs(r.hi()));
  r.finish();
  // Only rounding: each mass is relative 1e-13 off (Loader's saddle point
  // binomial), the suffix sums sm (compensated) and se (e^{-h} recurrence)
  // add 2u and 2u / (1 - e^{-h}), and delta_raw's m_inf + sm - c se (c <= 1)
  // a few u; on the masses above eps, so the error is RELATIVE to them: an
  // absolute 1e-13 of the total made 'epsdelta:eps=0.1,times=100 --delta
  // 1e-14' read [7.15, 10.0] against 7.39076. Twice the relative error of
  // sm + c se <= 2 sm.
  r.lattice_rel_ = 2.0 * (1e-13 + summation_rounding(h));
  r.err0_ = r.lattice_rel_ * (r.m_.empty() ? 0.0 : r.sm_[0]);
  return r;
}

// The tilt's rounding as a relative factor (pld_grid.hpp, composed_pld::
// fft_error): the exact untilted composition X of the computed inputs and
// mu_hat, what the transform would give exactly from the tilted inputs as
// rounded, untilted as computed, satisfy mu_hat = X g atom by atom with g
// within [1 - t, 1 + t]; so |X - mu_hat| <= t / (1 - t) mu_hat, and mu_hat
// is the computed masses within the FFT error without the tilt's rounding
// (fft_l2_rel).
void composed_pld::set_tilt_form(composed_pld& r, const detail::window_masses& w) {
  if (!(w.tilt_rel > 0 && w.tilt_rel < 0.5)) return;
  r.has_tilt_form_ = true;
  r.tilt_factor_ = std::nextafter(w.tilt_rel / (1.0 - w.tilt_rel) * (1 + 1e-12), kInf);
  r.fft_l2_rel_ = w.fft_l2_rel;
}

composed_pld composed_pld::from_sums(const detail::composition_sums& s, double h,
                                     detail::window_masses w) {
  composed_pld r;
  r.h_ = h;
  r.offset_ = s.off;
  r.k0_ = w.klo;
  r.top_index_ = s.top;
  // The positions' rounding: off and the support ends are sums of n_i times
  // the terms' offsets and ends (one rounding per term and product), and
  // off + K h rounds twice more.
  r.loss_err_ =
      4 * kU * (s.distinct + 2.0) * (std::fabs(s.lmin) + std::fabs(s.lmax) + std::fabs(s.off));
  r.m_inf_ = s.m_inf();
  r.m_inf_rel_ = s.m_inf_rel();
  r.m_inf_err_ = s.inf_err;
  r.err0_ = s.err0();
  r.rel_rho_ = s.rel_factor();
  r.eta_shift_ = s.eta_shift();
  r.has_eta_ = std::isfinite(r.rel_rho_) && r.eta_shift_ > 0;
  r.eta_abs_ = s.eta_abs;
  r.fin_rel_ = 2.0 * summation_rounding(h);
  for (std::size_t i = 0; i < s.tilts.size(); ++i) {
    r.cher_t_.push_back(s.tilts[i]);
    r.cher_k_.push_back(s.K[i]);
    r.err_k_.push_back(s.log_err_at(i));
  }
  set_tilt_form(r, w);
  if (!w.windowed) {
    r.tail_hi_ = 1.0;  // (every finite mass is a Chernoff tail)
    r.finish();
    return r;
  }
  r.m_ = std::move(w.m);
  r.fft_l2_ = w.fft_l2;
  r.tilt_ = w.tilt, r.tilt_k_ = w.tilt_k, r.tilt_cut_ = w.tilt_cut;
  r.tilt_clipped_ = w.tilt_clipped;
  // Window tails (Chernoff): mass strictly above the window top and below its bottom.
  const std::int64_t khi = w.klo + static_cast<std::int64_t>(r.m_.size()) - 1;
  const double ytop = s.off + static_cast<double>(khi) * h,
               ybot = s.off + static_cast<double>(w.klo) * h;
  if (khi < s.top) {
    double b = 1.0;
    for (std::size_t i = 0; i < r.cher_t_.size(); ++i)
      if (r.cher_t_[i] > 0 && std::isfinite(r.cher_k_[i]))
        b = std::min(b, std::exp(r.cher_k_[i] - r.cher_t_[i] * ytop));
    r.tail_hi_ = b;
  }
  if (w.klo > s.base) {
    double b = 1.0;
    for (std::size_t i = 0; i < r.cher_t_.size(); ++i)
      if (r.cher_t_[i] < 0 && std::isfinite(r.cher_k_[i]))
        b = std::min(b, std::exp(r.cher_k_[i] - r.cher_t_[i] * ybot));
    r.tail_lo_ = b;
  }
  r.finish();
  return r;
}

void composed_pld::finish() {
  tail_env_.build(cher_t_, cher_k_);
  err_env_.build(cher_t_, err_k_);
  const std::size_t n = m_.size();
  sm_.assign(n + 1, 0.0);
  se_.assign(n + 1, 0.0);
  // se_[j] = sum_{i>=j} m_i e^{-(lambda_i - lambda_j)} (relative to lambda_j: no overflow)
  const double eh = std::exp(-h_);
  double c = 0.0;
  for (std::size_t j = n; j-- > 0;) {
    const double y = m_[j] - c;
    const double t = sm_[j + 1] + y;
    c = (t - sm_[j + 1]) - y;
    sm_[j] = t;
    se_[j] = m_[j] + eh * se_[j + 1];
  }
}

std::size_t composed_pld::first_above(double eps) const {
  // first j with lambda_j > eps
  const double x = (eps - offset_) / h_ - static_cast<double>(k0_);
  if (x < 0) return 0;
  if (x >= static_cast<double>(m_.size())) return m_.size();
  std::size_t j = static_cast<std::size_t>(std::floor(x));
  while (j < m_.size() &&
         offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_ <= eps)
    ++j;
  return j;
}

double composed_pld::delta_raw(double eps) const { return m_inf_ + fin_raw(eps); }

double composed_pld::fin_raw(double eps) const { return fin_raw_at(first_above(eps), eps); }

double composed_pld::fin_raw_at(std::size_t j, double eps) const {
  if (j >= m_.size()) return 0.0;
  const double lj = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_;
  return sm_[j] - std::exp(eps - lj) * se_[j];
}

// The lower envelope of the lines k_i - t_i eps (t_i > 0, k_i finite): as eps
// grows, lines of larger t take over. Any line is a valid Chernoff bound, so
// a query that picks a neighbour of the best line at a breakpoint (rounding)
// is still a bound, only by a rounding error less tight.
void composed_pld::line_min::build(const std::vector<double>& ts, const std::vector<double>& ks) {
  t.clear(), k.clear(), x.clear();
  std::vector<std::pair<double, double>> l;
  for (std::size_t i = 0; i < ts.size() && i < ks.size(); ++i)
    if (ts[i] > 0 && std::isfinite(ks[i])) l.emplace_back(ts[i], ks[i]);
  std::sort(l.begin(), l.end());
  auto cross = [](double t1, double k1, double t2, double k2) { return (k2 - k1) / (t2 - t1); };
  for (const auto& [ti, ki] : l) {
    if (!t.empty() && ti == t.back()) {  // same slope: keep the lower line
      if (ki >= k.back()) continue;
      t.pop_back(), k.pop_back();
      if (!x.empty()) x.pop_back();
    }
    while (t.size() >= 2 && cross(t[t.size() - 2], k[k.size() - 2], ti, ki) <= x.back()) {
      t.pop_back(), k.pop_back(), x.pop_back();
    }
    if (!t.empty()) x.push_back(cross(t.back(), k.back(), ti, ki));
    t.push_back(ti);
    k.push_back(ki);
  }
}

double composed_pld::line_min::at(double eps) const {
  if (t.empty()) return kInf;
  // line j is the lowest on [x_{j-1}, x_j)
  const std::size_t j =
      static_cast<std::size_t>(std::upper_bound(x.begin(), x.end(), eps) - x.begin());
  return k[j] - t[j] * eps;
}

// (min_i e^{a_i} = e^{min_i a_i}: exp is monotone, also in floating point,
// so one exp of the envelope's minimum instead of one per tilt)
double composed_pld::tail_bound_above(double eps) const {
  return std::min(tail_hi_, std::exp(tail_env_.at(eps)));
}

// The computed finite part at eps and its error terms but the mass errors,
// each found once (delta_upper and delta_lower scan every grid point).
composed_pld::finite_parts composed_pld::parts_at(double eps, bool all_tails) const {
  finite_parts f;
  f.j = first_above(eps);
  f.tails = all_tails ? tail_lo_ + tail_hi_ : tail_bound_above(eps) + (f.j == 0 ? tail_lo_ : 0.0);
  f.fin = fin_raw_at(f.j, eps);
  f.fft = fft_error(f.j, f.tails);
  f.above = f.j < m_.size() ? std::max(0.0, sm_[f.j]) : 0.0;
  return f;
}

// How far the terms' mass errors move delta(eps) (the absolute product or
// shift bound, pld_grid.hpp), plus the rounding of fin_raw itself (relative
// to the mass above eps: the suffix sums and the e^{-h} recurrence).
double composed_pld::mass_error(double eps, const finite_parts& f) const {
  if (lattice_rel_ > 0) return std::min(err0_, lattice_rel_ * sm_[f.j]);
  return std::min(err0_, std::exp(err_env_.at(eps))) + fin_rel_ * f.above;
}

double composed_pld::mass_error_above(double eps) const {
  return mass_error(eps, parts_at(eps, false));
}

double composed_pld::fft_error_at(double eps) const {
  const finite_parts f = parts_at(eps, false);
  return f.fft;
}

double composed_pld::slack(std::size_t j) const { return slack_of(j, fft_l2_); }

double composed_pld::slack_of(std::size_t j, double fft_l2) const {
  // sum_{i >= j} |FFT error of m_i| <= fft_l2 * sqrt(sum_{i >= j} w_i^2)
  // (Cauchy-Schwarz), w_i = 1 untilted, e^{tilt_k - tilt lambda_i} tilted
  const double cnt = static_cast<double>(m_.size() - std::min(j, m_.size()));
  if (tilt_ == 0 || cnt == 0) return fft_l2 * std::sqrt(cnt);
  if (j < tilt_cut_) return kInf;
  const double lj = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_;
  const double lw = tilt_k_ - tilt_ * lj;
  if (lw > 700.0) return kInf;
  // sum_{i=0}^{cnt-1} e^{-2 tilt h i} = expm1(-2 tilt h cnt) / expm1(-2 tilt h)
  // (a tilt times h below the double range leaves the plain count: no 0/0)
  const double den = std::expm1(-2.0 * tilt_ * h_);
  const double g = den != 0 ? std::expm1(-2.0 * tilt_ * h_ * cnt) / den : cnt;
  return fft_l2 * std::exp(lw) * std::sqrt(g);
}

double composed_pld::fft_error(std::size_t j, double tails) const {
  const double plain = slack(j);
  if (!has_tilt_form_) return plain;
  const double fft = slack_of(j, fft_l2_rel_);
  // (the relative factor counts on the whole mass above, which bounds its
  // share of delta; each product and sum rounds up by a relative u at
  // most: 1e-12 covers it)
  const double above = j < m_.size() ? std::max(0.0, sm_[j]) : 0.0;
  return std::min(plain, (fft + tilt_factor_ * (above + fft + tails)) * (1 + 1e-12));
}

// The loss positions lambda_k = offset + k h are computed: each is within
// loss_err_ of the exact sum of the terms' grid losses it stands for, and
// delta's integrand (1 - e^{eps - lambda})_+ grows with lambda, so the
// bounds are taken at eps moved by loss_err_ the safe way (near the top of a
// lattice, where delta ~ m_top (1 - e^{eps - lambda_top}), an absolute 1e-12
// on lambda_top was 2e-9 of delta: 'epsdelta:eps=2.3062081603902174,
// times=2646 --eps 6102.2266980102904' read a lower end above the truth).
// Laws with consistent masses are bounded by the eta form alone: at n
// steps its factor is ~n 1e-13 and its shift of eps n 1e-13 or so, against
// n times the errors' sums (1/h-amplified) of the absolute form.
double composed_pld::delta_upper(double eps_in) const {
  return has_eta_ ? delta_upper_eta(eps_in) : delta_upper_absolute(eps_in);
}

// The eta form (pld_grid.hpp): each term is, within a factor 1 + r on its
// masses, the exact pessimistic discretization of a pair (P, Q') with
// |log dQ'/dQ| <= eta. Q <= e^eta Q' gives, for the n-fold products, Q^n(S)
// - e^eps P^n(S) <= e^{n eta} (Q'^n(S) - e^{eps - n eta} P^n(S)), so the
// truth at eps is at most e^{n eta} times the pair's delta at eps - n eta,
// which its discretization bounds, and that is at most prod (1 + r)^n times
// the computed composition's (all measures positive). rel_rho_ holds both
// factors; no step amplifies a rounding by 1 / h, as the per-atom absolute
// bounds of a cell's split do.
double composed_pld::delta_upper_eta(double eps_in) const {
  const double eps = eps_in - loss_err_ - eta_shift_;
  const double top = offset_ + static_cast<double>(top_index_) * h_;
  double fin = 0.0;
  if (eps < top) {
    const finite_parts f = parts_at(eps, false);
    fin = std::max(0.0, f.fin) + fin_rel_ * f.above + f.tails + f.fft;
  }
  const double v = (1 + rel_rho_) * (m_inf_upper() + fin + eta_abs_) * (1 + 1e-12);
  return std::min(1.0, std::max(v, std::numeric_limits<double>::denorm_min()));
}

double composed_pld::delta_upper_absolute(double eps_in) const {
  const double eps = eps_in - loss_err_;
  // Beyond the composed support only the mass at +inf remains (with its
  // rounding margins; eps moved by the positions' rounding decides ties).
  const double top = offset_ + static_cast<double>(top_index_) * h_;
  if (eps >= top) return std::min(1.0, m_inf_upper());
  const finite_parts f = parts_at(eps, false);
  double fin = std::max(0.0, f.fin) + f.tails + f.fft + mass_error(eps, f);
  // Below the top of the support some mass lies above eps, so the truth is
  // positive however far below the double range: an upper end of 0 would
  // exclude it ('epsdelta:eps=0.0038144,times=17743 --eps 66.14627328' read
  // [0, 0]; the truth is 10^-4854.6)
  if (eps < top) fin = std::max(fin, std::numeric_limits<double>::denorm_min());
  return std::min(1.0, detail::sum_up(m_inf_upper(), fin));
}

double composed_pld::delta_lower(double eps_in) const {
  const double eps = eps_in + loss_err_;
  const finite_parts f = parts_at(eps, true);
  double fin = f.fin - f.tails - f.fft - mass_error(eps, f);
  // Near the underflow the masses and sums lose their relative precision
  // (a single subsampled Gaussian step read delta(13.44) >= 4.5e-321 where
  // the truth is 6.7e-323): no finite part is claimed there.
  // (and a NaN error term, which vacuous bounds can produce, claims nothing)
  if (!(fin >= 1e-290)) fin = 0.0;
  return std::min(1.0, detail::sum_down(m_inf_lower(), fin));  // (a delta is at most 1)
}

// The polygon of the computed (raw) masses: the test rejecting losses >= lambda_j
// has type I error PA_j = sum_{k>=j} m_k e^{-lambda_k} and type II error
// 1 - m_inf - sum_{k>=j} m_k; f_raw(a) = sup_eps (1 - delta_raw(eps) - e^eps a)
// is this polygon (convex duality), found by binary search on PA.
double composed_pld::beta_raw(double a) const {
  const std::size_t n = m_.size();
  // PA is non-increasing in j; find the last j with PA_j >= a.
  auto pa = [&](std::size_t j) {
    if (j >= n) return 0.0;
    const double lj = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_;
    return std::max(0.0, se_[j]) * std::exp(std::min(700.0, -lj));
  };
  auto qa = [&](std::size_t j) { return j >= n ? 0.0 : sm_[j]; };
  if (a >= pa(0)) return std::max(0.0, 1.0 - m_inf_ - qa(0));  // all finite losses rejected
  std::size_t lo = 0, hi = n;                                  // pa(lo) > a >= pa(hi)
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (pa(mid) > a)
      lo = mid;
    else
      hi = mid;
  }
  const double a0 = pa(hi), a1 = pa(lo);  // a0 <= a < a1
  const double b0 = 1.0 - m_inf_ - qa(hi), b1 = 1.0 - m_inf_ - qa(lo);
  const double t = a1 > a0 ? (a - a0) / (a1 - a0) : 0.0;
  return b0 + t * (b1 - b0);
}

double composed_pld::tangent_loss(double a) const {
  const std::size_t n = m_.size();
  auto pa = [&](std::size_t j) {
    if (j >= n) return 0.0;
    const double lj = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_;
    return std::max(0.0, se_[j]) * std::exp(std::min(700.0, -lj));
  };
  std::size_t lo = 0, hi = n;
  if (a >= pa(0)) return lo_loss();
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (pa(mid) > a)
      lo = mid;
    else
      hi = mid;
  }
  return offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(lo)) * h_;
}

double composed_pld::max_slack() const { return slack(0) + tail_lo_ + tail_hi_ + err0_; }

// (beta_raw / tangent_loss above are used only to pick candidate eps values
// where any choice is valid: P-masses derived from Q-masses near the bottom
// of the window can sit below the FFT noise floor, so a binary search on them
// may land on the wrong vertex. The bounds below scan every grid point.)
double composed_pld::beta_from_upper_delta(double a) const {
  // Any eps gives 1 - delta(eps) - e^eps a <= f(a): take the best grid point.
  double best = 0.0;
  for (std::size_t j = 0; j < m_.size(); ++j) {
    const double eps = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_;
    const double v = 1.0 - delta_upper(eps) - (a > 0 ? std::exp(eps + std::log(a)) : 0.0);
    best = std::max(best, v);
  }
  return std::min(best, 1.0 - a);
}

void composed_pld::upper_lines(std::vector<double>& eps_out, std::vector<double>& c_out) const {
  // On each interval between grid losses, delta_lower is (before clipping at
  // 0) an affine function of e^eps with constant slack, so 1 - delta - e^eps a
  // peaks at an end point; clipping only lowers delta_lower's negative part,
  // which the cap at 1 - a covers. delta_lower(eps) >= m_inf + fin(eps) with
  // fin affine in e^eps on each interval once the (eps-decreasing)
  // mass-error term is frozen at its value at the interval's left end
  // (dropping the clip at 0 only raises the bound).
  const std::size_t n = m_.size();
  for (std::size_t j = 0; j <= n; ++j) {
    const double eleft = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j) - 1) * h_;
    // (the errors decrease in eps: their values at the left end bound them
    // over the interval; j = 0 reaches eps -> -inf, where only the flat
    // mass-error bound holds)
    const double sl = tail_lo_ + tail_hi_ + fft_error(j, tail_lo_ + tail_hi_) +
                      (j == 0 ? err0_ : mass_error_above(eleft));
    const double base0 = (j < n ? sm_[j] : 0.0) - sl;
    // interval (lambda_{j-1}, lambda_j]: delta_raw = m_inf + sm_j - e^{eps - lambda_j} se_j
    for (int side = 0; side < 2; ++side) {
      const std::int64_t kk = k0_ + static_cast<std::int64_t>(j) - (side == 0 ? 1 : 0);
      double eps = offset_ + static_cast<double>(kk) * h_;
      if (j == 0 && side == 0) eps = -745.0;  // the open end: e^eps a -> 0
      if (j == n && side == 1) continue;
      const double lj =
          offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(std::min(j, n - 1))) * h_;
      // (delta_lower's eps + loss_err_; the line keeps its slope e^eps)
      const double fin = (j < n) ? base0 - std::exp(eps + loss_err_ - lj) * se_[j] : base0;
      eps_out.push_back(eps);
      c_out.push_back(1.0 - (m_inf_lower() + fin));
    }
  }
}

double composed_pld::beta_from_lower_delta(double a) const {
  std::vector<double> eps, c;
  upper_lines(eps, c);
  double best = -kInf;
  for (std::size_t k = 0; k < eps.size(); ++k)
    best = std::max(best, c[k] - (a > 0 ? std::exp(eps[k] + std::log(a)) : 0.0));
  return std::clamp(best, 0.0, 1.0 - a);
}

}  // namespace fdp
