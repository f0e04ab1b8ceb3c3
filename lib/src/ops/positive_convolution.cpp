#include "ops/positive_convolution.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include "ops/pld/spectrum.hpp"

namespace fdp::detail {
namespace {

// fftwl buffers and plans of one length, made under the shared planner mutex
// (FFTW's planner is not thread-safe; spectrum.hpp).
class long_double_fft {
 public:
  explicit long_double_fft(std::int64_t n) : n_(n) {
    in_ =
        static_cast<long double*>(fftwl_malloc(sizeof(long double) * static_cast<std::size_t>(n)));
    out_ = static_cast<fftwl_complex*>(
        fftwl_malloc(sizeof(fftwl_complex) * static_cast<std::size_t>(n / 2 + 1)));
    spec_a_.resize(static_cast<std::size_t>(n / 2 + 1));
    if (!in_ || !out_) throw std::bad_alloc();
    std::lock_guard<std::mutex> lk(fftw_planner_mutex());
    fwd_ = fftwl_plan_dft_r2c_1d(static_cast<int>(n), in_, out_, FFTW_ESTIMATE);
    bwd_ = fftwl_plan_dft_c2r_1d(static_cast<int>(n), out_, in_, FFTW_ESTIMATE);
  }
  ~long_double_fft() {
    {
      std::lock_guard<std::mutex> lk(fftw_planner_mutex());
      fftwl_destroy_plan(fwd_);
      fftwl_destroy_plan(bwd_);
    }
    fftwl_free(in_);
    fftwl_free(out_);
  }
  long_double_fft(const long_double_fft&) = delete;
  long_double_fft& operator=(const long_double_fft&) = delete;

  // The circular convolution of a and b (each zero-padded to n), times n.
  const long double* convolve(const std::vector<double>& a, const std::vector<double>& b) {
    load(a);
    fftwl_execute(fwd_);
    for (std::size_t j = 0; j < spec_a_.size(); ++j) spec_a_[j] = {out_[j][0], out_[j][1]};
    load(b);
    fftwl_execute(fwd_);
    for (std::size_t j = 0; j < spec_a_.size(); ++j) {
      const long double re = out_[j][0], im = out_[j][1];
      const long double ar = spec_a_[j].first, ai = spec_a_[j].second;
      out_[j][0] = ar * re - ai * im;
      out_[j][1] = ar * im + ai * re;
    }
    fftwl_execute(bwd_);
    return in_;
  }

 private:
  void load(const std::vector<double>& x) {
    std::fill(in_, in_ + n_, 0.0L);
    std::copy(x.begin(), x.end(), in_);
  }
  std::int64_t n_;
  long double* in_ = nullptr;
  fftwl_complex* out_ = nullptr;
  fftwl_plan fwd_ = nullptr, bwd_ = nullptr;
  std::vector<std::pair<long double, long double>> spec_a_;
};

// Upper bounds on the 1- and 2-norms of v (long-double sums of a few ulps'
// error, widened by a relative 1e-15).
struct norms {
  long double l1 = 0, l2 = 0;
};
norms norms_of(const std::vector<double>& v) {
  long double s = 0, s2 = 0;
  for (double x : v) {
    s += x;
    s2 += static_cast<long double>(x) * x;
  }
  return {s * (1 + 1e-15L), std::sqrt(s2) * (1 + 1e-15L)};
}

// The largest double <= x (x >= 0).
double to_double_down(long double x) {
  if (!(x > 0)) return 0.0;
  double d = static_cast<double>(x);
  if (static_cast<long double>(d) > x) d = std::nextafter(d, 0.0);
  return d;
}

}  // namespace

// Error bound, normwise as in the PLD kernel's (a) (compose_grid.cpp): with
// u = 2^-64 and gamma = 10 u log2 N, a computed N-point transform of x is off
// by at most gamma ||F x||_2 = gamma sqrt(N) ||x||_2 in 2-norm (Higham,
// Accuracy and Stability of Numerical Algorithms, Thm 24.2, with a safety
// factor). The spectra's product is then off by at most
//   gamma sqrt(N) (||a||_2 ||B||_inf + ||A||_inf ||b||_2 + gamma sqrt(N) ||a||_2 ||b||_2)
// plus its own rounding, 4u |A||B| <= 4u ||a||_1 ||b||_1 per entry; |A|, |B| are
// at most the 1-norms. The inverse transform divides 2-norms by sqrt(N) and
// adds gamma times the result's 2-norm (at most ||a||_2 ||b||_1). Every
// output is off by at most the error's 2-norm:
//   gamma (||a||_2 ||b||_1 + ||a||_1 ||b||_2 + gamma sqrt(N) ||a||_2 ||b||_2
//          + ||a||_2 ||b||_1) + 4u ||a||_1 ||b||_1.
// (Spread-out laws have 2-norms far below their 1-norms: the bound is ~10x
// below the elementwise one.)
window_seq convolve_lower(const window_seq& a, const window_seq& b, std::int64_t lo,
                          std::int64_t hi) {
  window_seq r;
  if (a.v.empty() || b.v.empty()) return r;
  const std::int64_t full = static_cast<std::int64_t>(a.v.size() + b.v.size()) - 1;
  const std::int64_t k0 = a.k0 + b.k0;
  lo = std::max(lo, k0);
  hi = std::min(hi, k0 + full - 1);
  r.k0 = lo;
  if (hi < lo) return r;
  std::int64_t n = 64;
  while (n < full) n *= 2;
  long_double_fft fft(n);
  const long double* c = fft.convolve(a.v, b.v);
  const long double u = LDBL_EPSILON / 2;
  const long double gamma = 10 * u * std::log2(static_cast<long double>(n));
  const norms na = norms_of(a.v), nb = norms_of(b.v);
  const long double err = gamma * (2 * na.l2 * nb.l1 + na.l1 * nb.l2 +
                                   gamma * std::sqrt(static_cast<long double>(n)) * na.l2 * nb.l2) +
                          4 * u * na.l1 * nb.l1;
  const long double inv_n = 1.0L / static_cast<long double>(n);
  r.v.resize(static_cast<std::size_t>(hi - lo + 1));
  for (std::int64_t k = lo; k <= hi; ++k)
    r.v[static_cast<std::size_t>(k - lo)] = to_double_down(c[k - k0] * inv_n - err);
  return r;
}

}  // namespace fdp::detail
