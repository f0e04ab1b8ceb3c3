// Tests for fdp/budget/rdp.hpp and classic.hpp: RDP closed forms against
// independent quadrature of the Renyi divergence, the sampled Gaussian of
// Mironov, Talwar & Zhang (both orders), the conversions, the RDP column of
// the published accounting scenarios (bench/scenarios.sh), and the classical composition theorems.
#include "fdp/budget/classic.hpp"
#include "fdp/budget/rdp.hpp"

#include <gtest/gtest.h>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <vector>

#include "fdp/ops/compose.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp {
namespace {

// D_alpha(Q || P) = log E_P[(dQ/dP)^alpha] / (alpha - 1) by adaptive
// Gauss-Kronrod on x, split at the given points, with the integrand scaled by
// its largest value on a scan (no overflow at large orders).
template <class F, class G>
double renyi(F log_ratio, G log_p, std::vector<double> cuts, double alpha) {
  auto g = [&](double x) { return alpha * log_ratio(x) + log_p(x); };
  double M = -1e300;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
    for (int j = 0; j <= 2000; ++j)
      M = std::max(M, g(cuts[i] + (cuts[i + 1] - cuts[i]) * j / 2000.0));
  double I = 0.0;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
    I += boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
        [&](double x) { return std::exp(g(x) - M); }, cuts[i], cuts[i + 1], 15, 1e-14);
  return (std::log(I) + M) / (alpha - 1);
}

double log_std_normal(double x) { return -0.5 * x * x - 0.5 * std::log(2 * M_PI); }
double log_std_laplace(double x) { return -std::fabs(x) - std::log(2.0); }

TEST(Rdp, GaussianAndLaplaceClosedFormsAgainstQuadrature) {
  for (double mu : {0.1, 1.0, 2.5}) {
    for (double a : {1.5, 2.0, 5.0, 20.0}) {
      const double g = renyi([mu](double x) { return mu * x - 0.5 * mu * mu; }, log_std_normal,
                             {-60.0, a * mu - 30, a * mu + 30, a * mu + 60}, a);
      EXPECT_NEAR(rdp_gaussian(mu, a) / g, 1.0, 1e-9) << "mu=" << mu << " a=" << a;
      const double l = renyi([mu](double x) { return std::fabs(x) - std::fabs(x - mu); },
                             log_std_laplace, {-80.0, 0.0, mu, 80.0}, a);
      EXPECT_NEAR(rdp_laplace(mu, a) / l, 1.0, 1e-8) << "mu=" << mu << " a=" << a;
    }
  }
}

TEST(Rdp, PureDpIsRandomizedResponseAndMatchesTheAtomSum) {
  for (double eps : {0.01, 0.5, 3.0}) {
    for (double a : {1.25, 2.0, 16.0, 256.0}) {
      const auto law = make_law(tradeoff(eps_delta(eps)));
      EXPECT_NEAR(rdp_pure(eps, a), rdp_of_law(*law, a), 1e-12 * std::max(1.0, eps));
      EXPECT_LE(rdp_pure(eps, a), eps);
    }
  }
}

TEST(Rdp, SampledGaussianAgainstQuadratureBothOrders) {
  for (double s : {0.8, 1.1, 2.0}) {
    for (double q : {0.01, 0.2}) {
      for (int a : {2, 3, 5, 10, 32}) {
        auto lr = [s, q](double z) {  // z = x / s; Q = (1-q) N(0,s^2) + q N(1,s^2) vs P = N(0,s^2)
          const double u = (2 * z * s - 1) / (2 * s * s);
          return std::log1p(q * std::expm1(u));
        };
        const double fwd = renyi(lr, log_std_normal, {-40.0, 0.0, 40.0, 40 + 2 * a / s}, a);
        EXPECT_NEAR(rdp_subsampled_gaussian(s, q, a) / fwd, 1.0, 1e-8)
            << "s=" << s << " q=" << q << " a=" << a;
        // the reverse order D_a(P || Q), integrated under Q, is not larger
        auto log_q = [s, q](double z) {
          const double u = (2 * z * s - 1) / (2 * s * s);
          return log_std_normal(z) + std::log1p(q * std::expm1(u));
        };
        const double rev = renyi([&](double z) { return -lr(z); }, log_q, {-40.0, 0.0, 40.0}, a);
        EXPECT_LE(rev, rdp_subsampled_gaussian(s, q, a) * (1 + 1e-9) + 1e-15);
      }
    }
  }
  EXPECT_NEAR(rdp_subsampled_gaussian(2.0, 1.0, 7), rdp_gaussian(0.5, 7), 1e-15);
  EXPECT_THROW(rdp_subsampled_gaussian(1.0, 0.1, 2.5), std::invalid_argument);
}

