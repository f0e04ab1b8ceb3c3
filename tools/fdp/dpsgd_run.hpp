// fdp dpsgd's command line turned into a run to account for (or to solve):
// the batching (dataset and batch sizes), the step-count rule, phases, the
// deltas and, with --eps, what to solve for.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fdp/budget/dpsgd.hpp"

namespace fdp::cli {

/// How the step count of one phase was obtained, in words for the output.
struct phase_origin {
  double epochs = 0;  ///< 0: steps were given
  std::int64_t batch_size = 0;
};

struct dpsgd_run {
  dpsgd_config config;
  std::vector<phase_origin> origins;  ///< one per phase (first = config's own)
  std::int64_t dataset_size = 0;
  epoch_steps_rule rule = epoch_steps_rule::ceil;
  std::int64_t exact_per_epoch = 0;  ///< > 0: --steps-per-epoch K
  std::optional<dpsgd_solve> solve;  ///< with --eps
};

dpsgd_run dpsgd_run_from(const args& a);

/// "98 steps per epoch: ceil(N/B), a loader that keeps the last partial batch"
std::string steps_rule_text(const dpsgd_run& run, std::int64_t batch_size);

}  // namespace fdp::cli
