// fdp audit speed (Google Benchmark). Targets (issue 7):
//   - a complete audit of a built-in scalar mechanism with 1e7 samples per
//     side in under 2 s on the 2-core machine (BM_AuditLaplace1e7);
//   - black-box sample files read at >= 5e6 lines per second
//     (BM_ReadScalarFile etc.: items_per_second is lines per second of one
//     thread; BM_AuditFiles is the whole file audit, both passes, lines of
//     both files per second).
// CPU time (cpu_time) is what one machine spends; real_time is wall clock,
// which on a shared machine includes waiting for the cores.
//
//   ./fdp_bench --benchmark_filter=Audit
//   ./fdp_bench --benchmark_filter='Read|AuditFiles'
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fdp/audit/audit.hpp"
#include "fdp/audit/sample_file.hpp"
#include "fdp/mech/registry.hpp"

namespace {

using namespace fdp::audit;

void BM_AuditLaplace1e7(benchmark::State& state) {
  const auto m = fdp::mech::make_mechanism("laplace:eps=1");
  audit_options o;
  o.threads = static_cast<unsigned>(state.range(0));
  o.oracle = false;
  double eps = 0;
  for (auto _ : state) {
    const auto r = audit_mechanism(*m, {0.0}, {1.0}, 10000000, m->claim(), o);
    eps = r.result.epsilon_lower;
  }
  state.counters["epsilon_lower"] = eps;
  state.SetItemsProcessed(state.iterations() * 20000000);
}
BENCHMARK(BM_AuditLaplace1e7)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();

/// A sample file written once per process (lines of the given kind).
const std::string& sample_file(const std::string& kind, std::size_t lines) {
  static std::map<std::string, std::string> made;
  auto it = made.find(kind);
  if (it != made.end()) return it->second;
  const std::string path = "/tmp/fdp_audit_bench_" + kind + ".txt";
  std::ofstream f(path);
  fdp::mech::rng_stream r(1, 0);
  char buf[64];
  for (std::size_t i = 0; i < lines; ++i) {
    if (kind == "scalar") {
      std::snprintf(buf, sizeof buf, "%.17g\n", r.laplace(10.0));
    } else if (kind == "vector") {
      std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g\n", r.laplace(1.0), r.laplace(1.0),
                    r.laplace(1.0));
    } else {
      std::snprintf(buf, sizeof buf, "%s\n",
                    r.uniform() < 0.5 ? "TTF-------" : (r.uniform() < 0.5 ? "r1" : "FFFFFFFFFF"));
    }
    f << buf;
  }
  return made[kind] = path;
}

void read_bench(benchmark::State& state, const std::string& kind) {
  const std::size_t lines = 2000000;
  const std::string& path = sample_file(kind, lines);
  std::vector<double> v;
  for (auto _ : state) {
    line_reader r(path);
    const char *b, *e;
    std::size_t ok = 0;
    while (r.next(b, e)) ok += parse_numbers(b, e, v) >= 0;
    benchmark::DoNotOptimize(ok);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(lines));
}
void BM_ReadScalarFile(benchmark::State& s) { read_bench(s, "scalar"); }
void BM_ReadVectorFile(benchmark::State& s) { read_bench(s, "vector"); }
void BM_ReadTokenFile(benchmark::State& s) { read_bench(s, "token"); }
BENCHMARK(BM_ReadScalarFile)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadVectorFile)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadTokenFile)->Unit(benchmark::kMillisecond);

void BM_AuditFiles(benchmark::State& state) {
  const std::string& path = sample_file("scalar", 2000000);
  audit_options o;
  o.threads = 2;
  for (auto _ : state) {
    const auto r = audit_files(path, path, fdp::eps_delta(1.0), o);
    benchmark::DoNotOptimize(r.result.epsilon_lower);
  }
  state.SetItemsProcessed(state.iterations() * 4000000);
}
BENCHMARK(BM_AuditFiles)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
