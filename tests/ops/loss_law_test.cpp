// The loss laws' contract (loss_law.hpp): interval masses that partition the
// loss line add up to the whole of P and of Q, for any partition, however
// coarse or fine, wherever its points fall. The pessimistic discretization
// relies on it: a law that loses mass between its intervals makes a grid
// below the truth (a Poisson-subsampled Laplace law with a per-step loss of
// 33 lost 0.13% of P just above its bottom atom, where its loss is flat in
// the output; the grid's completion, pld_grid.cpp, now also guards against
// such a law, so this test checks the laws themselves).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fdp/ops/loss_law.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// P- and Q-totals of a partition of the line at the points xs (sorted).
mass2 partition_total(const loss_law& law, const std::vector<double>& xs) {
  mass2 t{law.p_neg_inf(), law.q_pos_inf()};
  double a = -kInf;
  for (double x : xs) {
    const mass2 m = law.mass(a, x);
    t.p += m.p, t.q += m.q;
    a = x;
  }
  const mass2 m = law.mass(a, kInf);
  t.p += m.p, t.q += m.q;
  return t;
}

// Partitions of the law's range: uniform with random phase and step (from a
// thousandth of the range to several times it), plus the ends themselves and
// points a rounding away from them.
std::vector<std::vector<double>> partitions(const loss_law& law, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const double lo = std::isfinite(law.lo()) ? law.lo() : -40.0,
               hi = std::isfinite(law.hi()) ? law.hi() : 40.0;
  const double span = std::max(hi - lo, 1e-12);
  std::vector<std::vector<double>> out;
  for (int i = 0; i < 12; ++i) {
    const double h = span * std::pow(10.0, -3.0 + 3.6 * U(rng));
    std::vector<double> xs;
    for (double x = lo - h * U(rng); x <= hi + h; x += h) xs.push_back(x);
    out.push_back(xs);
  }
  out.push_back({lo, hi});
  out.push_back({std::nextafter(lo, kInf), std::nextafter(hi, -kInf)});
  out.push_back({std::nextafter(lo, -kInf), 0.5 * (lo + hi), std::nextafter(hi, kInf)});
  return out;
}

TEST(LossLaw, IntervalMassesPartitionBothMeasures) {
  std::mt19937_64 rng(20261126);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  int laws = 0;
  for (int i = 0; i < 400; ++i) {
    // per-step loss 0.1 .. 50, q from 1e-8 to 1 - 1e-8
    const double loss = std::pow(10.0, -1 + U(rng) * std::log10(500.0));
    const double d = U(rng) < 0.5 ? 1.0 : std::pow(10.0, -1 + 2 * U(rng));
    const double q =
        U(rng) < 0.7 ? std::pow(10.0, -8 * U(rng)) : 1 - std::pow(10.0, -1 - 7 * U(rng));
    const bool lap = i % 2 == 0;
    if (!lap && loss > 30) continue;  // (Gaussian losses beyond +-700 are refused by the engine)
    const auto law =
        lap ? subsampled_laplace_law(d / loss, d, q) : subsampled_gaussian_law(d / loss, d, q);
    ++laws;
    for (const auto& xs : partitions(*law, rng)) {
      const mass2 t = partition_total(*law, xs);
      ASSERT_NEAR(t.p, 1.0, 1e-13)
          << law->describe() << " over " << xs.size() << " cells from " << xs.front();
      ASSERT_NEAR(t.q, 1.0, 1e-13)
          << law->describe() << " over " << xs.size() << " cells from " << xs.front();
    }
  }
  EXPECT_GT(laws, 300);
}

}  // namespace
}  // namespace fdp
