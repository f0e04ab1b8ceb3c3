#include "fdp/audit/audit.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "fdp/audit/group_claim.hpp"
#include "fdp/audit/sample_file.hpp"
#include "fdp/core/error.hpp"
#include "fdp/mech/neighbours.hpp"
#include "fdp/mech/rng.hpp"

namespace fdp::audit {
namespace {

constexpr std::uint64_t kBlock = 8192;
constexpr int kFracBits = 20;

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

std::uint64_t frac_num(double f) {
  return static_cast<std::uint64_t>(std::llround(f * static_cast<double>(1u << kFracBits)));
}
bool selected(std::uint64_t i, std::uint64_t num) {
  const auto a = static_cast<unsigned __int128>(i + 1) * num >> kFracBits;
  const auto b = static_cast<unsigned __int128>(i) * num >> kFracBits;
  return a > b;
}

void check_options(const audit_options& o) {
  detail::require(o.confidence > 0 && o.confidence < 1, "audit", "confidence", o.confidence,
                  "must be in (0, 1)");
  detail::require(o.delta >= 0 && o.delta < 1, "audit", "delta", o.delta, "must be in [0, 1)");
  detail::require(o.selection_fraction > 0 && o.selection_fraction < 1 &&
                      frac_num(o.selection_fraction) > 0 &&
                      frac_num(o.selection_fraction) < (1u << kFracBits),
                  "audit", "selection_fraction", o.selection_fraction, "must be in (0, 1)");
  detail::require(o.curve_tests >= 0 && o.curve_tests <= 1000, "audit", "curve_tests",
                  o.curve_tests, "must be in [0, 1000]");
  detail::require(o.group >= 1 && o.group <= 1000000, "audit", "group",
                  static_cast<long long>(o.group), "must be an integer in [1, 1000000]");
  detail::require(o.task_ranks >= 1 && o.task_rank < o.task_ranks, "audit", "task_rank",
                  static_cast<long long>(o.task_rank), "must be in [0, task_ranks)");
}

unsigned thread_count(const audit_options& o) {
  unsigned t = o.threads ? o.threads : std::thread::hardware_concurrency();
  return std::max(1u, std::min(t, 256u));
}

/// Runs work(task, worker) for tasks 0..n-1 on `threads` workers; the
/// calling thread reports progress (done tasks / n mapped into [p0, p1]).
template <class Work>
void run_tasks(std::size_t n, unsigned threads, const audit_options& o, double p0, double p1,
               Work work) {
  std::atomic<std::size_t> next{0}, done{0};
  std::exception_ptr err;
  std::mutex mu;
  std::condition_variable cv;
  auto body = [&](unsigned w) {
    for (;;) {
      const std::size_t t = next.fetch_add(1);
      if (t >= n) break;
      try {
        work(t, w);
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu);
        if (!err) err = std::current_exception();
        next.store(n);
      }
      if (done.fetch_add(1) + 1 == n) {
        std::lock_guard<std::mutex> lk(mu);
        cv.notify_all();
      }
    }
  };
  const unsigned T =
      static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, n)));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < T; ++w) pool.emplace_back(body, w);
  {
    std::unique_lock<std::mutex> lk(mu);
    while (done.load() < n && !err) {
      cv.wait_for(lk, std::chrono::milliseconds(100));
      if (o.progress)
        o.progress(p0 + (p1 - p0) * static_cast<double>(done.load()) /
                            static_cast<double>(std::max<std::size_t>(1, n)));
    }
  }
  for (auto& th : pool) th.join();
  if (err) std::rethrow_exception(err);
}

std::uint64_t shard_id(int phase, int side, std::uint64_t block) {
  return (static_cast<std::uint64_t>(phase) << 62) | (static_cast<std::uint64_t>(side) << 61) |
         block;
}

}  // namespace

std::uint64_t selection_count(std::uint64_t n, double fraction) {
  return static_cast<std::uint64_t>(static_cast<unsigned __int128>(n) * frac_num(fraction) >>
                                    kFracBits);
}

