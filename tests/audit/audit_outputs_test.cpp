// audit_outputs: in-memory outputs give the report audit_files gives for the
// same outputs written one per line (the Python package relies on it).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "fdp/audit/audit.hpp"
#include "fdp/core/families.hpp"

namespace fdp::audit {
namespace {

std::string write_outputs(const std::string& name, const std::vector<double>& x) {
  const std::string path = ::testing::TempDir() + "fdp_audit_outputs_" + name;
  std::ofstream f(path);
  f.precision(17);
  for (double v : x) f << v << "\n";
  return path;
}

// Gaussian outputs around 0 and `shift`, with a few non-finite ones (which
// both paths must map the same way).
std::vector<double> outputs(double shift, unsigned seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> n(shift, 1.0);
  std::vector<double> x(20000);
  for (double& v : x) v = n(g);
  x[7] = std::numeric_limits<double>::quiet_NaN();
  x[123] = std::numeric_limits<double>::infinity();
  x[456] = -std::numeric_limits<double>::infinity();
  return x;
}

void expect_same(const audit_report& a, const audit_report& b) {
  EXPECT_EQ(a.result.verdict, b.result.verdict);
  EXPECT_EQ(a.result.reason, b.result.reason);
  EXPECT_EQ(a.result.epsilon_lower, b.result.epsilon_lower);
  EXPECT_EQ(a.result.mu_lower, b.result.mu_lower);
  EXPECT_EQ(a.samples[0], b.samples[0]);
  EXPECT_EQ(a.counts.n[1], b.counts.n[1]);
  ASSERT_EQ(a.result.w.has_value(), b.result.w.has_value());
  if (a.result.w) EXPECT_EQ(a.result.w->alpha, b.result.w->alpha);
  const auto ca = empirical_curve(a.result), cb = empirical_curve(b.result);
  ASSERT_EQ(ca.size(), cb.size());
  for (std::size_t i = 0; i < ca.size(); ++i) EXPECT_EQ(ca[i].beta_upper, cb[i].beta_upper);
}

TEST(AuditOutputs, SameReportAsFiles) {
  const auto x0 = outputs(0.0, 1), x1 = outputs(2.0, 2);
  audit_options o;
  o.threads = 1;
  for (double mu : {1.0, 3.0}) {  // a violation, then a consistent verdict
    const tradeoff claim = gaussian(mu);
    const audit_report a = audit_outputs(x0, x1, claim, o);
    const audit_report b = audit_files(write_outputs("a", x0), write_outputs("b", x1), claim, o);
    expect_same(a, b);
  }
  EXPECT_EQ(audit_outputs(x0, x1, gaussian(1.0), o).result.verdict, "violation");
}

TEST(AuditOutputs, RefusesEmptyAndBadOptions) {
  const std::vector<double> x{1, 2, 3};
  audit_options o;
  EXPECT_THROW(audit_outputs({}, x, gaussian(1.0), o), std::invalid_argument);
  EXPECT_THROW(audit_outputs(x, {}, gaussian(1.0), o), std::invalid_argument);
  o.confidence = 1.0;
  EXPECT_THROW(audit_outputs(x, x, gaussian(1.0), o), std::invalid_argument);
}

}  // namespace
}  // namespace fdp::audit
