// fdp audit: the whole pipeline for a built-in mechanism or for black-box
// sample files (docs/architecture.md, "Auditing pipeline"; docs/cli.md).
//
//   1. Selection split. A fraction (selection_fraction, default 0.1) of the
//      outputs of each side: for a built-in mechanism, floor(N f) outputs
//      drawn from RNG streams reserved for selection; for files, the lines
//      whose 0-based index i has floor((i+1) f) > floor(i f) (every 10th
//      line at f = 0.1; the lines are assumed i.i.d.). select_tests()
//      chooses the tests on them.
//   2. Evaluation split: the other outputs, reduced to the plan's cell
//      counts (eval_counts); for a built-in mechanism they are drawn only
//      after the plan is fixed, from disjoint RNG streams.
//   3. evaluate(): Clopper-Pearson bounds under a union bound, verdict,
//      epsilon_lower, mu_lower, witness, curve (evaluate.hpp).
//   4. For built-in mechanisms with a known output law, the oracle bound at
//      the same sample count and confidence (oracle.hpp).
//
// Determinism and threads. Outputs are drawn in blocks of kBlock = 8192; block
// b of side s in phase ph (0 selection, 1 evaluation) comes from
// rng_stream(seed, ph << 62 | s << 61 | (shard_offset + b)), so a run is a
// function of (seed, N, options) only, whatever the number of threads: the
// selection samples are written at fixed offsets and the evaluation counts
// are integer sums. shard_offset moves the evaluation blocks, so that
// separate runs with different offsets draw independent evaluation outputs
// for the same plan and their eval_counts merge exactly (stats files).
//
// Memory: the selection split is held in memory (floor(N f) * dim doubles or
// keys per side); the evaluation split never is.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fdp/audit/evaluate.hpp"
#include "fdp/audit/oracle.hpp"
#include "fdp/audit/plan.hpp"
#include "fdp/audit/select.hpp"
#include "fdp/core/tradeoff.hpp"
#include "fdp/mech/mechanism.hpp"

namespace fdp::audit {

struct audit_options {
  double confidence = 0.95;
  double delta = 0.0;
  double selection_fraction = 0.1;  ///< in (0, 1)
  std::uint64_t seed = 0;
  std::uint64_t shard_offset = 0;  ///< first evaluation block (built-in mechanisms)
  unsigned threads = 0;            ///< 0: all hardware threads
  int curve_tests = 24;
  bool bit_features = false;
  bool oracle = true;  ///< compute the oracle bound where known
  /// Group audit: the inputs may be up to `group` neighbour steps apart and
  /// the claim is replaced by its group guarantee (group_claim.hpp). 1: the
  /// inputs must be neighbours.
  std::int64_t group = 1;
  /// Sample files: the first line of each file is a header, not an output.
  bool skip_header = false;
  /// Called from the calling thread with the fraction of work done, every ~0.1 s.
  std::function<void(double)> progress;
  /// A distributed mechanism audit (tools/fdp's MPI build): this process
  /// evaluates only the evaluation tasks t (a side and a block of outputs on
  /// its own counter-based stream) with t % task_ranks == task_rank, and
  /// `reduce_counts(tests, counts)` then turns every process's partial
  /// counts into their sum (an MPI all-reduce; it may first check that all
  /// processes chose the same tests). Every process draws the same selection split
  /// and chooses the same tests, so each reports exactly what one process
  /// evaluating every task reports (integer counts add in any order).
  unsigned task_rank = 0, task_ranks = 1;
  std::function<void(const plan&, eval_counts&)> reduce_counts;
};

struct timing {
  double select_sampling = 0, selection = 0, evaluation = 0, statistics = 0, oracle = 0, total = 0;
};

struct audit_report {
  audit_result result;
  plan tests;
  eval_counts counts;
  std::uint64_t samples[2] = {0, 0};  ///< per side, selection + evaluation
  std::optional<oracle_bound> oracle;
  std::string oracle_family;
  timing seconds;
  /// Category names for categorical outputs (token text, or the mechanism's tokens).
  std::function<std::string(std::int64_t)> category_name;
  /// What the audit did not test that the outputs call for, one sentence
  /// each (e.g. floating-point bit patterns of full-precision doubles when
  /// audit_options::bit_features was off).
  std::vector<std::string> notes;
};

/// Number of selection outputs among the first n (the file rule above).
std::uint64_t selection_count(std::uint64_t n, double fraction);

/// Refuses a pair the audit cannot judge: throws std::invalid_argument
/// naming the mechanism's neighbour relation when the inputs are more than
/// `group` neighbour steps apart (mech::neighbour_distance), or when group < 1.
void check_neighbours(const mech::mechanism& m, const std::vector<double>& input0,
                      const std::vector<double>& input1, std::int64_t group);

/// Audits `m` on the neighbouring inputs with `samples` outputs per side,
/// against `claim` (the per-neighbour claim; with opt.group > 1 its group
/// guarantee). Throws std::invalid_argument for invalid inputs or options,
/// including inputs that are not neighbours (check_neighbours).
audit_report audit_mechanism(const mech::mechanism& m, const std::vector<double>& input0,
                             const std::vector<double>& input1, std::uint64_t samples,
                             const tradeoff& claim, const audit_options& opt);

/// Evaluation only, for a given plan (distributed runs): draws `samples`
/// evaluation outputs per side from blocks shard_offset, shard_offset+1, ...
eval_counts evaluate_mechanism(const mech::mechanism& m, const std::vector<double>& input0,
                               const std::vector<double>& input1, std::uint64_t samples,
                               const plan& p, const audit_options& opt);

/// Audits black-box sample files (see sample_file.hpp for the format); with
/// opt.group > 1 against the claim's group guarantee (the files come from
/// inputs at most opt.group neighbour steps apart: the caller's word).
audit_report audit_files(const std::string& file0, const std::string& file1, const tradeoff& claim,
                         const audit_options& opt);

/// Audits two in-memory vectors of scalar outputs exactly as audit_files
/// audits files holding them one per line (same selection rule, same
/// non-finite map, same report, digit for digit); for callers that already
/// hold the outputs (the Python package). Throws std::invalid_argument when
/// a side is empty or an option is invalid.
audit_report audit_outputs(const std::vector<double>& outputs0, const std::vector<double>& outputs1,
                           const tradeoff& claim, const audit_options& opt);

/// Audit from a plan and merged evaluation counts (stats files); group as
/// in audit_options, at least the plan's own group (std::invalid_argument
/// otherwise: shards of a group audit judged per neighbour would raise
/// false alarms).
audit_report audit_counts(const plan& p, const eval_counts& counts, const tradeoff& claim,
                          double delta, std::int64_t group = 1);

}  // namespace fdp::audit
