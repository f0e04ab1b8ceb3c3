#include "ops/pld/spectrum.hpp"

#include <unsupported/Eigen/FFT>

#include <algorithm>
#include <map>
#include <new>

namespace fdp::detail {
std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

fftw_r2c_plans::~fftw_r2c_plans() {
  std::lock_guard<std::mutex> lk(fftw_planner_mutex());
  if (fwd) fftw_destroy_plan(fwd);
  if (bwd) fftw_destroy_plan(bwd);
}

std::shared_ptr<const fftw_r2c_plans> fftw_plans_for(std::int64_t n) {
  // never destroyed: plans still cached at exit are freed with the process
  static auto* cache = new std::map<std::int64_t, std::shared_ptr<const fftw_r2c_plans>>();
  std::map<std::int64_t, std::shared_ptr<const fftw_r2c_plans>>
      evicted;  // released after unlocking
  std::shared_ptr<fftw_r2c_plans> p;
  {
    std::lock_guard<std::mutex> lk(fftw_planner_mutex());
    auto it = cache->find(n);
    if (it != cache->end()) return it->second;
    double* in = fftw_alloc_real(static_cast<std::size_t>(n));
    fftw_complex* out = fftw_alloc_complex(static_cast<std::size_t>(n / 2 + 1));
    p = std::make_shared<fftw_r2c_plans>();
    p->fwd = fftw_plan_dft_r2c_1d(static_cast<int>(n), in, out, FFTW_ESTIMATE);
    p->bwd = fftw_plan_dft_c2r_1d(static_cast<int>(n), out, in, FFTW_ESTIMATE);
    fftw_free(in);
    fftw_free(out);
    if (cache->size() >= 64) evicted.swap(*cache);  // a bound on the plans kept
    (*cache)[n] = p;
  }
  return p;
}
}  // namespace fdp::detail

namespace fdp::detail {
// FFTW executes 3-5x faster than Eigen's kissfft (bench/fft_bench.cpp) but
// each new length costs a plan: measured in process on this 2-core kind,
// ~10 ms at N = 24576 and ~27 ms at 2^18 (FFTW_ESTIMATE), more than all the
// kissfft transforms of a one-shot composition at N <= 2^17 (whole-process
// S3b: 48 -> 41 ms CPU with kissfft). So kissfft below 2^18 and FFTW from
// there on, by the length alone: the same query always takes the same path
// and gives the same bits (a count of earlier uses of the length, which
// moved calibrations and ledgers to FFTW after 12 compositions, made an
// answer depend on what the process had computed before).
bool fftw_worth_it(std::int64_t n) { return n >= (std::int64_t(1) << 18); }

namespace {
// kissfft keeps its twiddles per length inside the object: one per thread,
// reused by every transform of that thread (at most 16 lengths' twiddles).
Eigen::FFT<double>& kiss_for(std::int64_t n) {
  thread_local Eigen::FFT<double> kiss;
  thread_local std::vector<std::int64_t> lengths;
  if (std::find(lengths.begin(), lengths.end(), n) == lengths.end()) {
    if (lengths.size() >= 16) kiss.impl().clear(), lengths.clear();
    lengths.push_back(n);
  }
  kiss.SetFlag(Eigen::FFT<double>::HalfSpectrum);
  return kiss;
}
}  // namespace

real_fft::real_fft(std::int64_t n, fft_backend backend)
    : n_(n),
      nc_(static_cast<std::size_t>(n / 2 + 1)),
      fftw_(backend == fft_backend::fftw || fftw_worth_it(n)) {
  if (fftw_) {
    in_ = fftw_alloc_real(static_cast<std::size_t>(n));
    out_ = fftw_alloc_complex(nc_);
    if (!in_ || !out_) {
      fftw_free(in_);
      fftw_free(out_);
      throw std::bad_alloc();
    }
    plans_ = fftw_plans_for(n);
  } else {
    buf_.assign(static_cast<std::size_t>(n), 0.0);
  }
}

real_fft::~real_fft() {
  fftw_free(in_);
  fftw_free(out_);
}

const std::complex<double>* real_fft::forward(const std::vector<double>& x) {
  if (fftw_) {
    std::fill(in_, in_ + n_, 0.0);
    std::copy(x.begin(), x.end(), in_);
    fftw_execute_dft_r2c(plans_->fwd, in_, out_);
    // (fftw_complex is laid out as std::complex<double>)
    return reinterpret_cast<const std::complex<double>*>(out_);
  }
  std::fill(buf_.begin(), buf_.end(), 0.0);
  std::copy(x.begin(), x.end(), buf_.begin());
  kiss_for(n_).fwd(spec_, buf_);
  return spec_.data();
}

real_fft& thread_fft(std::int64_t n, fft_backend backend) {
  thread_local std::vector<std::unique_ptr<real_fft>> kept;  // most recent last
  const bool fftw = backend == fft_backend::fftw || fftw_worth_it(n);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (kept[i]->size() != n || kept[i]->uses_fftw() != fftw) continue;
    std::rotate(kept.begin() + static_cast<std::ptrdiff_t>(i),
                kept.begin() + static_cast<std::ptrdiff_t>(i) + 1, kept.end());
    return *kept.back();
  }
  if (kept.size() >= 4) kept.erase(kept.begin());
  kept.push_back(std::make_unique<real_fft>(n, backend));
  return *kept.back();
}

