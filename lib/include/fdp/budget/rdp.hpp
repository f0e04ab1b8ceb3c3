// Renyi differential privacy (the "moments accountant"), for side-by-side
// comparison with fdp's certified f-DP accounting.
//
// M is (alpha, r)-RDP if D_alpha(M(D) || M(D')) <= r for all neighbours
// (Mironov 2017, "Renyi differential privacy", CSF). RDP composes by adding r
// at each order; an RDP curve converts to (eps, delta)-DP. RDP is an upper-
// bound route: it is sound, and usually looser than the PLD accounting.
//
// Per-mechanism RDP at order alpha > 1: each spec kind's curve
// (fdp/ops/spec_kind.hpp, spec_rdp), from the formulas of
// fdp/ops/rdp_curves.hpp (Gaussian, Laplace, eps-DP, the Poisson-subsampled
// Gaussian, upper sums over a bounded law).
// f_{eps,delta} with delta > 0 has no finite RDP; its delta part is handled
// exactly instead: f_{eps,delta} = f_{eps,0} (x) f_{0,delta}, the f_{0,delta_i}
// compose to f_{0,d0} with 1 - d0 = prod (1 - delta_i), and
// delta(eps) of F (x) f_{0,d0} is d0 + (1 - d0) delta_F(eps).
//
// Conversion to (eps, delta) at each order, minimised over the orders:
//   standard (Mironov 2017, Prop. 3):  eps = r + log(1/delta) / (alpha - 1);
//   improved (Canonne, Kamath & Steinke 2020, Prop. 12; Balle, Barthe,
//   Gaboardi, Hsu & Sato 2020, Thm 21):
//       eps = r + log((alpha-1)/alpha) - (log delta + log alpha) / (alpha - 1).
#pragma once

#include <string>
#include <vector>

#include "fdp/ops/rdp_curves.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {

/// The orders used by default: 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3, ..., 64 (the
/// half-integers serve the closed forms only), 72, 80, 96, 128, 160, 192, 256, 384, 512.
std::vector<double> default_rdp_orders();

enum class rdp_conversion { standard, improved };

/// The smallest eps >= 0 over the orders; +inf if every order is infinite.
struct rdp_epsilon {
  double eps = 0.0;
  double order = 0.0;  ///< the minimising order
};
rdp_epsilon rdp_to_eps(const std::vector<double>& orders, const std::vector<double>& rdp,
                       double delta, rdp_conversion c = rdp_conversion::improved);

/// The RDP bound of a composition of specs (each with its times).
struct rdp_report {
  bool applicable = true;
  std::string reason;               ///< when not applicable
  std::vector<double> orders, rdp;  ///< composed RDP curve (+inf where infinite)
  double delta_fixed = 0.0;         ///< d0 from f_{eps,delta} terms
  rdp_epsilon standard, improved;   ///< at the requested delta
};
rdp_report rdp_account(const std::vector<spec>& specs, double delta);

}  // namespace fdp