eval_counts evaluate_mechanism(const mech::mechanism& m, const std::vector<double>& in0,
                               const std::vector<double>& in1, std::uint64_t samples, const plan& p,
                               const audit_options& opt) {
  const unsigned T = thread_count(opt);
  const auto shape = m.shape(in0.size());
  const std::size_t dim = shape.kind == mech::output_kind::real ? shape.dim : 1;
  const bool real = shape.kind == mech::output_kind::real;
  if ((p.type == output_type::real) != real || p.dim != dim) {
    throw std::invalid_argument(
        "audit: the plan was made for " +
        std::string(p.type == output_type::real
                        ? "real outputs of dimension " + std::to_string(p.dim)
                        : "categorical outputs") +
        ", but " + m.spec() + " on these inputs has " +
        (real ? "real outputs of dimension " + std::to_string(dim) : "categorical outputs"));
  }
  eval_counts total;
  total.init(p);
  if (p.tests.empty()) {  // (counted once, by the first of several processes)
    total.n[0] = total.n[1] = opt.task_rank == 0 ? samples : 0;
    return total;
  }
  const std::uint64_t blocks = (samples + kBlock - 1) / kBlock;
  // this process's tasks: t = task_rank, task_rank + task_ranks, ...
  const std::uint64_t ranks = opt.task_ranks,
                      mine = (2 * blocks + ranks - 1 - opt.task_rank) / ranks;
  std::vector<eval_counts> local(T);
  for (auto& l : local) l.init(p);
  std::vector<std::vector<double>> rbuf(T);
  std::vector<std::vector<std::int64_t>> cbuf(T);
  run_tasks(static_cast<std::size_t>(mine), T, opt, 0.1, 0.98, [&](std::size_t j, unsigned w) {
    const std::uint64_t t = j * ranks + opt.task_rank;
    const int side = static_cast<int>(t % 2);
    const std::uint64_t b = t / 2;
    const std::size_t cnt = static_cast<std::size_t>(std::min(kBlock, samples - b * kBlock));
    mech::rng_stream rng(opt.seed, shard_id(1, side, opt.shard_offset + b));
    const auto& in = side == 0 ? in0 : in1;
    if (shape.kind == mech::output_kind::real) {
      rbuf[w].resize(kBlock * dim);
      m.sample(in, rng, cnt, rbuf[w].data());
      accumulate(p, side, rbuf[w].data(), cnt, local[w]);
    } else {
      cbuf[w].resize(kBlock);
      m.sample(in, rng, cnt, cbuf[w].data());
      accumulate(p, side, cbuf[w].data(), nullptr, cnt, local[w]);
    }
  });
  for (const auto& l : local) total.merge(l);
  total.streams = {{opt.seed, opt.shard_offset}};
  return total;
}

namespace {

/// The mechanism under audit, its two neighbouring inputs, and the shape of
/// its outputs on them.
struct audited_pair {
  const mech::mechanism& m;
  const std::vector<double>& in0;
  const std::vector<double>& in1;
  bool real;        ///< real outputs (else categorical)
  std::size_t dim;  ///< output dimension (1 for categorical outputs)

  const std::vector<double>& input(int side) const { return side == 0 ? in0 : in1; }
};

void check_mechanism_audit(const mech::mechanism& m, const std::vector<double>& in0,
                           const std::vector<double>& in1, std::uint64_t samples,
                           const audit_options& opt) {
  check_options(opt);
  if (in0.size() != in1.size()) {
    throw std::invalid_argument("audit: --input0 has " + std::to_string(in0.size()) +
                                " answers and --input1 " + std::to_string(in1.size()) +
                                "; neighbouring inputs must have the same length");
  }
  m.check_input(in0);
  m.check_input(in1);
  check_neighbours(m, in0, in1, opt.group);
  detail::require(samples >= 1, "audit", "samples", static_cast<unsigned long long>(samples),
                  "must be >= 1");
}

audited_pair describe_pair(const mech::mechanism& m, const std::vector<double>& in0,
                           const std::vector<double>& in1) {
  const auto shape = m.shape(in0.size());
  const bool real = shape.kind == mech::output_kind::real;
  return {m, in0, in1, real, real ? shape.dim : 1};
}

/// The selection split of both sides.
struct selection_samples {
  sample_block side[2];

