// compose_grid: the composition of discretized laws by FFT, with its
// certificate (pld_grid.hpp). The steps, in order: orient the terms, the
// Chernoff profile (tilts and the sums of terms.hpp), the exponential tilt
// for small deltas, the window, the spectral power, the FFT's error bound,
// the untilt; composed_pld::from_sums adds the window tails and finishes.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "fdp/core/error.hpp"
#include "ops/pld/pld_grid.hpp"
#include "ops/pld/numbers.hpp"
#include "ops/pld/spectrum.hpp"
#include "ops/pld/terms.hpp"

namespace fdp {
namespace {

using detail::composition_sums;
using detail::kInf;
using detail::kMaxGrid;
using detail::kU;
using detail::oriented_term;

// The terms in the orientation (they must share h).
std::vector<oriented_term> orient_terms(const std::vector<const grid_pmf*>& pmfs, bool use_p) {
  const double h = pmfs[0]->h;
  std::vector<oriented_term> ts;
  for (const grid_pmf* g : pmfs) {
    if (std::fabs(g->h - h) > 1e-15 * h)
      throw std::invalid_argument("compose_grid(h): terms must share h");
    ts.push_back(detail::orient(*g, use_p, h));
  }
  return ts;
}

// Chernoff data: the composed log-MGF (of the finite part) at the tilts
// t = +-c 2^{j-20}, j = 1..28, and of the error vectors. Any tilt gives a
// valid bound; the set reaches t = 256 c. c = 1 unless the composed loss's
// standard deviation S is below 1/4: near-identity compositions (S ~ 1e-5)
// need tilts ~ z / S to cut their tails at all (with c = 1 the window was
// the whole support: 10^8 points for laplace:b=1e8,times=1e7).
std::vector<double> chernoff_tilts(const std::vector<oriented_term>& ts,
                                   const std::vector<std::int64_t>& times, double h) {
  double var = 0.0;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    double m0 = 0.0, m1 = 0.0, m2 = 0.0;
    for (std::size_t k = 0; k < ts[i].x.size(); ++k) {
      const double v = std::max(0.0, ts[i].x[k]), kk = static_cast<double>(k);
      m0 += v, m1 += v * kk, m2 += v * kk * kk;
    }
    if (m0 > 0)
      var += static_cast<double>(times[i]) * std::max(0.0, m2 / m0 - (m1 / m0) * (m1 / m0)) * h * h;
  }
  const double sd = std::sqrt(var);
  const double c_tilt = sd > 0 && sd < 0.25 ? 0.25 / sd : 1.0;
  std::vector<double> tilts;
  for (int j = -28; j <= 28; ++j)
    if (j != 0) tilts.push_back((j > 0 ? 1.0 : -1.0) * c_tilt * std::pow(2.0, std::abs(j) - 20.0));
  return tilts;
}

composition_sums sum_terms(std::vector<oriented_term>& ts, const std::vector<std::int64_t>& times,
                           double h) {
  composition_sums s(chernoff_tilts(ts, times, h));
  for (std::size_t i = 0; i < ts.size(); ++i) {
    detail::tilt_sums(ts[i], h, s.tilts);
    s.add(ts[i], times[i], h);
  }
  return s;
}

// Exponential tilt (see compose_grid in pld_grid.hpp). Tilting is exact
// algebra: the convolution of x_i e^{theta lambda - c_i} is the
// convolution of x_i times e^{theta Lambda - sum n_i c_i}, whatever the
// constants c_i (chosen so that each tilted vector sums to about 1).
struct tilt_plan {
  double theta = 0.0, ktot = 0.0, rho_in = 0.0, nterms = 0.0;
  std::vector<double> t, k;  // the composed log-MGF at the fixed tilts and at tilts beside theta
};

// theta: the Chernoff tilt of the tilt_delta quantile (0: none).
double tilt_for(const composition_sums& s, double tilt_delta) {
  const double ld = std::log(tilt_delta);
  double best = kInf, theta = 0.0;
  for (std::size_t i = 0; i < s.tilts.size(); ++i) {
    const double t = s.tilts[i], k = s.K[i];
    if (t <= 0 || !std::isfinite(k)) continue;
    const double y = (k - ld) / t;
    if (y < best) best = y, theta = t;
  }
  return theta;
}

// Rescales a term's masses by e^{theta (lambda - top) - la} (its tilted sum
// near 1); returns its constant c = theta top + la and the relative rounding
// of its tilted masses (their exponent's argument and exp).
std::pair<double, double> tilt_term(oriented_term& t, double theta, double h) {
  const std::size_t n = t.x.size();
  const double top = t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(n) - 1) * h;
  double acc = 0.0;
  for (std::size_t k = 0; k < n; ++k)
    acc += std::max(0.0, t.x[k]) *
           std::exp(theta *
                    (t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(k)) * h - top));
  const double la = acc > 0 ? std::log(acc) : 0.0;
  double s2 = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const double lk = t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(k)) * h;
    t.x[k] *= std::exp(theta * (lk - top) - la);
    s2 += t.x[k] * t.x[k];
  }
  t.l2 = std::sqrt(s2);
  const double lmax_abs =
      std::max(std::fabs(t.off + static_cast<double>(t.k0) * h), std::fabs(top));
  return {theta * top + la, 4 * kU * (theta * (lmax_abs + std::fabs(top)) + std::fabs(la) + 3.0)};
}

