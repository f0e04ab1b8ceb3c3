// The classical (eps, delta) composition theorems and the CLT estimate, for
// the side-by-side table of `fdp compare`.
//
// Per application, each spec needs ONE (eps_i, delta_i) pair (its kind's
// classic hook, fdp/ops/spec_kind.hpp):
//   epsdelta:eps=E,delta=D -> (E, D); laplace -> (sensitivity/b, 0); id -> (0, 0);
//   specs with a privacy profile instead (gdp, gaussian, subsampled-*, curve):
//   delta_i is a share of the delta left after the fixed pairs, and eps_i the
//   certified epsilon of ONE application at delta_i (compose.hpp, upper end).
// Naive (basic) composition, Dwork & Roth Thm 3.16: (sum eps_i, sum delta_i),
// with the free delta split equally over the profile applications.
// Advanced composition, Dwork & Roth Thm 3.20 (k-fold (eps, delta) gives
// (sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1), k delta + delta')); for
// heterogeneous pairs the same proof (Azuma over the per-step losses, each in
// [-eps_i, eps_i] with mean at most eps_i (e^eps_i - 1)) gives
//   eps' = sqrt(2 ln(1/delta') sum eps_i^2) + sum eps_i (e^{eps_i} - 1),
// at total delta delta' + sum delta_i. The split of the free delta between
// delta' and the profile applications is optimised over a grid of fractions.
//
// CLT estimate (NOT a bound; DRS Thm 3.5 / Bu et al. 2020): per term its
// kl = KL(P||Q) and var = Var_P(L) (its kind's clt hook),
// mu_clt = 2 sum kl / sqrt(sum var):
//   G_mu: kl = mu^2/2, var = mu^2;  f_{eps,0}: kl = eps tanh(eps/2),
//   var = eps^2 / cosh^2(eps/2);  Laplace(mu): kl = mu + e^-mu - 1,
//   E_P L^2 = mu^2 (1 + e^-mu)/2 + [(mu^2 - 4 mu + 8) - e^-mu (mu^2 + 4 mu + 8)]/2;
//   Poisson-subsampled Gaussian (q < 1): Bu et al.'s limit, as G_m with
//   m^2 = q^2 (e^{(D/sigma)^2} - 1).
// Not applicable (with the reason): f_{eps,delta} with delta > 0,
// subsampled Laplace, curves.
#pragma once

#include <string>
#include <vector>

#include "fdp/ops/spec.hpp"

namespace fdp {

struct classic_report {
  bool applicable = true;
  std::string reason;
  double naive_eps = 0.0, naive_delta = 0.0;
  double advanced_eps = 0.0, advanced_delta = 0.0;
  double advanced_delta_prime = 0.0;  ///< the delta' of Thm 3.20 chosen
  std::string allocation;             ///< how delta was shared, in words
};

/// Naive and advanced composition of the specs at total delta `delta`.
classic_report classic_account(const std::vector<spec>& specs, double delta);

struct clt_estimate {
  bool applicable = true;
  std::string reason;
  double mu = 0.0;       ///< NOT a bound
  double epsilon = 0.0;  ///< gdp_eps(mu, delta); NOT a bound
};

clt_estimate clt_estimate_of(const std::vector<spec>& specs, double delta);

}  // namespace fdp