  /// The selection outputs are not needed once the tests are chosen.
  void release() {
    for (auto& s : side) {
      s.real.clear();
      s.real.shrink_to_fit();
      s.cat.clear();
      s.cat.shrink_to_fit();
    }
  }
};

/// Draws nsel selection outputs per side, block b of side s from stream
/// shard_id(0, s, b) (phase 0: disjoint from the evaluation streams).
selection_samples draw_selection(const audited_pair& pr, std::uint64_t nsel, unsigned T,
                                 const audit_options& opt) {
  selection_samples sel;
  for (auto& s : sel.side) {
    s.type = pr.real ? output_type::real : output_type::categorical;
    s.dim = pr.dim;
    if (pr.real)
      s.real.resize(nsel * pr.dim);
    else
      s.cat.resize(nsel);
  }
  const std::uint64_t sblocks = (nsel + kBlock - 1) / kBlock;
  run_tasks(static_cast<std::size_t>(2 * sblocks), T, opt, 0.0, 0.1, [&](std::size_t t, unsigned) {
    const int side = static_cast<int>(t % 2);
    const std::uint64_t b = t / 2;
    const std::size_t cnt = static_cast<std::size_t>(std::min(kBlock, nsel - b * kBlock));
    mech::rng_stream rng(opt.seed, shard_id(0, side, b));
    const auto& in = pr.input(side);
    if (pr.real) {
      pr.m.sample(in, rng, cnt, sel.side[side].real.data() + b * kBlock * pr.dim);
    } else {
      pr.m.sample(in, rng, cnt, sel.side[side].cat.data() + b * kBlock);
    }
  });
  return sel;
}

/// Outputs per side in the selection and in the evaluation split.
struct split_sizes {
  std::uint64_t selection[2];
  std::uint64_t evaluation[2];
};

/// Chooses the tests from the selection outputs. With no selection outputs
/// on a side there is nothing to choose from, and with no evaluation outputs
/// nothing to test on: then the plan has no tests.
plan choose_tests(const sample_block& sel0, const sample_block& sel1, std::size_t dim,
                  const split_sizes& n, const tradeoff& claim, const audit_options& opt,
                  const std::function<std::string(std::int64_t)>& category_name) {
  select_options so;
  so.confidence = opt.confidence;
  so.delta = opt.delta;
  so.n_eval[0] = n.evaluation[0];
  so.n_eval[1] = n.evaluation[1];
  so.curve_tests = opt.curve_tests;
  so.bit_features = opt.bit_features;
  so.category_name = category_name;
  so.threads = thread_count(opt);
  if (n.selection[0] && n.selection[1] && n.evaluation[0] && n.evaluation[1])
    return select_tests(sel0, sel1, claim, so);
  plan p;
  p.type = sel0.type;
  p.dim = dim;
  p.confidence = opt.confidence;
  p.selection[0] = n.selection[0];
  p.selection[1] = n.selection[1];
  return p;
}

/// Sets rep.oracle (and its family) where the exact law of the pair is known.
void add_oracle(const audited_pair& pr, std::uint64_t samples, const audit_options& opt,
                audit_report& rep) {
  // Inputs far outside the mechanism's neighbouring relation can make the
  // exact law unrepresentable (e.g. a Laplace shift of 2e308 / b): then
  // there is no oracle, and the audit itself stands.
  try {
    if (auto law = exact_event_law(pr.m, pr.in0, pr.in1)) {
      rep.oracle = oracle(*law, static_cast<double>(samples), static_cast<double>(samples),
                          opt.confidence, opt.delta);
      rep.oracle_family = law->family;
    }
  } catch (const std::invalid_argument&) {
    rep.oracle.reset();
  } catch (const std::domain_error&) {
    rep.oracle.reset();
  }
}

}  // namespace

namespace {

/// Full-precision doubles: most of the first selection outputs use more
/// than 36 bits of their 52-bit significand (a sampler's doubles do; counts,
/// rounded or discretized outputs do not). Their low-order bits can carry
/// the input (Mironov 2012), which only the bit-pattern tests look at.
bool full_precision(const sample_block& b) {
  if (b.type != output_type::real || b.real.empty()) return false;
  const std::size_t n = std::min<std::size_t>(b.real.size(), 1000);
  std::size_t full = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t bits;
    std::memcpy(&bits, &b.real[i], sizeof bits);
    const std::uint64_t significand = bits & ((std::uint64_t{1} << 52) - 1);
    if (significand != 0 && __builtin_ctzll(significand) < 16) ++full;
  }
  return 2 * full > n;
}

void note_untested_bits(const sample_block& b, const audit_options& opt, audit_report& rep) {
  if (opt.bit_features || !full_precision(b)) return;
  rep.notes.push_back(
      "the outputs are full-precision doubles and the floating-point tests were off: leaks "
      "through their low-order bits (Mironov 2012) were not tested (--bit-features)");
}

}  // namespace