tilt_plan plan_tilt(const composition_sums& s, std::vector<oriented_term>& ts,
                    const std::vector<std::int64_t>& times, double h, double tilt_delta) {
  tilt_plan p;
  p.t = s.tilts, p.k = s.K;
  if (!(tilt_delta > 0)) return p;
  p.theta = tilt_for(s, tilt_delta);
  if (!(p.theta > 0)) return p;
  // the composed log-MGF at tilts near theta too (the fixed ones are
  // powers of 2 apart: 2 theta is too far for a useful tilted tail)
  std::vector<double> extra;
  for (int j = 1; j <= 6; ++j) {
    extra.push_back(p.theta * (1.0 + std::ldexp(1.0, -j)));
    extra.push_back(p.theta * (1.0 - std::ldexp(1.0, -j)));
  }
  std::vector<double> ke(extra.size(), 0.0), one;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    detail::tilted_log_mgfs(ts[i].x, ts[i].off, h, ts[i].k0, extra, one);
    for (std::size_t j = 0; j < extra.size(); ++j) ke[j] += static_cast<double>(times[i]) * one[j];
  }
  p.t.insert(p.t.end(), extra.begin(), extra.end());
  p.k.insert(p.k.end(), ke.begin(), ke.end());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const auto [c, rho] = tilt_term(ts[i], p.theta, h);
    p.ktot += static_cast<double>(times[i]) * c;
    p.nterms += static_cast<double>(times[i]);
    p.rho_in = std::max(p.rho_in, rho);
  }
  return p;
}

// The tilted measure m_k e^{theta lambda_k - ktot} is what the FFT holds:
// its mass outside the window wraps around (circular convolution) and is
// multiplied by the untilt factor where it lands, so the window must hold
// it too, and what is left outside counts as FFT error.
// Chernoff in the tilted measure at t' != theta: its mass above y is at
// most e^{K(t') - ktot - (t' - theta) y} for t' > theta, below y for t' <
// theta. (Without this, subsampled-gaussian:sigma=1,q=0.01,times=1000 at
// delta 1e-8 read epsilon [3.177, 2.699]: tilted mass above the untilted
// window, wrapped and untilted, made the optimistic delta 50x too large.)
double tilted_tail(const tilt_plan& p, double y, bool above) {
  double b = 1.0;
  for (std::size_t i = 0; i < p.t.size(); ++i) {
    const double t = p.t[i], k = p.k[i];
    if (!std::isfinite(k) || (above ? !(t > p.theta) : !(t < p.theta))) continue;
    b = std::min(b, std::exp(std::min(0.0, k - p.ktot - (t - p.theta) * y)));
  }
  return b;
}

