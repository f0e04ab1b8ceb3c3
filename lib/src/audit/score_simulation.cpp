#include "fdp/audit/score_simulation.hpp"

#include <cmath>
#include <string>

#include "fdp/core/error.hpp"
#include "fdp/mech/rng.hpp"

namespace fdp::audit {

score_table simulate_gdp_scores(double mu, std::uint64_t runs, std::uint64_t canaries,
                                std::uint64_t seed) {
  detail::require(std::isfinite(mu) && mu >= 0, "simulate_gdp_scores", "mu", mu,
                  "must be finite and >= 0");
  detail::require(runs >= 1, "simulate_gdp_scores", "runs", static_cast<unsigned long long>(runs),
                  "must be >= 1");
  detail::require(canaries >= 1, "simulate_gdp_scores", "canaries",
                  static_cast<unsigned long long>(canaries), "must be >= 1");
  detail::require(static_cast<double>(runs) * static_cast<double>(canaries) <= 1e8,
                  "simulate_gdp_scores", "runs*canaries",
                  static_cast<double>(runs) * static_cast<double>(canaries), "must be <= 1e8");
  mech::rng_stream g(seed, 0);
  score_table t;
  t.path = "simulated";
  t.has_canary = t.has_run = true;
  t.rows.reserve(static_cast<std::size_t>(runs * canaries));
  for (std::uint64_t r = 0; r < runs; ++r) {
    for (std::uint64_t c = 0; c < canaries; ++c) {
      score_row row;
      row.in = g.bernoulli(1, 2);
      row.score = g.normal() + (row.in ? mu : 0.0);
      row.canary = "c" + std::to_string(c);
      row.run = "r" + std::to_string(r);
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

}  // namespace fdp::audit
