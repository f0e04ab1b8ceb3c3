// Simulated canary scores with a known truth, for tests, the CLI's
// examples (fdp sample --gdp-scores) and the measured tables in docs: each
// run includes each canary independently with probability 1/2, and a
// canary's score is N(0, 1) when out and N(mu, 1) when in. The scores of
// one canary are then a mu-GDP pair exactly (T(N(0,1), N(mu,1)) = G_mu,
// Dong, Roth & Su 2019, Sec. 2.3), and a canary's score does not depend on
// the others, so the whole release is mu-GDP per canary.
#pragma once

#include <cstdint>

#include "fdp/audit/score_file.hpp"

namespace fdp::audit {

/// runs x canaries rows "score,in,canary,run" (canary ids c0, c1, ...; run
/// ids r0, r1, ...), from Philox stream (seed, 0). Throws
/// std::invalid_argument for mu not finite or < 0, runs or canaries < 1,
/// or more than 1e8 rows.
score_table simulate_gdp_scores(double mu, std::uint64_t runs, std::uint64_t canaries,
                                std::uint64_t seed);

}  // namespace fdp::audit