TEST(Rdp, ScenarioColumn) {
  // accounting.md, "RDP upper": S3a 2.597, S1 96.12 (Google's RDP accountant,
  // improved conversion, its own order list)
  const auto s3a = rdp_account(
      {parse_spec("subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062")}, 1e-5);
  ASSERT_TRUE(s3a.applicable);
  EXPECT_NEAR(s3a.improved.eps, 2.597, 2e-3);
  const auto s1 = rdp_account({parse_spec("gaussian:sigma=1,times=100")}, 1e-5);
  EXPECT_NEAR(s1.improved.eps, 96.12, 0.02);
  // RDP is an upper bound: never below the certified lower end
  compose_options o;
  o.delta_hint = 1e-5;
  const double lo =
      compose({parse_spec("subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062")}, o)
          .epsilon(1e-5)
          .lower;
  EXPECT_GE(s3a.improved.eps, lo);
  EXPECT_LE(s3a.improved.eps, s3a.standard.eps);
}

TEST(Rdp, DeltaPartsAndInapplicableSpecs) {
  const auto r = rdp_account({parse_spec("epsdelta:eps=0.1,delta=1e-6,times=100")}, 1e-3);
  ASSERT_TRUE(r.applicable);
  EXPECT_NEAR(r.delta_fixed, -std::expm1(100 * std::log1p(-1e-6)), 1e-18);
  EXPECT_GE(r.improved.eps, 3.1452818981);  // exact (KOV): RDP cannot beat it
  const auto no = rdp_account({parse_spec("epsdelta:eps=1,delta=1e-3")}, 1e-4);
  EXPECT_FALSE(no.applicable);
  EXPECT_FALSE(no.reason.empty());
  const auto sl = rdp_account({parse_spec("subsampled-laplace:b=2,q=0.01,times=100")}, 1e-5);
  EXPECT_TRUE(sl.applicable);
  EXPECT_TRUE(std::isfinite(sl.improved.eps));
}

TEST(Classic, NaiveAndAdvancedCompositionFormulas) {
  const auto r = classic_account({parse_spec("laplace:b=10,times=100")}, 1e-6);
  ASSERT_TRUE(r.applicable);
  EXPECT_NEAR(r.naive_eps, 10.0, 1e-12);
  EXPECT_EQ(r.naive_delta, 0.0);
  // Dwork & Roth Thm 3.20 with k = 100, eps = 0.1, delta' = 1e-6
  const double want = std::sqrt(2 * 100 * std::log(1e6)) * 0.1 + 100 * 0.1 * std::expm1(0.1);
  EXPECT_NEAR(r.advanced_eps, want, 1e-12);
  EXPECT_NEAR(r.advanced_delta, 1e-6, 1e-20);
  // profile mechanisms get a share of delta and their certified one-shot epsilon
  const auto g = classic_account({parse_spec("gaussian:sigma=10,times=10")}, 1e-5);
  ASSERT_TRUE(g.applicable);
  EXPECT_NEAR(g.naive_eps, 10 * gdp_eps(0.1, 1e-6), 1e-9);
  const auto bad = classic_account({parse_spec("epsdelta:eps=1,delta=1e-3,times=10")}, 1e-3);
  EXPECT_FALSE(bad.applicable);
}

TEST(Classic, CltEstimate) {
  // Gaussians: the CLT is exact
  const auto g = clt_estimate_of({parse_spec("gaussian:sigma=1,times=100")}, 1e-5);
  EXPECT_NEAR(g.mu, 10.0, 1e-12);
  // Laplace: 2 kl / sqrt(var) with the closed-form moments; against the
  // accounting.md S2a bracket it over-states epsilon (DRS: CLT on k-fold Laplace)
  const auto l = clt_estimate_of({parse_spec("laplace:b=10,times=100")}, 1e-6);
  ASSERT_TRUE(l.applicable);
  EXPECT_GT(l.epsilon, 4.692667);
  // small-mu branch continuity of the Laplace variance
  const auto a = clt_estimate_of({parse_spec("laplace:b=9.999")}, 1e-6),
             b = clt_estimate_of({parse_spec("laplace:b=10.001")}, 1e-6);
  EXPECT_NEAR(a.mu / b.mu, 1.0, 1e-3);
  EXPECT_FALSE(clt_estimate_of({parse_spec("epsdelta:eps=1,delta=1e-9")}, 1e-6).applicable);
}

}  // namespace
}  // namespace fdp
