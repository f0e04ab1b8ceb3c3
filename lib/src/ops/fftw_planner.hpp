// Internal (not installed): the one mutex that serializes FFTW planner calls.
//
// FFTW's planner (fftw_plan_*, fftw_destroy_plan) is not thread-safe; fftw_execute_*
// on an existing plan is. Every file of the library that makes or destroys an FFTW
// plan does so under this mutex (pld_grid.cpp, budget/incremental_pld.cpp), so that
// compose() in one thread and a ledger in another never plan at the same moment.
// (fftw_make_planner_thread_safe would need libfftw3_threads, which is not linked.)
#pragma once

#include <fftw3.h>

#include <cstdint>
#include <memory>
#include <mutex>

namespace fdp::detail {

std::mutex& fftw_planner_mutex();  // defined in pld_grid.cpp

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
/// compose and the ledger (defined in pld_grid.cpp). An evicted pair stays
/// valid for whoever still holds it.
std::shared_ptr<const fftw_r2c_plans> fftw_plans_for(std::int64_t n);

}  // namespace fdp::detail
