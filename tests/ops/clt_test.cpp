// Tests of the CLT functionals, the CLT approximation with its Berry-Esseen
// band (DRS Thm 3.5) and the (eps, delta) limit (DRS Thm 3.6).
//
// Tiers: golden (tests/golden/clt_golden.csv, made by gen_clt_golden.py with
// mpmath), exact identities (G_mu), route agreement (closed form vs numeric
// quadrature vs exact curve sums), the band against the composition engine,
// convergence tables, bad input.
#include "fdp/ops/clt.hpp"

#include <gtest/gtest.h>

#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../golden/golden_csv.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/group.hpp"

namespace fdp {
namespace {

using test::golden_table;
using test::load_golden;
using test::max_error;
using test::rel_err;
using test::to_double;

constexpr double kClosedRel = 1e-13;   // closed forms vs mpmath (target 1e-10)
constexpr double kNumericRel = 1e-10;  // numeric route vs mpmath / closed forms
constexpr double kCurveRel = 1e-12;    // exact curve sums vs closed forms
constexpr double kPi = 3.141592653589793238462643383279502884;

struct golden_row {
  std::string family;
  double param;
  double v[5];  // kl, kappa2, kappa3, kappa3bar, var
};

std::vector<golden_row> golden_rows() {
  const golden_table t = load_golden("clt_golden.csv");
  std::vector<golden_row> out;
  const char* names[5] = {"kl", "kappa2", "kappa3", "kappa3bar", "var"};
  for (const auto& r : t.rows) {
    golden_row g;
    g.family = r[t.column("family")];
    g.param = to_double(r[t.column("param")]);
    for (int i = 0; i < 5; ++i) g.v[i] = to_double(r[t.column(names[i])]);
    out.push_back(g);
  }
  return out;
}

tradeoff family_of(const golden_row& g) {
  if (g.family == "gaussian") return gaussian(g.param);
  if (g.family == "laplace") return laplace(g.param);
  return eps_delta(g.param, 0.0);
}

void values(const clt_functionals& f, double out[5]) {
  out[0] = f.kl;
  out[1] = f.kappa2;
  out[2] = f.kappa3;
  out[3] = f.kappa3bar;
  out[4] = f.var;
}

const char* kNames[5] = {"kl", "kappa2", "kappa3", "kappa3bar", "var"};

TEST(CltFunctionals, GaussianExactIdentities) {
  // DRS Sec. 3.2: kl = mu^2/2, kappa2 = mu^2 + mu^4/4, kappa3bar = 2 sqrt(2/pi) mu^3.
  for (double mu : {1e-6, 1e-3, 0.1, 0.5, 1.0, 2.0, 7.5, 30.0}) {
    const clt_functionals f = functionals(gaussian(mu));
    ASSERT_TRUE(f.finite);
    EXPECT_LE(rel_err(f.kl, mu * mu / 2), 1e-15) << mu;
    EXPECT_LE(rel_err(f.kappa2, mu * mu + mu * mu * mu * mu / 4), 1e-15) << mu;
    EXPECT_LE(rel_err(f.kappa3bar, 2 * std::sqrt(2 / kPi) * mu * mu * mu), 1e-15) << mu;
    EXPECT_LE(rel_err(f.var, mu * mu), 1e-15) << mu;
  }
  const clt_functionals z = functionals(gaussian(0.0));
  EXPECT_TRUE(z.finite);
  EXPECT_EQ(z.kl, 0.0);
  EXPECT_EQ(z.kappa3bar, 0.0);
}

TEST(CltFunctionals, EpsZeroClosedForms) {
  // docs/formulas.md: kl = eps (e^eps - 1)/(e^eps + 1), kappa2 = eps^2, kappa3 = eps^3,
  // kappa3bar = 8 eps^3 e^eps (1 + e^{2 eps}) / (1 + e^eps)^4 (moderate eps, direct formula).
  for (double e : {0.01, 0.1, 0.5, 1.0, 2.0, 5.0}) {
    const clt_functionals f = functionals(eps_delta(e, 0.0));
    const double ee = std::exp(e);
    EXPECT_LE(rel_err(f.kl, e * (ee - 1) / (ee + 1)), 1e-13) << e;
    EXPECT_LE(rel_err(f.kappa2, e * e), 1e-15) << e;
    EXPECT_LE(rel_err(f.kappa3, e * e * e), 1e-15) << e;
    EXPECT_LE(rel_err(f.kappa3bar, 8 * e * e * e * ee * (1 + ee * ee) / std::pow(1 + ee, 4)), 1e-13)
        << e;
  }
}

TEST(CltFunctionals, ClosedFormsMatchMpmath) {
  max_error worst[3][5] = {
      {max_error("gaussian_kl"), max_error("gaussian_kappa2"), max_error("gaussian_kappa3"),
       max_error("gaussian_kappa3bar"), max_error("gaussian_var")},
      {max_error("epsdelta0_kl"), max_error("epsdelta0_kappa2"), max_error("epsdelta0_kappa3"),
       max_error("epsdelta0_kappa3bar"), max_error("epsdelta0_var")},
      {max_error("laplace_kl"), max_error("laplace_kappa2"), max_error("laplace_kappa3"),
       max_error("laplace_kappa3bar"), max_error("laplace_var")}};
  for (const auto& g : golden_rows()) {
    const int fam = g.family == "gaussian" ? 0 : g.family == "epsdelta0" ? 1 : 2;
    double v[5];
    values(functionals(family_of(g)), v);
    for (int i = 0; i < 5; ++i) {
      const double e = rel_err(v[i], g.v[i]);
      worst[fam][i].update(e, g.family + " " + std::to_string(g.param));
      EXPECT_LE(e, kClosedRel) << g.family << " " << g.param << " " << kNames[i] << " got " << v[i]
                               << " want " << g.v[i];
    }
  }
  for (auto& row : worst)
    for (auto& w : row) w.report();
}

TEST(CltFunctionals, NumericRouteMatchesMpmath) {
  max_error worst("numeric_route_rel");
  for (const auto& g : golden_rows()) {
    const auto law = make_law(family_of(g));
    double v[5];
    values(functionals_numeric(*law), v);
    for (int i = 0; i < 5; ++i) {
      const double e = rel_err(v[i], g.v[i]);
      worst.update(e, g.family + " " + std::to_string(g.param) + " " + kNames[i]);
      EXPECT_LE(e, kNumericRel) << g.family << " " << g.param << " " << kNames[i] << " got " << v[i]
                                << " want " << g.v[i];
    }
  }
  worst.report();
}

TEST(CltFunctionals, NumericRouteMatchesClosedFormsOnAGrid) {
  // Beyond the golden rows: a denser parameter grid, closed vs numeric.
  max_error worst("numeric_vs_closed_rel");
  for (int i = 0; i <= 40; ++i) {
    const double p = std::pow(10.0, -3.0 + 4.5 * i / 40.0);  // 1e-3 .. ~31.6
    for (const tradeoff& f : {tradeoff(gaussian(std::min(p, 25.0))), tradeoff(laplace(p)),
                              tradeoff(eps_delta(p, 0.0))}) {
      double a[5], b[5];
      values(functionals(f), a);
      values(functionals_numeric(*make_law(f)), b);
      for (int j = 0; j < 5; ++j) {
        const double e = rel_err(b[j], a[j]);
        worst.update(e, f.describe() + " " + kNames[j]);
        EXPECT_LE(e, kNumericRel) << f.describe() << " " << kNames[j];
      }
    }
  }
  worst.report();
}

// Moments of L for the Poisson-subsampled mechanisms, computed independently
// of the layer-cake route: in x-space, E_P g(L(x)) with P's density, by
// double-exponential quadrature split at the kink x_c where L(x_c) = c.
struct x_space_moments {
  double kl, var, kappa3, kappa3bar;
};

template <class L, class Solve, class Expect>
x_space_moments moments_in_x(L&& loss, Solve&& x_at, Expect&& expect) {
  (void)loss;
  const double kl = -expect([](double l) { return l; }, std::nan(""));
  const double c = -kl;
  x_space_moments m;
  m.kl = kl;
  m.var = expect([c](double l) { return (l - c) * (l - c); }, x_at(c));
  m.kappa3 = expect([](double l) { return std::fabs(l) * l * l; }, x_at(0.0));
  m.kappa3bar = expect([c](double l) { return std::fabs(l - c) * (l - c) * (l - c); }, x_at(c));
  return m;
}

TEST(CltFunctionals, NumericRouteMatchesXSpaceQuadratureForSubsampledLaws) {
  max_error worst("subsampled_rel");
  // Gaussian: P = N(0, s^2), L(x) = log(1 - q + q e^u), u = (2x - 1) / (2 s^2).
  for (double s : {0.8, 2.0}) {
    for (double q : {0.01, 0.2}) {
      auto loss = [=](double x) {
        const double u = (2 * x - 1) / (2 * s * s);
        return u > 30 ? u + std::log(q) + std::log1p((1 - q) * std::exp(-u) / q)
                      : std::log1p(q * std::expm1(u));
      };
      auto x_at = [=](double l) { return s * s * std::log((std::expm1(l) + q) / q) + 0.5; };
      auto expect = [&](auto g, double xk) {
        auto f = [&](double x) {
          const double dens = std::exp(-x * x / (2 * s * s)) / (s * std::sqrt(2 * kPi));
          return dens > 0 ? g(loss(x)) * dens : 0.0;
        };
        boost::math::quadrature::exp_sinh<double> es;
        const double split = std::isnan(xk) ? 0.0 : xk;
        auto right = [&](double t) { return f(split + t); };
        auto left = [&](double t) { return f(split - t); };
        return es.integrate(right, 0.0, std::numeric_limits<double>::infinity(), 1e-15) +
               es.integrate(left, 0.0, std::numeric_limits<double>::infinity(), 1e-15);
      };
      const x_space_moments want = moments_in_x(loss, x_at, expect);
      const clt_functionals got = functionals_numeric(*subsampled_gaussian_law(s, 1.0, q));
      const double e[4] = {rel_err(got.kl, want.kl), rel_err(got.var, want.var),
                           rel_err(got.kappa3, want.kappa3),
                           rel_err(got.kappa3bar, want.kappa3bar)};
      for (double x : e) {
        worst.update(x, "subsampled-gaussian s=" + std::to_string(s) + " q=" + std::to_string(q));
        EXPECT_LE(x, kNumericRel) << "sigma=" << s << " q=" << q;
      }
    }
  }
  // Laplace: P = Lap(0, b), r(x) = e^{(|x| - |x - 1|)/b}, L = log(1 - q + q r):
  // the half-lines x <= 0 and x >= 1 are atoms (P-masses 1/2 and e^{-1/b}/2).
  for (double b : {0.5, 3.0}) {
    for (double q : {0.05, 0.5}) {
      auto loss = [=](double x) {
        const double t = (std::fabs(x) - std::fabs(x - 1)) / b;
        return std::log1p(q * std::expm1(t));
      };
      auto x_at = [=](double l) { return 0.5 * (b * std::log((std::expm1(l) + q) / q) + 1.0); };
      auto expect = [&](auto g, double xk) {
        auto f = [&](double x) { return g(loss(x)) * std::exp(-x / b) / (2 * b); };
        boost::math::quadrature::tanh_sinh<double> ts;
        double r = 0.5 * g(loss(-1.0)) + 0.5 * std::exp(-1.0 / b) * g(loss(2.0));
        if (!std::isnan(xk) && xk > 0 && xk < 1) {
          r += ts.integrate(f, 0.0, xk, 1e-15) + ts.integrate(f, xk, 1.0, 1e-15);
        } else {
          r += ts.integrate(f, 0.0, 1.0, 1e-15);
        }
        return r;
      };
      const x_space_moments want = moments_in_x(loss, x_at, expect);
      const clt_functionals got = functionals_numeric(*subsampled_laplace_law(b, 1.0, q));
      const double e[4] = {rel_err(got.kl, want.kl), rel_err(got.var, want.var),
                           rel_err(got.kappa3, want.kappa3),
                           rel_err(got.kappa3bar, want.kappa3bar)};
      for (double x : e) {
        worst.update(x, "subsampled-laplace b=" + std::to_string(b) + " q=" + std::to_string(q));
        EXPECT_LE(x, kNumericRel) << "b=" << b << " q=" << q;
      }
    }
  }
  worst.report();
}

// Small sigma: the quadrature's bisection never settled on parts of the
// loss axis and ran for hours (sigma 0.12 .. 0.3 at q = 0.01). A budget of
// rules per integral ends it; the answer still matches mpmath:
//   KL(P||Q) = -int N(x; 0, s^2) log(1 - q + q e^{(2x - 1)/(2 s^2)}) dx
//   = 0.00903073171883479243984 (mp.quad, 30 digits, s = 0.2, q = 0.01).
TEST(CltFunctionals, NarrowSubsampledGaussiansFinish) {
  const clt_functionals f = functionals_numeric(*subsampled_gaussian_law(0.2, 1.0, 0.01));
  EXPECT_NEAR(f.kl, 0.00903073171883479244, 1e-9 * 0.00903073171883479244);
  for (double s : {0.12, 0.3}) {
    const clt_functionals g = functionals_numeric(*subsampled_gaussian_law(s, 1.0, 0.01));
    EXPECT_TRUE(std::isfinite(g.kl) && g.kl > 0 && std::isfinite(g.kappa3bar) && g.kappa3bar > 0)
        << s;
  }
}

TEST(CltFunctionals, CurveSumsMatchClosedFormsAndAdditivity) {
  max_error worst("curve_rel");
  for (double e : {0.01, 0.1, 1.0, 3.0}) {
    const clt_functionals c = functionals(to_curve_exact(eps_delta(e, 0.0)));
    const clt_functionals f = functionals(eps_delta(e, 0.0));
    double a[5], b[5];
    values(c, a);
    values(f, b);
    for (int j = 0; j < 5; ++j) {
      worst.update(rel_err(a[j], b[j]), "f_{" + std::to_string(e) + ",0} " + kNames[j]);
      EXPECT_LE(rel_err(a[j], b[j]), kCurveRel) << e << " " << kNames[j];
    }
    // The exact k-fold polygon: kl and var add, kappa2 = sum var + (sum kl)^2.
    // The sums are exact over the stored polygon, but the polygon's last
    // segments (alpha within 1e-14 of 1, P-mass from a difference of numbers
    // near 1) carry slopes with O(1) relative error: at eps = 0.01, k = 50 the
    // segment of P-mass 1.7e-14 has loss -3.2 instead of -0.5, which moves kl
    // by 2e-11 relative. Hence 1e-10 here, not the 1e-12 of single terms.
    for (std::int64_t k : {2, 10, 50}) {
      const clt_functionals m = functionals(kfold_eps_delta(e, 0.0, k));
      const double kk = static_cast<double>(k);
      EXPECT_LE(rel_err(m.kl, kk * f.kl), 1e-10) << e << " k=" << k;
      EXPECT_LE(rel_err(m.var, kk * f.var), 1e-10) << e << " k=" << k;
      EXPECT_LE(rel_err(m.kappa2, kk * f.var + kk * kk * f.kl * f.kl), 1e-10) << e << " k=" << k;
      // the numeric route on the curve's discrete law agrees with the sums
      const clt_functionals n = functionals_numeric(*make_law(kfold_eps_delta(e, 0.0, k)));
      EXPECT_LE(rel_err(n.kappa3bar, m.kappa3bar), 1e-10) << e << " k=" << k;
      EXPECT_LE(rel_err(n.kappa3, m.kappa3), 1e-10) << e << " k=" << k;
    }
  }
  worst.report();
}

TEST(CltFunctionals, InfiniteFunctionalsAreReportedNotNumbers) {
  const clt_functionals f = functionals(eps_delta(1.0, 1e-5));
  EXPECT_FALSE(f.finite);
  EXPECT_NE(f.reason.find("infinite"), std::string::npos) << f.reason;
  EXPECT_EQ(f.kl, 0.0);
  // the same through the numeric route (P-mass at loss -inf) and a curve
  const clt_functionals n = functionals_numeric(*make_law(eps_delta(1.0, 1e-5)));
  EXPECT_FALSE(n.finite);
  EXPECT_NE(n.reason.find("-inf"), std::string::npos) << n.reason;
  const curve c = curve::from_points({{0.0, 1.0}, {0.4, 0.0}, {1.0, 0.0}});
  EXPECT_FALSE(functionals(c).finite);
  // the CLT is then not applicable, and says why
  const clt_approximation r =
      clt(std::vector<spec>{parse_spec("epsdelta:eps=1,delta=1e-5,times=10")});
  EXPECT_FALSE(r.applicable());
  EXPECT_NE(r.reason().find("infinite"), std::string::npos) << r.reason();
  EXPECT_THROW(r.clt_mu(), std::invalid_argument);
  EXPECT_FALSE(r.band_valid());
  EXPECT_FALSE(r.band(0.5).has_value());
}

TEST(CltFunctionals, QPosInfAloneKeepsTheIntegralsFinite) {
  // f(0) = 0.9 < 1 and f > 0 on [0, 1): the integrals over (0, 1] are finite;
  // f(a) = 0.9 (1 - a): L = log 0.9 everywhere, kl = -log 0.9.
  const curve c = curve::from_points({{0.0, 0.9}, {1.0, 0.0}});
  const clt_functionals f = functionals(c);
  ASSERT_TRUE(f.finite);
  EXPECT_LE(rel_err(f.kl, -std::log(0.9)), 1e-14);
  EXPECT_LE(f.var, 1e-30);
  const clt_functionals n = functionals_numeric(*make_law(c));
  ASSERT_TRUE(n.finite);
  EXPECT_LE(rel_err(n.kl, -std::log(0.9)), 1e-12);
  // but it is asymmetric, so the CLT does not apply
  clt_term t{f, 1, is_symmetric(c), "curve"};
  EXPECT_FALSE(clt({t}).applicable());
}

TEST(Clt, AsymmetricTermsAreNotApplicable) {
  const clt_term t = make_clt_term(parse_spec("subsampled-gaussian:sigma=1,q=0.01,times=100"));
  EXPECT_FALSE(t.symmetric);
  EXPECT_TRUE(t.f.finite);  // the functionals exist; the theorem does not apply
  EXPECT_GT(t.f.kl, 0.0);
  const clt_approximation r = clt({t});
  EXPECT_FALSE(r.applicable());
  EXPECT_NE(r.reason().find("not symmetric"), std::string::npos) << r.reason();
  EXPECT_THROW(r.gamma(), std::invalid_argument);
}

TEST(Clt, IdentityIsG0) {
  const clt_approximation r = clt(std::vector<spec>{parse_spec("id:times=5")});
  ASSERT_TRUE(r.applicable());
  EXPECT_EQ(r.clt_mu(), 0.0);
  EXPECT_EQ(r.gamma(), 0.0);
  EXPECT_TRUE(r.band_valid());
  EXPECT_NEAR(r.band(0.3)->lower, 0.7, 1e-15);
}

TEST(Clt, GaussianTermsGiveTheExactMu) {
  // For G_mu terms: 2 sum mu_i^2/2 / sqrt(sum mu_i^2) = sqrt(sum mu_i^2) exactly.
  const clt_approximation r =
      clt(std::vector<spec>{parse_spec("gdp:mu=0.3,times=7"), parse_spec("gdp:mu=0.2,times=3")});
  ASSERT_TRUE(r.applicable());
  EXPECT_LE(rel_err(r.clt_mu(), std::sqrt(7 * 0.09 + 3 * 0.04)), 1e-15);
}

struct band_case {
  std::string spec;
  std::int64_t n;
};

TEST(Clt, BerryEsseenBandContainsTheExactComposition) {
  // Laplace mechanisms with per-step mu = 1/sqrt(n) and f_{eps,0} with
  // eps = 1/sqrt(n): the composition has mu ~ 1. The engine's bracket of the
  // composition (which contains the truth) must lie inside the band.
  std::vector<band_case> cases;
  for (std::int64_t n : {10, 100, 1000}) {
    const double b = std::sqrt(static_cast<double>(n));
    char buf[128];
    std::snprintf(buf, sizeof buf, "laplace:b=%.17g,times=%lld", b, static_cast<long long>(n));
    cases.push_back({buf, n});
    std::snprintf(buf, sizeof buf, "epsdelta:eps=%.17g,times=%lld", 1.0 / b,
                  static_cast<long long>(n));
    cases.push_back({buf, n});
  }
  std::printf("%-44s %10s %10s %12s %12s %12s\n", "spec", "clt_mu", "gamma", "min_slack_lo",
              "min_slack_hi", "max_bracket");
  int checked = 0;
  for (const auto& c : cases) {
    const std::vector<spec> specs{parse_spec(c.spec)};
    const clt_approximation r = clt(specs);
    ASSERT_TRUE(r.applicable()) << c.spec;
    if (!r.band_valid()) {
      std::printf("%-44s %10.6f %10.6f   (band not valid)\n", c.spec.c_str(), r.clt_mu(),
                  r.gamma());
      continue;
    }
    compose_options opt;
    opt.tolerance = 1e-4;  // a tight bracket, so that containment is decided
    const composition comp = compose(specs, opt);
    double slack_lo = 1.0, slack_hi = 1.0, width = 0.0;
    for (int i = 0; i <= 200; ++i) {
      const double a = r.gamma() + (1.0 - 2.0 * r.gamma()) * i / 200.0;
      const auto band = r.band(a);
      ASSERT_TRUE(band.has_value()) << c.spec << " alpha=" << a;
      const interval t = comp.beta(a);
      width = std::max(width, t.upper - t.lower);
      slack_lo = std::min(slack_lo, t.lower - band->lower);
      slack_hi = std::min(slack_hi, band->upper - t.upper);
      EXPECT_LE(band->lower, t.lower) << c.spec << " alpha=" << a;
      EXPECT_LE(t.upper, band->upper) << c.spec << " alpha=" << a;
    }
    ++checked;
    std::printf("%-44s %10.6f %10.6f %12.3e %12.3e %12.3e\n", c.spec.c_str(), r.clt_mu(), r.gamma(),
                slack_lo, slack_hi, width);
  }
  EXPECT_GE(checked, 5);  // all but possibly the n = 10 cases have a valid band
}

TEST(Clt, CltMuConvergesToTheExactGdpSummary) {
  // f_{eps,0}^{(x) n} with eps = 1/sqrt(n): its exact polygon's GDP summary
  // (gdp_summary of the polygon: exact up to rounding) against clt_mu.
  // Laplace with mu = 1/sqrt(n): the engine's bracket of the summary.
  std::printf("%8s | %12s %12s %10s | %12s %12s %12s %10s\n", "n", "eps0:clt_mu", "exact_mu",
              "rel_err", "lap:clt_mu", "mu_lower", "mu_upper", "rel_err");
  double prev_err = 1.0, first_err = 0.0, last_err = 0.0;
  double lap_first = 0.0, lap_last = 0.0;
  for (std::int64_t n : {1, 3, 10, 30, 100, 300, 1000, 3000, 10000}) {
    const double e = 1.0 / std::sqrt(static_cast<double>(n));
    const clt_approximation r = clt({clt_term{functionals(eps_delta(e, 0.0)), n, true, "eps0"}});
    const double exact = gdp_summary(kfold_eps_delta(e, 0.0, n));
    const double err = std::fabs(r.clt_mu() - exact) / exact;
    const clt_approximation rl = clt({clt_term{functionals(laplace(e)), n, true, "lap"}});
    char buf[64];
    std::snprintf(buf, sizeof buf, "laplace:b=%.17g,times=%lld", 1.0 / e,
                  static_cast<long long>(n));
    const interval m = compose(std::vector<spec>{parse_spec(buf)}).mu();
    const double lerr = std::fabs(rl.clt_mu() - m.lower) / m.lower;
    std::printf("%8lld | %12.8f %12.8f %10.2e | %12.8f %12.8f %12.8f %10.2e\n",
                static_cast<long long>(n), r.clt_mu(), exact, err, rl.clt_mu(), m.lower, m.upper,
                lerr);
    if (n == 1) first_err = err, lap_first = lerr;
    last_err = err;
    lap_last = lerr;
    if (n >= 10) EXPECT_LE(err, prev_err * 1.05) << "n=" << n;  // decreasing (allowing a wobble)
    prev_err = err;
  }
  EXPECT_LT(last_err, 0.05 * first_err);
  EXPECT_LT(lap_last, 0.1 * lap_first);
}

TEST(CltEpsDeltaLimit, IsG_muTensorF0d) {
  // 2000 x f_{0.02, 1e-7}: mu^2 = 2000 * 4e-4 = 0.8, delta = 2e-4.
  const clt_eps_delta_limit lim = clt_eps_delta({{eps_delta(0.02, 1e-7), 2000}});
  EXPECT_LE(rel_err(lim.mu(), std::sqrt(0.8)), 1e-14);
  EXPECT_LE(rel_err(lim.delta_sum(), 2e-4), 1e-12);
  EXPECT_LE(rel_err(lim.d(), -std::expm1(-2e-4)), 1e-15);
  // it is close to the exact composition (an approximation, not a bound)
  const curve exact = kfold_eps_delta(0.02, 1e-7, 2000);
  double sup = 0.0;
  for (int i = 0; i <= 1000; ++i) {
    const double a = i / 1000.0;
    sup = std::max(sup, std::fabs(lim.beta(a) - beta(exact, a)));
  }
  std::printf("sup |limit - exact| for 2000 x f_{0.02,1e-7}: %.3e\n", sup);
  EXPECT_LT(sup, 5e-3);
  // the other operations accept it: composing its terms gives the same object
  const composition c = compose_terms(lim.terms());
  for (double a : {1e-4, 0.01, 0.1, 0.5, 0.9}) {
    const interval b = c.beta(a);
    EXPECT_LE(b.lower, lim.beta(a) + 1e-12) << a;
    EXPECT_GE(b.upper, lim.beta(a) - 1e-12) << a;
  }
  for (double eps : {0.0, 0.5, 1.0, 2.0}) {
    const interval d = c.delta(eps);
    EXPECT_LE(d.lower, lim.profile_delta(eps) * (1 + 1e-9)) << eps;
    EXPECT_GE(d.upper, lim.profile_delta(eps) * (1 - 1e-9)) << eps;
  }
  EXPECT_TRUE(std::isinf(lim.epsilon(1e-4)));  // below d: no epsilon
  EXPECT_GT(lim.epsilon(1e-3), 0.0);
}

TEST(CltBadInput, Errors) {
  EXPECT_THROW(clt_eps_delta_limit(-1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(clt_eps_delta_limit(1.0, -1e-3), std::invalid_argument);
  EXPECT_THROW(clt_eps_delta({{eps_delta(0.1, 0.0), 0}}), std::invalid_argument);
  EXPECT_FALSE(clt(std::vector<clt_term>{}).applicable());
  clt_term t{functionals(gaussian(1.0)), 0, true, "g"};
  EXPECT_THROW(clt({t}), std::invalid_argument);
  const clt_approximation r = clt(std::vector<spec>{parse_spec("gdp:mu=0.1,times=100")});
  EXPECT_THROW(r.band(1.5), std::invalid_argument);
  EXPECT_THROW(r.band(std::nan("")), std::invalid_argument);
  clt_quadrature_options bad;
  bad.rel_tol = 0.0;
  EXPECT_THROW(functionals_numeric(*make_law(gaussian(1.0)), bad), std::invalid_argument);
}

}  // namespace
}  // namespace fdp
