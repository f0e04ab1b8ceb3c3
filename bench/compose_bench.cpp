// Accounting scenarios of the published accounting scenarios (bench/scenarios.sh), in process.
// Whole-process timings of `fdp compose` are measured by bench/scenarios.sh.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fdp/ops/compose.hpp"

namespace {

void run(benchmark::State& st, const std::vector<std::string>& specs, double delta,
         std::int64_t stage_min = fdp::compose_options{}.stage_min) {
  std::vector<fdp::spec> s;
  for (const auto& x : specs) s.push_back(fdp::parse_spec(x));
  fdp::compose_options o;
  o.delta_hint = delta;
  o.stage_min = stage_min;
  double lo = 0, hi = 0;
  for (auto _ : st) {
    const auto c = fdp::compose(s, o);
    const auto e = c.epsilon(delta);
    lo = e.lower;
    hi = e.upper;
    benchmark::DoNotOptimize(lo);
  }
  st.counters["eps_lower"] = lo;
  st.counters["eps_upper"] = hi;
}

void S1(benchmark::State& st) { run(st, {"gaussian:sigma=1,times=100"}, 1e-5); }
void S1_pld(benchmark::State& st) {
  std::vector<fdp::spec> s{fdp::parse_spec("gaussian:sigma=1,times=100")};
  fdp::compose_options o;
  o.method = fdp::compose_method::pld;
  for (auto _ : st) benchmark::DoNotOptimize(fdp::compose(s, o).epsilon(1e-5));
}
void S2a(benchmark::State& st) { run(st, {"laplace:b=10,times=100"}, 1e-6); }
void S2b(benchmark::State& st) { run(st, {"laplace:b=10,times=1000"}, 1e-6); }
void S3a(benchmark::State& st) {
  run(st, {"subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062"}, 1e-5);
}
void S3b(benchmark::State& st) {
  run(st, {"subsampled-gaussian:sigma=0.8,q=0.01,times=10000"}, 1e-5);
}
void S4(benchmark::State& st) { run(st, {"epsdelta:eps=0.1,delta=1e-6,times=100"}, 1e-3); }
void S5(benchmark::State& st) {
  run(st,
      {"gaussian:sigma=2,times=50", "laplace:b=5,times=50",
       "subsampled-gaussian:sigma=1,q=0.01,times=50"},
      1e-5);
}

// n-fold self-compositions at matched epsilon (the per-term noise scaled by
// sqrt(n)): 10^3 against 10^6 (staged composition from 2^17 repetitions),
// and the small-delta path (exponential tilt, delta_hint < 1e-7).
void Laplace_1e3(benchmark::State& st) { run(st, {"laplace:b=10,times=1000"}, 1e-5); }
void Laplace_1e6(benchmark::State& st) { run(st, {"laplace:b=316.2,times=1000000"}, 1e-5); }
void SubsampledGaussian_1e3(benchmark::State& st) {
  run(st, {"subsampled-gaussian:sigma=1,q=0.01,times=1000"}, 1e-5);
}
void SubsampledGaussian_1e6(benchmark::State& st) {
  run(st, {"subsampled-gaussian:sigma=1,q=0.0003162,times=1000000"}, 1e-5);
}
void SubsampledLaplace_1e3(benchmark::State& st) {
  run(st, {"subsampled-laplace:b=1,q=0.01,times=1000"}, 1e-5);
}
void SubsampledLaplace_1e6(benchmark::State& st) {
  run(st, {"subsampled-laplace:b=1,q=0.00032,times=1000000"}, 1e-5);
}
// n = 10^6 + 3 (prime): no divisor near sqrt(n), so the first stage composes
// a k-fold and a (k+1)-fold from the same grids (compose.cpp, staged_terms)
void Laplace_1e6p3(benchmark::State& st) { run(st, {"laplace:b=316.2,times=1000003"}, 1e-5); }
void SubsampledGaussian_1e6p3(benchmark::State& st) {
  run(st, {"subsampled-gaussian:sigma=1,q=0.0003162,times=1000003"}, 1e-5);
}
// the same 10^6-fold compositions on one grid (stage_min = 0), for comparison
void Laplace_1e6_one_grid(benchmark::State& st) {
  run(st, {"laplace:b=316.2,times=1000000"}, 1e-5, 0);
}
void SubsampledGaussian_1e6_one_grid(benchmark::State& st) {
  run(st, {"subsampled-gaussian:sigma=1,q=0.0003162,times=1000000"}, 1e-5, 0);
}
void S3a_delta1e10(benchmark::State& st) {
  run(st, {"subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062"}, 1e-10);
}
BENCHMARK(Laplace_1e3)->Unit(benchmark::kMillisecond);
BENCHMARK(Laplace_1e6)->Unit(benchmark::kMillisecond);
BENCHMARK(SubsampledGaussian_1e3)->Unit(benchmark::kMillisecond);
BENCHMARK(SubsampledGaussian_1e6)->Unit(benchmark::kMillisecond);
BENCHMARK(SubsampledLaplace_1e3)->Unit(benchmark::kMillisecond);
BENCHMARK(SubsampledLaplace_1e6)->Unit(benchmark::kMillisecond);
BENCHMARK(Laplace_1e6p3)->Unit(benchmark::kMillisecond);
BENCHMARK(SubsampledGaussian_1e6p3)->Unit(benchmark::kMillisecond);
BENCHMARK(Laplace_1e6_one_grid)->Unit(benchmark::kMillisecond);
BENCHMARK(SubsampledGaussian_1e6_one_grid)->Unit(benchmark::kMillisecond);
BENCHMARK(S3a_delta1e10)->Unit(benchmark::kMillisecond);

BENCHMARK(S1)->Unit(benchmark::kMillisecond);
BENCHMARK(S1_pld)->Unit(benchmark::kMillisecond);
BENCHMARK(S2a)->Unit(benchmark::kMillisecond);
BENCHMARK(S2b)->Unit(benchmark::kMillisecond);
BENCHMARK(S3a)->Unit(benchmark::kMillisecond);
BENCHMARK(S3b)->Unit(benchmark::kMillisecond);
BENCHMARK(S4)->Unit(benchmark::kMillisecond);
BENCHMARK(S5)->Unit(benchmark::kMillisecond);

}  // namespace
