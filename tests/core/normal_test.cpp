// Golden tests for fdp/core/normal.hpp against tests/golden/normal_golden.csv
// and quantile_golden.csv (mpmath at 60 digits, see gen_golden.py). Each test
// prints the largest relative error it measured ("[golden] max ...").
#include "fdp/core/normal.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../golden/golden_csv.hpp"

namespace fdp {
namespace {

using test::load_golden;
using test::max_error;
using test::rel_err;
using test::to_double;

// The accuracy normal.hpp promises.
constexpr double kCdfRel = 1e-14;       // norm_cdf / norm_sf, result a normal double
constexpr double kLogCdfRel = 1e-13;    // log_norm_cdf over |x| <= 1e6
constexpr double kErfcxRel = 1e-13;     // erfcx over |x| <= 1e6 (where finite)
constexpr double kQuantileRel = 1e-13;  // quantiles over p in [1e-300, 1 - 1e-16]
constexpr double kIntervalRel = 1e-14;  // norm_interval within one tail
// Results below DBL_MIN are subnormal: only absolute accuracy is possible.
constexpr double kSubnormalAbs = 1e3 * std::numeric_limits<double>::denorm_min();

std::string at(const char* what, double x) {
  std::ostringstream os;
  os.precision(17);
  os << what << "=" << x;
  return os.str();
}

// Phi and 1 - Phi: relative error where the truth is a normal double,
// absolute error in the subnormal range, exact 0 below it.
void check_prob(double got, double truth, double x, const char* name, max_error& m) {
  if (std::fabs(truth) >= DBL_MIN) {
    const double e = rel_err(got, truth);
    m.update(e, at("x", x));
    EXPECT_LE(e, kCdfRel) << name << "(" << x << ") = " << got << ", truth " << truth;
  } else {
    EXPECT_LE(std::fabs(got - truth), kSubnormalAbs) << name << "(" << x << ")";
    EXPECT_GE(got, 0.0) << name << "(" << x << ")";
  }
}

TEST(NormalGolden, CdfAndSf) {
  const auto t = load_golden("normal_golden.csv");
  const auto cx = t.column("x"), cp = t.column("Phi(x)"), cq = t.column("Phi(-x)");
  max_error mcdf("rel_err_norm_cdf"), msf("rel_err_norm_sf");
  for (const auto& r : t.rows) {
    const double x = to_double(r[cx]);
    check_prob(norm_cdf(x), to_double(r[cp]), x, "norm_cdf", mcdf);
    check_prob(norm_sf(x), to_double(r[cq]), x, "norm_sf", msf);
  }
  mcdf.report();
  msf.report();
}

TEST(NormalGolden, LogCdf) {
  const auto t = load_golden("normal_golden.csv");
  const auto cx = t.column("x"), cl = t.column("logPhi(x)");
  max_error m("rel_err_log_norm_cdf"), ms("rel_err_log_norm_sf");
  for (const auto& r : t.rows) {
    const double x = to_double(r[cx]);
    const double truth = to_double(r[cl]);
    const double got = log_norm_cdf(x);
    ASSERT_TRUE(std::isfinite(got)) << "log_norm_cdf(" << x << ") = " << got;
    if (std::fabs(truth) >= DBL_MIN) {
      const double e = rel_err(got, truth);
      m.update(e, at("x", x));
      EXPECT_LE(e, kLogCdfRel) << "log_norm_cdf(" << x << ") = " << got << ", truth " << truth;
    } else {
      EXPECT_LE(std::fabs(got - truth), kSubnormalAbs) << "log_norm_cdf(" << x << ")";
    }
  }
  // log_norm_sf(x) = log Phi(-x): the grid is symmetric, so the same column
  // serves, read at -x.
  for (const auto& r : t.rows) {
    const double x = to_double(r[cx]);
    const double truth = to_double(r[cl]);
    const double got = log_norm_sf(-x);
    if (std::fabs(truth) >= DBL_MIN) {
      const double e = rel_err(got, truth);
      ms.update(e, at("-x", -x));
      EXPECT_LE(e, kLogCdfRel) << "log_norm_sf(" << -x << ")";
    }
  }
  m.report();
  ms.report();
}

TEST(NormalGolden, Erfcx) {
  const auto t = load_golden("normal_golden.csv");
  const auto cx = t.column("x"), ce = t.column("erfcx(x)");
  max_error m("rel_err_erfcx");
  for (const auto& r : t.rows) {
    const double x = to_double(r[cx]);
    const double truth = to_double(r[ce]);
    const double got = erfcx(x);
    if (std::isinf(truth)) {
      EXPECT_EQ(got, std::numeric_limits<double>::infinity()) << "erfcx(" << x << ")";
      continue;
    }
    const double e = rel_err(got, truth);
    m.update(e, at("x", x));
    EXPECT_LE(e, kErfcxRel) << "erfcx(" << x << ") = " << got << ", truth " << truth;
  }
  m.report();
}

TEST(NormalGolden, Quantile) {
  const auto t = load_golden("quantile_golden.csv");
  const auto cp = t.column("p"), cq = t.column("quantile");
  max_error m("rel_err_norm_quantile"), mc("rel_err_norm_quantile_c");
  for (const auto& r : t.rows) {
    const double p = to_double(r[cp]);
    const double truth = to_double(r[cq]);
    const double got = norm_quantile(p);
    double e = rel_err(got, truth);
    m.update(e, at("p", p));
    EXPECT_LE(e, kQuantileRel) << "norm_quantile(" << p << ") = " << got << ", truth " << truth;
    // norm_quantile_c(p) = Phi^{-1}(1 - p) = -Phi^{-1}(p).
    e = rel_err(norm_quantile_c(p), -truth);
    mc.update(e, at("p", p));
    EXPECT_LE(e, kQuantileRel) << "norm_quantile_c(" << p << ")";
  }
  m.report();
  mc.report();
}

// Round trip through the tails: Phi(Phi^{-1}(p)) = p to the conditioning of
// Phi (|x| phi(x)/Phi(x) ulps, ~40 at p = 1e-300).
TEST(NormalTail, QuantileRoundTrip) {
  for (double p = 1e-300; p < 0.5; p *= 7.3) {
    const double x = norm_quantile(p);
    const double cond = std::fabs(x) * norm_pdf(x) / p + 1.0;
    EXPECT_LE(rel_err(norm_cdf(x), p), 4 * cond * DBL_EPSILON) << "p=" << p;
  }
}

TEST(NormalTail, Limits) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(norm_cdf(-inf), 0.0);
  EXPECT_EQ(norm_cdf(inf), 1.0);
  EXPECT_EQ(norm_sf(inf), 0.0);
  EXPECT_EQ(log_norm_cdf(-inf), -inf);
  EXPECT_EQ(log_norm_cdf(inf), 0.0);
  EXPECT_EQ(norm_quantile(0.0), -inf);
  EXPECT_EQ(norm_quantile(1.0), inf);
  EXPECT_EQ(norm_quantile_c(0.0), inf);
  EXPECT_EQ(norm_quantile_c(1.0), -inf);
  EXPECT_EQ(norm_quantile(0.5), 0.0);
  // log_norm_cdf stays finite and ~ -x^2/2 far beyond the underflow of Phi.
  EXPECT_NEAR(log_norm_cdf(-1e6) / -5e11, 1.0, 1e-10);
  EXPECT_TRUE(std::isfinite(log_norm_cdf(-1e150)));
  // Beyond |x| = 1.9e154, -x^2/2 is below -DBL_MAX: -inf, never NaN.
  EXPECT_EQ(log_norm_cdf(-1e200), -inf);
  EXPECT_EQ(norm_cdf(-1e200), 0.0);
  EXPECT_EQ(norm_sf(1e200), 0.0);
  EXPECT_EQ(norm_cdf(-39.0), 0.0);  // Phi(-39) = 1.1e-333 < denorm_min / 2
  EXPECT_EQ(erfcx(-27.0), inf);
  EXPECT_GT(erfcx(1e300), 0.0);
  EXPECT_EQ(erfcx(inf), 0.0);
  EXPECT_EQ(erfcx(-inf), inf);
  EXPECT_EQ(log_norm_cdf(40.0), -0.0);  // -Phi(-40) = -3.7e-350 rounds to -0
  EXPECT_EQ(norm_pdf(inf), 0.0);
}

TEST(NormalInterval, AgainstGoldenDifferences) {
  // Phi(a) - Phi(b) for neighbouring grid points in one tail, where a naive
  // difference would cancel. Truth: the difference of the golden values,
  // used only where Phi(b) <= 0.9 Phi(a) (so it costs at most ~10 ulps).
  const auto t = load_golden("normal_golden.csv");
  const auto cx = t.column("x"), cp = t.column("Phi(x)");
  std::vector<std::pair<double, double>> xp;  // (x, Phi(x))
  for (const auto& r : t.rows) xp.push_back({to_double(r[cx]), to_double(r[cp])});
  max_error m("rel_err_norm_interval");
  for (std::size_t i = 0; i + 1 < xp.size(); ++i) {
    const double b = xp[i].first, a = xp[i + 1].first;
    const double pb = xp[i].second, pa = xp[i + 1].second;
    if (a > 0.0 || pa < 1e3 * DBL_MIN || pb > 0.9 * pa) continue;
    const double truth = pa - pb;
    const double got = norm_interval(b, a);
    const double e = rel_err(got, truth);
    m.update(e, at("a", a));
    EXPECT_LE(e, kIntervalRel) << "norm_interval(" << b << ", " << a << ")";
    // Symmetry: Phi(-b) - Phi(-a) is the same number, in the upper tail.
    EXPECT_LE(rel_err(norm_interval(-a, -b), truth), kIntervalRel);
  }
  m.report();
  EXPECT_EQ(norm_interval(1.0, 1.0), 0.0);
  EXPECT_EQ(norm_interval(2.0, 1.0), 0.0);
  // Phi(1) - Phi(-1) = erf(1/sqrt2) (mpmath).
  EXPECT_LE(rel_err(norm_interval(-1.0, 1.0), 0.68268949213708589717), 1e-15);
}

TEST(NormalInterval, NarrowAndStraddling) {
  // Intervals where Phi(a) - Phi(b) cancels completely in double: narrow ones
  // (width << 1/|b|) and ones straddling 0. Truth: mpmath erfc difference at
  // 60 digits of the exact double end points.
  struct row {
    double b, a, truth;
  };
  const row rows[] = {
      {-1e-8, 1e-8, 7.9788456080286535928e-9},
      {-0.3, 1e-9, 0.11791142258789491347},
      {-30.0, -30.0 + 1e-10, 1.4736200818050610071e-206},
      {5.0, 5.0 + 1e-7, 1.4867191472237036071e-13},
      {-2.0, -1.9999, 5.3996365879792754907e-6},
      {-37.0, -36.99, 2.5653595099474332308e-300},
      {0.0, 1e-12, 3.9894228040143266992e-13},
      {-1e-12, 0.0, 3.9894228040143266992e-13},
      {1.0, 1.5, 0.09184805266259898541},
      {-10.0, -3.0, 0.0013498980316300945266},
  };
  max_error m("rel_err_norm_interval_narrow");
  for (const auto& r : rows) {
    const double e = rel_err(norm_interval(r.b, r.a), r.truth);
    m.update(e, at("b", r.b));
    // The end points are exact inputs, so the answer is well conditioned
    // (relative condition ~ |b| * width) and should be near full precision.
    EXPECT_LE(e, kIntervalRel) << "norm_interval(" << r.b << ", " << r.a << ")";
  }
  m.report();
}

TEST(NormalInterval, ShiftedByTwoDoubles) {
  // Phi(a - c) - Phi(b - c) with c = c_hi + c_lo: c_hi = fl(1 / s), c_lo
  // = fma(-c_hi, s, 1) / s as the subsampled Gaussian's law forms them.
  // Truth: mpmath at 60 digits with the exact shift 1 / s. Rounding b - c_hi
  // and a - c_hi to doubles first (the comment: that result's relative
  // error) moves narrow intervals by an ulp.
  struct row {
    double b, a, c_hi, c_lo, truth;
  };
  const row rows[] = {
      {13.5, 13.500000000001778, 3.3333333333333335, -2.467162276944792e-17,
       2.5485564425151623757e-35},  // 4.8e-15
      {8.123456789, 8.123456789931323, 3.3333333333333335, -2.467162276944792e-17,
       3.8681682803121442943e-15},  // 2.3e-15
      {-3.0000001, -3.0, 1.4285714285714286, 5.890979314337566e-17,
       2.1986955654531324165e-12},  // 4.4e-9
      {2.5, 2.5000001, 0.9090909090909091, -4.3124365419324254e-17,
       1.1254135980896952819e-8},  // 2.5e-16
      {0.1, 0.100000001, 1.1111111111111112, -7.675615972717131e-17,
       2.3928227123950214083e-10},  // 1.4e-7
      {-1.0, 4.0, 3.3333333333333335, -2.467162276944792e-17, 0.74750011902924015284},
  };
  for (const auto& r : rows) {
    EXPECT_LE(rel_err(norm_interval_shifted(r.b, r.a, r.c_hi, r.c_lo), r.truth), kIntervalRel)
        << "norm_interval_shifted(" << r.b << ", " << r.a << ")";
  }
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_LE(rel_err(norm_interval_shifted(-inf, 1.0, 2.0, 0.0), norm_cdf(-1.0)), 1e-15);
  EXPECT_LE(rel_err(norm_interval_shifted(1.0, inf, 2.0, 0.0), norm_sf(-1.0)), 1e-15);
  EXPECT_EQ(norm_interval_shifted(1.0, 1.0, 2.0, 0.0), 0.0);
}

TEST(NormalErrors, NanThrowsNamingParameter) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto expect_names = [](auto fn, const std::string& needle) {
    try {
      fn();
      ADD_FAILURE() << "no exception; expected one naming " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_names([&] { norm_cdf(nan); }, "x=");
  expect_names([&] { log_norm_cdf(nan); }, "x=");
  expect_names([&] { erfcx(nan); }, "x=");
  expect_names([&] { norm_quantile(nan); }, "p=");
  expect_names([&] { norm_quantile(-0.1); }, "p=");
  expect_names([&] { norm_quantile(1.5); }, "p=");
  expect_names([&] { norm_quantile_c(2.0); }, "p=");
}

}  // namespace
}  // namespace fdp
