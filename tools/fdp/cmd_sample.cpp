// fdp sample: outputs of a catalogue mechanism in the sample-file format of
// docs/cli.md (one output per line: a number, a comma-separated vector, or a
// token).
#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "cli.hpp"
#include "fdp/audit/score_simulation.hpp"
#include "fdp/mech/registry.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp::cli {
namespace {

class line_writer {
 public:
  explicit line_writer(std::FILE* f) : f_(f) { buf_.reserve(kCap + 4096); }
  // run_sample flushes explicitly and reports a failed write; the destructor
  // only runs with lines left when an exception is already on its way, and
  // must not throw a second one (that would abort the process).
  ~line_writer() {
    if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), f_);
  }
  void put(double x) {
    char tmp[32];
    const auto r = std::to_chars(tmp, tmp + sizeof tmp, x);  // shortest round-trip form
    buf_.append(tmp, r.ptr);
  }
  void put(char c) { buf_.push_back(c); }
  void put(const std::string& s) { buf_ += s; }
  void end_line() {
    buf_.push_back('\n');
    if (buf_.size() >= kCap) flush();
  }
  void flush() {
    const bool failed =
        !buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size();
    buf_.clear();
    if (failed) throw std::runtime_error("write failed: " + std::string(std::strerror(errno)));
  }

 private:
  static constexpr std::size_t kCap = 1 << 20;
  std::FILE* f_;
  std::string buf_;
};

// --gdp-scores MU: simulated canary scores (score,in,canary,run rows) with
// a known truth, for fdp audit --scores and --one-run (score_simulation.hpp).
int run_gdp_scores(const args& a) {
  if (a.has("mechanism") || a.has("input") || a.has("samples") || a.has("shard")) {
    throw usage_error(
        "--gdp-scores simulates canary scores: give --runs and --canaries, not "
        "--mechanism/--input/--samples/--shard");
  }
  const double mu = a.number("gdp-scores", 0, 1e6);
  const auto runs = static_cast<std::uint64_t>(a.integer_or("runs", 1, 1, 100000000));
  const auto canaries = static_cast<std::uint64_t>(a.integer_or("canaries", 1, 1, 100000000));
  const auto seed = static_cast<std::uint64_t>(a.integer_or("seed", 0, 0, 9007199254740992LL));
  const audit::score_table t = audit::simulate_gdp_scores(mu, runs, canaries, seed);
  std::FILE* f = stdout;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, &std::fclose);
  if (a.has("out")) {
    file.reset(std::fopen(a.value("out").c_str(), "w"));
    if (!file) throw usage_error("--out: cannot open '" + a.value("out") + "' for writing");
    f = file.get();
  }
  line_writer w(f);
  w.put(std::string("score,in,canary,run"));
  w.end_line();
  for (const auto& row : t.rows) {
    w.put(row.score);
    w.put(std::string(row.in ? ",1," : ",0,") + row.canary + "," + row.run);
    w.end_line();
  }
  w.flush();
  if (std::fflush(f) != 0) throw std::runtime_error("write failed");
  return 0;
}

