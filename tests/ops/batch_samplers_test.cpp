// Batch samplers of the subsampled Gaussian besides Poisson, against answers
// made apart from their code.
//
// Fixed-size batches (sampling=without-replacement; the derivation is at the
// top of lib/src/ops/kinds/subsampled_gaussian.cpp): exact enumeration of
// every batch of a small dataset. On the input where every other gradient
// points against the record's, the step IS the add/remove pair with twice
// the shift, so the bracket must contain its delta (two-sided); on random
// 1-D inputs and under every relation the delta is never above the upper end.
//
// Truncated Poisson sampling (sampling=truncated-poisson,
// fdp/ops/truncated_poisson.hpp):
//   * the cut probability and the cut rate against direct sums of binomial
//     probabilities over the number of other records sampled;
//   * one step's delta against the closed forms of the two branch pairs,
//     mixed by hand (the pairs' tails in normal CDFs at roots found here);
//   * exact enumeration of a small mechanism (every inclusion pattern and
//     every random cut of 5 records) on an input with the largest shifts:
//     its delta, integrated numerically, never exceeds fdp's upper end (the
//     input's outputs overlap across branches, so it is 2-10x below it);
//   * Google's dp_accounting 0.6.0, which uses the same split with the
//     replace-one pair on the cut branch under every relation: under
//     replace-one and zero-out its pessimistic epsilons fall inside fdp's
//     brackets (to its grid's error), under add-remove fdp's upper end is
//     below it (fdp's cut branch is the tighter add/remove pair);
//   * no cut (max-batch >= dataset-size) gives plain Poisson's bracket; bad
//     keys are refused by name.
#include "fdp/ops/truncated_poisson.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "fdp/core/normal.hpp"
#include "fdp/ops/spec.hpp"
#include "kind_test_support.hpp"

namespace fdp {
namespace {

std::string trunc_spec(double sigma, double q, int b, int n, int times, const std::string& rel) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "subsampled-gaussian:sigma=%.17g,q=%.17g,times=%d,sampling=truncated-poisson,"
                "max-batch=%d,dataset-size=%d,neighbours=%s",
                sigma, q, times, b, n, rel.c_str());
  return buf;
}

// Binomial(n, q) probabilities by the recurrence (long double).
std::vector<long double> binomial_pmf(int n, long double q) {
  std::vector<long double> pmf(n + 1);
  pmf[0] = std::pow(1 - q, static_cast<long double>(n));
  for (int k = 1; k <= n; ++k) pmf[k] = pmf[k - 1] * (n - k + 1) / k * q / (1 - q);
  return pmf;
}

TEST(TruncatedPoisson, SplitMatchesDirectSumsOverTheOthersCount) {
  struct row {
    double q;
    int b, n;
  };
  for (const row r : {row{0.2, 5, 30}, row{0.05, 120, 2000}, row{0.5, 2, 5}, row{0.9, 9, 10}}) {
    const auto pmf = binomial_pmf(r.n - 1, r.q);
    long double p = 0, rate = 0;
    for (int k = r.b; k <= r.n - 1; ++k) {
      p += pmf[k];
      rate += pmf[k] * r.q * r.b / (k + 1.0L);
    }
    const truncation_split s = truncated_poisson_split(r.q, r.b, r.n);
    EXPECT_NEAR(s.p_cut, static_cast<double>(p), 1e-13 * static_cast<double>(p) + 1e-300);
    EXPECT_NEAR(s.rate_cut, static_cast<double>(rate / p), 1e-12 * r.q);
    EXPECT_LE(s.rate_cut, r.q);
  }
  const truncation_split none = truncated_poisson_split(0.3, 10, 10);
  EXPECT_EQ(none.p_cut, 0.0);
  EXPECT_THROW(truncated_poisson_split(0.0, 2, 5), std::invalid_argument);
  EXPECT_THROW(truncated_poisson_split(0.5, 0, 5), std::invalid_argument);
}

