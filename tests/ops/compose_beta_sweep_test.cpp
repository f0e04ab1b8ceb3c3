// composition::beta on a vector of alphas (the Python package's curve()):
// the same brackets as beta(alpha) one at a time, whatever the order of the
// alphas (the sweep's hints must never change an answer), for numeric and
// exact compositions, long arrays split across two threads included; a bad
// alpha anywhere throws before anything is computed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {
namespace {

composition composed(std::initializer_list<const char*> texts) {
  std::vector<spec> specs;
  for (const char* t : texts) specs.push_back(parse_spec(t));
  return compose(specs);
}

std::vector<double> alphas_in_orders() {
  std::vector<double> a;
  for (int i = 0; i <= 2000; ++i) a.push_back(i / 2000.0);
  for (int i = 1; i <= 40; ++i) a.push_back(std::pow(10.0, -i / 4.0));  // near 0: steep part
  std::vector<double> all = a;                                          // unsorted tail
  std::sort(a.begin(), a.end());
  all.insert(all.end(), a.begin(), a.end());    // increasing
  all.insert(all.end(), a.rbegin(), a.rend());  // decreasing
  std::mt19937 rng(7);
  std::shuffle(a.begin(), a.end(), rng);
  all.insert(all.end(), a.begin(), a.end());  // random
  return all;
}

void expect_same_as_one_at_a_time(const composition& c) {
  const std::vector<double> a = alphas_in_orders();
  const std::vector<interval> v = c.beta(a);
  ASSERT_EQ(v.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const interval s = c.beta(a[i]);
    ASSERT_EQ(v[i].lower, s.lower) << "alpha " << a[i] << " at " << i;
    ASSERT_EQ(v[i].upper, s.upper) << "alpha " << a[i] << " at " << i;
  }
}

TEST(ComposeBetaSweep, NumericSubsampledCompositionSymmetrized) {
  const composition c = composed({"subsampled-gaussian:sigma=1,q=0.01,times=300"});
  ASSERT_FALSE(c.is_exact());
  expect_same_as_one_at_a_time(c);
}

TEST(ComposeBetaSweep, NumericHeterogeneousComposition) {
  const composition c = composed({"laplace:b=5,times=20", "gaussian:sigma=3,times=10"});
  ASSERT_FALSE(c.is_exact());
  expect_same_as_one_at_a_time(c);
}

TEST(ComposeBetaSweep, ExactComposition) {
  expect_same_as_one_at_a_time(composed({"gdp:mu=1", "gaussian:sigma=2"}));
  expect_same_as_one_at_a_time(composed({"epsdelta:eps=0.3,delta=1e-6,times=40"}));
}

// Past 2^16 alphas the sweep runs in two halves on two threads: the same
// answers, into the caller's buffers too.
TEST(ComposeBetaSweep, LongArraysSplitAcrossThreadsGiveTheSameAnswers) {
  const composition c = composed({"subsampled-gaussian:sigma=1,q=0.01,times=300"});
  std::vector<double> a;
  for (int i = 0; i < 70001; ++i) a.push_back(i / 70000.0);
  std::mt19937 rng(11);
  std::shuffle(a.begin() + 35000, a.end(), rng);  // (the second half out of order)
  std::vector<double> lo(a.size()), hi(a.size());
  c.beta(a.data(), a.size(), lo.data(), hi.data());
  const std::vector<interval> v = c.beta(a);
  for (std::size_t i = 0; i < a.size(); i += 7) {
    const interval s = c.beta(a[i]);
    ASSERT_EQ(lo[i], s.lower) << "alpha " << a[i] << " at " << i;
    ASSERT_EQ(hi[i], s.upper) << "alpha " << a[i] << " at " << i;
    ASSERT_EQ(v[i].lower, s.lower);
    ASSERT_EQ(v[i].upper, s.upper);
  }
}

TEST(ComposeBetaSweep, BadAlphaThrows) {
  const composition c = composed({"laplace:b=5,times=20", "gaussian:sigma=3,times=10"});
  EXPECT_THROW(c.beta(std::vector<double>{0.1, 1.5}), std::invalid_argument);
  EXPECT_THROW(c.beta(std::vector<double>{std::nan("")}), std::invalid_argument);
  EXPECT_TRUE(c.beta(std::vector<double>{}).empty());
}

}  // namespace
}  // namespace fdp
