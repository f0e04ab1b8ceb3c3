// Budget workloads, in process: calibration on the accounting scenarios
// (the published accounting scenarios (bench/scenarios.sh): solve for the parameter that gives the
// scenario's reference epsilon, so the answer should come back near the
// scenario's own value), DP-SGD accounting, and the ledger target: 10,000
// heterogeneous mechanisms added one at a time, each followed by a status
// query (per-operation latency percentiles as counters, plus the cost of a
// status query on a state with no cached views, and of reloading the saved
// ledger). Long: run with --benchmark_filter=Ledger for the ledger alone.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <time.h>

#include "fdp/budget/calibrate.hpp"
#include "fdp/budget/dpsgd.hpp"
#include "fdp/budget/ledger.hpp"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void calib(benchmark::State& st, const std::string& spec, const std::string& param, double eps,
           double delta, double expect) {
  fdp::calibration_result r;
  for (auto _ : st) {
    r = fdp::calibrate(spec, param, eps, delta);
    double v = r.value;
    benchmark::DoNotOptimize(v);
  }
  st.counters["value"] = r.value;
  st.counters["scenario_value"] = expect;
  st.counters["certified_gap_pct"] = 100 * r.certified_gap;
  st.counters["evaluations"] = r.evaluations;
  st.counters["eps_upper"] = r.epsilon.upper;
}

// target = the scenario's reference upper end: sigma (b) should come back just above its value
void Calibrate_S1(benchmark::State& st) {
  calib(st, "gaussian:times=100", "sigma", 91.8172896247, 1e-5, 1.0);
}
void Calibrate_S2a(benchmark::State& st) {
  calib(st, "laplace:times=100", "b", 4.692667, 1e-6, 10.0);
}
void Calibrate_S2b(benchmark::State& st) {
  calib(st, "laplace:times=1000", "b", 18.950287, 1e-6, 10.0);
}
void Calibrate_S3a(benchmark::State& st) {
  calib(st, "subsampled-gaussian:q=0.0042666666666666667,times=14062", "sigma", 2.381598, 1e-5,
        1.1);
}
void Calibrate_S3b(benchmark::State& st) {
  calib(st, "subsampled-gaussian:q=0.01,times=10000", "sigma", 10.053635, 1e-5, 0.8);
}
void Calibrate_S3a_eps3(benchmark::State& st) {
  calib(st, "subsampled-gaussian:q=0.0042666666666666667,times=14062", "sigma", 3.0, 1e-5, 0.0);
}
void Calibrate_S3a_q(benchmark::State& st) {
  calib(st, "subsampled-gaussian:sigma=1.1,times=14062", "q", 2.381598, 1e-5,
        0.0042666666666666667);
}
void Calibrate_S3a_times(benchmark::State& st) {
  calib(st, "subsampled-gaussian:sigma=1.1,q=0.0042666666666666667", "times", 2.381598, 1e-5,
        14062);
}

void dpsgd(benchmark::State& st, double q, double sigma, std::int64_t T, bool mu) {
  fdp::dpsgd_config c;
  c.q = q;
  c.sigma = sigma;
  c.steps = T;
  c.delta = 1e-5;
  c.gdp_summary = mu;
  fdp::dpsgd_report r;
  for (auto _ : st) {
    r = fdp::account_dpsgd(c);
    double v = r.epsilon.upper;
    benchmark::DoNotOptimize(v);
  }
  st.counters["eps_lower"] = r.epsilon.lower;
  st.counters["eps_upper"] = r.epsilon.upper;
  st.counters["clt_eps"] = r.clt_epsilon;
}
void Dpsgd_S3a(benchmark::State& st) { dpsgd(st, 256.0 / 60000.0, 1.1, 14062, false); }
void Dpsgd_S3b(benchmark::State& st) { dpsgd(st, 0.01, 0.8, 10000, false); }

