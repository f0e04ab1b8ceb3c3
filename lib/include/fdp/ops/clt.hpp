// The central limit theorem of f-DP: the functionals kl, kappa2, kappa3 and
// kappa3bar of a trade-off function, the CLT approximation G_{clt_mu} of a
// long composition with its Berry-Esseen band, and the (eps, delta) limit.
//
// Reference: Dong, Roth & Su, "Gaussian Differential Privacy" (DRS; JRSS-B
// 2022, arXiv:1905.02383), Section 3.2: the functionals before Thm 3.4, the
// Berry-Esseen band of Thm 3.5, the (eps, delta) limit of Thm 3.6.
//
// The functionals of f = T(P, Q), with L = log(dQ/dP) under P (a segment of f
// with slope -e^l and width p is P-mass p at loss l, see curve.hpp):
//   kl(f)        = -int_0^1 log|f'(x)| dx     = -E_P[L]   (= KL(P || Q)),
//   kappa2(f)    =  int_0^1 log^2|f'(x)| dx   =  E_P[L^2],
//   kappa3(f)    =  int_0^1 |log|f'(x)||^3 dx =  E_P|L|^3,
//   kappa3bar(f) =  int_0^1 |log|f'(x)| + kl(f)|^3 dx = E_P|L + kl|^3,
// and, beside them, var(f) = kappa2 - kl^2 = Var_P(L), evaluated directly (not
// by the subtraction) because the CLT divides by the sum of the variances.
//
// Infinite functionals: if f' = 0 on an interval (P-mass at loss -inf, e.g.
// f_{eps,delta} with delta > 0, whose f vanishes on [1 - delta, 1]), log|f'|
// is -inf on a set of positive measure and every functional is infinite; the
// result then says so (finite == false, with the reason) and carries no
// numbers. Q-mass at loss +inf alone (f(0) < 1) does not enter the integrals
// over (0, 1], so the functionals stay finite; a symmetric f with f(0) < 1
// also vanishes near 1 and is caught by the first rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fdp/core/tradeoff.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/loss_law.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {

/// The CLT functionals of one trade-off function (see the header comment).
/// When finite is false every number is 0 and `reason` says why.
struct clt_functionals {
  bool finite = true;
  std::string reason;
  double kl = 0.0;
  double kappa2 = 0.0;
  double kappa3 = 0.0;
  double kappa3bar = 0.0;
  double var = 0.0;  ///< kappa2 - kl^2 = Var_P(L), computed without cancellation
};

// ------------------------------------------------------------ closed forms
// Domain: the family's own parameter range. Accuracy: relative error below
// 1e-14 against mpmath (tests/golden/clt_golden.csv, made by
// gen_clt_golden.py; measured max 3.6e-16 over mu, eps in [1e-4, 100]).
// Error direction: two-sided (rounding only).

/// G_mu: L ~ N(-mu^2/2, mu^2) under P, so kl = mu^2/2, kappa2 = mu^2 + mu^4/4,
/// kappa3bar = E|mu Z|^3 = 2 sqrt(2/pi) mu^3, and kappa3 = mu^3 E|Z - mu/2|^3
/// with E|Z + t|^3 = (t^3 + 3t) erf(t/sqrt2) + 2 (t^2 + 2) phi(t)
/// (DRS Sec. 3.2 gives kl, kappa2 and kappa3bar).
clt_functionals functionals(const gaussian& f);

/// f_{eps,0}: L = -eps with P-mass p = e^eps/(1+e^eps), +eps with 1 - p:
/// kl = eps tanh(eps/2), kappa2 = eps^2, kappa3 = eps^3, var = eps^2 / cosh^2(eps/2),
/// kappa3bar = 8 eps^3 e^eps (1 + e^{2 eps}) / (1 + e^eps)^4 (DRS Sec. 3.2).
/// f_{eps,delta} with delta > 0: infinite (finite == false).
clt_functionals functionals(const eps_delta& f);

