// The neighbour relations of the subsampled kinds (neighbours=add-remove |
// zero-out | replace-one), against answers made apart from fdp's code:
//   * replace-one: golden values from mpmath (tests/golden/gen_replace_one.py,
//     next to its data replace_one.csv), once, twice and three times;
//   * the replace-one law's masses against direct normal intervals at roots
//     found by bisection here (not the law's closed-form inverse);
//   * q = 1 against the closed forms G_{2S/sigma} and Laplace(2S/b);
//   * zero-out against add-remove (the same pair, by construction of the
//     relation: a record replaced by one contributing 0 moves the sum as
//     removing it does);
//   * refusals (group > 1, the subsampled Laplace below q = 1, bad words).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../golden/golden_csv.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/loss_law.hpp"
#include "fdp/ops/spec.hpp"
#include "kind_test_support.hpp"

namespace fdp {
namespace {

TEST(Neighbours, ReplaceOneGoldenValues) {
  const auto rows = test::golden_queries("replace_one.csv");
  ASSERT_GE(rows.size(), 8u);
  for (const auto& r : rows) {
    const interval b = test::query_bracket(r.spec, r.query, r.arg);
    test::expect_contains(b, r.value, r.what(), 1e-9, 0.0);  // (the truth to >= 10 digits)
    EXPECT_LE(b.upper - b.lower, 3e-3 * b.upper)
        << r.what() << ": [" << b.lower << ", " << b.upper << "]";
  }
}

// Loss of the pair computed directly, and its root by bisection.
struct direct_pair {
  double s, q, d;
  double loss(double x) const {
    const double a = -d * d / (2 * s * s), u = d * x / (s * s);
    return std::log((1 - q) + q * std::exp(a + u)) - std::log((1 - q) + q * std::exp(a - u));
  }
  double root(double l) const {
    double lo = -50 * s, hi = 50 * s;
    for (int i = 0; i < 200; ++i) (loss(0.5 * (lo + hi)) < l ? lo : hi) = 0.5 * (lo + hi);
    return hi;
  }
  // P = (1-q) N(0) + q N(-d), Q = (1-q) N(0) + q N(d) on (xa, xb]
  mass2 mass(double xa, double xb) const {
    auto side = [&](double shift) {
      return (1 - q) * norm_interval(xa / s, xb / s) +
             q * norm_interval((xa - shift) / s, (xb - shift) / s);
    };
    return {side(-d), side(d)};
  }
};

TEST(Neighbours, ReplaceOneLawMassesAgreeWithDirectIntervals) {
  for (const direct_pair p :
       {direct_pair{1.1, 0.01, 1.0}, direct_pair{0.5, 0.3, 2.0}, direct_pair{3.0, 0.9, 0.5}}) {
    const auto law =
        gaussian_mixture_pair_law(p.s, {0.0, -p.d}, {1 - p.q, p.q}, {0.0, p.d}, {1 - p.q, p.q});
    EXPECT_TRUE(law->symmetric());
    for (const auto& [a, b] : std::vector<std::pair<double, double>>{
             {-0.3, -0.01}, {-0.01, 0.02}, {0.02, 0.7}, {0.7, 4.0}, {-6.0, -2.0}}) {
      const mass2 m = law->mass(a, b), r = p.mass(p.root(a), p.root(b));
      EXPECT_NEAR(m.p, r.p, 1e-12 * r.p + 1e-300) << p.s << " " << p.q << " (" << a << "," << b;
      EXPECT_NEAR(m.q, r.q, 1e-12 * r.q + 1e-300) << p.s << " " << p.q << " (" << a << "," << b;
      // dQ = e^L dP on the interval
      EXPECT_GE(m.q, std::exp(a) * m.p * (1 - 1e-12));
      EXPECT_LE(m.q, std::exp(b) * m.p * (1 + 1e-12));
    }
    const mass2 all = law->mass(-INFINITY, INFINITY);
    EXPECT_NEAR(all.p, 1.0, 1e-14);
    EXPECT_NEAR(all.q, 1.0, 1e-14);
  }
}

TEST(Neighbours, FullBatchesAreTheClosedForms) {
  // replace-one at q = 1: the sum moves by up to 2S
  const composition g =
      compose({parse_spec("subsampled-gaussian:sigma=2,q=1,sensitivity=0.5,neighbours=replace-one,"
                          "times=4")});
  const interval e = g.epsilon(1e-5);
  const double truth = gdp_eps(std::sqrt(4.0) * 2 * 0.5 / 2, 1e-5);
  test::expect_contains(e, truth, "G_{2S/sigma}^4", 1e-9, 0.0);
  const composition l =
      compose({parse_spec("subsampled-laplace:b=2,q=1,sensitivity=0.5,neighbours=replace-one")});
  test::expect_contains(l.epsilon(0.0), 0.5, "Laplace(2S/b)", 1e-12, 1e-12);
}

TEST(Neighbours, ZeroOutIsTheAddRemovePair) {
  for (const std::string base : {"subsampled-gaussian:sigma=0.9,q=0.02,times=300",
                                 "subsampled-laplace:b=1.5,q=0.05,times=40"}) {
    const interval a = compose({parse_spec(base)}).epsilon(1e-6);
    const interval z = compose({parse_spec(base + ",neighbours=zero-out")}).epsilon(1e-6);
    EXPECT_EQ(a.lower, z.lower) << base;
    EXPECT_EQ(a.upper, z.upper) << base;
  }
}

TEST(Neighbours, RefusalsNameTheReason) {
  test::expect_refused({{"subsampled-gaussian:sigma=1,q=0.1,group=2,neighbours=replace-one",
                         "group > 1 is accounted under add-remove or zero-out"},
                        {"subsampled-laplace:b=1,q=0.1,neighbours=replace-one", "q = 1 only"},
                        {"subsampled-gaussian:sigma=1,q=0.1,neighbours=swap",
                         "neighbours = 'swap' must be one of add-remove, zero-out, replace-one"},
                        {"subsampled-gaussian:sigma=1,q=0.1,sampling=shuffle",
                         "sampling = 'shuffle' must be one of poisson"}},
                       [](const std::string& t) { return compose({parse_spec(t)}); });
}

}  // namespace
}  // namespace fdp