double thread_cpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The ledger target: 10,000 heterogeneous mechanisms, one at a time, each
// followed by a status query (spent epsilon at the budget's delta). Reported
// per operation, as thread CPU time (the machine is shared: wall time is the
// CPU time stretched by the other processes; both are given):
//   add_*       accountant::add (parse, budget check = a certified bracket of
//               the composition with the new mechanism, one step of any
//               background re-grid);
//   status_*    accountant::spent() right after the add (the answer the add
//               computed stays valid until the next add: a cached bracket);
//   uncached_*  spent() on a copy with empty caches (as after a reload), every
//               50th add;
//   *_over_50ms how many exceeded 50 ms.
void Ledger_10000(benchmark::State& st) {
  const std::vector<std::string> pool = {"laplace:b=50",
                                         "laplace:b=100",
                                         "laplace:b=200",
                                         "laplace:b=400",
                                         "laplace:b=800",
                                         "gaussian:sigma=20",
                                         "gaussian:sigma=40",
                                         "gaussian:sigma=80",
                                         "gaussian:sigma=160",
                                         "epsdelta:eps=0.005",
                                         "epsdelta:eps=0.01",
                                         "epsdelta:eps=0.02",
                                         "epsdelta:eps=0.01,delta=1e-9",
                                         "epsdelta:eps=0.005,delta=1e-10",
                                         "subsampled-gaussian:sigma=1,q=0.001",
                                         "subsampled-gaussian:sigma=1.5,q=0.001",
                                         "subsampled-gaussian:sigma=1,q=0.002",
                                         "subsampled-gaussian:sigma=1.5,q=0.002",
                                         "subsampled-laplace:b=2,q=0.01"};
  const int n = static_cast<int>(st.range(0));
  std::vector<double> add_cpu, add_wall, status_cpu, status_wall, unc_cpu, unc_wall;
  double last_lo = 0, last_hi = 0, load_ms = 0, h = 0, fft = 0, regrids = 0;
  for (auto _ : st) {
    std::mt19937_64 rng(42);
    fdp::accountant a(10.0, 1e-6);
    add_cpu.clear();
    add_wall.clear();
    status_cpu.clear();
    status_wall.clear();
    unc_cpu.clear();
    unc_wall.clear();
    for (int i = 0; i < n; ++i) {
      const std::string& s = pool[rng() % pool.size()];
      double c0 = thread_cpu(), w0 = now();
      a.add(s);
      double c1 = thread_cpu(), w1 = now();
      const fdp::interval e = a.spent();
      double c2 = thread_cpu(), w2 = now();
      add_cpu.push_back(c1 - c0);
      add_wall.push_back(w1 - w0);
      status_cpu.push_back(c2 - c1);
      status_wall.push_back(w2 - w1);
      last_lo = e.lower;
      last_hi = e.upper;
      if (i % 50 == 0) {
        // a status query with nothing cached (as after a reload)
        fdp::accountant fresh = a;
        c0 = thread_cpu();
        w0 = now();
        fdp::interval e2 = fresh.spent();
        benchmark::DoNotOptimize(e2);
        unc_cpu.push_back(thread_cpu() - c0);
        unc_wall.push_back(now() - w0);
      }
    }
    h = a.grid_step();
    fft = static_cast<double>(a.fft_size());
    regrids = a.regrids();
    const std::string path = "/tmp/fdp_budget_bench_ledger.json";
    a.save(path);
    const double t2 = now();
    const fdp::accountant b = fdp::accountant::load(path);
    fdp::interval e3 = b.spent();
    benchmark::DoNotOptimize(e3);
    load_ms = (now() - t2) * 1e3;
    std::remove(path.c_str());
  }
  auto pct = [](std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return 1e3 * v[std::min(v.size() - 1, static_cast<std::size_t>(p * v.size()))];
  };
  auto over = [](const std::vector<double>& v) {
    return static_cast<double>(
        std::count_if(v.begin(), v.end(), [](double t) { return t > 0.05; }));
  };
  auto report = [&](const std::string& name, const std::vector<double>& cpu,
                    const std::vector<double>& wall) {
    st.counters[name + "_cpu_median_ms"] = pct(cpu, 0.5);
    st.counters[name + "_cpu_p99_ms"] = pct(cpu, 0.99);
    st.counters[name + "_cpu_max_ms"] = pct(cpu, 1.0);
    st.counters[name + "_cpu_over_50ms"] = over(cpu);
    st.counters[name + "_wall_median_ms"] = pct(wall, 0.5);
    st.counters[name + "_wall_max_ms"] = pct(wall, 1.0);
    st.counters[name + "_wall_over_50ms"] = over(wall);
  };
  report("add", add_cpu, add_wall);
  report("status", status_cpu, status_wall);
  report("uncached", unc_cpu, unc_wall);
  st.counters["reload_and_status_ms"] = load_ms;
  st.counters["eps_lower"] = last_lo;
  st.counters["eps_upper"] = last_hi;
  st.counters["grid_step"] = h;
  st.counters["fft_size"] = fft;
  st.counters["regrids"] = regrids;
}

}  // namespace

BENCHMARK(Calibrate_S1)->Unit(benchmark::kMillisecond);
BENCHMARK(Calibrate_S2a)->Unit(benchmark::kMillisecond);
BENCHMARK(Calibrate_S2b)->Unit(benchmark::kMillisecond);
BENCHMARK(Calibrate_S3a)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(Calibrate_S3b)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(Calibrate_S3a_eps3)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(Calibrate_S3a_q)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(Calibrate_S3a_times)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(Dpsgd_S3a)->Unit(benchmark::kMillisecond);
BENCHMARK(Dpsgd_S3b)->Unit(benchmark::kMillisecond);
BENCHMARK(Ledger_10000)->Arg(10000)->Unit(benchmark::kSecond)->Iterations(1);
