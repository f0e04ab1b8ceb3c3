// The shared FFTW plan cache (lib/src/ops/fftw_planner.hpp): bounded, and an
// evicted plan stays valid for whoever still holds it (destroyed when its
// last user lets go). Before, evicted plans were dropped without being
// destroyed (a leak), and destroying them at eviction would have freed a
// plan another thread was executing. Under ASan a plan used after being
// freed fails this test.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "ops/pld/spectrum.hpp"

namespace {

// Forward transform of a unit impulse at position k: X_j = e^{-2 pi i j k / n}.
void check_plan(const fdp::detail::fftw_r2c_plans& p, std::int64_t n, std::int64_t k) {
  double* in = fftw_alloc_real(static_cast<std::size_t>(n));
  fftw_complex* out = fftw_alloc_complex(static_cast<std::size_t>(n / 2 + 1));
  for (std::int64_t i = 0; i < n; ++i) in[i] = i == k ? 1.0 : 0.0;
  fftw_execute_dft_r2c(p.fwd, in, out);
  for (std::int64_t j = 0; j <= n / 2; ++j) {
    const double ang = -2.0 * M_PI * static_cast<double>(j * k % n) / static_cast<double>(n);
    EXPECT_NEAR(out[j][0], std::cos(ang), 1e-12) << "n=" << n << " j=" << j;
    EXPECT_NEAR(out[j][1], std::sin(ang), 1e-12) << "n=" << n << " j=" << j;
  }
  // and back: c2r is unnormalized (n times the impulse)
  fftw_execute_dft_c2r(p.bwd, out, in);
  for (std::int64_t i = 0; i < n; ++i) EXPECT_NEAR(in[i], i == k ? n : 0.0, 1e-9) << "n=" << n;
  fftw_free(in);
  fftw_free(out);
}

TEST(FftwPlans, EvictedPlansStayValidWhileHeld) {
  const auto first = fdp::detail::fftw_plans_for(96);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(fdp::detail::fftw_plans_for(96), first);  // cached
  // more lengths than the cache keeps: `first` is evicted on the way
  for (std::int64_t n = 100; n < 100 + 2 * 70; n += 2) {
    const auto p = fdp::detail::fftw_plans_for(n);
    ASSERT_NE(p->fwd, nullptr);
  }
  check_plan(*first, 96, 5);
  // asked again after eviction: a new plan, equally good
  const auto again = fdp::detail::fftw_plans_for(96);
  check_plan(*again, 96, 7);
}

TEST(FftwPlans, ConcurrentRequestsAndEvictions) {
  // two threads plan, execute and evict at the same time
  auto work = [](std::int64_t base) {
    for (int round = 0; round < 3; ++round)
      for (std::int64_t n = base; n < base + 2 * 40; n += 2) {
        const auto p = fdp::detail::fftw_plans_for(n);
        check_plan(*p, n, 1);
      }
  };
  std::thread t1(work, 300), t2(work, 500);
  t1.join();
  t2.join();
}

}  // namespace