// One step of the add/remove pair P = N(0, s^2), Q = (1-r) N(0) + r N(d):
// delta at eps in the order Q against P (upper tail) or P against Q.
double delta_remove_order(double s, double d, double r, double eps) {
  const double x = s * s / d * std::log((std::exp(eps) - 1 + r) / r) + d / 2;
  return (1 - r) * norm_cdf(-x / s) + r * norm_cdf(-(x - d) / s) - std::exp(eps) * norm_cdf(-x / s);
}
double delta_add_order(double s, double d, double r, double eps) {
  const double v = std::exp(-eps) - 1 + r;
  if (!(v > 0)) return 0.0;
  const double x = s * s / d * std::log(v / r) + d / 2;
  return norm_cdf(x / s) - std::exp(eps) * ((1 - r) * norm_cdf(x / s) + r * norm_cdf((x - d) / s));
}
// The mirrored pair (1-r) N(0) + r N(-d) against (1-r) N(0) + r N(d): its
// loss increases in x; the root by bisection.
double delta_mirrored(double s, double d, double r, double eps) {
  auto loss = [&](double x) {
    auto dens = [&](double m) { return (1 - r) * norm_pdf(x / s) + r * norm_pdf((x - m) / s); };
    return std::log(dens(d)) - std::log(dens(-d));
  };
  double lo = -40 * s, hi = 40 * s;
  for (int i = 0; i < 200; ++i) (loss(0.5 * (lo + hi)) < eps ? lo : hi) = 0.5 * (lo + hi);
  auto upper = [&](double m) { return (1 - r) * norm_cdf(-hi / s) + r * norm_cdf(-(hi - m) / s); };
  return upper(d) - std::exp(eps) * upper(-d);
}

TEST(TruncatedPoisson, OneStepDeltaIsTheMixtureOfTheBranchPairs) {
  const double sigma = 0.9, q = 0.1, eps = 1.0;
  const int b = 12, n = 100;
  const truncation_split s = truncated_poisson_split(q, b, n);
  ASSERT_GT(s.p_cut, 0.1);  // (a case where the cut branch matters)
  const double w = s.p_cut, r = s.rate_cut;
  const double add_remove = std::max(
      (1 - w) * delta_remove_order(sigma, 1, q, eps) + w * delta_remove_order(sigma, 2, r, eps),
      (1 - w) * delta_add_order(sigma, 1, q, eps) + w * delta_add_order(sigma, 2, r, eps));
  const double replace_one =
      (1 - w) * delta_mirrored(sigma, 1, q, eps) + w * delta_mirrored(sigma, 2, r, eps);
  const double zero_out_remove =
      (1 - w) * delta_remove_order(sigma, 1, q, eps) + w * delta_mirrored(sigma, 2, r, eps);
  const double zero_out_add =
      (1 - w) * delta_add_order(sigma, 1, q, eps) + w * delta_mirrored(sigma, 2, r, eps);
  const double zero_out = std::max(zero_out_remove, zero_out_add);
  for (const auto& [rel, truth] : std::vector<std::pair<std::string, double>>{
           {"add-remove", add_remove}, {"replace-one", replace_one}, {"zero-out", zero_out}}) {
    const interval got = test::query_bracket(trunc_spec(sigma, q, b, n, 1, rel), "delta", eps);
    test::expect_contains(got, truth, rel, 1e-9, 1e-15);
    EXPECT_LE(got.upper - got.lower, 5e-3 * got.upper) << rel;
  }
}

// A dataset of 4 other records with gradient -1 and the record x with +1
// (1-D, clip 1): under add/remove the outputs with and without x. Every
// inclusion pattern of the 5 records is enumerated, and every cut of a
// batch above b to a uniform b-subset: the outputs are mixtures of
// N(sum, sigma^2) with integer sums.
struct mixture_1d {
  std::vector<double> means, weights;
  double density(double x, double sigma) const {
    double s = 0;
    for (std::size_t i = 0; i < means.size(); ++i)
      s += weights[i] * norm_pdf((x - means[i]) / sigma) / sigma;
    return s;
  }
};

mixture_1d enumerate_outputs(int others, int b, double q, bool with_x) {
  mixture_1d m;
  const int records = others + (with_x ? 1 : 0);
  for (int mask = 0; mask < (1 << records); ++mask) {
    const int k = __builtin_popcount(mask);
    const double prob = std::pow(q, k) * std::pow(1 - q, records - k);
    const bool x_in = with_x && (mask >> others & 1);
    const int others_in = k - (x_in ? 1 : 0);
    if (k <= b) {
      m.means.push_back(-others_in + (x_in ? 1.0 : 0.0));
      m.weights.push_back(prob);
      continue;
    }
    // a uniform b-subset of the k: x kept with probability b/k
    const double keep_x = x_in ? static_cast<double>(b) / k : 0.0;
    if (keep_x > 0) m.means.push_back(-(b - 1) + 1.0), m.weights.push_back(prob * keep_x);
    m.means.push_back(-b), m.weights.push_back(prob * (1 - keep_x));
  }
  return m;
}

