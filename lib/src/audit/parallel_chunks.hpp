// Internal: runs a function once per chunk of work on its own thread, for
// the selection's data-parallel loops (parallel_sort.cpp, select.cpp). Each
// chunk writes only its own outputs, so results do not depend on timing.
#pragma once

#include <cstddef>
#include <thread>
#include <vector>

namespace fdp::audit::detail {

/// Runs f(t) for t = 0 .. T-1 (T >= 1), f(0) on the calling thread, and
/// returns when all have finished. f must not throw.
template <class F>
void for_each_chunk(unsigned T, F f) {
  std::vector<std::thread> pool;
  pool.reserve(T > 0 ? T - 1 : 0);
  for (unsigned t = 1; t < T; ++t) pool.emplace_back(f, t);
  f(0u);
  for (auto& th : pool) th.join();
}

/// Start of chunk t of T equal chunks of [0, n) (chunk t is [lo(t), lo(t + 1))).
inline std::size_t chunk_start(std::size_t n, unsigned t, unsigned T) { return n * t / T; }

}  // namespace fdp::audit::detail
