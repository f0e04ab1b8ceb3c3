// Plan and statistics files: how audit shards on other processes or
// machines are combined (docs/architecture.md, "Auditing pipeline").
//
// Protocol:
//   1. fdp audit ... --plan-out plan.txt       selection split, chosen tests
//      (it also evaluates locally; its --stats-out is shard 0);
//   2. fdp audit --mechanism ... --plan-in plan.txt --shard I --samples N
//      --stats-out part_I.txt   on each machine: N more evaluation outputs
//      per side from RNG blocks I << 20, (I << 20) + 1, ... (independent of
//      every other shard and of the selection split);
//   3. fdp audit --stats-in part_0.txt --stats-in part_1.txt ... --claim SPEC
//      merges the counts (integer sums: exact) and reports.
// Shards must share the plan (checked by plan_fingerprint) and must not
// reuse a shard index: a stats file of mechanism outputs records its random
// streams (a "streams SEED BLOCK ..." line before "counts"), and a stream
// seen twice is refused, as are sample-file shards with identical counts.
// The union bound of the plan covers the merged counts because the tests
// were fixed before any evaluation output was drawn.
//
// Format: text, line-oriented, doubles in C99 hexadecimal ("%a", exact).
// The first line is "fdp-audit-plan 1" or "fdp-audit-stats 1". The
// "selection N0 N1" line carries a third number K for the plan of a group
// audit (plan::group; absent for neighbours, so older files read the same).
//
// Limits (fdp/core/bounded_reader.hpp): the first line may be at most
// kMaxLineBytes long (so that any other file fails at once, /dev/zero
// included), later lines kMaxStatsLineBytes. No limit on the file's size: it
// grows with the plan, as does the memory that holds the plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "fdp/audit/plan.hpp"

namespace fdp::audit {

/// Longest line of a plan or stats file after the first: 64 MiB. A
/// categories view lists its keys, each test's event mask and each side's
/// cell counts on one line each, so lines grow with the distinct tokens of
/// the selection split (a few million fit).
inline constexpr std::size_t kMaxStatsLineBytes = std::size_t{64} << 20;

void write_plan(std::ostream& os, const plan& p);
void write_plan(const std::string& path, const plan& p);
/// Throws std::invalid_argument naming the file and line for malformed input.
/// Reads `is` ahead of the plan's last line (to its end, as a rule).
plan read_plan(std::istream& is, const std::string& name);
plan read_plan(const std::string& path);

void write_stats(const std::string& path, const plan& p, const eval_counts& c);
void read_stats(const std::string& path, plan& p, eval_counts& c);

/// FNV-1a hash of the plan's serialization.
std::uint64_t plan_fingerprint(const plan& p);

}  // namespace fdp::audit