// sup_S Q(S) - e^eps P(S) = integral of (q - e^eps p)_+, by the midpoint rule.
double numeric_delta(const mixture_1d& p, const mixture_1d& q, double sigma, double eps) {
  const double h = 2e-4;
  double s = 0;
  for (double x = -12; x < 12; x += h) {
    const double mid = x + h / 2;
    s += std::max(0.0, q.density(mid, sigma) - std::exp(eps) * p.density(mid, sigma));
  }
  return s * h;
}

TEST(TruncatedPoisson, EnumeratedSmallMechanismNeverExceedsTheBound) {
  const int others = 4, b = 2;
  for (const double q : {0.3, 0.6}) {
    for (const double sigma : {0.6, 1.5}) {
      const mixture_1d with = enumerate_outputs(others, b, q, true),
                       without = enumerate_outputs(others, b, q, false);
      for (const double eps : {0.25, 1.0}) {
        const double truth_lower_bound = std::max(numeric_delta(without, with, sigma, eps),
                                                  numeric_delta(with, without, sigma, eps));
        const interval got =
            test::query_bracket(trunc_spec(sigma, q, b, others + 1, 1, "add-remove"), "delta", eps);
        EXPECT_LE(truth_lower_bound, got.upper * (1 + 1e-6) + 1e-9)
            << "q " << q << " sigma " << sigma << " eps " << eps;
        EXPECT_GT(truth_lower_bound, 1e-4 * got.upper);  // (the case tests something)
      }
    }
  }
}

// dp_accounting 0.6.0, PLDAccountant(neighboring_relation=R) (default
// discretization 1e-4), compose(TruncatedSubsampledGaussianDpEvent(
// dataset_size, sampling_probability, truncated_batch_size, noise_multiplier),
// count), get_epsilon(delta).
TEST(TruncatedPoisson, AgreesWithDpAccountingWhereItUsesTheSamePair) {
  struct row {
    int n;
    double q;
    int b;
    double sigma;
    int t;
    double delta;
    const char* rel;
    double theirs;
  };
  const std::vector<row> rows = {
      {1000, 0.05, 60, 1.0, 100, 1e-5, "replace-one", 9.51378996653384},
      {1000, 0.05, 60, 1.0, 100, 1e-5, "zero-out", 8.871366947996023},
      {1000, 0.05, 60, 1.0, 100, 1e-5, "add-remove", 8.871366947996023},
      {200, 0.1, 25, 2.0, 50, 1e-6, "add-remove", 3.8174477018856585},
  };
  for (const row& r : rows) {
    const interval ours =
        test::query_bracket(trunc_spec(r.sigma, r.q, r.b, r.n, r.t, r.rel), "eps", r.delta);
    const std::string what = trunc_spec(r.sigma, r.q, r.b, r.n, r.t, r.rel);
    EXPECT_LE(ours.lower, r.theirs)
        << what;  // (theirs is an upper bound of the same pair or a looser one)
    if (std::string(r.rel) == "add-remove") {
      EXPECT_LT(ours.upper, r.theirs) << what;
    } else {
      EXPECT_GE(ours.upper, r.theirs * (1 - 2e-3)) << what;  // (their grid's own error)
    }
  }
}

TEST(TruncatedPoisson, NoCutIsPlainPoisson) {
  const interval cut_never =
      test::query_bracket(trunc_spec(1.1, 0.01, 500, 500, 300, "add-remove"), "eps", 1e-5);
  const interval poisson =
      test::query_bracket("subsampled-gaussian:sigma=1.1,q=0.01,times=300", "eps", 1e-5);
  EXPECT_EQ(cut_never.lower, poisson.lower);
  EXPECT_EQ(cut_never.upper, poisson.upper);
}

