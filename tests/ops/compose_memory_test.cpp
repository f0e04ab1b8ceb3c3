// The memory ceiling of a composition (compose_options::max_memory): a first
// grid that would pass it is made coarser, refinement stops before it, and
// when no composed window fits at all the bounds are Chernoff bounds; every
// bracket still contains the truth (closed forms: G_mu compositions through
// the PLD engine, gdp_eps / gdp_delta).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "fdp/ops/compose.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {
namespace {

std::vector<spec> specs_of(std::initializer_list<const char*> texts) {
  std::vector<spec> out;
  for (const char* t : texts) out.push_back(parse_spec(t));
  return out;
}

void expect_contains(interval b, double truth, const std::string& what) {
  EXPECT_LE(b.lower, truth * (1 + 1e-12)) << what;
  EXPECT_GE(b.upper, truth * (1 - 1e-12)) << what;
}

TEST(ComposeMemory, CoarsenedGridsBracketTheTruth) {
  // G_1e-6 asks for a step of 2.5e-7 over G_1's range: ~10^8 points
  compose_options o;
  o.method = compose_method::pld;
  o.max_memory = std::size_t(64) << 20;
  const composition c = compose(specs_of({"gdp:mu=1e-6", "gdp:mu=1"}), o);
  EXPECT_EQ(c.grid_limited(), composition::grid_limit::coarsened);
  const double mu = std::sqrt(1 + 1e-12);
  for (double d : {1e-5, 1e-10})
    expect_contains(c.epsilon(d), gdp_eps(mu, d), "epsilon at " + std::to_string(d));
  for (double e : {0.0, 1.0, 3.0})
    expect_contains(c.delta(e), gdp_delta(mu, e), "delta at " + std::to_string(e));
  const interval m = c.mu();
  EXPECT_LE(m.lower, mu);
  EXPECT_GE(m.upper, mu);
  // the same without a ceiling: no limit reported
  EXPECT_EQ(compose(specs_of({"gdp:mu=1"}), {}).grid_limited(), composition::grid_limit::none);
}

TEST(ComposeMemory, RefinementStopsBeforeTheCeiling) {
  // the first grid (~5,500 points) fits in 8 MB, the refined one (~30,000) does not
  compose_options o;
  o.method = compose_method::pld;
  o.tolerance = 1e-4;
  o.max_memory = std::size_t(8) << 20;
  const composition c = compose(specs_of({"gaussian:sigma=3,times=1000"}), o);
  EXPECT_EQ(c.grid_limited(), composition::grid_limit::refinement_stopped);
  EXPECT_EQ(c.refinements(), 0);
  const double mu = std::sqrt(1000.0) / 3;
  expect_contains(c.epsilon(1e-5), gdp_eps(mu, 1e-5), "epsilon at 1e-5");
}

TEST(ComposeMemory, ChernoffBoundsWhenNoWindowFits) {
  // 10^12 applications of G_1: the composed window (~18 sqrt(n) in loss
  // units) fits on no grid that resolves one term
  compose_options o;
  o.method = compose_method::pld;
  const composition c = compose(specs_of({"gdp:mu=1,times=1000000000000"}), o);
  EXPECT_EQ(c.grid_limited(), composition::grid_limit::chernoff_only);
  const double mu = 1e6;
  for (double d : {1e-5, 1e-10}) {
    const interval e = c.epsilon(d);
    expect_contains(e, gdp_eps(mu, d), "epsilon at " + std::to_string(d));
    EXPECT_LT(e.upper, 1.01 * gdp_eps(mu, d));  // (Chernoff is tight at this scale)
  }
  for (double e : {4.9e11, 5.0e11, 5.02e11}) expect_contains(c.delta(e), gdp_delta(mu, e), "delta");
}

TEST(ComposeMemory, CoarseningStopsWhenItNoLongerHelps) {
  // 10^12 Laplace terms under 64 MB: past a step of the loss's span each
  // term is two atoms and the composed support grows with n, not 1/h. The
  // coarsening loop once ran on to a step of 1e297 and printed [0, inf];
  // it must fall back to Chernoff bounds on a fine grid instead.
  compose_options o;
  o.method = compose_method::pld;
  o.max_memory = std::size_t(64) << 20;
  const composition c = compose(specs_of({"laplace:b=1,times=1000000000000"}), o);
  EXPECT_EQ(c.grid_limited(), composition::grid_limit::chernoff_only);
  EXPECT_LT(c.grid_step(), 1.0);
  // mean loss n KL = n e^-1 = 3.679e11, spread ~1e6: the Chernoff upper end
  // at delta 1e-5 lies just above it (and far below the trivial n eps = 1e12)
  const interval e = c.epsilon(1e-5);
  EXPECT_GT(e.upper, 1e12 * std::exp(-1.0));
  EXPECT_LT(e.upper, 1.001e12 * std::exp(-1.0));
}

TEST(ComposeMemory, NoCeilingKeepsTheEnginesOwnLimit) {
  compose_options o;
  o.method = compose_method::pld;
  o.max_memory = 0;  // (only the 2^26-point hard limit)
  const composition c = compose(specs_of({"gdp:mu=0.5", "gdp:mu=1"}), o);
  EXPECT_EQ(c.grid_limited(), composition::grid_limit::none);
  expect_contains(c.epsilon(1e-5), gdp_eps(std::sqrt(1.25), 1e-5), "epsilon");
}

}  // namespace
}  // namespace fdp
