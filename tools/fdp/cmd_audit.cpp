// fdp audit: certified empirical trade-off curves and verdicts for a
// built-in mechanism or for black-box sample files (docs/cli.md).
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "audit_claim.hpp"
#include "audit_scores.hpp"
#include "cli.hpp"
#include "distributed.hpp"
#include "fdp/audit/audit.hpp"
#include "fdp/audit/stats_io.hpp"
#include "fdp/mech/neighbours.hpp"
#include "fdp/mech/registry.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp::cli {
namespace {

using namespace fdp::audit;

/// A progress bar on stderr when it is a terminal, drawn once a run has
/// taken 2 seconds (FDP_PROGRESS_AFTER=SECONDS overrides the delay; the CLI
/// tests set 0) and erased at the end.
class progress_bar {
 public:
  progress_bar() : tty_(::isatty(STDERR_FILENO) == 1), t0_(std::chrono::steady_clock::now()) {
    if (const char* e = std::getenv("FDP_PROGRESS_AFTER")) {
      char* end = nullptr;
      const double v = std::strtod(e, &end);
      if (end != e && v >= 0 && std::isfinite(v)) after_ = v;
    }
  }
  void operator()(double f) {
    if (!tty_) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (s < after_) return;
    const int w = 30, k = static_cast<int>(std::lround(std::min(1.0, std::max(0.0, f)) * w));
    std::fprintf(
        stderr, "\r[%s%s] %3d%%  %.1f s", std::string(static_cast<std::size_t>(k), '#').c_str(),
        std::string(static_cast<std::size_t>(w - k), ' ').c_str(), static_cast<int>(f * 100), s);
    std::fflush(stderr);
    drawn_ = true;
  }
  /// Erases the bar: called before the results print (on a terminal both
  /// streams share the screen, and a bar left over would sit on the first
  /// line of the results).
  void clear() {
    if (drawn_) std::fprintf(stderr, "\r%60s\r", "");
    std::fflush(stderr);
    drawn_ = false;
  }
  ~progress_bar() { clear(); }