// The composed window [klo, khi] (grid indices) and its transform length.
struct window {
  std::int64_t klo = 0, khi = 0, N = 0;
  bool tilt_clipped = false;  // the tilted window did not fit: the plain one stands
};

// The Chernoff window of the plain measure, widened to hold the tilted one
// as well when that fits (within the grid limit: beyond it the untilted
// window stays, and the tilted mass outside it is all error; the plain
// composition's bounds stand beside the tilted one's).
window window_for(const composition_sums& s, const tilt_plan& p,
                  const std::vector<oriented_term>& ts, double h, double tail,
                  std::int64_t max_points) {
  double y_lo, y_hi;
  s.window(tail, y_lo, y_hi);
  bool fits = true;
  if (p.theta > 0) {
    const double lt = std::log(tail);
    double y_hi_t = s.lmax, y_lo_t = s.lmin;
    for (std::size_t i = 0; i < p.t.size(); ++i) {
      const double t = p.t[i], k = p.k[i];
      if (!std::isfinite(k) || t == p.theta) continue;
      const double y = (k - p.ktot - lt) / (t - p.theta);
      if (t > p.theta)
        y_hi_t = std::min(y_hi_t, y);
      else
        y_lo_t = std::max(y_lo_t, y);
    }
    const double lim =
        static_cast<double>(max_points > 0 ? std::min(max_points, kMaxGrid) : kMaxGrid);
    const double hi_t = std::max(y_hi, std::min(y_hi_t, s.lmax)),
                 lo_t = std::min(y_lo, std::max(y_lo_t, s.lmin));
    fits = (hi_t - lo_t) / h + 4.0 <= detail::window_points_within(lim);
    if (fits) y_hi = hi_t, y_lo = lo_t;
  }
  s.meet_crossed(y_lo, y_hi);
  window w;
  w.tilt_clipped = !fits;
  s.indices(y_lo, y_hi, h, w.klo, w.khi);
  std::int64_t need = w.khi - w.klo + 1;
  for (const auto& t : ts)
    need = std::max<std::int64_t>(need, static_cast<std::int64_t>(t.x.size()));
  // (at least 64 points: kissfft's real transform needs an even length > 1)
  w.N = detail::good_size(std::max<std::int64_t>(need, 64));
  return w;
}

// The composed masses on the window, and the FFT's error bound, the smaller
// of two:
// (a) normwise (Higham, Thm 24.2): ||dX||_2 <= gamma ||X||_2, amplified at
//     most n-fold by the powering (|X| <= 1), plus the powering's own
//     rounding (terms.hpp, fft_rounding_normwise);
// (b) per frequency: with an elementwise forward error |dX_j| <= eps_i =
//     gamma ||x_i||_1 (every output is built over log2 N butterfly stages
//     from partial sums bounded by ||x||_1),
//       |prod X^n - prod X~^n| <= prod (|X~| + eps)^n - prod |X~|^n,
//     tiny except where |X| is near 1 (close to frequency 0), plus the
//     powering's rounding: 3u per multiplication, and z^n by squaring
//     rounds like n multiplications (an early error is raised to the later
//     powers: measured 0.6 n u; it was counted as 2 log2 n + 4).
struct spectral_result {
  std::vector<double> m;
  double zn = 0.0, fft_l2 = 0.0;
  // the tilt's rounding as a relative factor instead (window_masses; set
  // by untilt)
  double fft_l2_rel = 0.0, tilt_rel = 0.0;
};

