// Plan and statistics files: how audit shards on other processes or
// machines are combined (DESIGN.md, "Scale").
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
// The first line is "fdp-audit-plan 1" or "fdp-audit-stats 1".
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "fdp/audit/plan.hpp"

namespace fdp::audit {

void write_plan(std::ostream& os, const plan& p);
void write_plan(const std::string& path, const plan& p);
/// Throws std::invalid_argument naming the file and line for malformed input.
plan read_plan(std::istream& is, const std::string& name);
plan read_plan(const std::string& path);

void write_stats(const std::string& path, const plan& p, const eval_counts& c);
void read_stats(const std::string& path, plan& p, eval_counts& c);

/// FNV-1a hash of the plan's serialization.
std::uint64_t plan_fingerprint(const plan& p);

}  // namespace fdp::audit
