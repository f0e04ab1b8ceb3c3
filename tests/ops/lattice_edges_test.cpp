// Soundness at the edges of the closed forms, against truths computed here
// apart from fdp:
// * the exact k-fold composition of f_{eps0,delta0} (Kairouz, Oh &
//   Viswanath; f_{eps,delta} = f_{eps,0} (x) f_{0,delta}, f_{eps,0}
//   randomized response), in log space with long double lgamma: beta at
//   alpha within 1e-15 of 1 and around (1 - delta0)^k where the P-only class
//   begins, delta at eps up to the top of the lattice (k eps0 up to 5e4),
//   where it falls below the double range;
// * the GDP summary of the Poisson-subsampled Gaussian, sqrt(T)/sigma for
//   every q > 0 (the composition lies above G_{sqrt(T)/sigma}, DRS Thm 4.2
//   composed; the test "sum of the outputs above t" approaches it as alpha ->
//   0, far below the double range, so no grid sees it).
// FDP_LATTICE_SEED / FDP_LATTICE_CASES, FDP_SUMMARY_CASES: other seeds,
// more cases (scripts/soundness_sweep.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"
#include "soundness_checker.hpp"

namespace fdp {
namespace {

using ld = long double;
constexpr ld kNegInf = -std::numeric_limits<ld>::infinity();

std::string g17(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

ld log_add(ld a, ld b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const ld m = std::max(a, b);
  return m + std::log1p(std::exp(std::min(a, b) - m));
}

// f_{eps0,delta0}^{(x) k}: J ~ number of coordinates with loss +eps0, under
// P Bin(k, 1/(1+e^eps0)), under Q Bin(k, e^eps0/(1+e^eps0)); the loss is
// eps0 (2J - k); with probability 1 - (1-delta0)^k some coordinate is
// P-only (loss -inf), and as likely Q-only (+inf). Symmetric.
struct kov {
  ld eps0, log_keep;  // log (1 - delta0)^k
  std::int64_t k;
  std::vector<ld> lp;  // log P(J = j)

  kov(double e, double d, std::int64_t kk)
      : eps0(e), log_keep(static_cast<ld>(kk) * std::log1p(-static_cast<ld>(d))), k(kk) {
    const ld lup = -std::log1p(std::exp(eps0));  // log 1/(1+e^eps0)
    const ld ldown = eps0 + lup;                 // log e^eps0/(1+e^eps0)
    for (std::int64_t j = 0; j <= k; ++j) {
      const ld n = static_cast<ld>(k), x = static_cast<ld>(j);
      lp.push_back(std::lgamma(n + 1) - std::lgamma(x + 1) - std::lgamma(n - x + 1) + x * lup +
                   (n - x) * ldown);
    }
  }
  ld loss(std::int64_t j) const { return eps0 * static_cast<ld>(2 * j - k); }

  // log of delta(eps) = (1 - keep) + keep sum_j P_j (e^{L_j} - e^eps)_+
  ld log_delta(ld eps) const {
    ld acc = kNegInf;
    for (std::int64_t j = k; j >= 0 && loss(j) > eps; --j)
      acc = log_add(acc, lp[j] + loss(j) + std::log(-std::expm1(eps - loss(j))));
    const ld inf_mass = log_keep < 0 ? std::log(-std::expm1(log_keep)) : kNegInf;
    return log_add(inf_mass, log_keep + acc);
  }

  // beta(alpha): accept the lowest losses first, P-mass 1 - alpha in all
  // (Neyman-Pearson): the P-only class (mass 1 - keep), then J = 0, 1, ...
  ld beta(double alpha) const {
    const ld keep = std::exp(log_keep);
    ld left = keep - static_cast<ld>(alpha);  // P-mass still to accept after the P-only class
    if (left <= 0) return 0;
    ld b = 0;
    for (std::int64_t j = 0; j <= k; ++j) {
      const ld p = keep * std::exp(lp[j]), q = p * std::exp(loss(j));
      if (p >= left) return b + q * (left / p);
      b += q, left -= p;
    }
    return b;
  }
};

struct lattice_case {
  double eps0, delta0;
  std::int64_t k;
  std::string spec;
};

lattice_case random_lattice(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  lattice_case c;
  c.k = static_cast<std::int64_t>(std::pow(10.0, 4.3 * U(rng)));      // 1 .. 2e4
  c.eps0 = std::pow(10.0, -3 + 3.5 * U(rng));                         // 1e-3 .. 3.2
  c.delta0 = U(rng) < 0.4 ? 0.0 : std::pow(10.0, -12 + 10 * U(rng));  // 0 or 1e-12 .. 1e-2
  if (c.k == 1 && c.delta0 == 0) c.k = 2;
  c.spec =
      "epsdelta:eps=" + g17(c.eps0) + ",delta=" + g17(c.delta0) + ",times=" + std::to_string(c.k);
  return c;
}

// A bracket against a truth given by its log (below the double range the
// upper end must stay positive and the lower end may only be 0).
void contains_log(checker& chk, const std::string& ctx, const std::string& q, interval b,
                  ld log_truth) {
  if (log_truth > std::log(static_cast<ld>(std::numeric_limits<double>::min())) + 1) {
    chk.contains(ctx, q, b, static_cast<double>(std::exp(log_truth)), 1e-11, 0.0);
    return;
  }
  const bool ok =
      b.upper > 0 && (b.lower == 0 || std::log(static_cast<ld>(b.lower)) <= log_truth + 1e-9L);
  chk.contains(ctx, q + " (truth 10^" + g17(static_cast<double>(log_truth / std::log(10.0L))) + ")",
               ok ? interval{0.0, 1.0} : b, ok ? 0.5 : -1.0, 0.0);
}

TEST(LatticeEdges, KFoldEpsDeltaAtItsEdgesBracketsTheTruth) {
  const std::uint64_t seed = std::getenv("FDP_LATTICE_SEED")
                                 ? std::strtoull(std::getenv("FDP_LATTICE_SEED"), nullptr, 0)
                                 : 0x1a771ceULL;
  const int n_cases =
      std::getenv("FDP_LATTICE_CASES") ? std::atoi(std::getenv("FDP_LATTICE_CASES")) : 80;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  checker chk("k-fold f_{eps,delta} edges (seed " + std::to_string(seed) + ")");
  for (int i = 0; i < n_cases; ++i) {
    const lattice_case lc = random_lattice(rng);
    const kov t(lc.eps0, lc.delta0, lc.k);
    const std::string ctx = "lattice seed=" + std::to_string(seed) + " case " + std::to_string(i) +
                            " [" + lc.spec + "]";
    const composition c = compose({parse_spec(lc.spec)});
    const double keep = static_cast<double>(std::exp(t.log_keep)),
                 top = lc.eps0 * static_cast<double>(lc.k);
    // alpha near 1, near the P-only class, and beyond it
    for (double a : {1 - std::pow(10.0, -1 - 14 * U(rng)), 1 - std::ldexp(1.0, -52),
                     keep * (1 - std::pow(10.0, -2 - 12 * U(rng))),
                     std::min(1.0, keep * (1 + 1e-9)), U(rng)}) {
      const ld truth = t.beta(a);
      chk.contains(ctx, "beta(alpha=" + g17(a) + ")", c.beta(a), static_cast<double>(truth), 1e-11,
                   1e-300);
    }
    // delta near the top of the lattice: from moderate down to far below the double range
    for (double f : {0.5 * U(rng), 0.9 + 0.1 * U(rng), 1 - std::pow(10.0, -3 - 6 * U(rng))}) {
      const double e = top * f;
      contains_log(chk, ctx, "delta(eps=" + g17(e) + ")", c.delta(e), t.log_delta(e));
    }
  }
  chk.report();
}

TEST(LatticeEdges, SubsampledGaussianSummaryIsSqrtTOverSigma) {
  const int n_cases =
      std::getenv("FDP_SUMMARY_CASES") ? std::atoi(std::getenv("FDP_SUMMARY_CASES")) : 12;
  std::mt19937_64 rng(0x5a3a1e5ULL);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  checker chk("subsampled Gaussian GDP summaries");
  compose_options o;
  o.max_memory = std::size_t(1) << 28;
  for (int i = 0; i < n_cases; ++i) {
    const double sigma = std::pow(10.0, -0.5 + 2.2 * U(rng)), q = std::pow(10.0, -20 * U(rng));
    const auto T = static_cast<std::int64_t>(std::pow(10.0, 3 * U(rng)));
    const std::string spec =
        "subsampled-gaussian:sigma=" + g17(sigma) + ",q=" + g17(q) + ",times=" + std::to_string(T);
    const composition c = compose({parse_spec(spec)}, o);
    chk.contains(spec, "mu()", c.mu(), std::sqrt(static_cast<double>(T)) / sigma, 1e-12);
  }
  chk.report();
}

}  // namespace
}  // namespace fdp
