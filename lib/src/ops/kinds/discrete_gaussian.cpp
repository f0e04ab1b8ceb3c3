// Spec kind "discrete-gaussian": the discrete Gaussian mechanism on integer
// answers, x + Z with P(Z = z) = e^{-z^2 / (2 sigma^2)} / N, z an integer,
// N = sum_z e^{-z^2 / (2 sigma^2)} (Canonne, Kamath & Steinke 2020, "The
// Discrete Gaussian for Differential Privacy", arXiv 2004.00010, Def. 1), on
// a query of integer l1 (= l2, for one integer) sensitivity D >= 1.
//
// The worst neighbouring pair is P = Z, Q = Z + D (the noise law is
// symmetric and unimodal, so a larger shift is less private). Both share the
// normalizer N (a shift by an integer keeps the lattice), so the loss is
//   L(z) = log dQ/dP (z) = (z^2 - (z - D)^2) / (2 sigma^2) = (2 z D - D^2) / (2 sigma^2),
// a lattice of step D / sigma^2, with P-mass P(z) and Q-mass P(z - D) at
// each z. The reflection z -> D - z exchanges P and Q: T(P, Q) = T(Q, P).
// Unlike the continuous Gaussian the trade-off function is a polygon with
// infinitely many vertices and no closed form; the engine composes its law.
//
// Support: the law lists the z with |z| <= M and |z - D| <= M (and between),
// M = ceil(sigma sqrt(1500)): beyond, both masses are below
// e^{-750} / N, under the double range (5e-324), as a continuous law's
// tail masses underflow. N is summed over the same z in compensated
// arithmetic; each mass is one exp of an exactly representable argument
// minus log N (a few ulps).
// Domain: sigma in (0, 1e4] (the law has up to 2M + D + 1 ~ 77 sigma atoms),
// D in [1, 10^4]; losses beyond +-700 are refused by the engine as for every
// kind (sigma small against D).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "ops/kind_support.hpp"

namespace fdp {
namespace {

struct dgauss {
  double sigma;
  std::int64_t d;
  std::int64_t lo, hi;  // the z listed: [lo, hi] = [-M, M + D]
  double log_norm;      // log N
};

// e^{-z^2 / (2 sigma^2)} before normalization, as its exponent.
double log_weight(const dgauss& g, std::int64_t z) {
  const double x = static_cast<double>(z) / g.sigma;
  return -0.5 * x * x;
}

dgauss params(const spec& s) {
  dgauss g{};
  g.sigma = s.number("sigma");
  g.d = static_cast<std::int64_t>(s.number("sensitivity"));
  const auto m = static_cast<std::int64_t>(std::ceil(g.sigma * std::sqrt(1500.0)));
  g.lo = -m;
  g.hi = m + g.d;
  // N by a compensated sum (Neumaier) from the centre out: terms shrink
  double sum = 0.0, comp = 0.0;
  for (std::int64_t z = 0; z <= m; ++z) {
    const double w = std::exp(log_weight(g, z)) * (z == 0 ? 1.0 : 2.0);
    const double t = sum + w;
    comp += std::fabs(sum) >= std::fabs(w) ? (sum - t) + w : (w - t) + sum;
    sum = t;
  }
  g.log_norm = std::log(sum + comp);
  return g;
}

double p_mass(const dgauss& g, std::int64_t z) { return std::exp(log_weight(g, z) - g.log_norm); }

compose_term term(const spec& s) {
  const dgauss g = params(s);
  const double d = static_cast<double>(g.d), step = d / (g.sigma * g.sigma);
  std::vector<loss_atom> atoms;
  atoms.reserve(static_cast<std::size_t>(g.hi - g.lo + 1));
  for (std::int64_t z = g.lo; z <= g.hi; ++z) {
    // (2 z D - D^2) / (2 sigma^2) = (z - D/2) D / sigma^2
    const double loss = (static_cast<double>(z) - 0.5 * d) * step;
    atoms.push_back({loss, p_mass(g, z), p_mass(g, z - g.d)});
  }
  compose_term t;
  t.law = discrete_law(std::move(atoms), 0.0, 0.0, true,
                       "discrete-gaussian(sigma=" + detail::format_value(g.sigma) +
                           ", sensitivity=" + std::to_string(g.d) + ")");
  return t;
}

// E_P L = -D^2 / (2 sigma^2) (E_P Z = 0 by symmetry), so KL(P||Q) =
// D^2 / (2 sigma^2); Var_P L = (D / sigma^2)^2 E_P Z^2, the second moment
// summed over the listed z.
clt_moments clt(const spec& s) {
  const dgauss g = params(s);
  const double d = static_cast<double>(g.d), s2 = g.sigma * g.sigma;
  double m2 = 0.0;
  for (std::int64_t z = 1; z <= g.hi; ++z) {
    const double x = static_cast<double>(z);
    m2 += 2.0 * x * x * p_mass(g, z);
  }
  return {0.5 * d * d / s2, (d / s2) * (d / s2) * m2, {}};
}

// As for the continuous Gaussian: sigma meeting mu-GDP if the composition
// were G_mu (a start only; the discrete one is close to it for sigma >~ 1).
double start_sigma(const spec& probe, double mu) {
  const double T = static_cast<double>(probe.times);
  return std::clamp(kinds::probe_number(probe, "sensitivity", 1.0) * std::sqrt(T) / mu, 1e-3, 1e4);
}

std::vector<calibration_param> calibration() {
  calibration_param sigma;
  sigma.key = "sigma";
  sigma.smallest = true;
  sigma.hi = 1e4;
  sigma.start = start_sigma;
  return {sigma, kinds::calibrate_times()};
}

}  // namespace

spec_kind spec_kind_discrete_gaussian() {
  spec_kind k;
  k.name = "discrete-gaussian";
  k.doc = "discrete Gaussian on integers, P(z) ~ e^(-z^2/(2 sigma^2)), integer sensitivity D";
  k.example = "discrete-gaussian:sigma=3,sensitivity=2,times=10";
  k.keys = {
      required_key("sigma", "SIGMA", {0.0, 1e4, true, false},
                   "noise scale: P(Z = z) proportional to e^(-z^2/(2 sigma^2)) on the integers"),
      integer_key("sensitivity", "D", 1, 1, 10000, "integer sensitivity")};
  k.term = term;
  k.clt = clt;
  k.calibration = calibration();
  return k;
}

}  // namespace fdp