 private:
  bool tty_;
  bool drawn_ = false;
  double after_ = 2.0;
  std::chrono::steady_clock::time_point t0_;
};

std::string ordering_text(int o) {
  return o == 0 ? "alpha on input0, beta on input1" : "alpha on input1, beta on input0";
}

json test_json(const audit_report& r, const test_result& x) {
  const test& t = r.tests.tests[x.index];
  json j;
  j["role"] = t.role;
  j["event"] = t.description;
  j["ordering"] = ordering_text(t.ordering);
  j["level"] = t.gamma;
  j["selection_estimate"] = {t.sel_alpha, t.sel_beta};
  j["counts"] = {x.kP, x.nP, x.kQ, x.nQ};
  j["alpha_estimate"] = num(x.alpha_hat);
  j["beta_estimate"] = num(x.beta_hat);
  j["alpha_upper"] = num(x.alpha_upper);
  j["beta_upper"] = num(x.beta_upper);
  j["epsilon_lower"] = num(std::max(0.0, x.epsilon));
  j["mu_lower"] = num(std::max(0.0, x.mu));
  j["claim_beta"] = num(x.claim_beta);
  j["violation"] = x.violation;
  return j;
}

void write_curve(const audit_result& r, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw usage_error("--curve-out: cannot open '" + path + "' for writing");
  f.precision(17);  // (every double exactly: bounds printed to nearest could cross the truth)
  // tests_beta_lower, not beta_lower: it bounds the curve of the tests the
  // audit found, not the true curve (better tests may exist), so the two
  // edges are no confidence band for the truth; beta_upper is certified.
  f << "alpha,tests_beta_lower,beta_upper,beta_estimate\n";
  for (const auto& p : empirical_curve(r)) {
    f << p.alpha << "," << p.beta_lower << "," << p.beta_upper << "," << p.beta_estimate << "\n";
  }
  if (!f) throw std::runtime_error("--curve-out: write failed");
}

// Large buffers come and go between the phases; keep freed memory in the
// heap instead of returning it to the system (page faults dominate
// otherwise: measured 20-30% of a 1e7-sample audit in a VM).
void keep_freed_memory_in_heap() {
  ::mallopt(M_MMAP_THRESHOLD, 1 << 30);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

enum class audit_source { mechanism, sample_files, merged_stats };

// Which of the three sources the options name (exactly one, or usage_error).
audit_source audit_source_of(const args& a) {
  if (!a.positional().empty()) throw usage_error("unexpected argument '" + a.positional()[0] + "'");
  const bool builtin = a.has("mechanism");
  const bool files = a.has("samples0") || a.has("samples1");
  const bool from_stats = a.has("stats-in");
  if (builtin && files)
    throw usage_error(
        "give either --mechanism (with --input0/--input1) or --samples0/--samples1, not both");
  if (from_stats && (files || builtin)) {
    throw usage_error(
        "--stats-in merges shard files on its own: give it without --mechanism or "
        "--samples0/--samples1");
  }
  if (!builtin && !files && !from_stats) {
    throw usage_error(
        "nothing to audit: give --mechanism NAME:params --input0 V --input1 V, --samples0 FILE "
        "--samples1 FILE, --scores FILE or --one-run FILE");
  }
  return builtin ? audit_source::mechanism
                 : (files ? audit_source::sample_files : audit_source::merged_stats);
}

// The options of the audit itself (the progress bar aside).
audit_options audit_options_from(const args& a) {
  audit_options opt;
  opt.confidence = a.number_or("confidence", 0.95, 0, 1, true, true);
  opt.delta = a.number_or("delta", 0.0, 0, 1, false, true);
  opt.selection_fraction = a.number_or("selection-fraction", 0.1, 0, 1, true, true);
  opt.seed = static_cast<std::uint64_t>(a.integer_or("seed", 0, 0, 9007199254740992LL));
  opt.threads = static_cast<unsigned>(a.integer_or("threads", 0, 0, 256));
  opt.curve_tests = static_cast<int>(a.integer_or("curve-tests", 24, 0, 1000));
  opt.shard_offset = static_cast<std::uint64_t>(a.integer_or("shard", 0, 0, 1LL << 40)) << 20;
  opt.bit_features = a.flag("bit-features");
  opt.oracle = !a.flag("no-oracle");
  opt.group = a.integer_or("group", 1, 1, 1000000);
  opt.skip_header = a.flag("skip-header");
  return opt;
}

// An audit's report, and what was audited against which claim.
struct audited {
  audit_report report;
  std::string claim_text;
  json source;          ///< what was audited, for the JSON
  std::string subject;  ///< the same in words, for the text
  /// Kept alive with the report: its category_name may name the
  /// mechanism's tokens.
  std::unique_ptr<mech::mechanism> mechanism;
  std::int64_t group = 1;  ///< --group K (1: neighbouring inputs)
};

// Distributed evaluation: this run only adds evaluation outputs for a given plan.
void evaluate_shard(const args& a, const mech::mechanism& m, const std::vector<double>& in0,
                    const std::vector<double>& in1, std::uint64_t n, const audit_options& opt) {
  const plan p = read_plan(a.value("plan-in"));
  m.check_input(in0);
  m.check_input(in1);
  check_neighbours(m, in0, in1, opt.group);
  if (!a.has("stats-out")) throw usage_error("--plan-in with --mechanism needs --stats-out FILE");
  const eval_counts c = evaluate_mechanism(m, in0, in1, n, p, opt);
  write_stats(a.value("stats-out"), p, c);
}

// nullopt: a --plan-in run, which only writes its shard (evaluate_shard).
std::optional<audited> audit_builtin(const args& a, const audit_options& opt) {
  audited r;
  r.mechanism = mech::make_mechanism(a.value("mechanism"));
  const mech::mechanism& m = *r.mechanism;
  const auto in0 = mech::parse_answers(a.value("input0"), "--input0");
  const auto in1 = mech::parse_answers(a.value("input1"), "--input1");
  const tradeoff claim = claim_from(a, &m, r.claim_text);
  const auto n = static_cast<std::uint64_t>(
      parse_count(a.value_or("samples", "1000000"), "--samples", 1, 100000000000LL));
  if (a.has("plan-in")) {
    evaluate_shard(a, m, in0, in1, n, opt);
    return std::nullopt;
  }
  r.source["mechanism"] = m.spec();
  r.source["input0"] = in0;
  r.source["input1"] = in1;
  r.source["neighbours"] = m.neighbours().text;
  r.source["distance"] = mech::neighbour_distance(m.neighbours(), in0, in1);
  r.subject = m.spec();
  // (under mpirun, fdp-mpi: this process's share of the evaluation, the
  // counts summed over the processes; distributed.hpp)
  const distribution& d = this_distribution();
  audit_options mine = opt;
  mine.task_rank = d.rank;
  mine.task_ranks = d.ranks;
  mine.reduce_counts = d.reduce_counts;
  r.report = audit_mechanism(m, in0, in1, n, claim, mine);
  return r;
}

audited audit_sample_files(const args& a, const audit_options& opt) {
  if (!a.has("samples0") || !a.has("samples1"))
    throw usage_error("give both --samples0 FILE and --samples1 FILE");
  audited r;
  const tradeoff claim = claim_from(a, nullptr, r.claim_text);
  r.source["samples0"] = a.value("samples0");
  r.source["samples1"] = a.value("samples1");
  r.subject = a.value("samples0") + " vs " + a.value("samples1");
  r.report = audit_files(a.value("samples0"), a.value("samples1"), claim, opt);
  return r;
}

// The shards of one plan, their counts added up.
struct merged_shards {
  plan p;
  eval_counts counts;
};

merged_shards merge_shards(const std::vector<std::string>& files) {
  merged_shards m;
  std::vector<std::pair<std::size_t, eval_counts>> streamless;  // sample-file shards read so far
  for (std::size_t i = 0; i < files.size(); ++i) {
    plan pi;
    eval_counts ci;
    read_stats(files[i], pi, ci);
    if (i == 0) {
      m.p = pi;
      m.counts = ci;
    } else {
      if (plan_fingerprint(pi) != plan_fingerprint(m.p)) {
        throw std::invalid_argument(files[i] + ": its plan differs from " + files[0] +
                                    "'s; only shards of one plan merge");
      }
      // Shards from sample files carry no stream: the same counts twice
      // are the same file (or the same samples) given twice.
      for (const auto& [j, cj] : streamless) {
        if (!ci.streams.empty()) break;
        if (cj.n[0] == ci.n[0] && cj.n[1] == ci.n[1] && cj.cells[0] == ci.cells[0] &&
            cj.cells[1] == ci.cells[1]) {
          throw std::invalid_argument(
              files[i] + ": the same counts as " + files[j] +
              " (the same shard given twice would count its samples twice)");
        }
      }
      try {
        m.counts.merge(ci);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(files[i] + ": " + e.what());
      }
    }
    if (ci.streams.empty()) streamless.emplace_back(i, std::move(ci));
  }
  return m;
}

audited audit_merged_stats(const args& a, const audit_options& opt) {
  audited r;
  const tradeoff claim = claim_from(a, nullptr, r.claim_text);
  const auto ins = a.all("stats-in");
  const merged_shards m = merge_shards(ins);
  r.source["stats_in"] = ins;
  r.subject = "merged statistics";
  r.report = audit_counts(m.p, m.counts, claim, opt.delta, opt.group);
  return r;
}

// The claim's words for a group audit: what is tested is its group guarantee.
void name_group_claim(audited& d, std::int64_t k) {
  if (k == 1) return;
  d.claim_text = "group " + std::to_string(k) + " of " + d.claim_text +
                 " (DRS Thm 2.14: inputs up to " + std::to_string(k) + " neighbour steps apart)";
}

std::optional<audited> audit_any(const args& a, audit_source source, const audit_options& opt) {
  switch (source) {
    case audit_source::mechanism:
      return audit_builtin(a, opt);
    case audit_source::sample_files:
      return audit_sample_files(a, opt);
    case audit_source::merged_stats:
      break;
  }
  return audit_merged_stats(a, opt);
}

std::optional<audited> audit_from(const args& a, audit_source source, const audit_options& opt) {
  std::optional<audited> d = audit_any(a, source, opt);
  if (d) {
    name_group_claim(*d, opt.group);
    d->group = opt.group;
  }
  return d;
}

void write_requested_files(const args& a, const audit_report& rep) {
  if (a.has("plan-out")) write_plan(a.value("plan-out"), rep.tests);
  if (a.has("stats-out")) write_stats(a.value("stats-out"), rep.tests, rep.counts);
  if (a.has("curve-out")) write_curve(rep.result, a.value("curve-out"));
}

// The witness's rejection event and ordering: its test's, or those of the
// test's mirror (the complement event, in the other ordering).
struct witness_event {
  std::string event, ordering;
};

witness_event witness_event_of(const audit_report& rep) {
  const audit_result& r = rep.result;
  const test& t = rep.tests.tests[r.tests[r.w->test].index];
  if (r.w->mirror) return {t.complement, ordering_text(1 - t.ordering)};
  return {t.description, ordering_text(t.ordering)};
}

json witness_json(const audit_report& rep) {
  const audit_result& r = rep.result;
  if (!r.w) return nullptr;
  const witness_event e = witness_event_of(rep);
  return {{"alpha", r.w->alpha},
          {"beta", r.w->beta},
          {"claim_beta", r.w->claim_beta},
          {"event", e.event},
          {"ordering", e.ordering}};
}

json oracle_json(const audit_report& rep) {
  if (!rep.oracle) return nullptr;
  json o;
  o["epsilon_lower"] = num(rep.oracle->epsilon);
  o["mu_lower"] = num(rep.oracle->mu);
  o["ratio"] =
      rep.oracle->epsilon > 0 ? num(rep.result.epsilon_lower / rep.oracle->epsilon) : json(nullptr);
  o["tests"] = rep.oracle_family;
  return o;
}

json audit_json(const audited& d) {
  const audit_report& rep = d.report;
  const audit_result& r = rep.result;
  const double inf = std::numeric_limits<double>::infinity();
  json out = envelope("audit");
  out["verdict"] = r.verdict;
  out["samples"] = {rep.samples[0], rep.samples[1]};
  // Lower bounds only: brackets whose upper end is unbounded (null).
  out["queries"] = json::array({query("delta", r.delta, "epsilon", bracket(r.epsilon_lower, inf))});
  out["mu"] = bracket(r.mu_lower, inf);
  out["witness"] = witness_json(rep);
  out["samples_needed"] = r.samples_needed ? num(*r.samples_needed) : json(nullptr);
  out["reason"] = r.reason;
  out["nothing_learned"] = r.nothing_learned;
  out["notes"] = rep.notes;
  out["claim"] = d.claim_text;
  out["source"] = d.source;
  out["split"] = {{"selection", {r.selection[0], r.selection[1]}},
                  {"evaluation", {r.evaluation[0], r.evaluation[1]}}};
  out["oracle"] = oracle_json(rep);
  json tj = json::array();
  for (const auto& x : r.tests) tj.push_back(test_json(rep, x));
  out["tests"] = tj;
  out["error_budget"] = r.error_budget;
  out["assumptions"] = {{"confidence", r.confidence}, {"group", d.group}};
  json t = timing(rep.seconds.total);
  t["phases"] = {{"selection_sampling", rep.seconds.select_sampling},
                 {"selection", rep.seconds.selection},
                 {"evaluation", rep.seconds.evaluation},
                 {"statistics", rep.seconds.statistics},
                 {"oracle", rep.seconds.oracle}};
  out["timing"] = t;
  return out;
}

void print_oracle(const audit_report& rep) {
  std::cout << "oracle (best certifiable with the same samples, true law known): epsilon >= "
            << fmt(rep.oracle->epsilon, 6);
  if (rep.oracle->epsilon > 0)
    std::cout << "; achieved/oracle = "
              << fmt_down(rep.result.epsilon_lower / rep.oracle->epsilon, 4);
  std::cout << "\n";
}

void print_tests(const audit_report& rep) {
  std::cout << "tests (all bounds hold together at the stated confidence):\n";
  for (const auto& x : rep.result.tests) {
    const auto& t = rep.tests.tests[x.index];
    std::cout << "  [" << t.role << "] " << t.description << " (" << ordering_text(t.ordering)
              << "): alpha <= " << fmt_up(x.alpha_upper, 5)
              << ", beta <= " << fmt_up(x.beta_upper, 5)
              << ", epsilon >= " << fmt(std::max(0.0, x.epsilon), 5)
              << (x.violation ? "  VIOLATION" : "") << "\n";
  }
}

// The lower bounds, each with what it means: they describe the pair of
// output laws, not the claim (the verdict line judges the claim). A large
// mu_lower beside "consistent" is no leak: the GDP summary of a
// non-Gaussian curve (Laplace, uniform noise) is set by its far tails.
void print_lower_bounds(const audit_result& r) {
  const bool none = r.nothing_learned;
  std::cout << "epsilon >= " << fmt_down(r.epsilon_lower, 6) << " at delta = " << fmt(r.delta)
            << (none ? "  (vacuous: no test had anything to learn from)"
                     : "  (certified: no (epsilon, delta)-DP with a smaller epsilon holds for "
                       "this pair)")
            << "\n";
  std::cout << "mu >= " << fmt_down(r.mu_lower, 6)
            << (none ? "  (vacuous, as above)"
                     : "  (certified: no mu-GDP with a smaller mu holds; non-Gaussian tails "
                       "raise it: no verdict on the claim, see the verdict line)")
            << "\n";
}

void print_audit(const audited& d, bool list_tests) {
  const audit_report& rep = d.report;
  const audit_result& r = rep.result;
  std::cout << "audit: " << d.subject << "\n  claim " << d.claim_text << "; " << rep.samples[0]
            << " + " << rep.samples[1] << " samples (selection " << r.selection[0] << " + "
            << r.selection[1] << "); confidence " << fmt(r.confidence) << "\n";
  std::cout << "verdict: " << r.verdict << " (" << r.reason << ")\n";
  if (r.samples_needed)
    std::cout << "  samples needed per side: about " << fmt(*r.samples_needed, 3) << "\n";
  if (r.w) {
    const witness_event e = witness_event_of(rep);
    std::cout << "witness: rejection event " << e.event << " (" << e.ordering << ")\n"
              << "  alpha <= " << fmt(r.w->alpha, 6) << ", beta <= " << fmt(r.w->beta, 6)
              << ", but the claim says beta >= " << fmt(r.w->claim_beta, 6) << "\n";
  }
  print_lower_bounds(r);
  for (const auto& n : rep.notes) std::cout << "note: " << n << "\n";
  if (rep.oracle) print_oracle(rep);
  if (list_tests) print_tests(rep);
  std::cout << "time: " << fmt(rep.seconds.total, 3) << " s\n";
}

int run_audit(const args& a) {
  if (is_score_audit(a)) return run_score_audit(a);
  keep_freed_memory_in_heap();
  const audit_source source = audit_source_of(a);
  audit_options opt = audit_options_from(a);
  // (under mpirun only the first process shows progress and prints: the
  // others computed the same report; distributed.hpp)
  const bool first = this_distribution().rank == 0;
  progress_bar bar;
  if (!a.flag("no-progress") && first) opt.progress = [&bar](double f) { bar(f); };
  const std::optional<audited> done = audit_from(a, source, opt);
  bar.clear();
  if (!done) return 0;  // (a --plan-in run: its shard is written)
  const int code = done->report.result.verdict == "violation" ? 3 : 0;
  if (!first) return code;
  write_requested_files(a, done->report);
  if (a.flag("json"))
    print_json(audit_json(*done));
  else
    print_audit(*done, a.flag("tests"));
  return code;
}

FDP_REGISTER_COMMAND(command{
    "audit",
    "audit a mechanism or sample files against an f-DP claim (certified verdict, eps/mu lower "
    "bounds)",
    "usage: fdp audit --mechanism NAME:params --input0 V --input1 V [--claim SPEC]...\n"
    "                 [--samples N] [--confidence C] [--seed S] [--threads T] [--delta D]\n"
    "                 [--curve-out FILE] [--json]\n"
    "       fdp audit --samples0 FILE --samples1 FILE --claim SPEC... [options]\n"
    "       fdp audit --scores FILE [--claim SPEC]... [--delta D] [--curve-out FILE]\n"
    "       fdp audit --one-run FILE [--guesses K] [--claim SPEC]... [--delta D]\n\n"
    "Tests the claim that the mechanism is f-DP on the neighbouring inputs V (query\n"
    "answers, comma-separated), in both orderings of the pair, from sampled outputs.\n"
    "Inputs that are not neighbours under the mechanism's relation (fdp mechanisms)\n"
    "are refused: a per-neighbour claim says nothing about them. With --group K they\n"
    "may be up to K neighbour steps apart and the claim's group guarantee is tested.\n"
    "A fraction of the outputs (the selection split) chooses the tests: threshold\n"
    "tests on real outputs and coordinates, likelihood-ratio tests on bins, categories\n"
    "and the leaves of a tree grown on vector outputs, event tests for outputs seen on\n"
    "one side only. The rest (the evaluation split) gives Clopper-Pearson bounds on\n"
    "their errors, all holding together at --confidence (a union bound). Verdict:\n"
    "  violation     a test has type I error <= alpha and type II error <= beta while\n"
    "                the claim says beta >= claim_beta > beta (exit code 3)\n"
    "  consistent    no evidence against the claim at this sample size\n"
    "  inconclusive  suggestive but not certified, or too few samples; with the\n"
    "                per-side sample count that would be needed\n"
    "  vacuous       the claim's curve is 0 for alpha > 0 (e.g. delta = 1): nothing\n"
    "                could ever reject it\n"
    "epsilon_lower (at --delta) and mu_lower hold at the stated confidence; they\n"
    "describe the pair of output laws, not the claim (a large mu_lower beside\n"
    "'consistent' comes from non-Gaussian tails, not from a leak). For\n"
    "built-in mechanisms with a known output law the oracle bound (the best\n"
    "certifiable with the same samples when the law is known) and achieved/oracle\n"
    "are printed. Sample files: one output per line, a number, a comma-separated\n"
    "vector or a token (see 'fdp sample'); inf, -inf and nan are outputs too;\n"
    "blank lines may end a file; every 10th output (--selection-fraction) is used\n"
    "for selection.\n\n"
    "  --mechanism SPEC         catalogue mechanism (fdp mechanisms), e.g. laplace:eps=1\n"
    "  --input0 V, --input1 V   neighbouring inputs, e.g. 1,1,1,1,1 and 2,1,1,1,1\n"
    "  --samples N              outputs per side (default 1000000)\n"
    "  --samples0/1 FILE        black-box sample files instead of --mechanism\n"
    "  --skip-header            the first line of each sample file is a header\n"
    "  --group K                group audit: inputs up to K neighbour steps apart,\n"
    "                           tested against the claim's K-fold group guarantee\n"
    "                           (Dong, Roth & Su 2019, Thm 2.14); default 1\n"
    "  --claim SPEC             claimed guarantee (gdp:mu=, epsdelta:eps=,delta=,\n"
    "                           laplace:b=, curve:file=, ...; repeated: composed);\n"
    "                           default for --mechanism: the mechanism's claim\n"
    "  --confidence C           default 0.95\n"
    "  --delta D                delta of epsilon_lower (default 0)\n"
    "  --seed S, --threads T    RNG seed (default 0); threads (default: all cores);\n"
    "                           the result does not depend on T\n"
    "  --curve-out FILE         CSV alpha,tests_beta_lower,beta_upper,beta_estimate:\n"
    "                           the empirical trade-off curve (both orderings);\n"
    "                           beta_upper is a certified upper bound on the true curve,\n"
    "                           tests_beta_lower only on the curve of the tests found\n"
    "  --selection-fraction F   share of outputs used to choose tests (default 0.1)\n"
    "  --curve-tests K          tests spent on the curve band (default 24)\n"
    "  --bit-features           also test IEEE-754 bit-pattern cells of real outputs\n"
    "                           (floating-point leaks, Mironov 2012)\n"
    "  --tests                  list every evaluated test\n"
    "  --no-oracle, --no-progress, --json   (the progress bar is drawn on a terminal\n"
    "                           once a run takes 2 s; FDP_PROGRESS_AFTER=S sets the delay)\n"
    "  --plan-out FILE          write the chosen tests (a plan)\n"
    "  --stats-out FILE         write the plan and evaluation counts (a shard)\n"
    "  --plan-in FILE --shard I with --mechanism and --stats-out: evaluation outputs\n"
    "                           only, from stream block I<<20 on (another shard)\n"
    "  --stats-in FILE          (repeatable) merge shards of one plan and report\n"
    "  (mpirun -np N fdp-mpi audit --mechanism ...: the evaluation split over N\n"
    "   processes, the single-process report; built where OpenMPI is installed)\n\n"
    "Canary scores (membership-inference scores of canaries; file rows\n"
    "score,in,canary,run with in = 1 if the canary was trained on; fdp sample\n"
    "--gdp-scores writes simulated ones):\n"
    "  --scores FILE            many runs (Nasr et al. 2023): per canary, rank\n"
    "                           threshold tests on its in/out scores, no data split;\n"
    "                           certified epsilon and mu lower bounds, the curve's\n"
    "                           certified upper edge (--curve-out: alpha,beta_upper,\n"
    "                           beta_estimate) and a GDP fit that is an ESTIMATE only\n"
    "  --one-run FILE           one run (Steinke, Nasr & Jagielski 2023): one row per\n"
    "                           canary, each included with probability 1/2\n"
    "  --guesses K              one run: guess on the K most confident canaries (the\n"
    "                           ceil(K/2) highest scores 'in', the rest of K lowest\n"
    "                           'out'); default all; fix K before looking at the data\n\n"
    "examples:\n"
    "  fdp audit --mechanism laplace:eps=1 --input0 0 --input1 1 --samples 1000000\n"
    "  fdp audit --mechanism laplace:eps=1 --input0 0 --input1 3 --group 3\n"
    "  fdp audit --mechanism gaussian:sigma=0.8 --input0 0 --input1 1 --claim gdp:mu=1 \\\n"
    "            --curve-out audit.csv --json\n"
    "  fdp audit --mechanism svt-lyu-alg5:eps=0.1 --input0 2,2,2,2,2,0,0,0,0,0 \\\n"
    "            --input1 1,1,1,1,1,1,1,1,1,1 --samples 20000000 --confidence 0.9\n"
    "  fdp sample --mechanism report-noisy-max:eps=1 --input 1,1,1 --samples 1000000 --out a.txt\n"
    "  fdp sample --mechanism report-noisy-max:eps=1 --input 0,2,2 --samples 1000000 --out b.txt\n"
    "  fdp audit --samples0 a.txt --samples1 b.txt --claim epsdelta:eps=1\n"
    "  fdp sample --gdp-scores 2 --runs 1000 --canaries 2 --seed 1 --out scores.csv\n"
    "  fdp audit --scores scores.csv --claim gdp:mu=1 --delta 1e-5    (exit 3)\n"
    "  fdp sample --gdp-scores 2 --runs 1 --canaries 1000 --seed 1 --out one.csv\n"
    "  fdp audit --one-run one.csv --guesses 200 --delta 1e-5\n",
    {{"mechanism", true, false, "mechanism spec"},
     {"input0", true, false, "first input"},
     {"input1", true, false, "neighbouring input"},
     {"samples", true, false, "outputs per side"},
     {"samples0", true, false, "sample file of input0"},
     {"samples1", true, false, "sample file of input1"},
     {"claim", true, true, "claimed guarantee"},
     {"confidence", true, false, "confidence level"},
     {"delta", true, false, "delta of epsilon_lower"},
     {"seed", true, false, "seed"},
     {"threads", true, false, "threads"},
     {"curve-out", true, false, "curve CSV"},
     {"selection-fraction", true, false, "selection share"},
     {"curve-tests", true, false, "curve tests"},
     {"bit-features", false, false, "IEEE bit cells"},
     {"tests", false, false, "list tests"},
     {"no-oracle", false, false, "skip the oracle"},
     {"no-progress", false, false, "no progress bar"},
     {"json", false, false, "JSON output"},
     {"plan-out", true, false, "plan file"},
     {"plan-in", true, false, "plan file"},
     {"shard", true, false, "shard index"},
     {"stats-out", true, false, "stats file"},
     {"stats-in", true, true, "stats files"},
     {"group", true, false, "group size"},
     {"scores", true, false, "canary score file (many runs)"},
     {"one-run", true, false, "canary score file (one run)"},
     {"guesses", true, false, "one run: number of guesses"},
     {"skip-header", false, false, "header line in sample files"}},
    run_audit,
    true});

}  // namespace
}  // namespace fdp::cli