/// The Laplace trade-off T(Lap(0,1), Lap(mu,1)). Its loss law under P (derived
/// from L(x) = |x| - |x - mu|, see loss_law.cpp): an atom at -mu of P-mass 1/2,
/// an atom at +mu of P-mass e^-mu/2, and L = 2x - mu for x in (0, mu) with
/// P-density e^-x/2. Hence, for any c in [-mu, mu] and x_c = (mu + c)/2,
///   E_P|L - c|^n = |mu + c|^n / 2 + e^-mu |mu - c|^n / 2
///                + 2^{n-1} [ int_0^{x_c} (x_c - x)^n e^-x dx + e^{-x_c} int_0^{mu - x_c} t^n e^-t
///                dt ],
/// and kl = mu + e^-mu - 1 (DRS Sec. 3.2 states kl). The two integrals are
/// evaluated from positive series (small arguments) or the closed
/// incomplete-gamma sums (large ones), so no term cancels.
clt_functionals functionals(const laplace& f);

/// Id: every functional is 0.
clt_functionals functionals(const identity& f);

/// A piecewise-linear curve: exact sums over its PLD (to_pld), -sum p_i l_i
/// etc., accumulated in long double. Infinite when the curve reaches 0 before
/// alpha = 1. Accuracy: the conditioning of the sums (sum p_i |l_i| / kl
/// times 1e-16 for kl; about 1e-15 relative for the rest).
clt_functionals functionals(const curve& f);

/// Dispatch over the variant.
clt_functionals functionals(const tradeoff& f);

// ------------------------------------------------------------ numeric route

/// Options of the numeric route.
struct clt_quadrature_options {
  double rel_tol = 1e-13;  ///< target relative error of each functional
};

/// The functionals of any loss law (the numeric face of every spec,
/// including subsampled mechanisms) by quadrature of its tail functions:
/// for g with g(c) = 0, E_P[g(L)] = int_c^inf g'(l) P(L > l) dl
/// - int_{-inf}^c g'(l) P(L <= l) dl ("layer cake"). The integrands are
/// positive on both sides of c, so nothing cancels:
///   kl        = E_P[e^L - 1 - L] + q_pos_inf   (c = 0; uses E_P e^L = 1 - q_pos_inf),
///   var       = E_P|L + kl|^2,   kappa3bar = E_P|L + kl|^3   (c = -kl: the kink),
///   kappa3    = E_P|L|^3                                    (c = 0),
///   kappa2    = var + kl^2.
/// Each integral is split at c, at the law's atoms (where the tail functions
/// jump) and at the ends of its support, and every smooth piece is
/// integrated with adaptive Gauss-Kronrod (31 points); unbounded ends are
/// covered by doubling pieces until a piece adds less than 1e-18 of the
/// total. The kl integrand e^l P(L > l) is switched at l = 400 to
/// Q(L > 400) - e^400 P(L > 400) - int_400^inf P(L > l) dl (no overflow, no
/// subnormal tails). Domain: laws with finite moments. Accuracy: tests hold
/// it to 1e-10 relative; measured max 4.9e-15 against mpmath (G_mu,
/// f_{eps,0}, Laplace, parameters 1e-4 .. 100), 1.5e-15 against the closed
/// forms on a grid 1e-3 .. 31.6, 1.2e-14 against x-space quadrature for the
/// subsampled Gaussian and Laplace laws. Complexity: a few thousand mass()
/// calls (about 1 ms).
clt_functionals functionals_numeric(const loss_law& law, const clt_quadrature_options& opt = {});

/// A composition term: its closed form if it has one, else the numeric
/// route on its law (functionals of ONE application; times is separate).
clt_functionals functionals(const compose_term& t);

// ------------------------------------------------------------ the CLT

/// One entry of the CLT sum: the functionals of a trade-off function, how
/// many times it is composed, and whether it is symmetric (DRS Thm 3.5 needs
/// symmetric terms).
struct clt_term {
  clt_functionals f;
  std::int64_t times = 1;
  bool symmetric = true;
  std::string name;
};

