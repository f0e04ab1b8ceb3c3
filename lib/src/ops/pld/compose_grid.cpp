#include "fdp/ops/pld_grid.hpp"

#include <unsupported/Eigen/FFT>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "fdp/core/error.hpp"
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "ops/pld/numbers.hpp"
#include "ops/pld/spectrum.hpp"
#include "ops/pld/sums.hpp"

namespace fdp {

using detail::kInf;
using detail::kMaxGrid;
using detail::kU;

composed_pld compose_grid(const std::vector<const grid_pmf*>& pmfs,
                          const std::vector<std::int64_t>& times, bool use_p, double tail,
                          double tilt_delta, std::int64_t max_points, bool chernoff_beyond_limit) {
  if (pmfs.empty() || pmfs.size() != times.size()) {
    throw std::invalid_argument("compose_grid(pmfs): need one count per term");
  }
  const double h = pmfs[0]->h;
  struct term {
    std::vector<double> x;
    double off;
    std::int64_t k0;
    std::int64_t n;
    std::vector<double> e;
    std::vector<double> a;  // e less its shifts, plus min(h, 1) x the shifts at their upper ends (empty: none)
    double fin, inf, inf_err, l2;
    bool full;  // no mass removed (a full probability measure: fin + inf = 1)
  };
  std::vector<term> ts;
  for (std::size_t i = 0; i < pmfs.size(); ++i) {
    const grid_pmf& g = *pmfs[i];
    if (std::fabs(g.h - h) > 1e-15 * h) throw std::invalid_argument("compose_grid(h): terms must share h");
    term t;
    t.n = times[i];
    if (!use_p) {
      t.x = g.q;
      t.off = g.offset;
      t.k0 = g.k0;
      t.inf = g.q_pos_inf;
      t.inf_err = g.q_pos_inf_err;
    } else {
      t.x.assign(g.p.rbegin(), g.p.rend());
      t.off = -g.offset;
      t.k0 = -(g.k0 + static_cast<std::int64_t>(g.p.size()) - 1);
      t.inf = g.p_neg_inf;
      t.inf_err = g.p_neg_inf_err;
    }
    double s = 0, s2 = 0;
    for (double v : t.x) s += v, s2 += v * v;
    t.fin = s;
    t.full = g.dropped_p == 0 && g.dropped_q == 0 && g.leftover == 0;
    t.l2 = std::sqrt(s2);
    // error bounds in the orientation's measure, plus input rounding
    t.e = use_p ? std::vector<double>(g.err_p.rbegin(), g.err_p.rend()) : g.err_q;
    if (t.e.size() != t.x.size()) t.e.assign(t.x.size(), 0.0);
    for (std::size_t k = 0; k < t.e.size(); ++k) t.e[k] += 8 * kU * std::fabs(t.x[k]);
    t.a = detail::shift_discounted_errors(g, use_p, t.e, h);
    ts.push_back(std::move(t));
  }
  composed_pld r;
  r.h_ = h;
  double off = 0.0;
  std::int64_t base = 0;
  double lmin = 0, lmax = 0;
  for (const auto& t : ts) {
    off += static_cast<double>(t.n) * t.off;
    base += t.n * t.k0;
    lmin += static_cast<double>(t.n) * (t.off + static_cast<double>(t.k0) * h);
    lmax += static_cast<double>(t.n) * (t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(t.x.size()) - 1) * h);
  }
  r.offset_ = off;
  // The positions' rounding: off and the support ends are sums of n_i times
  // the terms' offsets and ends (one rounding per term and product), and
  // off + K h rounds twice more.
  r.loss_err_ = 4 * kU * static_cast<double>(ts.size() + 2) * (std::fabs(lmin) + std::fabs(lmax) + std::fabs(off));
  // Mass at +inf of the product: prod T^n - prod (T - I)^n, T = a term's
  // total mass, written as prod T^n (1 - prod (1 - I/T)^n) so that a small I
  // keeps its relative precision. A full probability measure (every
  // pessimistic pmf; an optimistic one unless its garbling removed mass) has
  // T = 1 exactly: its factor is (1 - I)^n, free of the rounding of the
  // computed fin + I (which, at 1 - u, made f_{1,1e-5}^(x)1e12 read
  // m_inf = 1 - 1.1e-4 against the truth 1 - e^-1e7, and at 1 + u can push
  // m_inf above the truth by n ulps, too much for a lower bound). Only the
  // others use T = min(1, fin + I) as computed.
  {
    double lg = 0.0, lt = 0.0, one = 0.0;
    std::int64_t inf_apps = 0;
    bool all_full = true;
    for (const auto& t : ts) {
      const double nn = static_cast<double>(t.n);
      if (t.inf > 0) inf_apps += t.n, one = t.inf;
      all_full = all_full && t.full;
      if (t.full) {
        if (t.inf > 0) lg += nn * std::log1p(-std::min(1.0, t.inf));
        continue;
      }
      const double tot = std::min(1.0, t.fin + t.inf);
      lt += nn * std::log(tot);
      if (tot > 0 && t.inf > 0) lg += nn * std::log1p(-std::min(1.0, t.inf / tot));
    }
    r.m_inf_ = std::max(0.0, -std::exp(lt) * std::expm1(lg));
    // the folded masses' errors: m_inf moves by at most n_i per unit of I_i
    for (const auto& t : ts) r.m_inf_err_ += static_cast<double>(t.n) * t.inf_err;
    // One application of a full measure with mass at +inf, the others with
    // none: that mass itself, exactly when nothing was folded into it (an
    // f_{1,1e-5} at delta = 1e-5 read epsilon [1, inf] under the margin).
    if (inf_apps == 1 && all_full) {
      r.m_inf_ = one;
      if (r.m_inf_err_ == 0) r.m_inf_rel_ = 0.0;
    }
  }
  // Chernoff data: composed log-MGF (of the finite part) at the tilts
  // t = +-c 2^{j-20}, j = 1..28, and of the error vectors. Any tilt gives a
  // valid bound; the set reaches t = 256 c. c = 1 unless the composed loss's
  // standard deviation S is below 1/4: near-identity compositions (S ~ 1e-5)
  // need tilts ~ z / S to cut their tails at all (with c = 1 the window was
  // the whole support: 10^8 points for laplace:b=1e8,times=1e7).
  double var = 0.0;
  for (const auto& t : ts) {
    double m0 = 0.0, m1 = 0.0, m2 = 0.0;
    for (std::size_t k = 0; k < t.x.size(); ++k) {
      const double v = std::max(0.0, t.x[k]), kk = static_cast<double>(k);
      m0 += v, m1 += v * kk, m2 += v * kk * kk;
    }
    if (m0 > 0) var += static_cast<double>(t.n) * std::max(0.0, m2 / m0 - (m1 / m0) * (m1 / m0)) * h * h;
  }
  const double sd = std::sqrt(var);
  const double c_tilt = sd > 0 && sd < 0.25 ? 0.25 / sd : 1.0;
  std::vector<double> tilts;
  for (int j = -28; j <= 28; ++j)
    if (j != 0) tilts.push_back((j > 0 ? 1.0 : -1.0) * c_tilt * std::pow(2.0, std::abs(j) - 20.0));
  std::vector<std::vector<double>> kms(ts.size()), kes(ts.size()), kas(ts.size());
  bool shifts = false;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    detail::tilted_log_mgfs(ts[i].x, ts[i].off, h, ts[i].k0, tilts, kms[i]);
    detail::tilted_log_mgfs(ts[i].e, ts[i].off, h, ts[i].k0, tilts, kes[i]);
    if (!ts[i].a.empty()) {
      detail::tilted_log_mgfs(ts[i].a, ts[i].off, h, ts[i].k0, tilts, kas[i]);
      shifts = true;
    }
  }
  // mass-error bound at t = 0 (flat) and at each tilt t
  {
    detail::error_bound_acc acc;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      double s0 = 0.0, e0 = 0.0, a0 = 0.0;
      for (double v : ts[i].x) s0 += std::max(0.0, v);
      for (double v : ts[i].e) e0 += v;
      if (ts[i].a.empty()) a0 = e0;
      for (double v : ts[i].a) a0 += v;
      // (a term with no finite mass but some error counts too: its factor is D)
      acc.add(std::log(s0), std::log(e0), std::log(a0), static_cast<double>(ts[i].n));
    }
    r.err0_ = std::exp(acc.log_product());
    if (shifts) r.err0_ = std::min(r.err0_, std::exp(acc.log_shift()));
  }
  for (std::size_t jt = 0; jt < tilts.size(); ++jt) {
    const double t = tilts[jt];
    double k = 0.0;
    detail::error_bound_acc acc;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const double km = kms[i][jt], ke = kes[i][jt];
      k += static_cast<double>(ts[i].n) * km;
      acc.add(km, ke, kas[i].empty() ? ke : kas[i][jt], static_cast<double>(ts[i].n));
    }
    r.cher_t_.push_back(t);
    r.cher_k_.push_back(k);
    double ek = acc.log_product();
    // (the shifts' bound holds for t >= 0 only: it bounds nu{> eps - l} by a Chernoff bound)
    if (shifts && t > 0) ek = std::min(ek, acc.log_shift());
    r.err_k_.push_back(ek);
  }
  // Exponential tilt (see compose_grid in pld_grid.hpp). Tilting is exact
  // algebra: the convolution of x_i e^{theta lambda - c_i} is the
  // convolution of x_i times e^{theta Lambda - sum n_i c_i}, whatever the
  // constants c_i (chosen so that each tilted vector sums to about 1).
  double theta = 0.0, ktot = 0.0, rho_in = 0.0, nterms = 0.0;
  std::vector<double> tilt_t = r.cher_t_, tilt_k = r.cher_k_;  // for the tilted measure's tails
  if (tilt_delta > 0) {
    const double ld = std::log(tilt_delta);
    double best = kInf;
    for (std::size_t i = 0; i < r.cher_t_.size(); ++i) {
      const double t = r.cher_t_[i], k = r.cher_k_[i];
      if (t <= 0 || !std::isfinite(k)) continue;
      const double y = (k - ld) / t;
      if (y < best) best = y, theta = t;
    }
    if (theta > 0) {
      // the composed log-MGF at tilts near theta too (the fixed ones are
      // powers of 2 apart: 2 theta is too far for a useful tilted tail)
      std::vector<double> extra;
      for (int j = 1; j <= 6; ++j) {
        extra.push_back(theta * (1.0 + std::ldexp(1.0, -j)));
        extra.push_back(theta * (1.0 - std::ldexp(1.0, -j)));
      }
      std::vector<double> ke(extra.size(), 0.0), one;
      for (const auto& t : ts) {
        detail::tilted_log_mgfs(t.x, t.off, h, t.k0, extra, one);
        for (std::size_t j = 0; j < extra.size(); ++j) ke[j] += static_cast<double>(t.n) * one[j];
      }
      tilt_t.insert(tilt_t.end(), extra.begin(), extra.end());
      tilt_k.insert(tilt_k.end(), ke.begin(), ke.end());
      for (auto& t : ts) {
        const std::size_t n = t.x.size();
        const double top = t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(n) - 1) * h;
        double acc = 0.0;
        for (std::size_t k = 0; k < n; ++k)
          acc += std::max(0.0, t.x[k]) * std::exp(theta * (t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(k)) * h - top));
        const double la = acc > 0 ? std::log(acc) : 0.0;
        const double c = theta * top + la;
        double s2 = 0.0;
        for (std::size_t k = 0; k < n; ++k) {
          const double lk = t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(k)) * h;
          t.x[k] *= std::exp(theta * (lk - top) - la);
          s2 += t.x[k] * t.x[k];
        }
        t.l2 = std::sqrt(s2);
        ktot += static_cast<double>(t.n) * c;
        nterms += static_cast<double>(t.n);
        // relative rounding of each tilted mass (its exponent's argument and exp)
        const double lmax_abs = std::max(std::fabs(t.off + static_cast<double>(t.k0) * h), std::fabs(top));
        rho_in = std::max(rho_in, 4 * kU * (theta * (lmax_abs + std::fabs(top)) + std::fabs(la) + 3.0));
      }
    }
  }
  // The tilted measure m_k e^{theta lambda_k - ktot} is what the FFT holds:
  // its mass outside the window wraps around (circular convolution) and is
  // multiplied by the untilt factor where it lands, so the window must hold
  // it too, and what is left outside counts as FFT error (added to fft_l2_
  // with the tilt's rounding below).
  // Chernoff in the tilted measure at t' != theta: its mass above y is at
  // most e^{K(t') - ktot - (t' - theta) y} for t' > theta, below y for t' <
  // theta. (Without this, subsampled-gaussian:sigma=1,q=0.01,times=1000 at
  // delta 1e-8 read epsilon [3.177, 2.699]: tilted mass above the untilted
  // window, wrapped and untilted, made the optimistic delta 50x too large.)
  auto tilted_tail = [&](double y, bool above) {
    double b = 1.0;
    for (std::size_t i = 0; i < tilt_t.size(); ++i) {
      const double t = tilt_t[i], k = tilt_k[i];
      if (!std::isfinite(k) || (above ? !(t > theta) : !(t < theta))) continue;
      b = std::min(b, std::exp(std::min(0.0, k - ktot - (t - theta) * y)));
    }
    return b;
  };
  const double lt = std::log(tail);
  double y_hi = lmax, y_lo = lmin, y_hi_t = lmax, y_lo_t = lmin;
  for (std::size_t i = 0; i < r.cher_t_.size(); ++i) {
    const double t = r.cher_t_[i], k = r.cher_k_[i];
    if (!std::isfinite(k)) continue;
    const double y = (k - lt) / t;
    if (t > 0) y_hi = std::min(y_hi, y);
    else y_lo = std::max(y_lo, y);
  }
  if (theta > 0) {
    for (std::size_t i = 0; i < tilt_t.size(); ++i) {
      const double t = tilt_t[i], k = tilt_k[i];
      if (!std::isfinite(k) || t == theta) continue;
      const double y = (k - ktot - lt) / (t - theta);
      if (t > theta) y_hi_t = std::min(y_hi_t, y);
      else y_lo_t = std::max(y_lo_t, y);
    }
    // (within the grid limit: beyond it the untilted window stays, and the
    // tilted mass outside it is all error; the plain composition's bounds
    // stand beside the tilted one's)
    const double lim = static_cast<double>(max_points > 0 ? std::min(max_points, kMaxGrid) : kMaxGrid);
    const double hi_t = std::max(y_hi, std::min(y_hi_t, lmax)), lo_t = std::min(y_lo, std::max(y_lo_t, lmin));
    if ((hi_t - lo_t) / h + 4.0 <= lim / 1.5) y_hi = hi_t, y_lo = lo_t;  // (good_size rounds up by < 1.5)
  }
  if (std::getenv("FDP_TRACE")) {
    for (std::size_t i = 0; i < r.cher_t_.size(); ++i)
      std::fprintf(stderr, "t=%g K=%g y=%g\n", r.cher_t_[i], r.cher_k_[i], (r.cher_k_[i] - lt) / r.cher_t_[i]);
    std::fprintf(stderr, "y_lo=%g y_hi=%g lmin=%g lmax=%g (tilt %g: y_lo_t=%g y_hi_t=%g)\n", y_lo, y_hi, lmin, lmax, theta, y_lo_t, y_hi_t);
  }
  // Crossed bounds: the finite part's mass above y_hi and below y_lo is at
  // most `tail` each, so with y_hi < y_lo it is at most 2 tail in all (its
  // total is negligible: f_{1,1e-5}^(x)1e8 keeps (1 - 1e-5)^1e8 = e^-1000 of
  // it). Any point between them bounds both sides as well; the window shrinks
  // to one of them inside the support (y_hi <= lmax and y_lo >= lmin, so
  // [max(y_hi, lmin), min(y_lo, lmax)] is not empty); spanning [y_hi, y_lo]
  // instead asked for 1e9 points there.
  if (y_hi < y_lo) y_hi = y_lo = 0.5 * (std::max(y_hi, lmin) + std::min(y_lo, lmax));
  std::int64_t klo = static_cast<std::int64_t>(std::floor((y_lo - off) / h)) - 1;
  std::int64_t khi = static_cast<std::int64_t>(std::ceil((y_hi - off) / h)) + 1;
  klo = std::max(klo, base);
  std::int64_t top = base;
  for (const auto& t : ts) top += t.n * static_cast<std::int64_t>(t.x.size() - 1);
  khi = std::min(khi, top);
  if (khi < klo) khi = klo;
  const std::int64_t W = khi - klo + 1;
  std::int64_t need = W;
  for (const auto& t : ts) need = std::max<std::int64_t>(need, static_cast<std::int64_t>(t.x.size()));
  // (at least 64 points: kissfft's real transform needs an even length > 1)
  const std::int64_t N = detail::good_size(std::max<std::int64_t>(need, 64));
  if ((N > kMaxGrid || (max_points > 0 && N > max_points)) && chernoff_beyond_limit) {
    // No window at all: every finite mass is a Chernoff tail (see the header).
    r.k0_ = klo;
    r.top_index_ = top;
    r.tail_hi_ = 1.0;
    r.finish();
    return r;
  }
  if (N > kMaxGrid || (max_points > 0 && N > max_points)) {
    const std::int64_t lim = max_points > 0 ? std::min(max_points, kMaxGrid) : kMaxGrid;
    throw grid_limit_error("compose: the composed grid needs " + std::to_string(N) +
                               " points, above the limit of " + std::to_string(lim) +
                               "; use a larger tolerance or fewer/larger terms",
                           static_cast<double>(N), static_cast<double>(lim));
  }
  const std::size_t nn = static_cast<std::size_t>(N), nc = nn / 2 + 1;
  // Transform library: see fftw_worth_it (FFTW runs 3-5x faster than
  // kissfft, but its plan costs ~10 ms per length and process).
  const bool use_fftw = detail::fftw_worth_it(N);
  std::vector<double> buf(nn, 0.0);
  std::vector<std::complex<double>> X;
  std::vector<std::complex<double>> Z(nc, std::complex<double>(1.0, 0.0));
  double* in = nullptr;
  fftw_complex* out = nullptr;
  std::shared_ptr<const detail::fftw_r2c_plans> plans;
  // kissfft keeps its twiddles per length inside the object: one per thread
  // is reused by every composition on that thread.
  thread_local Eigen::FFT<double> kiss;
  thread_local std::vector<std::int64_t> kiss_lengths;
  if (!use_fftw && std::find(kiss_lengths.begin(), kiss_lengths.end(), N) == kiss_lengths.end()) {
    // (bounded memory: at most 16 lengths' twiddles are kept per thread)
    if (kiss_lengths.size() >= 16) kiss.impl().clear(), kiss_lengths.clear();
    kiss_lengths.push_back(N);
  }
  kiss.SetFlag(Eigen::FFT<double>::HalfSpectrum);
  if (use_fftw) {
    in = fftw_alloc_real(nn);
    out = fftw_alloc_complex(nc);
    plans = detail::fftw_plans_for(N);
  }
  const double gamma = 10.0 * kU * std::log2(static_cast<double>(N));
  double pow_terms = 0.0;
  // Two bounds on the error of the powered product, the smaller is used:
  // (a) normwise (Higham, Thm 24.2): ||dX||_2 <= gamma ||X||_2, amplified at
  //     most n-fold by the powering (|X| <= 1);
  // (b) per frequency: with an elementwise forward error |dX_j| <= eps_i =
  //     gamma ||x_i||_1 (every output is built over log2 N butterfly stages
  //     from partial sums bounded by ||x||_1),
  //       |prod X^n - prod X~^n| <= prod (|X~| + eps)^n - prod |X~|^n,
  //     tiny except where |X| is near 1 (close to frequency 0).
  std::vector<double> logU(nc, 0.0), logV(nc, 0.0);
  double err_in = 0.0;
  for (const auto& t : ts) {
    double l1 = 0.0;
    for (double v : t.x) l1 += std::fabs(v);
    const double eps_i = gamma * l1;
    err_in += static_cast<double>(t.n) * t.l2;
    // logU >= sum n log(|X| + eps), logV = sum n log |X|: one log per
    // frequency, as log(a + eps) = log a + log1p(eps / a) <= log a + eps / a
    // (a larger U only widens the bound)
    auto acc_bound = [&](std::size_t j, double a) {
      const double nd = static_cast<double>(t.n);
      if (a > 0) {
        const double la = std::log(a);
        logU[j] += nd * (la + eps_i / a);
        logV[j] += nd * la;
      } else {
        logU[j] += nd * std::log(eps_i);
        logV[j] = -kInf;
      }
    };
    if (use_fftw) {
      std::fill(in, in + nn, 0.0);
      std::copy(t.x.begin(), t.x.end(), in);
      fftw_execute_dft_r2c(plans->fwd, in, out);
      // (fftw_complex is laid out as std::complex<double>)
      const auto* xo = reinterpret_cast<const std::complex<double>*>(out);
      for (std::size_t j = 0; j < nc; ++j) acc_bound(j, std::sqrt(std::norm(xo[j])));  // (|X| <= 1; hypot is 3x slower)
      detail::mul_pow_all(Z.data(), xo, nc, t.n);
    } else {
      std::fill(buf.begin(), buf.end(), 0.0);
      std::copy(t.x.begin(), t.x.end(), buf.begin());
      kiss.fwd(X, buf);
      for (std::size_t j = 0; j < nc; ++j) acc_bound(j, std::sqrt(std::norm(X[j])));
      detail::mul_pow_all(Z.data(), X.data(), nc, t.n);
    }
    pow_terms += 2.0 * std::log2(static_cast<double>(t.n) + 1.0) + 4.0;
  }
  const double* res = nullptr;
  double scale = 1.0;
  if (use_fftw) {
    for (std::size_t j = 0; j < nc; ++j) {
      out[j][0] = Z[j].real();
      out[j][1] = Z[j].imag();
    }
    fftw_execute_dft_c2r(plans->bwd, out, in);
    res = in;
    scale = 1.0 / static_cast<double>(N);
  } else {
    kiss.inv(buf, Z, nn);  // kissfft's inverse is already scaled by 1/N
    res = buf.data();
  }
  r.k0_ = klo;
  r.top_index_ = top;
  r.m_.resize(static_cast<std::size_t>(W));
  double z2 = 0.0;
  for (std::int64_t K = klo; K <= khi; ++K) {
    std::int64_t idx = (K - base) % N;
    if (idx < 0) idx += N;
    const double v = res[idx] * scale;
    z2 += v * v;
    r.m_[static_cast<std::size_t>(K - klo)] = v;  // (tilted: untilted below)
  }
  r.tilt_ = theta;
  r.tilt_k_ = ktot;
  if (use_fftw) {
    fftw_free(in);
    fftw_free(out);
  }
  const double zn = std::sqrt(z2);
  double dz2 = 0.0;
  for (std::size_t j = 0; j < nc; ++j) {
    // U - V = V expm1(logU - logV) (or U when V = 0). (Below e^-746 the
    // exponentials are 0: tested first, as glibc's underflow path is slow
    // and most frequencies of a long composition are there.)
    auto exp0 = [](double x) { return x > -746.0 ? std::exp(x) : 0.0; };
    const double v = exp0(logV[j]);
    const double b = (v > 0 ? v * std::expm1(logU[j] - logV[j]) : exp0(logU[j])) + kU * pow_terms * v;
    const double w = (j == 0 || (nn % 2 == 0 && j == nc - 1)) ? 1.0 : 2.0;
    dz2 += w * b * b;
  }
  // inverse transform: linear (1/N scaling) plus its own rounding
  const double normwise = gamma * err_in + kU * pow_terms * zn;
  const double perfreq = std::sqrt(dz2) / std::sqrt(static_cast<double>(N));
  r.fft_l2_ = std::min(normwise, perfreq) + gamma * zn + kU;
  if (theta > 0) {
    // the tilt's own rounding: relative rho_in on every input mass gives at
    // most (1 + rho_in)^n - 1 relative on the (nonnegative) composed masses;
    // the untilt factor's exponent and exp add rho_out
    const double lam = std::max(std::fabs(off + static_cast<double>(klo) * h), std::fabs(off + static_cast<double>(khi) * h));
    const double rho_out = 4 * kU * (std::fabs(ktot) + theta * lam + 3.0);
    r.fft_l2_ += (std::expm1(nterms * std::log1p(rho_in)) + rho_out) * zn;
    // the tilted measure's mass outside the window, aliased into it: an error
    // vector of 1-norm (so 2-norm) at most that mass
    const double ytop_w = off + static_cast<double>(khi) * h, ybot_w = off + static_cast<double>(klo) * h;
    r.fft_l2_ += (khi < top ? tilted_tail(ytop_w, true) : 0.0) + (klo > base ? tilted_tail(ybot_w, false) : 0.0);
    // Untilt. Far below the tilt's quantile the factor e^{ktot - theta
    // lambda} makes the FFT error of a mass exceed 1: those masses are noise,
    // set to 0, and every bound that would sum them is declared vacuous
    // (slack() = inf below tilt_cut_); sums above the cut stay clean.
    r.tilt_cut_ = 0;
    for (std::size_t i = 0; i < r.m_.size(); ++i) {
      const double lw = ktot - theta * (off + static_cast<double>(klo + static_cast<std::int64_t>(i)) * h);
      if (lw > 700.0 || r.fft_l2_ * std::exp(lw) > 1.0) {
        r.m_[i] = 0.0;
        r.tilt_cut_ = i + 1;
      } else {
        r.m_[i] *= std::exp(lw);
      }
    }
  }
  // Window tails (Chernoff): mass strictly above the window top and below its bottom.
  const double ytop = off + static_cast<double>(khi) * h, ybot = off + static_cast<double>(klo) * h;
  r.tail_hi_ = 0.0;
  r.tail_lo_ = 0.0;
  if (khi < top) {
    double b = 1.0;
    for (std::size_t i = 0; i < r.cher_t_.size(); ++i)
      if (r.cher_t_[i] > 0 && std::isfinite(r.cher_k_[i])) b = std::min(b, std::exp(r.cher_k_[i] - r.cher_t_[i] * ytop));
    r.tail_hi_ = b;
  }
  if (klo > base) {
    double b = 1.0;
    for (std::size_t i = 0; i < r.cher_t_.size(); ++i)
      if (r.cher_t_[i] < 0 && std::isfinite(r.cher_k_[i])) b = std::min(b, std::exp(r.cher_k_[i] - r.cher_t_[i] * ybot));
    r.tail_lo_ = b;
  }
  r.finish();
  return r;
}


}  // namespace fdp
