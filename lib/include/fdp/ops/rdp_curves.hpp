// Renyi-DP curves of the trade-off families, per application, at order
// alpha > 1 (sensitivity folded into the parameter). The spec kinds
// (fdp/ops/spec_kind.hpp) build their RDP hooks from these; the accountant
// that adds them up is fdp/budget/rdp.hpp.
//
//   G_mu (Gaussian, gdp):       r = alpha mu^2 / 2                       (Mironov 2017, Prop. 7)
//   Laplace, T(Lap(0,1), Lap(mu,1)):                                      (Mironov 2017, Prop. 6)
//       r = 1/(alpha-1) log( alpha/(2 alpha-1) e^{(alpha-1) mu} + (alpha-1)/(2 alpha-1) e^{-alpha
//       mu} )
//   f_{eps,0} (any eps-DP mechanism; exact for randomized response, which
//   dominates every eps-DP pair): with p = e^eps / (1 + e^eps),
//       r = 1/(alpha-1) log( p^alpha (1-p)^{1-alpha} + (1-p)^alpha p^{1-alpha} )
//   Poisson-subsampled Gaussian, add/remove, INTEGER alpha (Mironov, Talwar &
//   Zhang 2019, "Renyi differential privacy of the sampled Gaussian mechanism",
//   Sec. 3.3; the same expression bounds both orders):
//       r = 1/(alpha-1) log sum_{k=0}^{alpha} C(alpha,k) (1-q)^{alpha-k} q^k e^{(k^2-k)/(2 s^2)},
//       s = sigma / sensitivity;
//   any law with bounded loss support (subsampled Laplace, curves): an upper
//   Riemann sum of E_P[e^{alpha L}] over loss bins of the law (both orders),
//   r = 1/(alpha-1) log of it; infinite when the law has mass at loss +inf.
#pragma once

#include "fdp/ops/loss_law.hpp"

namespace fdp {

double rdp_gaussian(double mu, double alpha);
double rdp_laplace(double mu, double alpha);
double rdp_pure(double eps, double alpha);
/// Integer alpha >= 2 only (throws otherwise). s = sigma / sensitivity.
double rdp_subsampled_gaussian(double s, double q, double alpha);
/// Upper bound for laws with finite lo()/hi() (bins of width at most `bin`).
double rdp_of_law(const loss_law& law, double alpha, double bin = 1e-3);

}  // namespace fdp
