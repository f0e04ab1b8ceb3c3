// fdp compare --sampling all (compare_samplers.cpp).
#pragma once

#include <vector>

#include "compose_common.hpp"

namespace fdp::cli {

/// One subsampled-gaussian spec (a DP-SGD run) under every batch sampler:
/// Poisson, fixed-size (without replacement), shuffle, balls-in-bins, each
/// with its certified bracket, its certified lower bound only, or the reason
/// it is refused. usage_error unless `specs` is one such spec.
int run_compare_samplers(const std::vector<spec>& specs, double delta, double tolerance,
                         bool as_json);

}  // namespace fdp::cli
