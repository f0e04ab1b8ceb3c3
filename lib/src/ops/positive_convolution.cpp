#include "ops/positive_convolution.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <stdexcept>

#include "ops/pld/spectrum.hpp"

namespace fdp::detail {
namespace {

// Products of one long-double spectrum with others (spectrum.hpp's
// real_fft_long: fftwl plans made under the shared planner mutex).
class long_double_fft {
 public:
  explicit long_double_fft(std::int64_t n) : fft_(n) {}

  // Keeps the spectrum of a (zero-padded to n) for the products below.
  void transform(const std::vector<double>& a) {
    const std::complex<long double>* X = fft_.forward(a);
    spec_a_.assign(X, X + fft_.spectrum_size());
  }

  // The circular convolution of a (transform) and b, times n; b null: a
  // with itself (one transform fewer). Valid until the next call.
  const long double* times(const std::vector<double>* b) {
    prod_ = spec_a_;
    const std::complex<long double>* Y = b ? fft_.forward(*b) : spec_a_.data();
    for (std::size_t j = 0; j < prod_.size(); ++j) prod_[j] *= Y[j];
    return fft_.inverse(prod_.data());
  }

 private:
  real_fft_long fft_;
  std::vector<std::complex<long double>> spec_a_, prod_;
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
namespace {

// The product's window [lo, hi] (clipped to its support) and the FFT length.
struct product_plan {
  std::int64_t k0 = 0, lo = 0, hi = -1, n = 64;
};

product_plan plan_product(const window_seq& a, const window_seq& b, std::int64_t lo,
                          std::int64_t hi) {
  product_plan p;
  const std::int64_t full = static_cast<std::int64_t>(a.v.size() + b.v.size()) - 1;
  p.k0 = a.k0 + b.k0;
  p.lo = std::max(lo, p.k0);
  p.hi = std::min(hi, p.k0 + full - 1);
  while (p.n < full) p.n *= 2;
  return p;
}

// The computed product c (times n) lowered by the error bound of a * b.
window_seq lowered(const long double* c, const product_plan& p, const window_seq& a,
                   const window_seq& b) {
  const long double u = LDBL_EPSILON / 2;
  const long double gamma = 10 * u * std::log2(static_cast<long double>(p.n));
  const norms na = norms_of(a.v), nb = norms_of(b.v);
  const long double err =
      gamma * (2 * na.l2 * nb.l1 + na.l1 * nb.l2 +
               gamma * std::sqrt(static_cast<long double>(p.n)) * na.l2 * nb.l2) +
      4 * u * na.l1 * nb.l1;
  const long double inv_n = 1.0L / static_cast<long double>(p.n);
  window_seq r;
  r.k0 = p.lo;
  r.v.resize(static_cast<std::size_t>(p.hi - p.lo + 1));
  for (std::int64_t k = p.lo; k <= p.hi; ++k)
    r.v[static_cast<std::size_t>(k - p.lo)] = to_double_down(c[k - p.k0] * inv_n - err);
  return r;
}

}  // namespace

window_seq convolve_lower(const window_seq& a, const window_seq& b, std::int64_t lo,
                          std::int64_t hi) {
  if (a.v.empty() || b.v.empty()) return {lo, {}};
  const product_plan p = plan_product(a, b, lo, hi);
  if (p.hi < p.lo) return {p.lo, {}};
  long_double_fft fft(p.n);
  fft.transform(a.v);
  return lowered(fft.times(&a == &b ? nullptr : &b.v), p, a, b);
}

std::pair<window_seq, window_seq> convolve_lower_twice(const window_seq& a, const window_seq& b1,
                                                       const window_seq& b2, std::int64_t lo,
                                                       std::int64_t hi) {
  const product_plan p = plan_product(a, b1.v.size() >= b2.v.size() ? b1 : b2, lo, hi);
  if (a.v.empty() || b1.v.empty() || b2.v.empty() || p.hi < p.lo) return {};
  long_double_fft fft(p.n);
  fft.transform(a.v);
  // (both products fit the longer one's length; each keeps its own window)
  product_plan p1 = plan_product(a, b1, lo, hi), p2 = plan_product(a, b2, lo, hi);
  p1.n = p2.n = p.n;
  window_seq r1 = lowered(fft.times(&b1.v), p1, a, b1);
  window_seq r2 = lowered(fft.times(&b2.v), p2, a, b2);
  return {std::move(r1), std::move(r2)};
}

window_seq convolution_power(const window_seq& one, std::int64_t n, const sum_window& window) {
  if (n == 0) return {0, {1.0}};  // (the empty sum: 0 with probability 1)
  window_seq result, base = one;
  std::int64_t have = 0, base_n = 1;
  std::int64_t lo = 0, hi = 0;
  for (std::int64_t rest = n; rest > 0; rest >>= 1) {
    if (rest & 1) {
      if (have == 0) {
        result = base;
      } else {
        window(have + base_n, lo, hi);
        result = convolve_lower(result, base, lo, hi);
      }
      have += base_n;
    }
    if (rest > 1) {
      window(2 * base_n, lo, hi);
      base = convolve_lower(base, base, lo, hi);
      base_n *= 2;
    }
  }
  return result;
}

}  // namespace fdp::detail
