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

/// True if a transform of length n goes through FFTW (else kissfft).
bool fftw_worth_it(std::int64_t n);

/// The smallest length >= n with small prime factors (2^a 3^b 5^c ...).
std::int64_t good_size(std::int64_t n);

/// Z[j] *= X[j]^n for j < m, by repeated squaring: the same multiplications
/// in the same order as std::complex's own for each j (finite inputs: the
/// same results), done for all j at once so that the loops over j
/// vectorize (one z^n alone is a chain bound by multiply latency).
void mul_pow_all(std::complex<double>* Z, const std::complex<double>* X, std::size_t m, std::int64_t n);

}  // namespace fdp::detail