namespace {

/// A "consistent" verdict says what was not tested, in its own line.
void qualify_consistent(audit_report& rep) {
  if (rep.notes.empty() || rep.result.verdict != "consistent") return;
  rep.result.reason += " (floating-point bit patterns not tested: --bit-features)";
}

}  // namespace

void check_neighbours(const mech::mechanism& m, const std::vector<double>& in0,
                      const std::vector<double>& in1, std::int64_t group) {
  detail::require(group >= 1, "audit", "group", static_cast<long long>(group), "must be >= 1");
  const mech::neighbour_relation rel = m.neighbours();
  const std::int64_t d = mech::neighbour_distance(rel, in0, in1);
  if (d <= group) return;
  const std::string what =
      group == 1 ? "are not neighbours" : "are more than " + std::to_string(group) + " steps apart";
  const bool far = d >= (std::int64_t{1} << 53);  // (neighbour_distance saturates there)
  throw std::invalid_argument(
      "audit: --input0 and --input1 " + what + " under " + m.name() + "'s neighbour relation (" +
      rel.text + "): " +
      (far ? std::string("they are too far apart for any group audit")
           : "they are " + std::to_string(d) +
                 " neighbour steps apart; a per-neighbour claim says nothing about them (a "
                 "group audit: --group K with K >= " +
                 std::to_string(d) + ")"));
}

audit_report audit_mechanism(const mech::mechanism& m, const std::vector<double>& in0,
                             const std::vector<double>& in1, std::uint64_t samples,
                             const tradeoff& per_neighbour_claim, const audit_options& opt) {
  const auto t0 = clock_type::now();
  check_mechanism_audit(m, in0, in1, samples, opt);
  const tradeoff claim = group_claim(per_neighbour_claim, opt.group);
  const audited_pair pr = describe_pair(m, in0, in1);
  const unsigned T = thread_count(opt);

  audit_report rep;
  rep.samples[0] = rep.samples[1] = samples;
  const std::size_t n = in0.size();
  if (!pr.real) rep.category_name = [&m, n](std::int64_t k) { return m.token(k, n); };

  // 1. Selection split.
  const std::uint64_t nsel = selection_count(samples, opt.selection_fraction);
  const std::uint64_t neval = samples - nsel;
  selection_samples sel = draw_selection(pr, nsel, T, opt);
  rep.seconds.select_sampling = since(t0);

  // 2. Choose the tests.
  const auto t1 = clock_type::now();
  rep.tests = choose_tests(sel.side[0], sel.side[1], pr.dim, {{nsel, nsel}, {neval, neval}}, claim,
                           opt, rep.category_name);
  note_untested_bits(sel.side[0], opt, rep);
  rep.tests.group = opt.group;
  sel.release();
  rep.seconds.selection = since(t1);

  // 3. Evaluation split.
  const auto t2 = clock_type::now();
  rep.counts = evaluate_mechanism(m, in0, in1, neval, rep.tests, opt);
  if (opt.reduce_counts) opt.reduce_counts(rep.tests, rep.counts);
  rep.seconds.evaluation = since(t2);

  // 4. Statements.
  const auto t3 = clock_type::now();
  rep.result = evaluate(rep.tests, rep.counts, claim, opt.delta);
  qualify_consistent(rep);
  rep.seconds.statistics = since(t3);

  // 5. Oracle.
  if (opt.oracle) {
    const auto t4 = clock_type::now();
    add_oracle(pr, samples, opt, rep);
    rep.seconds.oracle = since(t4);
  }
  if (opt.progress) opt.progress(1.0);
  rep.seconds.total = since(t0);
  return rep;
}

// ------------------------------------------------------------ files