const double* real_fft::inverse(const std::complex<double>* Z) {
  if (fftw_) {
    for (std::size_t j = 0; j < nc_; ++j) {
      out_[j][0] = Z[j].real();
      out_[j][1] = Z[j].imag();
    }
    fftw_execute_dft_c2r(plans_->bwd, out_, in_);
    return in_;
  }
  zbuf_.assign(Z, Z + nc_);
  kiss_for(n_).inv(buf_, zbuf_, n_);  // (kissfft's inverse is scaled by 1/n already)
  return buf_.data();
}

real_fft_long::real_fft_long(std::int64_t n) : n_(n), nc_(static_cast<std::size_t>(n / 2 + 1)) {
  in_ = static_cast<long double*>(fftwl_malloc(sizeof(long double) * static_cast<std::size_t>(n)));
  out_ = static_cast<fftwl_complex*>(fftwl_malloc(sizeof(fftwl_complex) * nc_));
  if (!in_ || !out_) {
    fftwl_free(in_);
    fftwl_free(out_);
    throw std::bad_alloc();
  }
  std::lock_guard<std::mutex> lk(fftw_planner_mutex());
  fwd_ = fftwl_plan_dft_r2c_1d(static_cast<int>(n), in_, out_, FFTW_ESTIMATE);
  bwd_ = fftwl_plan_dft_c2r_1d(static_cast<int>(n), out_, in_, FFTW_ESTIMATE);
}

real_fft_long::~real_fft_long() {
  {
    std::lock_guard<std::mutex> lk(fftw_planner_mutex());
    if (fwd_) fftwl_destroy_plan(fwd_);
    if (bwd_) fftwl_destroy_plan(bwd_);
  }
  fftwl_free(in_);
  fftwl_free(out_);
}

const std::complex<long double>* real_fft_long::forward(const std::vector<double>& x) {
  std::fill(in_, in_ + n_, 0.0L);
  std::copy(x.begin(), x.end(), in_);
  fftwl_execute(fwd_);
  // (fftwl_complex is laid out as std::complex<long double>)
  return reinterpret_cast<const std::complex<long double>*>(out_);
}

const long double* real_fft_long::inverse(const std::complex<long double>* Z) {
  for (std::size_t j = 0; j < nc_; ++j) {
    out_[j][0] = Z[j].real();
    out_[j][1] = Z[j].imag();
  }
  fftwl_execute(bwd_);
  return in_;
}

std::int64_t good_size(std::int64_t n) {
  std::int64_t best = std::int64_t(1) << 62;
  for (std::int64_t p2 = 1; p2 < 2 * n + 2; p2 *= 2)
    for (std::int64_t m : {1, 3, 5, 9, 15})
      if (p2 * m >= n && p2 * m < best) best = p2 * m;
  return best;
}

void mul_pow_all(std::complex<double>* Z, const std::complex<double>* X, std::size_t m,
                 std::int64_t n) {
  // split into real and imaginary parts (structure of arrays), per block
  constexpr std::size_t kBlock = 1024;
  double zr[kBlock], zi[kBlock], rr[kBlock], ri[kBlock];
  for (std::size_t b0 = 0; b0 < m; b0 += kBlock) {
    const std::size_t len = std::min(kBlock, m - b0);
    for (std::size_t j = 0; j < len; ++j) {
      zr[j] = X[b0 + j].real();
      zi[j] = X[b0 + j].imag();
      rr[j] = 1.0;
      ri[j] = 0.0;
    }
    for (std::int64_t k = n; k > 0;) {
      if (k & 1) {
        for (std::size_t j = 0; j < len; ++j) {
          const double a = rr[j] * zr[j] - ri[j] * zi[j];
          const double c = rr[j] * zi[j] + ri[j] * zr[j];
          rr[j] = a;
          ri[j] = c;
        }
      }
      k >>= 1;
      if (k) {
        for (std::size_t j = 0; j < len; ++j) {
          const double a = zr[j] * zr[j] - zi[j] * zi[j];
          const double c = zr[j] * zi[j] + zi[j] * zr[j];
          zr[j] = a;
          zi[j] = c;
        }
      }
    }
    for (std::size_t j = 0; j < len; ++j) {
      const double zre = Z[b0 + j].real(), zim = Z[b0 + j].imag();
      Z[b0 + j] = std::complex<double>(zre * rr[j] - zim * ri[j], zre * ri[j] + zim * rr[j]);
    }
  }
}

}  // namespace fdp::detail
