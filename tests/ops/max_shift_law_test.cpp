// max_shift_law: the maximum of b noisy coordinates, one possibly shifted
// (the statistic behind the shuffled-batch lower bound, fdp/budget/dpsgd.hpp),
// against answers made apart from the law's code: its CDFs by direct
// normal-CDF products, delta(eps) by a fine trapezoid sum over the densities,
// and b = 1 against the Gaussian closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fdp/core/normal.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/loss_law.hpp"
#include "kind_test_support.hpp"

namespace fdp {
namespace {

struct direct_max {
  double s, b, rho;
  double fp(double t) const { return std::pow(norm_cdf(t / s), b); }
  double fq(double t) const {
    return rho * norm_cdf((t - 1) / s) * std::pow(norm_cdf(t / s), b - 1) + (1 - rho) * fp(t);
  }
  double pdf_p(double t) const {
    return b * norm_pdf(t / s) / s * std::pow(norm_cdf(t / s), b - 1);
  }
  double pdf_q(double t) const {
    const double shifted =
        norm_pdf((t - 1) / s) / s * std::pow(norm_cdf(t / s), b - 1) +
        (b - 1) * norm_cdf((t - 1) / s) * norm_pdf(t / s) / s * std::pow(norm_cdf(t / s), b - 2);
    return rho * shifted + (1 - rho) * pdf_p(t);
  }
  // delta of T(P, Q) and of T(Q, P) at eps, the larger, by a trapezoid sum
  double delta(double eps) const {
    double pq = 0, qp = 0;
    const double h = 1e-4 * s;
    for (double t = -12 * s; t < 14 * s + 1; t += h) {
      const double p = pdf_p(t), q = pdf_q(t);
      pq += std::max(0.0, q - std::exp(eps) * p) * h;
      qp += std::max(0.0, p - std::exp(eps) * q) * h;
    }
    return std::max(pq, qp);
  }
};

TEST(MaxShiftLaw, MassesAreTheMaximumsCdfs) {
  // (sigma 1e3 and 1e5: a loss flat to rounding over wide ranges of t,
  // where the inverse's interpolation must fall back to halving)
  for (const direct_max d :
       {direct_max{1.1, 235, 1.0}, direct_max{0.7, 3, 0.9}, direct_max{2.0, 1, 1.0},
        direct_max{1e3, 100, 1.0}, direct_max{1e5, 7, 0.5}, direct_max{0.3, 50, 0.6}}) {
    const auto law = max_shift_law(d.s, d.b, d.rho);
    double prev_p = 0, prev_q = 0;
    for (double l : {-3.0, -0.5, -0.01, 0.0, 0.2, 1.0, 3.0}) {
      if (l <= law->lo()) continue;
      const mass2 below = law->mass(-INFINITY, l);
      EXPECT_GE(below.p, prev_p);
      EXPECT_GE(below.q, prev_q);
      prev_p = below.p, prev_q = below.q;
    }
    const mass2 all = law->mass(-INFINITY, INFINITY);
    EXPECT_NEAR(all.p + law->p_neg_inf(), 1.0, 1e-13);
    EXPECT_NEAR(all.q, 1.0, 1e-13);
    // dQ = e^L dP on every interval
    for (const auto& [a, b] : std::vector<std::pair<double, double>>{
             {-0.2, -0.05}, {-0.05, 0.1}, {0.1, 0.8}, {0.8, 5.0}}) {
      if (a <= law->lo()) continue;
      const mass2 m = law->mass(a, b);
      EXPECT_GE(m.q, std::exp(a) * m.p * (1 - 1e-10)) << d.b << " (" << a << ", " << b << "]";
      EXPECT_LE(m.q, std::exp(b) * m.p * (1 + 1e-10)) << d.b << " (" << a << ", " << b << "]";
    }
  }
}

TEST(MaxShiftLaw, DeltaAgreesWithADirectSum) {
  for (const direct_max d : {direct_max{0.8, 4, 1.0}, direct_max{1.2, 20, 0.95}}) {
    compose_term t;
    t.law = max_shift_law(d.s, d.b, d.rho);
    t.times = 1;
    t.text = "max";
    const composition c = compose_terms({t});
    for (double eps : {0.1, 0.5, 1.5}) {
      const double truth = d.delta(eps);
      test::expect_contains(c.delta(eps), truth, "b=" + std::to_string(d.b), 1e-6, 1e-12);
    }
  }
}

// b = 1, rho = 1: N(0, s^2) against N(1, s^2), composed E times: G_{sqrt(E)/s}.
TEST(MaxShiftLaw, OneStepIsTheGaussianMechanism) {
  compose_term t;
  t.law = max_shift_law(1.5, 1, 1.0);
  t.times = 9;
  t.text = "max";
  const interval e = compose_terms({t}).epsilon(1e-5);
  test::expect_contains(e, gdp_eps(3.0 / 1.5, 1e-5), "G_2", 1e-9, 0.0);
}

}  // namespace
}  // namespace fdp
