// The one-run f-DP audit of Mahloujifar, Melis & Chaudhuri (2024,
// "Auditing f-differential privacy in one run", arXiv:2410.22235), in the
// setting of fdp/audit/one_run.hpp (m canaries, each included with
// probability 1/2; r guesses on the highest and lowest scores, v correct).
//
// Where Steinke et al. bound the correct guesses of an (eps, delta)-DP
// mechanism, this test bounds them for any f-DP mechanism through f's
// blow-up x -> 1 - f(x) (the largest chance an event of chance x under one
// hypothesis can have under the other). With its inverse
// g(x) = inf{alpha : 1 - f(alpha) >= x} (for G_mu: Phi(Phi^{-1}(x) - mu)),
// at significance level a the test runs, from j = v down to 0,
//   h_v = a (r/m) (r - v)/r,   s_v = a (r/m) v/r,
//   h_i = g(s_{i+1}),   s_i = s_{i+1} + i/(r - i) (h_i - h_{i+1}),
// and rejects the claim "f-DP" when s_0 + h_0 > r/m: the paper's Algorithm 3
// (Section 3.1, with its Lemma A.4 the proof) for alphabet k = 2,
// membership guesses; the paper rejects at >=, the stricter > is kept. Its
// appendix code, and PrivacyGuard's FDPAnalysisNode after it, take h_i =
// max(h_{i+1}, g(s_{i+1})) instead, which rejects at least as often and
// which the proof does not cover; on 1,500 random (m, r, v, level) with
// 201 mu each the two never decided differently. The level is also checked
// by simulation in tests/audit/one_run_fdp_test.cpp.
//
// A claim is tested on the lower end of its curve (a weaker claim, which a
// mechanism meeting the claim meets too: rounding never makes a false
// rejection). The GDP lower bound is the largest mu the test rejects, by a
// bisection that keeps its lower end rejected: a mechanism whose true mu'
// is at most that mu is that-mu-GDP too, so the rejection is a false one,
// of probability at most a. (Rejection is also monotone in mu on every
// case tried, which makes the bound the largest; the tests check it.)
#pragma once

#include <cstdint>
#include <functional>

namespace fdp::audit {

/// g above: x in [0, 1] -> alpha in [0, 1], nondecreasing.
using inverse_blow_up = std::function<double(double)>;

/// g for G_mu: Phi(Phi^{-1}(x) - mu).
inverse_blow_up gdp_inverse_blow_up(double mu);

/// g for a claimed curve given by a nonincreasing lower bound beta(alpha):
/// the smallest alpha with beta(alpha) <= 1 - x, by bisection (to 2^-50).
inverse_blow_up curve_inverse_blow_up(std::function<double(double)> beta_lower);

/// True if v correct of r guesses among m canaries are consistent with the
/// claim at significance `level` in (0, 1). 0 <= v <= r <= m, r >= 1
/// (std::invalid_argument otherwise).
bool one_run_fdp_consistent(const inverse_blow_up& g, std::int64_t m, std::int64_t r,
                            std::int64_t v, double level);

/// The largest mu whose G_mu the test rejects at `level` (to 1e-9
/// relative, rounded down; 0 when even mu = 0 is not rejected, and the
/// search stops at mu = 40).
double one_run_gdp_mu_lower(std::int64_t m, std::int64_t r, std::int64_t v, double level);

}  // namespace fdp::audit
