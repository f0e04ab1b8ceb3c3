// fdp audit --scores FILE (canary scores from many runs; Nasr et al. 2023)
// and fdp audit --one-run FILE (one run; Steinke, Nasr & Jagielski 2023):
// the score-file audits of docs/cli.md, section 3.10.
#pragma once

#include "cli.hpp"

namespace fdp::cli {

/// True when the options ask for a score-file audit (--scores or --one-run).
bool is_score_audit(const args& a);

/// Runs it; the exit code (3 on a certified violation of --claim).
int run_score_audit(const args& a);

/// The --one-run part (audit_one_run.cpp); options already checked.
int run_one_run(const args& a);

}  // namespace fdp::cli
