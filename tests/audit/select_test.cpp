// Test selection: budget, structure, determinism, and that the obvious
// events are found.
#include "fdp/audit/select.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "fdp/audit/stats_io.hpp"
#include "fdp/mech/rng.hpp"

namespace fdp::audit {
namespace {

sample_block laplace_block(double shift, std::size_t n, std::uint64_t seed, std::size_t dim = 1) {
  sample_block b;
  b.type = output_type::real;
  b.dim = dim;
  b.real.resize(n * dim);
  mech::rng_stream r(seed, 0);
  r.fill_laplace(b.real.data(), b.real.size(), 1.0);
  for (std::size_t i = 0; i < n; ++i) b.real[i * dim] += shift;
  return b;
}

void check_structure(const plan& p, double confidence) {
  EXPECT_LE(p.total_error(), 1 - confidence + 1e-15);
  EXPECT_GE(p.total_error(), (1 - confidence) * (1 - 1e-12));  // the whole budget is used
  for (const auto& t : p.tests) {
    ASSERT_LT(t.view, p.views.size());
    EXPECT_EQ(t.in.size(), p.views[t.view].cells());
    EXPECT_GT(t.gamma, 0.0);
    EXPECT_FALSE(t.description.empty());
    EXPECT_FALSE(t.complement.empty());
  }
}

TEST(Select, ScalarShiftFindsAThresholdTest) {
  const auto a = laplace_block(0.0, 20000, 1), b = laplace_block(1.0, 20000, 2);
  select_options o;
  o.confidence = 0.95;
  o.n_eval[0] = o.n_eval[1] = 180000;
  const plan p = select_tests(a, b, eps_delta(1.0), o);
  check_structure(p, 0.95);
  bool eps = false, mu = false, claim = false;
  for (const auto& t : p.tests) {
    eps |= t.role.find("epsilon") != std::string::npos;
    mu |= t.role.find("mu") != std::string::npos;
    claim |= t.role.find("claim") != std::string::npos;
  }
  EXPECT_TRUE(eps && mu && claim);
  // The first test is an epsilon test whose selection estimates show the shift.
  const auto& t0 = p.tests[0];
  EXPECT_NE(t0.role.find("epsilon"), std::string::npos);
  const double ratio = std::max((1 - t0.sel_beta) / t0.sel_alpha, (1 - t0.sel_alpha) / t0.sel_beta);
  EXPECT_GT(std::log(ratio), 0.8);
}

TEST(Select, Deterministic) {
  const auto a = laplace_block(0.0, 5000, 3, 3), b = laplace_block(0.5, 5000, 4, 3);
  select_options o;
  o.n_eval[0] = o.n_eval[1] = 45000;
  const plan p = select_tests(a, b, gaussian(1.0), o);
  const plan q = select_tests(a, b, gaussian(1.0), o);
  check_structure(p, o.confidence);
  EXPECT_EQ(plan_fingerprint(p), plan_fingerprint(q));
}

TEST(Select, SupportEventOnCategories) {
  // Category 3 occurs on side 1 only: the best epsilon test contains it.
  sample_block a, b;
  a.type = b.type = output_type::categorical;
  mech::rng_stream r(5, 0);
  for (int i = 0; i < 10000; ++i) a.cat.push_back(static_cast<std::int64_t>(r.uniform_int(3)));
  for (int i = 0; i < 10000; ++i) b.cat.push_back(static_cast<std::int64_t>(r.uniform_int(4)));
  select_options o;
  o.n_eval[0] = o.n_eval[1] = 90000;
  const plan p = select_tests(a, b, eps_delta(1.0), o);
  check_structure(p, o.confidence);
  const auto& t0 = p.tests[0];
  const view& v = p.views[t0.view];
  ASSERT_EQ(v.type, view::kind::categories);
  const auto c3 = v.cell_of_key(3);
  // Category 3 is in the event (ordering 0) or outside it (ordering 1, the mirror).
  EXPECT_EQ(t0.in[c3] != 0, t0.ordering == 0);
  EXPECT_NEAR(std::min(t0.sel_alpha, t0.sel_beta), 0.0, 1e-12);
}

// Every threshold test's event, counted through the plan's (merged,
// coarsened) views on the selection data, reproduces the selection estimate
// it was chosen with: the masks say what the descriptions say.
TEST(Select, PlanEventsMatchSelectionEstimates) {
  for (std::size_t dim : {1, 3, 5}) {
    const auto a = laplace_block(0.0, 20000, 11, dim), b = laplace_block(0.3, 20000, 12, dim);
    select_options o;
    o.n_eval[0] = o.n_eval[1] = 180000;
    const plan p = select_tests(a, b, eps_delta(0.1), o);
    check_structure(p, o.confidence);
    eval_counts c;
    c.init(p);
    accumulate(p, 0, a.real.data(), a.size(), c);
    accumulate(p, 1, b.real.data(), b.size(), c);
    int checked = 0;
    for (const auto& t : p.tests) {
      if (p.views[t.view].type != view::kind::cuts) continue;
      if (t.description.find(" <= ") == std::string::npos &&
          t.description.find(" > ") == std::string::npos)
        continue;
      const int sp = t.ordering == 0 ? 0 : 1;
      const double alpha = static_cast<double>(c.count(sp, t)) / static_cast<double>(c.n[sp]);
      const double beta =
          1.0 - static_cast<double>(c.count(1 - sp, t)) / static_cast<double>(c.n[1 - sp]);
      EXPECT_DOUBLE_EQ(alpha, t.sel_alpha) << "dim " << dim << ": " << t.description;
      EXPECT_DOUBLE_EQ(beta, t.sel_beta) << "dim " << dim << ": " << t.description;
      ++checked;
    }
    EXPECT_GT(checked, 0) << dim;
  }
}

TEST(Select, NoCurveTestsGiveThePrimariesEverything) {
  const auto a = laplace_block(0.0, 2000, 6), b = laplace_block(1.0, 2000, 7);
  select_options o;
  o.n_eval[0] = o.n_eval[1] = 18000;
  o.curve_tests = 0;
  const plan p = select_tests(a, b, eps_delta(1.0), o);
  check_structure(p, o.confidence);
  for (const auto& t : p.tests) EXPECT_FALSE(t.band);
}

TEST(Select, BadInput) {
  const auto a = laplace_block(0.0, 100, 1), b = laplace_block(0.0, 100, 2, 2);
  select_options o;
  o.n_eval[0] = o.n_eval[1] = 100;
  EXPECT_THROW(select_tests(a, b, eps_delta(1.0), o), std::invalid_argument);
  sample_block empty;
  EXPECT_THROW(select_tests(a, empty, eps_delta(1.0), o), std::invalid_argument);
  o.confidence = 1.0;
  EXPECT_THROW(select_tests(a, a, eps_delta(1.0), o), std::invalid_argument);
}

}  // namespace
}  // namespace fdp::audit
