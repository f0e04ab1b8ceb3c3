// The audit's parallel radix sort and merge of doubles: the same arrays as a
// reference sort by the total-order key and std::merge, for every thread
// count, on arrays long enough to be split into several chunks (65536 values
// or more per chunk).
#include "audit/parallel_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "fdp/mech/rng.hpp"

namespace fdp::audit::detail {
namespace {

template <class Vec>
std::vector<std::uint64_t> bits_of(const Vec& v) {
  std::vector<std::uint64_t> b(v.size());
  if (!v.empty()) std::memcpy(b.data(), v.data(), v.size() * sizeof(double));  // (never with null)
  return b;
}

/// Laplace draws with ties, signed zeros and infinities mixed in.
raw_vector<double> awkward_values(std::size_t n, std::uint64_t seed) {
  mech::rng_stream g(seed, 0);
  raw_vector<double> v(n);
  g.fill_laplace(v.data(), n, 1.0);
  const double inf = std::numeric_limits<double>::infinity();
  const double specials[] = {0.0, -0.0, inf, -inf, 1.5, -1.5};
  for (std::size_t i = 0; i < n; i += 97) v[i] = specials[g.uniform_int(6)];
  for (std::size_t i = 3; i < n; i += 13) v[i] = std::round(v[i] * 4) / 4;  // ties
  return v;
}

TEST(ParallelSort, OrderKeyIsMonotoneAndInvertible) {
  const double xs[] = {-std::numeric_limits<double>::infinity(), -2.0, -0.0, 0.0, 1e-300, 3.0};
  for (std::size_t i = 0; i + 1 < std::size(xs); ++i)
    EXPECT_LT(order_key(xs[i]), order_key(xs[i + 1])) << xs[i];
  for (double x : xs)
    EXPECT_EQ(bits_of(std::vector<double>{from_order_key(order_key(x))}),
              bits_of(std::vector<double>{x}));
}

TEST(ParallelSort, SameArrayForEveryThreadCount) {
  for (std::size_t n : {0, 1, 255, 256, 1000, 300001}) {
    const raw_vector<double> input = awkward_values(n, 5 + n);
    raw_vector<double> ref = input;
    std::stable_sort(ref.begin(), ref.end(),
                     [](double x, double y) { return order_key(x) < order_key(y); });
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
      raw_vector<double> v = input;
      sort_doubles(v, threads);
      ASSERT_EQ(v.size(), ref.size());
      if (n < 256) {  // (std::sort: signed zeros compare equal, so values only)
        EXPECT_EQ(v, ref) << n << " " << threads;
      } else {
        EXPECT_EQ(bits_of(v), bits_of(ref)) << n << " " << threads;
      }
    }
  }
}

TEST(ParallelSort, MergeIsStdMergeForEveryThreadCount) {
  // Ties across the two arrays (including -0 against +0, equal under <) test
  // that each range's cut takes a's equal elements first, as std::merge does.
  for (auto [na, nb] : {std::pair<std::size_t, std::size_t>{0, 0},
                        {0, 500},
                        {300, 0},
                        {200000, 150001},
                        {70000, 300000}}) {
    raw_vector<double> a = awkward_values(na, 1), b = awkward_values(nb, 2);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::vector<double> ref(na + nb);
    std::merge(a.begin(), a.end(), b.begin(), b.end(), ref.begin());
    for (unsigned threads : {1u, 2u, 5u}) {
      EXPECT_EQ(bits_of(merge_doubles(a, b, threads)), bits_of(ref)) << na << " " << nb;
    }
  }
}

}  // namespace
}  // namespace fdp::audit::detail
