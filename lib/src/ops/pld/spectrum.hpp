// Internal (not installed): the PLD kernel's spectra. Real FFTs of one
// length through FFTW (plans cached and shared by compose and the ledger,
// made under one planner mutex) or Eigen's kissfft, the choice between them,
// sizes with small prime factors, and powers of a spectrum.
//
// FFTW's planner (fftw_plan_*, fftw_destroy_plan) is not thread-safe;
// fftw_execute_* on an existing plan is. Every plan is made or destroyed
// under fftw_planner_mutex(), so that compose() in one thread and a ledger
// in another never plan at the same moment. (fftw_make_planner_thread_safe
// would need libfftw3_threads, which is not linked.)
#pragma once

#include <fftw3.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace fdp::detail {

std::mutex& fftw_planner_mutex();

/// A real-to-complex / complex-to-real plan pair of one length, made with
/// FFTW_ESTIMATE and executed with the new-array interface on fftw_malloc'd
/// buffers. Destroyed (under the planner mutex) when its last user lets go.
struct fftw_r2c_plans {
  fftw_plan fwd = nullptr, bwd = nullptr;
  fftw_r2c_plans() = default;
  fftw_r2c_plans(const fftw_r2c_plans&) = delete;
  fftw_r2c_plans& operator=(const fftw_r2c_plans&) = delete;
  ~fftw_r2c_plans();
};

/// The plans for length n, from a cache of at most 64 lengths shared by
/// compose and the ledger. An evicted pair stays
/// valid for whoever still holds it.
std::shared_ptr<const fftw_r2c_plans> fftw_plans_for(std::int64_t n);

/// True if a transform of length n goes through FFTW (else kissfft): by the
/// length alone, so that the same query always takes the same path.
bool fftw_worth_it(std::int64_t n);

/// Which library transforms: `by_length` (fftw_worth_it: a one-shot
/// composition, where a plan costs more than the few kissfft transforms it
/// would speed up) or `fftw` always (a long-lived engine such as the ledger,
/// which reuses one length for hundreds of transforms). Either way the choice
/// depends only on the caller and the length, never on what ran before.
enum class fft_backend { by_length, fftw };

/// Real FFTs of one length n with their buffers (freed with the object):
/// forward transforms of real vectors, zero-padded to n, into n/2 + 1
/// complex values, and the inverse of such a half spectrum. One object per
/// thread (kissfft's twiddles are kept per thread and length, at most 16
/// lengths; FFTW's plans in the shared cache).
class real_fft {
 public:
  explicit real_fft(std::int64_t n, fft_backend backend = fft_backend::by_length);
  ~real_fft();
  real_fft(const real_fft&) = delete;
  real_fft& operator=(const real_fft&) = delete;

  std::int64_t size() const { return n_; }
  std::size_t spectrum_size() const { return nc_; }
  bool uses_fftw() const { return fftw_; }
  /// The spectrum of x (x.size() <= n), valid until the next call.
  const std::complex<double>* forward(const std::vector<double>& x);
  /// The inverse transform of Z (spectrum_size() values) times n *
  /// inverse_scale(), valid until the next call: multiply by
  /// inverse_scale() to get it (1/n for FFTW; kissfft's is scaled already).
  const double* inverse(const std::complex<double>* Z);
  double inverse_scale() const { return fftw_ ? 1.0 / static_cast<double>(n_) : 1.0; }

 private:
  std::int64_t n_;
  std::size_t nc_;
  bool fftw_;
  double* in_ = nullptr;  // FFTW's aligned buffers
  fftw_complex* out_ = nullptr;
  std::shared_ptr<const fftw_r2c_plans> plans_;
  std::vector<double> buf_;  // kissfft's
  std::vector<std::complex<double>> spec_, zbuf_;
};

/// Real FFTs of length n in long double (FFTW's fftwl, 64-bit mantissa:
/// rounding 2^11 times finer than double), for compositions so long that
/// the double transform's rounding, amplified by the power, would swamp
/// the answer (compose_grid). Plans are made under the planner mutex and
/// not cached (such compositions are few and long).
class real_fft_long {
 public:
  explicit real_fft_long(std::int64_t n);
  ~real_fft_long();
  real_fft_long(const real_fft_long&) = delete;
  real_fft_long& operator=(const real_fft_long&) = delete;

  std::int64_t size() const { return n_; }
  std::size_t spectrum_size() const { return nc_; }
  /// The spectrum of x (x.size() <= n), valid until the next call.
  const std::complex<long double>* forward(const std::vector<double>& x);
  /// The inverse transform of Z times n (multiply by inverse_scale()).
  const long double* inverse(const std::complex<long double>* Z);
  long double inverse_scale() const { return 1.0L / static_cast<long double>(n_); }

 private:
  std::int64_t n_;
  std::size_t nc_;
  long double* in_ = nullptr;
  fftwl_complex* out_ = nullptr;
  fftwl_plan fwd_ = nullptr, bwd_ = nullptr;
};

/// This thread's real_fft of length n, kept between calls (the last four
/// lengths), so that repeated transforms do not allocate (fresh large
/// blocks cost a page fault per 4 KiB on first touch).
real_fft& thread_fft(std::int64_t n, fft_backend backend = fft_backend::by_length);

/// The smallest length >= n with small prime factors (2^a 3^b 5^c ...).
std::int64_t good_size(std::int64_t n);

/// Z[j] *= X[j]^n for j < m, by repeated squaring: the same multiplications
/// in the same order as std::complex's own for each j (finite inputs: the
/// same results), done for all j at once so that the loops over j
/// vectorize (one z^n alone is a chain bound by multiply latency).
void mul_pow_all(std::complex<double>* Z, const std::complex<double>* X, std::size_t m,
                 std::int64_t n);

}  // namespace fdp::detail
