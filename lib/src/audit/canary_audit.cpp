#include "fdp/audit/canary_audit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "fdp/audit/binomial.hpp"
#include "fdp/core/error.hpp"
#include "fdp/core/families.hpp"
#include "audit/margins.hpp"

namespace fdp::audit {
namespace {

/// Signed mean difference over the pooled standard deviation (an ESTIMATE).
double gdp_fit(const std::vector<double>& in, const std::vector<double>& out) {
  auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  auto ss = [](const std::vector<double>& v, double m) {
    double s = 0;
    for (double x : v) s += (x - m) * (x - m);
    return s;
  };
  const double mi = mean(in), mo = mean(out);
  const double dof = static_cast<double>(in.size() + out.size()) - 2.0;
  if (dof <= 0) return std::numeric_limits<double>::quiet_NaN();
  const double sd = std::sqrt((ss(in, mi) + ss(out, mo)) / dof);
  if (sd == 0)
    return mi == mo ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), mi - mo);
  return (mi - mo) / sd;
}

/// The tests of one canary (ranks x both tails), certified at level g each.
struct canary_tests {
  const std::vector<double>& out_sorted;
  const std::vector<double>& in;
  double g, delta;
  const tradeoff& f;
};

/// One rank test: upper tail {score > x_(n-j)} or lower tail {score < x_(j+1)}.
test_result rank_test(const canary_tests& c, std::size_t j, bool upper, std::size_t index) {
  const auto& xs = c.out_sorted;
  const std::size_t n = xs.size();
  const double t = upper ? xs[n - 1 - j] : xs[j];
  auto in_event = [&](double s) { return upper ? s > t : s < t; };
  test_result x;
  x.index = index;
  x.nP = n;
  x.nQ = c.in.size();
  x.kP = static_cast<std::uint64_t>(std::count_if(xs.begin(), xs.end(), in_event));
  x.kQ = static_cast<std::uint64_t>(std::count_if(c.in.begin(), c.in.end(), in_event));
  x.alpha_hat = static_cast<double>(x.kP) / static_cast<double>(x.nP);
  x.beta_hat = 1.0 - static_cast<double>(x.kQ) / static_cast<double>(x.nQ);
  x.alpha_lower = x.alpha_hat;
  x.beta_lower = x.beta_hat;
  // The rank, not the count kP: its order statistic is what has the Beta law.
  const double pU = cp_upper(static_cast<double>(j), static_cast<double>(n), c.g);
  const double qL = cp_lower(static_cast<double>(x.kQ), static_cast<double>(x.nQ), c.g);
  x.alpha_upper = pU;
  x.beta_upper = 1.0 - qL;
  const auto br = detail::branches(pU, qL, c.delta, c.f);
  x.epsilon = br.eps;
  x.mu = br.mu;
  x.margin = br.margin;
  x.mirror = br.mirror_margin;
  x.claim_beta = beta(c.f, std::min(1.0, pU));
  x.violation = detail::violates(pU, qL, c.f) || detail::violates(1.0 - qL, 1.0 - pU, c.f);
  return x;
}

canary_result audit_one_canary(const canary_scores& s, double g, double delta, const tradeoff& f) {
  canary_result r;
  r.id = s.id;
  r.n_in = s.in.size();
  r.n_out = s.out.size();
  r.gdp_fit = gdp_fit(s.in, s.out);
  std::vector<double> xs = s.out;
  std::sort(xs.begin(), xs.end());
  const canary_tests c{xs, s.in, g, delta, f};
  for (std::size_t j : canary_rank_grid(xs.size())) {
    for (bool upper : {true, false}) {
      test_result x = rank_test(c, j, upper, r.tests.size());
      r.epsilon_lower = std::max(r.epsilon_lower, x.epsilon);
      r.mu_lower = std::max(r.mu_lower, x.mu);
      r.violation = r.violation || x.violation;
      r.tests.push_back(x);
    }
  }
  return r;
}