// Z[j] *= X[j]^n: the vectorized squaring chains for double, plain
// std::complex arithmetic for long double (the same error bound: 3u per
// multiplication, u the type's).
void multiply_power(std::complex<double>* Z, const std::complex<double>* X, std::size_t m,
                    std::int64_t n) {
  detail::mul_pow_all(Z, X, m, n);
}
void multiply_power(std::complex<long double>* Z, const std::complex<long double>* X, std::size_t m,
                    std::int64_t n) {
  for (std::size_t j = 0; j < m; ++j) {
    std::complex<long double> r(1.0L, 0.0L), z = X[j];
    for (std::int64_t k = n; k > 0;) {
      if (k & 1) r *= z;
      k >>= 1;
      if (k) z *= z;
    }
    Z[j] *= r;
  }
}

// The transform's powers in Real arithmetic (double, or long double when
// the powers are so long that double's rounding, amplified n-fold, would
// swamp the answer: compose_grid), with the error bound above in units of
// Real's rounding; the composed masses are rounded to double once more
// (u relative each: u |z|_2 in 2-norm).
template <class Real, class Fft>
spectral_result spectral_power_in(Fft& fft, const std::vector<oriented_term>& ts,
                                  const std::vector<std::int64_t>& times, const window& w,
                                  std::int64_t base) {
  using cplx = std::complex<Real>;
  const Real u = std::numeric_limits<Real>::epsilon() / 2;
  // (below e^floor the exponentials are 0: tested first, as glibc's
  // underflow path is slow and most frequencies of a long composition are
  // there)
  const Real exp_floor =
      static_cast<Real>((std::numeric_limits<Real>::min_exponent - 60) * 0.6931L);
  const std::size_t nc = fft.spectrum_size();
  const Real gamma = 10 * u * std::log2(static_cast<Real>(w.N));
  std::vector<cplx> Z(nc, cplx(1, 0));
  std::vector<Real> logU(nc, 0), logV(nc, 0);
  Real err_in = 0, mults = 0;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const auto& t = ts[i];
    const Real nd = static_cast<Real>(times[i]);
    Real l1 = 0;
    for (double v : t.x) l1 += std::fabs(v);
    const Real eps_i = gamma * l1;
    err_in += nd * t.l2;
    mults += nd + 1;
    const cplx* X = fft.forward(t.x);
    // logU >= sum n log(|X| + eps), logV = sum n log |X|: one log per
    // frequency, as log(a + eps) = log a + log1p(eps / a) <= log a + eps / a
    // (a larger U only widens the bound; |X| <= 1; hypot is 3x slower)
    for (std::size_t j = 0; j < nc; ++j) {
      const Real a = std::sqrt(std::norm(X[j]));
      if (a > 0) {
        const Real la = std::log(a);
        logU[j] += nd * (la + eps_i / a);
        logV[j] += nd * la;
      } else {
        logU[j] += nd * std::log(eps_i);
        logV[j] = -std::numeric_limits<Real>::infinity();
      }
    }
    multiply_power(Z.data(), X, nc, times[i]);
  }
  const Real* res = fft.inverse(Z.data());
  const Real scale = fft.inverse_scale();
  spectral_result r;
  r.m.resize(static_cast<std::size_t>(w.khi - w.klo + 1));
  Real z2 = 0;
  for (std::int64_t K = w.klo; K <= w.khi; ++K) {
    std::int64_t idx = (K - base) % w.N;
    if (idx < 0) idx += w.N;
    const Real v = res[idx] * scale;
    z2 += v * v;
    r.m[static_cast<std::size_t>(K - w.klo)] = static_cast<double>(v);
  }
  const Real zn = std::sqrt(z2);
  r.zn = static_cast<double>(zn);
  Real dz2 = 0;
  for (std::size_t j = 0; j < nc; ++j) {
    // U - V = V expm1(logU - logV) (or U when V = 0)
    auto exp0 = [exp_floor](Real x) { return x > exp_floor ? std::exp(x) : Real(0); };
    const Real v = exp0(logV[j]);
    const Real b = (v > 0 ? v * std::expm1(logU[j] - logV[j]) : exp0(logU[j])) + 3 * u * mults * v;
    const Real wt = (j == 0 || (w.N % 2 == 0 && j == nc - 1)) ? 1 : 2;
    dz2 += wt * b * b;
  }
  // inverse transform: linear (1/N scaling) plus its own rounding
  const Real normwise = gamma * err_in + 3 * u * mults * zn;
  const Real perfreq = std::sqrt(dz2) / std::sqrt(static_cast<Real>(w.N));
  const Real to_double = std::is_same<Real, double>::value ? 0 : kU * zn;
  r.fft_l2 = static_cast<double>((std::min(normwise, perfreq) + gamma * zn + u + to_double) *
                                 (1 + 1e-12L));
  return r;
}