// Every uniform b-subset of the records (gradients g, the record x at
// index 0 when `with_x`): the batch sums as a 1-D Gaussian mixture.
mixture_1d fixed_size_outputs(const std::vector<double>& g, int b, bool with_x) {
  mixture_1d m;
  const int first = with_x ? 0 : 1, n = static_cast<int>(g.size()) - first;
  std::vector<int> subsets;
  for (int mask = 0; mask < (1 << n); ++mask)
    if (__builtin_popcount(mask) == b) subsets.push_back(mask);
  for (int mask : subsets) {
    double sum = 0;
    for (int i = 0; i < n; ++i)
      if (mask >> i & 1) sum += g[first + i];
    m.means.push_back(sum);
    m.weights.push_back(1.0 / static_cast<double>(subsets.size()));
  }
  return m;
}

std::string fixed_spec(double sigma, double q, const std::string& rel) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "subsampled-gaussian:sigma=%.17g,q=%.17g,sampling=without-replacement,"
                "neighbours=%s",
                sigma, q, rel.c_str());
  return buf;
}

// Add/remove: 5 records (x and 4 others), batches of 2, q = 2/5.
TEST(FixedSizeBatches, TheOpposedInputMeetsTheBoundExactly) {
  const std::vector<double> g{1, -1, -1, -1, -1};
  const int b = 2;
  for (const double sigma : {0.7, 2.0}) {
    const mixture_1d with = fixed_size_outputs(g, b, true),
                     without = fixed_size_outputs(g, b, false);
    for (const double eps : {0.1, 0.8}) {
      const double truth = std::max(numeric_delta(without, with, sigma, eps),
                                    numeric_delta(with, without, sigma, eps));
      const interval got = test::query_bracket(fixed_spec(sigma, 0.4, "add-remove"), "delta", eps);
      test::expect_contains(got, truth, "sigma " + std::to_string(sigma), 1e-6, 1e-9);
    }
  }
}

TEST(FixedSizeBatches, RandomInputsNeverExceedTheBound) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const int b = 2;
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<double> g(5);
    for (double& x : g) x = unit(rng);
    const double sigma = 0.5 + trial * 0.3;
    // add-remove: x against no record; zero-out: against a zero gradient;
    // replace-one: against another gradient of norm <= 1
    std::vector<double> zeroed = g, replaced = g;
    zeroed[0] = 0.0;
    replaced[0] = unit(rng);
    const mixture_1d with = fixed_size_outputs(g, b, true);
    const std::vector<std::pair<std::string, mixture_1d>> others{
        {"add-remove", fixed_size_outputs(g, b, false)},
        {"zero-out", fixed_size_outputs(zeroed, b, true)},
        {"replace-one", fixed_size_outputs(replaced, b, true)}};
    for (const auto& [rel, other] : others) {
      const double q = 0.4;  // (b / 5: x's dataset has 5 records, the larger one)
      for (const double eps : {0.0, 0.5}) {
        const double delta = std::max(numeric_delta(other, with, sigma, eps),
                                      numeric_delta(with, other, sigma, eps));
        const interval got = test::query_bracket(fixed_spec(sigma, q, rel), "delta", eps);
        EXPECT_LE(delta, got.upper * (1 + 1e-6) + 1e-9) << rel << " trial " << trial;
      }
    }
  }
}

TEST(TruncatedPoisson, BadKeysAreRefusedByName) {
  test::expect_refused(
      {{"subsampled-gaussian:sigma=1,q=0.1,sampling=truncated-poisson,dataset-size=10",
        "needs max-batch"},
       {"subsampled-gaussian:sigma=1,q=0.1,sampling=truncated-poisson,max-batch=3",
        "needs dataset-size"},
       {"subsampled-gaussian:sigma=1,q=0.1,max-batch=3", "truncated-poisson only"},
       {"subsampled-gaussian:sigma=1,q=0.1,sampling=truncated-poisson,max-batch=0,dataset-size=9",
        "max-batch"},
       {"subsampled-gaussian:sigma=1,q=0.1,sampling=truncated-poisson,max-batch=2.5,"
        "dataset-size=9",
        "max-batch"},
       {"subsampled-gaussian:sigma=1,q=0.1,group=2,sampling=truncated-poisson,max-batch=3,"
        "dataset-size=9",
        "group > 1"}},
      [](const std::string& t) { return make_term(parse_spec(t)); });
}

}  // namespace
}  // namespace fdp
