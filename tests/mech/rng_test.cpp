// Philox4x32-10 known answers (Random123's rounds through the
// fdp::mech::philox4x32_10 adaptor), stream layout, batch = scalar, and
// distribution / independence checks (statistical checks at level 1e-6).
#include "fdp/mech/rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "stat_helpers.hpp"

namespace fdp::mech {
namespace {

using test::kLevel;

// Random123's tests/kat_vectors, the three "philox4x32 10" lines
// (counter[4] key[2] -> output[4]).
TEST(Philox, KnownAnswerVectors) {
  struct kat {
    philox4x32_10::counter_type ctr;
    philox4x32_10::key_type key;
    philox4x32_10::counter_type out;
  };
  const kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const auto& k : kats) EXPECT_EQ(philox4x32_10::block(k.ctr, k.key), k.out);
}

TEST(Philox, StreamLayoutIsCounterBlockShard) {
  const std::uint64_t seed = 0x0123456789abcdefull, shard = 0xfedcba9876543210ull;
  rng_stream g(seed, shard);
  for (std::uint64_t b = 0; b < 3; ++b) {
    const auto c = philox4x32_10::block(
        {static_cast<std::uint32_t>(b), 0, static_cast<std::uint32_t>(shard),
         static_cast<std::uint32_t>(shard >> 32)},
        {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
    EXPECT_EQ(g.next_u64(), c[0] | (std::uint64_t{c[1]} << 32));
    EXPECT_EQ(g.next_u64(), c[2] | (std::uint64_t{c[3]} << 32));
  }
  EXPECT_EQ(g.next_block(), 3u);
}

TEST(Philox, BatchFillsEqualScalarCalls) {
  for (std::size_t offset : {0, 1, 2, 3}) {
    for (std::size_t n : {0, 1, 7, 128, 129, 1000, 3001}) {
      rng_stream a(42, 7), b(42, 7);
      for (std::size_t i = 0; i < offset; ++i) {
        a.next_u64();
        b.next_u64();
      }
      std::vector<std::uint64_t> w(n);
      a.fill_u64(w.data(), n);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(w[i], b.next_u64()) << n << " " << i;
      ASSERT_EQ(a.next_u64(), b.next_u64());

      std::vector<double> v(n);
      a.fill_laplace(v.data(), n, 2.5);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], b.laplace(2.5));
      a.fill_exponential(v.data(), n, 0.5);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], 0.5 * b.exponential());
      a.fill_uniform(v.data(), n);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], b.uniform());
      a.fill_normal(v.data(), n, 1.0);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], b.normal());
      ASSERT_EQ(a.normal(), b.normal());
      ASSERT_EQ(a.next_u64(), b.next_u64());
    }
  }
}

TEST(Philox, SeekReproducesAnyBlock) {
  rng_stream a(9, 3);
  std::vector<std::uint64_t> w(2000);
  a.fill_u64(w.data(), w.size());
  rng_stream b(9, 3);
  b.seek(500);
  EXPECT_EQ(b.next_u64(), w[1000]);
  EXPECT_EQ(b.next_u64(), w[1001]);
}

// Distinct shards (and seeds) never share a Philox input; check that their
// outputs do not coincide and are uncorrelated.
TEST(Philox, ShardsAreDistinctAndUncorrelated) {
  const std::size_t n = 200000;
  std::vector<double> u0(n), u1(n), u2(n);
  rng_stream(1, 0).fill_uniform(u0.data(), n);
  rng_stream(1, 1).fill_uniform(u1.data(), n);
  rng_stream(2, 0).fill_uniform(u2.data(), n);
  std::set<double> s0(u0.begin(), u0.end());
  std::size_t common = 0;
  for (double x : u1) common += s0.count(x);
  // 53-bit values: expected coincidences n^2 2^-53 ~ 4e-6.
  EXPECT_EQ(common, 0u);
  auto corr = [&](const std::vector<double>& x, const std::vector<double>& y) {
    double sx = 0, sy = 0, sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < n; ++i) {
      sx += x[i];
      sy += y[i];
      sxy += x[i] * y[i];
      sxx += x[i] * x[i];
      syy += y[i] * y[i];
    }
    const double nn = static_cast<double>(n);
    return (sxy - sx * sy / nn) / std::sqrt((sxx - sx * sx / nn) * (syy - sy * sy / nn));
  };
  // Under independence sqrt(n) r is ~N(0,1): |r| < 4.9 / sqrt(n) has false-alarm rate 1e-6.
  const double lim = 4.9 / std::sqrt(static_cast<double>(n));
  EXPECT_LT(std::fabs(corr(u0, u1)), lim);
  EXPECT_LT(std::fabs(corr(u0, u2)), lim);
  // Lag-1 within a stream.
  std::vector<double> lag(u0.begin() + 1, u0.end());
  lag.push_back(u0.front());
  EXPECT_LT(std::fabs(corr(u0, lag)), lim);
}