namespace {

const char* kind_name(line_kind k) {
  switch (k) {
    case line_kind::number:
      return "a number";
    case line_kind::vector:
      return "a vector";
    case line_kind::token:
      return "a token";
  }
  return "?";
}

std::string excerpt(const char* b, const char* e) {
  std::string s(b, static_cast<std::size_t>(std::min<std::ptrdiff_t>(e - b, 40)));
  if (e - b > 40) s += "...";
  return "'" + s + "'";
}

struct file_scan {
  line_kind kind = line_kind::number;
  std::size_t dim = 1;
  std::uint64_t lines = 0;      ///< outputs (header and trailing blank lines excluded)
  std::uint64_t raw_lines = 0;  ///< all lines, for the second pass's check
  sample_block sel;
  std::unordered_map<std::string, std::int64_t> dict;
  std::vector<std::string> names;
  std::vector<std::uint64_t> eval_tokens;  // by local id
};

[[noreturn]] void line_error(const line_reader& r, const std::string& what) {
  throw std::invalid_argument(r.path() + ":" + std::to_string(r.line()) + ": " + what);
}

/// Runs job(0) and job(1), on two threads when allowed, reporting progress
/// from the calling thread.
template <class Job, class Prog>
void run_pair(Job& job, unsigned T, const audit_options& opt, Prog prog) {
  if (T < 2) {
    job(0);
    if (opt.progress) opt.progress(prog());
    job(1);
    return;
  }
  std::atomic<int> fin{0};
  std::thread a([&] {
    job(0);
    ++fin;
  });
  std::thread b([&] {
    job(1);
    ++fin;
  });
  while (fin.load() < 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (opt.progress) opt.progress(prog());
  }
  a.join();
  b.join();
}

/// Pass 1: validates every line, keeps the selection lines, counts
/// evaluation tokens.
file_scan scan_file(const std::string& path, std::uint64_t num, bool skip_header,
                    std::atomic<std::uint64_t>& bytes) {
  line_reader r(path);
  file_scan s;
  std::vector<double> vals;
  std::string key;
  const char *b, *e;
  std::uint64_t last = 0, blank = 0;
  bool first = true;
  while (r.next(b, e)) {
    if (r.bytes_consumed() - last > (1u << 20)) {
      bytes += r.bytes_consumed() - last;
      last = r.bytes_consumed();
    }
    if (skip_header && r.line() == 1) continue;
    if (b == e) {
      if (!blank) blank = r.line();
      continue;
    }
    if (blank) {
      throw std::invalid_argument(
          r.path() + ":" + std::to_string(blank) +
          ": empty line (one output per line; blank lines only at the end of the file)");
    }
    const std::uint64_t i = s.lines++;
    const int pr = parse_numbers(b, e, vals);
    if (pr == -1)
      line_error(r, "number out of the range of doubles " + excerpt(b, e) +
                        " (write inf or -inf for infinite outputs)");
    if (pr == -2)
      line_error(r, "malformed line " + excerpt(b, e) + ": expected comma-separated numbers");
    line_kind k;
    if (pr == 1) {
      k = vals.size() == 1 ? line_kind::number : line_kind::vector;
    } else {
      if (std::find(b, e, ',') != e) {
        line_error(r,
                   "malformed line " + excerpt(b, e) +
                       ": neither comma-separated numbers nor a token (tokens contain no commas)");
      }
      k = line_kind::token;
    }
    if (first) {
      s.kind = k;
      s.dim = k == line_kind::token ? 1 : vals.size();
      s.sel.type = k == line_kind::token ? output_type::categorical : output_type::real;
      s.sel.dim = s.dim;
      first = false;
    } else if (k != s.kind && k != line_kind::token && s.kind != line_kind::token) {
      // Numbers and vectors: a length mismatch (a number is a vector of length 1).
      line_error(r, "vector of length " + std::to_string(vals.size()) + " " + excerpt(b, e) +
                        ", but line 1 has length " + std::to_string(s.dim));
    } else if (k != s.kind) {
      line_error(r, std::string("mixed output types: line 1 is ") + kind_name(s.kind) +
                        ", this line " + excerpt(b, e) + " is " + kind_name(k));
    } else if (k == line_kind::vector && vals.size() != s.dim) {
      line_error(r, "vector of length " + std::to_string(vals.size()) + " " + excerpt(b, e) +
                        ", but line 1 has length " + std::to_string(s.dim));
    }
    const bool sel = selected(i, num);
    if (k == line_kind::token) {
      key.assign(b, e);
      auto it = s.dict.find(key);
      std::int64_t id;
      if (it == s.dict.end()) {
        id = static_cast<std::int64_t>(s.names.size());
        s.dict.emplace(key, id);
        s.names.push_back(key);
        s.eval_tokens.push_back(0);
      } else {
        id = it->second;
      }
      if (sel)
        s.sel.cat.push_back(id);
      else
        ++s.eval_tokens[static_cast<std::size_t>(id)];
    } else if (sel) {
      s.sel.real.insert(s.sel.real.end(), vals.begin(), vals.end());
    }
  }
  bytes += r.bytes_consumed() - last;
  s.raw_lines = r.line();
  if (s.lines == 0) throw std::invalid_argument(path + ": empty sample file (no outputs)");
  return s;
}

/// Pass 2 (real outputs): evaluation lines into counts.
void eval_file(const std::string& path, std::uint64_t num, bool skip_header,
               std::uint64_t expect_lines, const plan& p, int side, eval_counts& c,
               std::atomic<std::uint64_t>& bytes) {
  line_reader r(path);
  std::vector<double> vals, buf;
  const std::size_t d = p.dim;
  buf.reserve(kBlock * d);
  const char *b, *e;
  std::uint64_t last = 0, outputs = 0;
  while (r.next(b, e)) {
    if (r.bytes_consumed() - last > (1u << 20)) {
      bytes += r.bytes_consumed() - last;
      last = r.bytes_consumed();
    }
    if ((skip_header && r.line() == 1) || b == e) continue;  // (blanks: trailing, by pass 1)
    const std::uint64_t i = outputs++;
    if (selected(i, num)) continue;
    if (parse_numbers(b, e, vals) != 1 || vals.size() != d) {
      line_error(r, "changed while being read (the line no longer matches the first pass)");
    }
    buf.insert(buf.end(), vals.begin(), vals.end());
    if (buf.size() >= kBlock * d) {
      accumulate(p, side, buf.data(), buf.size() / d, c);
      buf.clear();
    }
  }
  if (!buf.empty()) accumulate(p, side, buf.data(), buf.size() / d, c);
  bytes += r.bytes_consumed() - last;
  if (r.line() != expect_lines) {
    throw std::invalid_argument(path + ": changed while being read (" + std::to_string(r.line()) +
                                " lines now, " + std::to_string(expect_lines) + " before)");
  }
}

/// Runs job(0) and job(1) as run_pair does, for jobs that may throw: an
/// exception must not leave its thread (std::terminate), so each side's is
/// kept and the first (side 0 before side 1) rethrown when both are done.
template <class Job, class Prog>
void run_pair_rethrowing(Job job, unsigned T, const audit_options& opt, Prog prog) {
  std::exception_ptr err[2];
  auto guarded = [&](int s) {
    try {
      job(s);
    } catch (...) {
      err[s] = std::current_exception();
    }
  };
  run_pair(guarded, T, opt, prog);
  for (auto& e : err) {
    if (e) std::rethrow_exception(e);
  }
}

/// The two sample files of an audit and how they are read: the selection
/// rule for their lines, the threads, and the bytes read so far (progress).
struct sample_files {
  sample_files(const std::string& f0, const std::string& f1, const audit_options& o)
      : path0(f0),
        path1(f1),
        opt(o),
        num(frac_num(o.selection_fraction)),
        threads(thread_count(o)) {
    line_reader a(f0), b(f1);  // open errors early, and sizes for progress
    total_bytes = a.size() + b.size();
    regular[0] = a.regular();
    regular[1] = b.regular();
  }