/// The violating point (a test or its mirror) with the largest gap f(alpha) - beta.
void find_witness(canary_audit_result& r, const tradeoff& f) {
  double best = -std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < r.canaries.size(); ++c) {
    for (std::size_t i = 0; i < r.canaries[c].tests.size(); ++i) {
      const test_result& x = r.canaries[c].tests[i];
      const double qL = 1.0 - x.beta_upper, pU = x.alpha_upper;
      const bool direct = detail::violates(pU, qL, f), mirror = detail::violates(1 - qL, 1 - pU, f);
      for (int m = 0; m < 2; ++m) {
        if (!(m ? mirror : direct)) continue;
        const double a = m ? x.beta_upper : x.alpha_upper, b = m ? x.alpha_upper : x.beta_upper;
        const double cb = beta(f, std::min(1.0, a));
        if (cb - b > best) {
          best = cb - b;
          r.w = witness{i, m == 1, a, b, cb};
          r.witness_canary = c;
        }
      }
    }
  }
}

/// The verdict against a claim, in the sampling audit's words.
void judge(canary_audit_result& r, const tradeoff& f, double g) {
  if (beta(f, std::numeric_limits<double>::min()) <= 0.0) {
    r.verdict = "vacuous";
    r.reason = "the claim's curve is 0 for every alpha > 0: no scores could reject it";
    return;
  }
  find_witness(r, f);
  if (r.w) {
    r.verdict = "violation";
    r.reason = "a threshold test certifies beta < f(alpha) at the stated confidence";
    return;
  }
  // Could the most extreme outcome of the best-sampled canary certify one?
  bool possible = false;
  for (const auto& c : r.canaries) {
    const double pU = cp_upper(0, static_cast<double>(c.n_out), g);
    const double qL = cp_lower(static_cast<double>(c.n_in), static_cast<double>(c.n_in), g);
    possible = possible || detail::violates(pU, qL, f) || detail::violates(1 - qL, 1 - pU, f);
  }
  r.verdict = possible ? "consistent" : "inconclusive";
  r.reason = possible ? "no evidence against the claim with these runs"
                      : "too few runs: no outcome could certify a violation of the claim";
}

}  // namespace

std::vector<std::size_t> canary_rank_grid(std::size_t n) {
  std::vector<std::size_t> j;
  for (std::size_t k = 0; k < 4 && k < n; ++k) j.push_back(k);
  for (double x = 4; x < 0.5 * static_cast<double>(n); x *= 1.5) {
    const auto k = static_cast<std::size_t>(std::floor(x));
    if (k > j.back()) j.push_back(k);
  }
  return j;
}

canary_audit_result audit_canaries(const score_table& t, const std::optional<tradeoff>& claim,
                                   const canary_options& opt) {
  fdp::detail::require(opt.confidence > 0 && opt.confidence < 1, "audit", "confidence",
                       opt.confidence, "must be in (0, 1)");
  fdp::detail::require(opt.delta >= 0 && opt.delta < 1, "audit", "delta", opt.delta,
                       "must be in [0, 1)");
  const auto groups = by_canary(t);
  canary_audit_result r;
  r.confidence = opt.confidence;
  r.delta = opt.delta;
  double bounds = 0;  // two per test: alpha_U and the lower bound on 1 - beta
  for (const auto& c : groups) {
    const std::size_t k = canary_rank_grid(c.out.size()).size();
    bounds += 4.0 * static_cast<double>(k);
    r.ranks = std::max(r.ranks, k);
  }
  r.level = (1.0 - opt.confidence) / bounds;
  const tradeoff f = claim ? *claim : tradeoff(identity{});
  for (const auto& c : groups) {
    r.canaries.push_back(audit_one_canary(c, r.level, opt.delta, f));
    const auto& x = r.canaries.back();
    const auto& b = r.canaries[r.best];
    if (x.epsilon_lower > b.epsilon_lower ||
        (x.epsilon_lower == b.epsilon_lower && x.mu_lower > b.mu_lower)) {
      r.best = r.canaries.size() - 1;
    }
    r.epsilon_lower = std::max(r.epsilon_lower, x.epsilon_lower);
    r.mu_lower = std::max(r.mu_lower, x.mu_lower);
  }
  if (claim) judge(r, f, r.level);
  return r;
}

std::vector<curve_point> canary_curve(const canary_result& c) {
  audit_result r;
  r.tests = c.tests;
  return empirical_curve(r);
}

}  // namespace fdp::audit