// Chi-square goodness of fit of each variate to its law through its CDF on
// 200 equiprobable cells, 1e6 draws, level 1e-6 each.
TEST(Philox, VariatesFollowTheirLaws) {
  const std::size_t n = 1000000, cells = 200;
  std::vector<double> v(n);
  auto check = [&](const char* what, auto cdf) {
    std::vector<std::uint64_t> counts(cells, 0);
    for (double x : v) {
      const double u = cdf(x);
      counts[std::min<std::size_t>(cells - 1, static_cast<std::size_t>(u * cells))]++;
    }
    const double p = test::chi_square_p(counts, std::vector<double>(cells, 1.0 / cells));
    EXPECT_GT(p, kLevel) << what;
  };
  rng_stream g(2024, 0);
  g.fill_uniform(v.data(), n);
  check("uniform", [](double x) { return x; });
  g.fill_exponential(v.data(), n, 2.0);
  check("exponential", [](double x) { return -std::expm1(-x / 2.0); });
  g.fill_laplace(v.data(), n, 3.0);
  check("laplace",
        [](double x) { return x < 0 ? 0.5 * std::exp(x / 3.0) : 1.0 - 0.5 * std::exp(-x / 3.0); });
  g.fill_normal(v.data(), n, 1.5);
  check("normal", [](double x) { return 0.5 * std::erfc(-x / (1.5 * std::sqrt(2.0))); });
}

TEST(Philox, UniformIntAndBernoulliAreExact) {
  rng_stream g(5, 5);
  const std::size_t n = 700000;
  std::vector<std::uint64_t> counts(7, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = g.uniform_int(7);
    ASSERT_LT(x, 7u);
    counts[x]++;
  }
  EXPECT_GT(test::chi_square_p(counts, std::vector<double>(7, 1.0 / 7)), kLevel);
  std::uint64_t ones = 0;
  for (std::size_t i = 0; i < n; ++i) ones += g.bernoulli(3, 11) ? 1 : 0;
  EXPECT_GT(test::binomial_two_sided_p(n, 3.0 / 11, ones), kLevel);
  // n = 1 always gives 0; a huge n still stays in range.
  EXPECT_EQ(g.uniform_int(1), 0u);
  for (int i = 0; i < 1000; ++i)
    ASSERT_LT(g.uniform_int(~std::uint64_t{0} - 5), ~std::uint64_t{0} - 5);
}

TEST(Philox, VariatesAreFiniteAtTheExtremeWords) {
  // The smallest and largest words map to finite values.
  EXPECT_TRUE(std::isfinite(detail::exponential_from_bits(0)));
  EXPECT_TRUE(std::isfinite(detail::laplace_from_bits(0)));
  EXPECT_TRUE(std::isfinite(detail::laplace_from_bits(~std::uint64_t{0})));
  EXPECT_NEAR(detail::exponential_from_bits(0), 65 * std::log(2.0), 1e-12);
  EXPECT_GE(detail::exponential_from_bits(~std::uint64_t{0}), 0.0);
  EXPECT_LT(detail::uniform_from_bits(~std::uint64_t{0}), 1.0);
  double z0, z1;
  rng_stream::box_muller(0, 0, z0, z1);
  EXPECT_TRUE(std::isfinite(z0) && std::isfinite(z1));
}

}  // namespace
}  // namespace fdp::mech
