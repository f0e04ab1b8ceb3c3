// Clopper-Pearson bounds: defining identities, edge cases, and exact
// coverage (computed, not sampled) for small n.
#include "fdp/audit/binomial.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <stdexcept>

namespace fdp::audit {
namespace {

constexpr double kTol = 1e-10;

TEST(Binomial, DefiningIdentities) {
  for (double n : {1.0, 7.0, 100.0, 1e6, 2e7}) {
    for (double g : {0.025, 1e-4, 0.3}) {
      // (k near n: the identity is ill-conditioned in u; see NearlyAllCounts.)
      for (double k : {0.0, 1.0, 3.0, std::floor(n / 3), std::floor(n / 2), n}) {
        if (k < 0 || k > n) continue;
        const double u = cp_upper(k, n, g), l = cp_lower(k, n, g);
        EXPECT_LE(l, k / n + kTol);
        EXPECT_GE(u, k / n - kTol);
        if (k < n) {
          // P[Bin(n, u) <= k] = g  <=>  ibeta(k+1, n-k, u) = 1 - g.
          EXPECT_NEAR(boost::math::ibetac(k + 1, n - k, u), g, 1e-9 * g + 1e-15) << k << " " << n;
        } else {
          EXPECT_EQ(u, 1.0);
        }
        if (k > 0) {
          EXPECT_NEAR(boost::math::ibeta(k, n - k + 1, l), g, 1e-9 * g + 1e-15) << k << " " << n;
        } else {
          EXPECT_EQ(l, 0.0);
        }
      }
    }
  }
}

TEST(Binomial, ZeroAndFullCounts) {
  // k = 0: 1 - g^{1/n}, about ln(1/g)/n for large n (no cap at any fixed level).
  const double n = 1e7, g = 0.01;
  EXPECT_NEAR(cp_upper(0, n, g), -std::expm1(std::log(g) / n), 1e-12 / n);
  EXPECT_NEAR(cp_upper(0, n, g) * n, std::log(1 / g), 1e-5);
  EXPECT_NEAR(cp_lower(n, n, g), std::exp(std::log(g) / n), 1e-14);
}

TEST(Binomial, NearlyAllCounts) {
  // k = n - 1: P[Bin(n, u) <= n - 1] = 1 - u^n = g, so 1 - u = -expm1(log1p(-g) / n).
  for (double n : {10.0, 1e6, 2e7}) {
    for (double g : {0.025, 1e-4}) {
      const double want = -std::expm1(std::log1p(-g) / n);
      EXPECT_NEAR(1 - cp_upper(n - 1, n, g), want, 1e-6 * want + 2.3e-16)
          << n;  // u itself is rounded
    }
  }
}

TEST(Binomial, MonotoneInCountAndLevel) {
  const double n = 1000;
  for (double k = 0; k < n; k += 37) {
    EXPECT_LT(cp_upper(k, n, 0.05), cp_upper(k + 1, n, 0.05));
    EXPECT_LT(cp_upper(k, n, 0.05), cp_upper(k, n, 0.01));
    EXPECT_GT(cp_lower(k + 1, n, 0.05), cp_lower(k + 1, n, 0.01));
  }
  // Real-valued k interpolates.
  EXPECT_GT(cp_upper(10.5, n, 0.05), cp_upper(10, n, 0.05));
  EXPECT_LT(cp_upper(10.5, n, 0.05), cp_upper(11, n, 0.05));
}

// Exact coverage: for every p on a grid, P_p[p > cp_upper(K, n, g)] <= g
// summed over K exactly (not a simulation).
TEST(Binomial, ExactCoverageSmallN) {
  for (int n : {1, 5, 20, 60}) {
    const double g = 0.05;
    for (int i = 1; i < 400; ++i) {
      const double p = i / 400.0;
      boost::math::binomial_distribution<double> b(n, p);
      double miss_u = 0, miss_l = 0;
      for (int k = 0; k <= n; ++k) {
        const double pk = boost::math::pdf(b, k);
        if (cp_upper(k, n, g) < p) miss_u += pk;
        if (cp_lower(k, n, g) > p) miss_l += pk;
      }
      EXPECT_LE(miss_u, g + 1e-12) << "n=" << n << " p=" << p;
      EXPECT_LE(miss_l, g + 1e-12) << "n=" << n << " p=" << p;
    }
  }
}

TEST(Binomial, WilsonIsClose) {
  // The ranking approximation is within 15% of the exact bound for moderate counts.
  const double z = upper_quantile(0.01);
  for (double k : {50.0, 500.0, 5e4}) {
    const double n = 1e6;
    EXPECT_NEAR(wilson_upper(k, n, z) / cp_upper(k, n, 0.01), 1.0, 0.15);
    EXPECT_NEAR(wilson_lower(k, n, z) / cp_lower(k, n, 0.01), 1.0, 0.15);
  }
}

TEST(Binomial, BadArguments) {
  EXPECT_THROW(cp_upper(-1, 10, 0.05), std::invalid_argument);
  EXPECT_THROW(cp_upper(11, 10, 0.05), std::invalid_argument);
  EXPECT_THROW(cp_lower(1, 0, 0.05), std::invalid_argument);
  EXPECT_THROW(cp_lower(1, 10, 0.0), std::invalid_argument);
  EXPECT_THROW(cp_lower(1, 10, 1.0), std::invalid_argument);
  EXPECT_THROW(cp_upper(std::nan(""), 10, 0.05), std::invalid_argument);
}

}  // namespace
}  // namespace fdp::audit
