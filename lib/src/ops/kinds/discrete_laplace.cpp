// Spec kind "discrete-laplace": the discrete Laplace mechanism on integer
// answers, x + Z with P(Z = z) = (1 - w)/(1 + w) w^|z|, w = e^{-1/t}, z an
// integer (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for
// Differential Privacy", arXiv 2004.00010; the two-sided geometric mechanism
// of Ghosh, Roughgarden & Sundararajan 2009), on a query of integer l1
// sensitivity D >= 1. The same mechanism is given by its eps = D / t (as the
// mechanism catalogue's discrete-laplace:eps=E,sensitivity=D).
//
// The worst neighbouring pair is P = Z, Q = Z + D. With x = 1/t, the loss
// L(z) = log dQ/dP (z) = x (|z| - |z - D|) is -D x for z <= 0, (2z - D) x for
// 0 < z < D and D x for z >= D: D + 1 atoms l_j = (2j - D) x, j = 0..D, with
//   P-masses p_0 = P(Z <= 0) = 1/(1 + w), p_D = P(Z >= D) = w^D/(1 + w),
//            p_j = c w^j (0 < j < D), c = (1 - w)/(1 + w) = -expm1(-x)/(1 + w),
//   Q-masses q_j = p_{D-j}.
// So |L| <= D x: (D/t, 0)-DP; and the reflection z -> D - z exchanges P and
// Q, so T(P, Q) = T(Q, P). By Neyman-Pearson (reject the largest losses
// first) T(P, Q) is the polygon through (0, 1), then for m = D, ..., 1
//   (P(Z >= m), Q(Z < m)) = (w^m/(1 + w), w^{D+1-m}/(1 + w)),
// and (1, 0): every vertex a tail sum in closed form. For D = 1 it is
// f_{x,0} (one vertex, at 1/(1 + e^x)), which composes in closed form (KOV).
// Domain: D x = eps < 700 (the PLD engine refuses losses at +-700 and
// beyond; every atom of this law carries mass there), and x >= 1e-10, i.e.
// t <= 1e10 (the mechanism is then Id to within D 1e-10; below it the
// engine's optimistic discretization loses track of atoms ~1e-12 apart,
// which randomized-response:eps=1e-12,k=3 shows as well).
#include <algorithm>
#include <cmath>

#include "ops/kind_support.hpp"