// Long compositions (kLongDoubleTerms in all) compute in long double: the
// FFT's rounding is amplified about n-fold by the power, and at n ~ 10^7
// double's bound (~1e-9 of the masses' norm) is far above the deltas asked
// (P7 of the perf scenarios: a 10^7-fold subsampled Gaussian at delta
// 1e-9). The cost is a few times a double transform, paid only there.
spectral_result spectral_power(const std::vector<oriented_term>& ts,
                               const std::vector<std::int64_t>& times, const window& w,
                               std::int64_t base, double nterms, bool long_double) {
  if (long_double || nterms >= detail::kLongDoubleTerms) {
    detail::real_fft_long fft(w.N);
    return spectral_power_in<long double>(fft, ts, times, w, base);
  }
  detail::real_fft fft(w.N);
  return spectral_power_in<double>(fft, ts, times, w, base);
}

// Untilts the composed masses. The tilt's own rounding: relative rho_in on
// every input mass gives at most (1 + rho_in)^n - 1 relative on the
// (nonnegative) composed masses; the untilt factor's exponent and exp add
// rho_out; the tilted measure's mass outside the window, aliased into it,
// is an error vector of 1-norm (so 2-norm) at most that mass. Far below the
// tilt's quantile the factor e^{ktot - theta lambda} makes the FFT error of
// a mass exceed 1: those masses are noise, set to 0, and every bound that
// would sum them is declared vacuous (the cut index, tilt_cut); sums above
// the cut stay clean.
std::size_t untilt(spectral_result& r, const tilt_plan& p, const composition_sums& s,
                   const window& w, double h) {
  const double off = s.off;
  const double lam = std::max(std::fabs(off + static_cast<double>(w.klo) * h),
                              std::fabs(off + static_cast<double>(w.khi) * h));
  const double rho_out = 4 * kU * (std::fabs(p.ktot) + p.theta * lam + 3.0);
  const double ytop_w = off + static_cast<double>(w.khi) * h,
               ybot_w = off + static_cast<double>(w.klo) * h;
  const double aliased = (w.khi < s.top ? tilted_tail(p, ytop_w, true) : 0.0) +
                         (w.klo > s.base ? tilted_tail(p, ybot_w, false) : 0.0);
  // The tilt's rounding is relative on every (nonnegative) composed mass:
  // as an absolute 2-norm term (zn times it) or as the relative factor
  // (1 + rho_in)^n (1 + rho_out) - 1 (which also bounds 1 - (1 - rho_in)^n
  // (1 - rho_out)); composed_pld uses whichever bounds delta better.
  const double rho = std::expm1(p.nterms * std::log1p(p.rho_in)) + rho_out;
  r.tilt_rel = std::expm1(p.nterms * std::log1p(p.rho_in) + std::log1p(rho_out)) * (1 + 1e-12);
  r.fft_l2_rel = r.fft_l2 + aliased;
  r.fft_l2 += rho * r.zn + aliased;
  std::size_t cut = 0;
  for (std::size_t i = 0; i < r.m.size(); ++i) {
    const double lw =
        p.ktot - p.theta * (off + static_cast<double>(w.klo + static_cast<std::int64_t>(i)) * h);
    if (lw > 700.0 || r.fft_l2 * std::exp(lw) > 1.0) {
      r.m[i] = 0.0;
      cut = i + 1;
    } else {
      r.m[i] *= std::exp(lw);
    }
  }
  return cut;
}

