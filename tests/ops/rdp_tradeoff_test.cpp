// From RDP / zCDP to a trade-off lower bound (fdp/ops/rdp_tradeoff.hpp), and
// the zcdp and rdp spec kinds built on it. Checked against what does not
// come from the code under test: mechanisms whose RDP curve is known in
// closed form (the bound must lie below their true trade-off function) and
// the standard RDP -> (eps, delta) conversion (the bound must lie above the
// f_{eps,delta} it gives, being the tightest consequence of the same RDP).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "fdp/core/normal.hpp"
#include "fdp/core/tradeoff.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/rdp_tradeoff.hpp"
#include "kind_test_support.hpp"

namespace fdp {
namespace {

const std::vector<double> kAlphas = {1e-12, 1e-9, 1e-6, 1e-4, 1e-3, 0.01, 0.05, 0.1,
                                     0.2,   0.3,  0.5,  0.7,  0.9,  0.99, 0.999};

// Renyi divergence of randomized response with parameter eps (written out
// here): D_alpha(Bern(p) || Bern(1 - p)), p = e^eps / (1 + e^eps).
double rr_rdp(double eps, double alpha) {
  const double p = std::exp(eps) / (1 + std::exp(eps));
  return std::log(std::pow(p, alpha) * std::pow(1 - p, 1 - alpha) +
                  std::pow(1 - p, alpha) * std::pow(p, 1 - alpha)) /
         (alpha - 1);
}

std::vector<double> orders_2_to_64() {
  std::vector<double> o;
  for (double a = 1.25; a <= 64; a *= 1.25) o.push_back(a);
  return o;
}

TEST(RdpTradeoff, LiesBelowTheGaussianWhoseZcdpItIs) {
  // G_mu is exactly (mu^2/2)-zCDP: every valid bound from that zCDP lies below G_mu
  for (double mu : {0.1, 1.0, 3.0}) {
    const std::vector<double> o = zcdp_orders();
    std::vector<double> r;
    for (double a : o) r.push_back(mu * mu / 2 * a);
    const curve c = rdp_tradeoff_lower(o, r);
    for (double a : kAlphas) {
      const double g = norm_cdf(norm_quantile_c(a) - mu);
      EXPECT_LE(beta(c, a), g + 1e-15) << "mu " << mu << " a " << a;
    }
  }
}

TEST(RdpTradeoff, LiesBelowRandomizedResponseAndAboveItsStandardConversion) {
  for (double eps : {0.5, 2.0}) {
    const std::vector<double> o = orders_2_to_64();
    std::vector<double> r;
    for (double a : o) r.push_back(rr_rdp(eps, a));
    const curve c = rdp_tradeoff_lower(o, r);
    const double e = std::exp(eps);
    for (double a : kAlphas) {
      const double truth = std::max({0.0, 1 - e * a, (1 - a) / e});  // f_{eps,0}
      const double got = beta(c, a);
      EXPECT_LE(got, truth + 1e-15) << "eps " << eps << " a " << a;
      // Mironov 2017, Prop. 3: RDP r at order alpha gives
      // (r + log(1/delta)/(alpha - 1), delta)-DP for every delta
      for (std::size_t j = 0; j < o.size(); ++j) {
        for (double delta : {1e-2, 1e-5}) {
          const double ej = r[j] + std::log(1 / delta) / (o[j] - 1);
          const double ed =
              std::max({0.0, 1 - delta - std::exp(ej) * a, std::exp(-ej) * (1 - delta - a)});
          EXPECT_GE(got, ed - 1e-12) << "eps " << eps << " a " << a << " order " << o[j];
        }
      }
    }
  }
}

TEST(RdpTradeoff, RefusesBadCurves) {
  EXPECT_THROW(rdp_tradeoff_lower({}, {}), std::invalid_argument);
  EXPECT_THROW(rdp_tradeoff_lower({1.0}, {0.1}), std::invalid_argument);
  EXPECT_THROW(rdp_tradeoff_lower({2.0}, {-0.1}), std::invalid_argument);
  EXPECT_THROW(rdp_tradeoff_lower({2.0}, {NAN}), std::invalid_argument);
  EXPECT_THROW(rdp_tradeoff_lower({2.0, 3.0}, {0.1}), std::invalid_argument);
}

TEST(ZcdpKind, BetweenTheGaussianAndTheStandardConversion) {
  // rho = 1/2: G_1 is 1/2-zCDP, so epsilon >= G_1's; and the standard
  // conversion rho + 2 sqrt(rho log(1/delta)) (Bun & Steinke 2016, Prop. 1.3) bounds it
  const double delta = 1e-5;
  const interval e = test::query_bracket("zcdp:rho=0.5", "eps", delta);
  EXPECT_GE(e.lower, gdp_eps(1.0, delta) - 1e-9);
  EXPECT_LE(e.upper, 0.5 + 2 * std::sqrt(0.5 * std::log(1 / delta)));
  EXPECT_LT(e.upper - e.lower, 5e-3 * e.upper);
  // repetitions fold into rho (zCDP adds): 50 x 0.01 is 0.5
  const interval f = test::query_bracket("zcdp:rho=0.01,times=50", "eps", delta);
  EXPECT_EQ(f.lower, e.lower);
  EXPECT_EQ(f.upper, e.upper);
  test::expect_refused({{"zcdp:rho=0", "rho"},
                        {"zcdp:rho=-1", "rho"},
                        {"zcdp:rho=2000", "rho"},
                        {"zcdp:rho=1,times=5000", "rho * times"},
                        {"zcdp:sigma=1", "sigma"}},
                       [](const std::string& t) { return make_term(parse_spec(t)); });
}

TEST(RdpKind, FileOfAGaussianCurveAndItsRefusals) {
  // the RDP curve of G_1 (alpha / 2) at orders 1.25 .. 64, from a file
  const std::string path = ::testing::TempDir() + "fdp_rdp_kind.csv";
  {
    std::ofstream out(path);
    out.precision(17);
    out << "order,rdp\n# G_1\n";
    for (double a : orders_2_to_64()) out << a << "," << a / 2 << "\n";
    out << "\n";
  }
  const double delta = 1e-5;
  const interval e = test::query_bracket("rdp:file=" + path, "eps", delta);
  EXPECT_GE(e.lower, gdp_eps(1.0, delta) - 1e-9);
  EXPECT_LE(e.upper, 0.5 + 2 * std::sqrt(0.5 * std::log(1 / delta)) + 0.05);
  // RDP at other orders: the next tabulated order's value; none above: inf
  const rdp_curve r = spec_rdp(parse_spec("rdp:file=" + path), {2.0, 100.0});
  EXPECT_NEAR(r.rdp[0], 2.44140625 / 2, 1e-12);  // 1.25^4
  EXPECT_TRUE(std::isinf(r.rdp[1]));
  std::vector<std::string> bad_files;
  auto write = [&](const std::string& text) {
    bad_files.push_back(path + std::to_string(bad_files.size()));
    std::ofstream(bad_files.back()) << text;
    return "rdp:file=" + bad_files.back();
  };
  test::expect_refused({{write("order,rdp\n1,0.5\n"), "order 1 must be in (1, 1e6]"},
                        {write("2,-0.5\n"), "must be finite and in [0, 1e4]"},
                        {write("2,0.5\n2,0.6\n"), "given twice"},
                        {write("order,rdp\n"), "no rows"},
                        {write("2;0.5\n"), "expected 'order,rdp'"}},
                       [](const std::string& t) { return make_term(parse_spec(t)); });
  std::remove(path.c_str());
  for (const auto& f : bad_files) std::remove(f.c_str());
}

}  // namespace
}  // namespace fdp