  const std::string& path(int side) const { return side == 0 ? path0 : path1; }

  /// Share of the reading done, when the files are read `passes` times in all.
  double read_share(double passes) const {
    return total_bytes
               ? static_cast<double>(bytes.load()) / (passes * static_cast<double>(total_bytes))
               : 0.0;
  }

  const std::string& path0;
  const std::string& path1;
  const audit_options& opt;
  std::uint64_t num;  ///< line i is a selection line iff selected(i, num)
  unsigned threads;
  std::uint64_t total_bytes = 0;
  bool regular[2] = {false, false};
  std::atomic<std::uint64_t> bytes{0};
};

using scan_pair = std::array<file_scan, 2>;

/// Pass 1 over both files (scan_file); the first half of the progress bar.
scan_pair scan_both(sample_files& files) {
  scan_pair sc;
  run_pair_rethrowing(
      [&](int s) {
        sc[s] = scan_file(files.path(s), files.num, files.opt.skip_header, files.bytes);
      },
      files.threads, files.opt, [&] { return 0.5 * files.read_share(1.0); });
  return sc;
}

void check_same_kind(const sample_files& files, const scan_pair& sc) {
  if (sc[0].kind != sc[1].kind || sc[0].dim != sc[1].dim) {
    auto what = [](const file_scan& s) {
      return std::string(kind_name(s.kind)) +
             (s.kind == line_kind::vector ? " of length " + std::to_string(s.dim) : "");
    };
    throw std::invalid_argument("the sample files hold different kinds of output: " + files.path0 +
                                " has " + what(sc[0]) + " per line, " + files.path1 + " has " +
                                what(sc[1]));
  }
}

/// Numeric files are read a second time for the evaluation counts (token
/// files are counted in the first pass), which a pipe cannot give.
void check_rereadable(const sample_files& files) {
  for (int s = 0; s < 2; ++s) {
    if (!files.regular[s]) {
      throw std::invalid_argument(
          files.path(s) +
          ": not a regular file; numeric sample files are read twice (selection, then "
          "evaluation), so write the samples to a file first (pipes work for token files)");
    }
  }
}

/// Each scan numbers its tokens in order of appearance; the tests need one
/// numbering for both sides. Returns the token texts by global id.
std::vector<std::string> unify_token_ids(scan_pair& sc) {
  // Global ids: ranks of the union of token texts (deterministic).
  std::map<std::string, std::int64_t> all;
  for (auto& s : sc) {
    for (const auto& nm : s.names) all.emplace(nm, 0);
  }
  std::vector<std::string> names;
  std::int64_t id = 0;
  for (auto& kv : all) {
    kv.second = id++;
    names.push_back(kv.first);
  }
  for (auto& s : sc) {
    std::vector<std::int64_t> remap(s.names.size());
    for (std::size_t i = 0; i < s.names.size(); ++i) remap[i] = all[s.names[i]];
    for (auto& k : s.sel.cat) k = remap[static_cast<std::size_t>(k)];
    std::vector<std::uint64_t> ev(names.size(), 0);
    for (std::size_t i = 0; i < s.names.size(); ++i)
      ev[static_cast<std::size_t>(remap[i])] += s.eval_tokens[i];
    s.eval_tokens = std::move(ev);
  }
  return names;
}

std::function<std::string(std::int64_t)> token_namer(std::vector<std::string> names) {
  return [names](std::int64_t k) {
    return k >= 0 && static_cast<std::size_t>(k) < names.size() ? names[static_cast<std::size_t>(k)]
                                                                : "#" + std::to_string(k);
  };
}

split_sizes split_of(const scan_pair& sc) {
  const std::uint64_t nsel[2] = {sc[0].sel.size(), sc[1].sel.size()};
  return {{nsel[0], nsel[1]}, {sc[0].lines - nsel[0], sc[1].lines - nsel[1]}};
}

/// Token files: the evaluation tokens were counted by the scan, by global id.
void add_token_counts(const scan_pair& sc, std::size_t ntokens, const plan& tests, eval_counts& c) {
  for (int s = 0; s < 2; ++s) {
    std::vector<std::int64_t> keys(ntokens);
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::int64_t>(i);
    accumulate(tests, s, keys.data(), sc[s].eval_tokens.data(), keys.size(), c);
  }
}

/// Numeric files: pass 2 (eval_file) over both; the second half of the progress bar.
void add_file_counts(sample_files& files, const scan_pair& sc, const plan& tests, eval_counts& c) {
  eval_counts part[2];
  part[0].init(tests);
  part[1].init(tests);
  run_pair_rethrowing(
      [&](int s) {
        eval_file(files.path(s), files.num, files.opt.skip_header, sc[s].raw_lines, tests, s,
                  part[s], files.bytes);
      },
      files.threads, files.opt,
      [&] { return std::min(0.99, 0.5 + 0.5 * (files.read_share(1.0) - 1.0)); });
  c.merge(part[0]);
  c.merge(part[1]);
}

eval_counts count_evaluation(sample_files& files, const scan_pair& sc, std::size_t ntokens,
                             const split_sizes& n, const plan& tests) {
  eval_counts c;
  c.init(tests);
  if (sc[0].kind == line_kind::token) {
    add_token_counts(sc, ntokens, tests, c);
  } else if (tests.tests.empty()) {
    c.n[0] = n.evaluation[0];
    c.n[1] = n.evaluation[1];
  } else {
    add_file_counts(files, sc, tests, c);
  }
  return c;
}

}  // namespace