int run_sample(const args& a) {
  if (!a.positional().empty()) throw usage_error("unexpected argument '" + a.positional()[0] + "'");
  if (a.has("gdp-scores")) return run_gdp_scores(a);
  const auto m = mech::make_mechanism(a.value("mechanism"));
  const std::vector<double> input = mech::parse_answers(a.value("input"), "--input");
  m->check_input(input);
  const auto n =
      static_cast<std::uint64_t>(parse_count(a.value("samples"), "--samples", 1, 1000000000000LL));
  const auto seed = static_cast<std::uint64_t>(a.integer_or("seed", 0, 0, 9007199254740992LL));
  const auto shard = static_cast<std::uint64_t>(a.integer_or("shard", 0, 0, 9007199254740992LL));
  std::FILE* f = stdout;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, &std::fclose);
  if (a.has("out")) {
    file.reset(std::fopen(a.value("out").c_str(), "w"));
    if (!file) throw usage_error("--out: cannot open '" + a.value("out") + "' for writing");
    f = file.get();
  }
  const auto shape = m->shape(input.size());
  mech::rng_stream rng(seed, shard);
  line_writer w(f);
  constexpr std::uint64_t kBatch = 8192;
  if (shape.kind == mech::output_kind::categorical) {
    std::vector<std::int64_t> out(kBatch);
    for (std::uint64_t done = 0; done < n; done += kBatch) {
      const auto c = static_cast<std::size_t>(std::min(kBatch, n - done));
      m->sample(input, rng, c, out.data());
      for (std::size_t s = 0; s < c; ++s) {
        w.put(m->token(out[s], input.size()));
        w.end_line();
      }
    }
  } else {
    std::vector<double> out(kBatch * shape.dim);
    for (std::uint64_t done = 0; done < n; done += kBatch) {
      const auto c = static_cast<std::size_t>(std::min(kBatch, n - done));
      m->sample(input, rng, c, out.data());
      for (std::size_t s = 0; s < c; ++s) {
        for (std::size_t i = 0; i < shape.dim; ++i) {
          if (i) w.put(',');
          const double v = out[s * shape.dim + i];
          // (answers near the largest double plus noise can overflow; the
          // sample-file format, and audit, take finite numbers only)
          if (!std::isfinite(v)) {
            throw std::runtime_error("output " + std::to_string(done + s + 1) + " overflowed to " +
                                     (std::isnan(v) ? "nan" : "inf") +
                                     " (answers plus noise beyond the largest double)");
          }
          w.put(v);
        }
        w.end_line();
      }
    }
  }
  w.flush();
  if (std::fflush(f) != 0)
    throw std::runtime_error("write failed: " + std::string(std::strerror(errno)));
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "sample",
    "draw outputs of a catalogue mechanism (sample-file format)",
    "usage: fdp sample --mechanism NAME:key=value,... --input V --samples N\n"
    "                  [--seed S] [--shard I] [--out FILE]\n"
    "       fdp sample --gdp-scores MU --runs N --canaries C [--seed S] [--out FILE]\n\n"
    "Writes N outputs of the mechanism on the query answers V, one per line, in the\n"
    "sample-file format that 'fdp audit --samples0/--samples1' reads:\n"
    "  a number            scalar outputs (e.g. laplace on one answer)\n"
    "  x1,x2,...           vector outputs (laplace/gaussian on several answers)\n"
    "  a token             categorical outputs: r<i> for a candidate or category index,\n"
    "                      T/F/- strings for the sparse-vector family (T above, F below,\n"
    "                      - not answered)\n"
    "Numbers are printed in the shortest form that reads back to the same double.\n"
    "Random numbers: Philox4x32-10 stream (seed S, shard I); the same S and I give the\n"
    "same lines on any machine, and distinct shards are independent, so a large run can\n"
    "be split as shards 0, 1, 2, ... across processes or machines.\n"
    "See 'fdp mechanisms' for the catalogue.\n\n"
    "With --gdp-scores MU it writes simulated canary scores for 'fdp audit --scores'\n"
    "and '--one-run' instead (score,in,canary,run rows with a header): in each of N\n"
    "runs each of C canaries is included with probability 1/2 and scores N(MU, 1) if\n"
    "included, N(0, 1) if not; the truth is then exactly MU-GDP per canary.\n\n"
    "  --mechanism SPEC   e.g. laplace:eps=0.1  (see fdp mechanisms)\n"
    "  --input V          comma-separated query answers, e.g. 1,1,1,1,1\n"
    "  --samples N        number of outputs, 1 <= N <= 1e12\n"
    "  --seed S           integer seed (default 0)\n"
    "  --shard I          stream index (default 0)\n"
    "  --out FILE         write to FILE instead of stdout\n"
    "  --gdp-scores MU    simulated canary scores, MU >= 0 (with --runs, --canaries)\n"
    "  --runs N, --canaries C   runs and canaries per run (default 1 each)\n\n"
    "examples:\n"
    "  fdp sample --mechanism laplace:eps=0.1 --input 1 --samples 5 --seed 7\n"
    "  fdp sample --mechanism gaussian:mu=1 --input 1,2,3 --samples 3\n"
    "  fdp sample --mechanism report-noisy-max:eps=0.1 --input 1,1,1,1,1 --samples 4\n"
    "  fdp sample --mechanism above-threshold:eps=0.1,threshold=0.5 \\\n"
    "             --input 0,0,0,0,0,1,1,1,1,1 --samples 4\n"
    "  fdp sample --mechanism svt-lyu-alg3:eps=0.1 --input 1,1,1,1,1,1,1,1,1,1 --samples 2\n"
    "  fdp sample --gdp-scores 2 --runs 3 --canaries 2 --seed 1\n",
    {{"mechanism", true, false, "mechanism spec NAME:key=value,..."},
     {"input", true, false, "comma-separated query answers"},
     {"samples", true, false, "number of outputs"},
     {"seed", true, false, "seed (default 0)"},
     {"shard", true, false, "stream index (default 0)"},
     {"out", true, false, "output file (default stdout)"},
     {"gdp-scores", true, false, "simulated canary scores with this mu"},
     {"runs", true, false, "runs (with --gdp-scores)"},
     {"canaries", true, false, "canaries per run (with --gdp-scores)"}},
    run_sample});

}  // namespace
}  // namespace fdp::cli