void trace_window(const composition_sums& s, const window& w, double h, double tail,
                  const std::function<void(const std::string&)>& trace) {
  const double lt = std::log(tail);
  char line[200];
  for (std::size_t i = 0; i < s.tilts.size(); ++i) {
    std::snprintf(line, sizeof line, "t=%g K=%g y=%g", s.tilts[i], s.K[i],
                  (s.K[i] - lt) / s.tilts[i]);
    trace(line);
  }
  std::snprintf(line, sizeof line, "window [%g, %g], support [%g, %g]",
                s.off + static_cast<double>(w.klo) * h, s.off + static_cast<double>(w.khi) * h,
                s.lmin, s.lmax);
  trace(line);
}

// One term applied once: its composed law is the discretized law itself,
// taken whole (no window tails) and exactly (no transform, no FFT error). A
// transform's rounding, about 1e-16 of the largest mass spread over every
// output, is what bounded a single near-identity step at small deltas
// (subsampled-gaussian:sigma=0.5,q=1e-5 at delta 1e-12 read [0.342, 2.039]
// against 0.910).
composed_pld one_term_exactly(const oriented_term& t, const composition_sums& s, double h) {
  detail::window_masses out;
  out.klo = t.k0;
  out.m = t.x;
  out.windowed = true;
  return composed_pld::from_sums(s, h, std::move(out));
}

}  // namespace

composed_pld compose_grid(const std::vector<const grid_pmf*>& pmfs,
                          const std::vector<std::int64_t>& times, bool use_p, double tail,
                          double tilt_delta, std::int64_t max_points, bool chernoff_beyond_limit,
                          const std::function<void(const std::string&)>& trace, bool long_double) {
  if (pmfs.empty() || pmfs.size() != times.size()) {
    throw std::invalid_argument("compose_grid(pmfs): need one count per term");
  }
  const double h = pmfs[0]->h;
  std::vector<oriented_term> ts = orient_terms(pmfs, use_p);
  const composition_sums s = sum_terms(ts, times, h);
  if (ts.size() == 1 && times[0] == 1) return one_term_exactly(ts[0], s, h);
  const tilt_plan p = plan_tilt(s, ts, times, h, tilt_delta);
  const window w = window_for(s, p, ts, h, tail, max_points);
  if (trace) trace_window(s, w, h, tail, trace);
  detail::window_masses out;
  out.klo = w.klo;
  if (w.N > kMaxGrid || (max_points > 0 && w.N > max_points)) {
    // No window at all: every finite mass is a Chernoff tail (see the header).
    if (chernoff_beyond_limit) return composed_pld::from_sums(s, h, std::move(out));
    const std::int64_t lim = max_points > 0 ? std::min(max_points, kMaxGrid) : kMaxGrid;
    throw grid_limit_error("compose: the composed grid needs " + std::to_string(w.N) +
                               " points, above the limit of " + std::to_string(lim) +
                               "; use a larger tolerance or fewer/larger terms",
                           static_cast<double>(w.N), static_cast<double>(lim));
  }
  spectral_result r = spectral_power(ts, times, w, s.base, s.terms, long_double);
  if (p.theta > 0) {
    out.tilt_clipped = w.tilt_clipped;
    out.tilt_cut = untilt(r, p, s, w, h);
    out.tilt = p.theta;
    out.tilt_rel = r.tilt_rel;
    out.fft_l2_rel = r.fft_l2_rel;
    out.tilt_k = p.ktot;
  }
  out.m = std::move(r.m);
  out.fft_l2 = r.fft_l2;
  out.windowed = true;
  return composed_pld::from_sums(s, h, std::move(out));
}

}  // namespace fdp