audit_report audit_files(const std::string& f0, const std::string& f1,
                         const tradeoff& per_neighbour_claim, const audit_options& opt) {
  const auto t0 = clock_type::now();
  check_options(opt);
  const tradeoff claim = group_claim(per_neighbour_claim, opt.group);
  sample_files files(f0, f1, opt);
  audit_report rep;
  scan_pair sc = scan_both(files);
  if (opt.progress) opt.progress(std::min(0.5, files.read_share(2.0)));
  check_same_kind(files, sc);
  rep.samples[0] = sc[0].lines;
  rep.samples[1] = sc[1].lines;
  const bool tokens = sc[0].kind == line_kind::token;
  if (!tokens) check_rereadable(files);
  std::vector<std::string> names;
  if (tokens) {
    names = unify_token_ids(sc);
    rep.category_name = token_namer(names);
  }
  rep.seconds.select_sampling = since(t0);

  const auto t1 = clock_type::now();
  const split_sizes n = split_of(sc);
  rep.tests = choose_tests(sc[0].sel, sc[1].sel, sc[0].dim, n, claim, opt, rep.category_name);
  note_untested_bits(sc[0].sel, opt, rep);
  rep.tests.group = opt.group;
  for (auto& s : sc) {
    s.sel.real.clear();
    s.sel.real.shrink_to_fit();
  }
  rep.seconds.selection = since(t1);

  const auto t2 = clock_type::now();
  rep.counts = count_evaluation(files, sc, names.size(), n, rep.tests);
  rep.seconds.evaluation = since(t2);

  const auto t3 = clock_type::now();
  rep.result = evaluate(rep.tests, rep.counts, claim, opt.delta);
  qualify_consistent(rep);
  rep.seconds.statistics = since(t3);
  if (opt.progress) opt.progress(1.0);
  rep.seconds.total = since(t0);
  return rep;
}