/// The CLT approximation of f_1 (x) ... (x) f_n (DRS Thm 3.5):
///   clt_mu = 2 ||kl||_1 / sqrt(||kappa2||_1 - ||kl||_2^2),
///   gamma  = 0.56 ||kappa3bar||_1 / (||kappa2||_1 - ||kl||_2^2)^{3/2},
/// where ||x||_1 = sum_i times_i x_i and ||kl||_2^2 = sum_i times_i kl_i^2
/// (the denominator is sum_i times_i var_i).
///
/// clt_mu is an APPROXIMATION, NOT A BOUND: G_{clt_mu} can lie above or below
/// the true composition (on k-fold Laplace it over-states epsilon; on DP-SGD
/// it under-states it). The band is the Berry-Esseen statement of Thm 3.5:
/// when gamma < 1/2, for alpha in [gamma, 1 - gamma],
///   G_mu(alpha + gamma) - gamma <= (x) f_i (alpha) <= G_mu(alpha - gamma) + gamma.
/// It is a theorem (a two-sided bound, up to the rounding of the
/// functionals), but a loose one: gamma shrinks like 1/sqrt(n).
///
/// Not applicable (applicable() == false, reason() says why): an asymmetric
/// term, a term with infinite functionals, or no terms. When every term is Id
/// the composition is Id = G_0 exactly: clt_mu = 0, gamma = 0.
class clt_approximation {
 public:
  bool applicable() const { return applicable_; }
  const std::string& reason() const { return reason_; }
  /// Throw std::invalid_argument naming the reason when not applicable.
  double clt_mu() const;
  double gamma() const;
  /// gamma < 1/2 (and applicable).
  bool band_valid() const;
  /// The band at alpha, clipped to [0, 1 - alpha] (where every trade-off
  /// function lies); std::nullopt unless band_valid() and alpha is in
  /// [gamma, 1 - gamma].
  std::optional<interval> band(double alpha) const;
  /// The approximation G_{clt_mu}(alpha) itself (not a bound).
  double beta(double alpha) const;

  /// Sums over the terms (valid when every term is finite).
  double kl_l1() const { return kl_l1_; }
  double kl_l2sq() const { return kl_l2sq_; }
  double kappa2_l1() const { return kappa2_l1_; }
  double kappa3_l1() const { return kappa3_l1_; }
  double kappa3bar_l1() const { return kappa3bar_l1_; }
  double var_l1() const { return var_l1_; }

 private:
  friend clt_approximation clt(const std::vector<clt_term>& terms);
  bool applicable_ = false;
  std::string reason_;
  double mu_ = 0.0, gamma_ = 0.0;
  double kl_l1_ = 0.0, kl_l2sq_ = 0.0, kappa2_l1_ = 0.0, kappa3_l1_ = 0.0, kappa3bar_l1_ = 0.0,
         var_l1_ = 0.0;
};

/// The CLT approximation of the composition of the terms.
clt_approximation clt(const std::vector<clt_term>& terms);

/// The CLT term of a spec (closed form or numeric route; symmetric as its law).
clt_term make_clt_term(const spec& s);

/// clt(make_clt_term(s) for s in specs).
clt_approximation clt(const std::vector<spec>& specs);

// ------------------------------------------------------------ (eps, delta) limit

/// DRS Thm 3.6: if sum eps_i^2 -> mu^2, max eps_i -> 0, sum delta_i -> delta
/// and max delta_i -> 0, then (x) f_{eps_i, delta_i} -> G_mu (x) f_{0, 1 - e^-delta}.
/// This object is that limit for a finite list: mu = sqrt(sum eps_i^2),
/// delta = sum delta_i. It is an APPROXIMATION of the composition, NOT A BOUND.
///
/// With d = 1 - e^-delta, the limit is (docs/formulas.md, composition)
///   beta(a)     = (1 - d) G_mu(a / (1 - d)) for a <= 1 - d, else 0,
///   delta(eps)  = d + (1 - d) delta_{G_mu}(eps)   (Q-mass d at loss +inf),
/// and terms() gives it as two compose terms (G_mu and f_{0,d}) so that the
/// composition engine and every operation built on it accept it.
class clt_eps_delta_limit {
 public:
  clt_eps_delta_limit(double mu, double delta_sum);
  double mu() const { return mu_; }
  double delta_sum() const { return delta_sum_; }
  /// d = 1 - e^{-delta_sum}, computed as -expm1(-delta_sum).
  double d() const { return d_; }
  double beta(double alpha) const;
  double profile_delta(double eps) const;
  /// The smallest eps >= 0 with profile_delta(eps) <= delta (+inf if none).
  double epsilon(double delta) const;
  std::vector<compose_term> terms() const;

 private:
  double mu_, delta_sum_, d_;
};

/// The limit object of a list of f_{eps,delta} terms (each repeated `times`).
clt_eps_delta_limit clt_eps_delta(const std::vector<std::pair<eps_delta, std::int64_t>>& terms);

}  // namespace fdp