namespace fdp {
namespace {

struct dlap {
  double x;    // 1/t: the loss per unit of distance
  double eps;  // D x
  int d;       // the sensitivity D
  double w;    // e^{-x}
  double c;    // P(Z = 0) = (1 - w)/(1 + w)
};

dlap params(const spec& s) {
  const int d = static_cast<int>(s.number("sensitivity"));
  dlap r{};
  r.d = d;
  if (s.has("eps")) {
    r.eps = s.number("eps");
    r.x = r.eps / d;
    if (!(r.x >= 1e-10)) {
      throw std::invalid_argument("spec '" + s.text +
                                  "': eps / sensitivity = " + detail::format_value(r.x) +
                                  " must be >= 1e-10 (t = sensitivity / eps <= 1e10)");
    }
  } else {
    const double t = s.number("t");
    r.x = 1.0 / t;
    r.eps = d / t;
    if (!(r.eps < 700.0)) {
      throw std::invalid_argument("spec '" + s.text +
                                  "': sensitivity / t = " + detail::format_value(r.eps) +
                                  " must be < 700 (eps = sensitivity / t: the privacy losses "
                                  "fdp composes lie in (-700, 700))");
    }
  }
  r.w = std::exp(-r.x);
  r.c = -std::expm1(-r.x) / (1.0 + r.w);
  return r;
}

// P(Z = j) for j = 0..D as the law's P-mass of atom j (the ends are tails).
double p_mass(const dlap& r, int j) {
  if (j == 0) return 1.0 / (1.0 + r.w);
  if (j == r.d) return std::exp(-r.eps) / (1.0 + r.w);
  return r.c * std::exp(-static_cast<double>(j) * r.x);
}

tradeoff closed(const spec& s) {
  const dlap r = params(s);
  if (r.d == 1) return tradeoff(eps_delta(r.x, 0.0));  // (composes in closed form, KOV)
  std::vector<double> alpha{0.0}, beta{1.0}, omb{0.0};
  const double z = 1.0 + r.w;
  for (int m = r.d; m >= 1; --m) {
    const double a = std::exp(-static_cast<double>(m) * r.x) / z;
    const double k = static_cast<double>(r.d + 1 - m) * r.x;
    alpha.push_back(a);  // (increasing: consecutive ones differ by a factor e^x >= e^1e-10)
    beta.push_back(std::exp(-k) / z);
    omb.push_back((r.w - std::expm1(-k)) / z);  // 1 - beta = ((1 - w^k) + w)/(1 + w)
  }
  alpha.push_back(1.0);
  beta.push_back(0.0);
  omb.push_back(1.0);
  return tradeoff(curve::from_vertices(std::move(alpha), std::move(beta), std::move(omb)));
}

// For D > 1 the polygon's vertices e^{-m x}/(1 + w): the parameter x = 1/t
// or eps/D is rounded unless the division is exact, and the vertices carry
// that rounding times m x < 700, plus a few roundings of their own (group
// brackets the polygon's power from both ends). For D = 1, f_{x,0}: group
// reads this as the relative rounding of its delta, which is 0 (x itself is
// fl(1/t), as laplace's mu is fl(S/b) in compose).
double closed_rounding(const spec& s) {
  const dlap r = params(s);
  if (r.d == 1) return 0.0;
  const double u = 0x1p-53;
  const double q = s.has("eps") ? kinds::quotient_rounding(r.eps, r.d)
                                : kinds::quotient_rounding(1.0, s.number("t"));
  return q * (1.0 + r.eps) + (2.0 * r.eps + 8.0) * u;
}

compose_term term(const spec& s) {
  const dlap r = params(s);
  compose_term t = kinds::term_of_closed(closed(s));
  std::vector<loss_atom> atoms;
  for (int j = 0; j <= r.d; ++j) {
    atoms.push_back({static_cast<double>(2 * j - r.d) * r.x, p_mass(r, j), p_mass(r, r.d - j)});
  }
  t.law = discrete_law(std::move(atoms), 0.0, 0.0, true,
                       "discrete-laplace(1/t=" + detail::format_value(r.x) +
                           ", sensitivity=" + std::to_string(r.d) + ")");
  return t;
}

// |L| <= D/t: eps-DP (Dwork & Roth Def. 2.4 with delta = 0).
std::optional<std::pair<double, double>> classic(const spec& s) {
  return std::make_pair(params(s).eps, 0.0);
}

// The loss is l_j = (2j - D) x with j = min(max(Z, 0), D) under P. Its
// moments from S = E_P j = sum_{k=1}^D P(Z >= k) = w (1 - w^D)/((1 - w)(1 + w))
// and, without cancellation,
//   D - 2S = sum_{k=1}^D (1 - 2 w^k/(1 + w)) = sum_{k=1}^D ((1 - w^k) + w (1 - w^{k-1}))/(1 + w):
// E_P L = -(D - 2S) x (so KL(P||Q) = (D - 2S) x), and the central moments
// of L are (2x)^r times those of j, summed over the atoms around S.
struct moments {
  double kl, var, k3;
};

moments central_moments(const dlap& r) {
  const double z = 1.0 + r.w;
  const double s_mean = r.w * -std::expm1(-r.eps) / (-std::expm1(-r.x) * z);
  double gap = 0.0;  // D - 2S
  for (int k = 1; k <= r.d; ++k) {
    gap += (-std::expm1(-k * r.x) - r.w * std::expm1(-(k - 1) * r.x)) / z;
  }
  double m2 = 0.0, m3 = 0.0;
  for (int j = 0; j <= r.d; ++j) {
    const double e = static_cast<double>(j) - s_mean, p = p_mass(r, j);
    m2 += p * e * e;
    m3 += p * e * e * e;
  }
  const double h = 2.0 * r.x;
  return {gap * r.x, h * h * m2, h * h * h * m3};
}

clt_moments clt(const spec& s) {
  const moments m = central_moments(params(s));
  return {m.kl, m.var, {}};
}

// Under Q, L has the law of -L under P (the pair is symmetric).
loss_cumulants edgeworth(const spec& s) {
  const moments m = central_moments(params(s));
  loss_cumulants c;
  c.mean_p = -m.kl;
  c.var_p = m.var;
  c.k3_p = m.k3;
  c.mean_q = m.kl;
  c.var_q = m.var;
  c.k3_q = -m.k3;
  return c;
}

// As for the Laplace mechanism: the scale meeting mu-GDP if the
// composition were Gaussian (a rough start).
double start_t(const spec& probe, double mu) {
  const double T = static_cast<double>(probe.times);
  return kinds::probe_number(probe, "sensitivity", 1.0) * std::sqrt(T) / mu;
}

double start_eps(const spec& probe, double mu) {
  return std::clamp(mu / std::sqrt(static_cast<double>(probe.times)), 1e-9, 699.0);
}

std::vector<calibration_param> calibration() {
  calibration_param t, eps;
  t.key = "t";
  t.smallest = true;
  t.hi = 1e10;
  t.start = start_t;
  eps.key = "eps";
  eps.hi = 699.0;
  eps.start = start_eps;
  return {t, eps, kinds::calibrate_times()};
}

}  // namespace

spec_kind spec_kind_discrete_laplace() {
  spec_kind k;
  k.name = "discrete-laplace";
  k.doc = "discrete Laplace on integers, P(z) ~ e^(-|z|/t), integer sensitivity D: eps = D/t < 700";
  k.example = "discrete-laplace:t=2,sensitivity=3,times=10";
  k.keys = {alternative_key("noise scale", "t", "T", {0.0, 1e10, true, false},
                            "noise scale: P(Z = z) proportional to e^(-|z|/t) on the integers"),
            alternative_key("noise scale", "eps", "E", {0.0, 700.0, true, true},
                            "instead of t: eps = sensitivity / t"),
            integer_key("sensitivity", "D", 1, 1, 10000, "integer l1 sensitivity")};
  k.closed = closed;
  k.closed_rounding = closed_rounding;
  k.term = term;
  k.classic = classic;
  k.clt = clt;
  k.edgeworth = edgeworth;
  k.calibration = calibration();
  return k;
}

}  // namespace fdp