namespace {

/// One side of audit_outputs: the selection outputs (by the file rule) kept,
/// every output mapped onto the real line as a file's would be.
sample_block split_outputs(const std::vector<double>& x, std::uint64_t num,
                           std::vector<double>& eval, const char* name) {
  if (x.empty())
    throw std::invalid_argument(std::string("audit: ") + name + " is empty (no outputs)");
  sample_block sel;
  eval.clear();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double y = nonfinite_output(x[i]);
    if (selected(i, num))
      sel.real.push_back(y);
    else
      eval.push_back(y);
  }
  return sel;
}

}  // namespace

audit_report audit_outputs(const std::vector<double>& x0, const std::vector<double>& x1,
                           const tradeoff& per_neighbour_claim, const audit_options& opt) {
  const auto t0 = clock_type::now();
  check_options(opt);
  const tradeoff claim = group_claim(per_neighbour_claim, opt.group);
  const std::uint64_t num = frac_num(opt.selection_fraction);
  std::vector<double> eval[2];
  sample_block sel[2] = {split_outputs(x0, num, eval[0], "outputs0"),
                         split_outputs(x1, num, eval[1], "outputs1")};
  audit_report rep;
  rep.samples[0] = x0.size();
  rep.samples[1] = x1.size();
  const split_sizes n{{sel[0].size(), sel[1].size()}, {eval[0].size(), eval[1].size()}};
  const auto t1 = clock_type::now();
  rep.tests = choose_tests(sel[0], sel[1], 1, n, claim, opt, rep.category_name);
  note_untested_bits(sel[0], opt, rep);
  rep.tests.group = opt.group;
  rep.seconds.selection = since(t1);

  const auto t2 = clock_type::now();
  rep.counts.init(rep.tests);
  if (rep.tests.tests.empty()) {
    rep.counts.n[0] = n.evaluation[0];
    rep.counts.n[1] = n.evaluation[1];
  } else {
    for (int s = 0; s < 2; ++s)
      accumulate(rep.tests, s, eval[s].data(), eval[s].size(), rep.counts);
  }
  rep.seconds.evaluation = since(t2);
  const auto t3 = clock_type::now();
  rep.result = evaluate(rep.tests, rep.counts, claim, opt.delta);
  qualify_consistent(rep);
  rep.seconds.statistics = since(t3);
  rep.seconds.total = since(t0);
  return rep;
}

audit_report audit_counts(const plan& p, const eval_counts& counts, const tradeoff& claim,
                          double delta, std::int64_t group) {
  if (group < p.group) {
    // A per-neighbour claim against outputs of inputs K steps apart would
    // report false violations: the plan remembers K.
    throw std::invalid_argument("audit: --group " + std::to_string(group) +
                                " is below the shards' own: they come from a group audit of "
                                "inputs up to " +
                                std::to_string(p.group) +
                                " neighbour steps apart (merge them with --group " +
                                std::to_string(p.group) + " or more)");
  }
  audit_report rep;
  rep.tests = p;
  rep.counts = counts;
  for (int s = 0; s < 2; ++s) rep.samples[s] = p.selection[s] + counts.n[s];
  rep.result = evaluate(p, counts, group_claim(claim, group), delta);
  return rep;
}

}  // namespace fdp::audit
