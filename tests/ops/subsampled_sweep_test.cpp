// Soundness of compositions with a Poisson-subsampled Gaussian or Laplace
// term, against truths computed here by quadrature, apart from fdp's loss
// laws and grids.
//
// A case is one subsampled term A (per-step loss d/scale from 0.1 to 50,
// q from 1e-8 to 1 - 1e-8) composed with 1-3 symmetric terms B: G_mu terms
// (merged: G_a (x) G_b = G_sqrt(a^2+b^2)), at most one Laplace term, and
// f_{eps,delta} terms (a few applications). With L_A = log dQ_A/dP_A,
//   delta_fwd(eps) = E_{Q_A}[delta_B(eps - L_A)]   (T(P,Q) of the product),
//   delta_inv(eps) = E_{P_A}[delta_B(eps + L_A)]   (T(Q,P); B is symmetric),
// and fdp reports min{F, F^-1}**, whose delta is the larger of the two.
// delta_B is a closed form (G), a one-dimensional integral (Laplace (x) G:
// its two atoms and the density between them) and a binomial sum over the
// f_{eps,delta} terms (f_{e,d} = f_{e,0} (x) f_{0,d}; f_{e,0} is randomized
// response, Q-masses e^e/(1+e^e) at loss e and 1/(1+e^e) at -e). The outer
// expectation is an adaptive Gauss-Kronrod integral over the mechanism's
// output x (A's loss computed from x directly, never inverted). 1 - delta
// is computed from 1 - delta_B the same way, so beta near alpha = 1 keeps
// its relative precision. beta(alpha) = sup_eps (1 - delta(eps) - e^eps
// alpha), unimodal in eps (delta is convex in e^eps): golden-section search.
//
// Queries: delta at eps of both signs, epsilon at delta from 1e-10 to near
// 1, beta at alpha up to 1 - 1e-8. Checks use the defining monotonicity
// (an epsilon bracket [lo, up] is right iff delta_true(up) <= target <=
// delta_true(lo)), so no root of the truth is needed.
// FDP_SUBSAMPLED_SEED / FDP_SUBSAMPLED_CASES: another seed / more cases
// (scripts/soundness_sweep.sh runs the large version).
#include <gtest/gtest.h>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <boost/math/special_functions/erf.hpp>
#include <functional>
#include <optional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fdp/core/error.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"
#include "soundness_checker.hpp"

namespace fdp {
namespace {

using real = double;  // (long double's expl/erfcl made the sweep 10x slower for no check it needs)

real Phi(real x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Adaptive 31-point Gauss-Kronrod on [a, b] to a relative tolerance (the
// integrands are nonnegative: relative to the integral itself). 1e-11 is a
// hundred times inside the sweep's slack; the kinks of the integrands are
// breakpoints (subsampled::piecewise), so it is met without deep splitting.
real integrate(const std::function<real(real)>& f, real a, real b, real tol = 1e-11,
               unsigned depth = 12) {
  if (!(b > a)) return 0.0;
  using gk = boost::math::quadrature::gauss_kronrod<real, 31>;
  return gk::integrate(f, a, b, depth, tol);
}

// G_mu (mu = 0: Id): delta(eps), and 1 - delta(eps) without cancellation.
// e^a Phi(x) without overflow (a up to any size; the product underflows instead)
real eP(real a, real x) {
  if (a < 700) return std::exp(a) * Phi(x);
  const real p = Phi(x);
  return p > 0 ? std::exp(a + std::log(p)) : 0.0;
}

real delta_g(real mu, real eps) {
  if (mu == 0) return std::max(0.0, -std::expm1(eps));
  return Phi(-eps / mu + mu / 2) - eP(eps, -eps / mu - mu / 2);
}
real cdelta_g(real mu, real eps) {
  if (mu == 0) return std::min(1.0, std::exp(eps));
  return Phi(eps / mu - mu / 2) + eP(eps, -eps / mu - mu / 2);
}

// The symmetric terms B.
struct rest {
  real mu_g = 0;    // merged Gaussian terms (0: none)
  real mu_lap = 0;  // one Laplace term T(Lap(0,1), Lap(mu_lap,1)) (0: none)
  struct ed {
    real eps, delta;
    int times;
  };
  std::vector<ed> eds;

  // delta (complement = false) or 1 - delta (true) of Laplace (x) G at eps:
  // Q = Lap(mu, 1) puts e^-mu/2 at loss -mu, 1/2 at loss mu and density
  // e^{-(mu - x)}/2 at loss 2x - mu for x in (0, mu). The density's share,
  // with t = eps - (2x - mu), is e^{(eps - mu)/2}/4 times the integral of
  // e^{-t/2} delta_G(t) over [eps - mu, eps + mu]; by parts (d/dt of
  // e^{at} Phi(bt + c) and completing the square), for G_s (s > 0)
  //   int e^{-t/2} delta_G(t) dt = 4 e^{-s^2/8} Phi(-t/s)
  //       - 2 e^{-t/2} Phi(-t/s + s/2) - 2 e^{t/2} Phi(-t/s - s/2),
  //   int e^{-t/2} (1 - delta_G(t)) dt = -2 e^{-t/2} Phi(t/s - s/2)
  //       + 2 e^{-s^2/8} (Phi(t/s) - Phi(-t/s)) + 2 e^{t/2} Phi(-t/s - s/2),
  // and the Laplace trade-off's own profile for s = 0 (no G). (The two
  // tails' difference 2 (Phi(-b) - Phi(-a)) replaces the complement's
  // difference of differences near 1; lap_g_quadrature checks all of it.)
  real lap_g(real eps, bool complement) const {
    auto g = [&](real e) { return complement ? cdelta_g(mu_g, e) : delta_g(mu_g, e); };
    if (mu_lap == 0) return g(eps);
    const real m = mu_lap, s = mu_g;
    if (s == 0) {
      // Laplace alone: 1 - delta = e^eps below -m, e^{(eps - m)/2} on [-m, m], 1 above
      const real c = eps <= -m ? std::exp(eps) : eps < m ? std::exp((eps - m) / 2) : 1.0;
      const real d = eps <= -m ? -std::expm1(eps) : eps < m ? -std::expm1((eps - m) / 2) : 0.0;
      return complement ? c : d;
    }
    // (the exponents of the antiderivatives combined with e^{(eps - m)/2},
    // so that nothing overflows at the far losses of a subsampled term)
    const real a = (eps + m) / s, b = (eps - m) / s, h = s / 2;
    const real tails = eP((eps - m) / 2 - s * s / 8, -b) - eP((eps - m) / 2 - s * s / 8, -a);
    real cont;
    if (!complement) {
      cont = -tails - 0.5 * eP(-m, -a + h) + 0.5 * Phi(-b + h) - 0.5 * eP(eps, -a - h) +
             0.5 * eP(eps - m, -b - h);
    } else {
      cont = -0.5 * eP(-m, a - h) + 0.5 * Phi(b - h) + tails + 0.5 * eP(eps, -a - h) -
             0.5 * eP(eps - m, -b - h);
    }
    const real atoms = 0.5 * g(eps - m) + 0.5 * std::exp(-m) * g(eps + m);
    return atoms + cont;
  }
  real lap_g_quadrature(real eps, bool complement) const {
    auto g = [&](real e) { return complement ? cdelta_g(mu_g, e) : delta_g(mu_g, e); };
    const real m = mu_lap;
    const real atoms = 0.5 * g(eps - m) + 0.5 * std::exp(-m) * g(eps + m);
    return atoms +
           integrate([&](real x) { return 0.5 * std::exp(-(m - x)) * g(eps - (2 * x - m)); }, 0, m,
                     1e-13, 16);
  }

  // The f_{eps,delta} terms as loss shifts with their Q-masses: k
  // applications of f_{e,d} keep (1 - d)^k of the mass and move the loss by
  // (2j - k) e with probability Bin(k, j; e^e/(1+e^e)). Call once, after eds.
  void finish() {
    shifts = {{0.0, 1.0}};
    log_keep = 0;
    for (const auto& t : eds) {
      const real up = 1 / (1 + std::exp(-t.eps));
      std::vector<std::pair<real, real>> next;
      for (int j = 0; j <= t.times; ++j) {
        const real w = std::tgamma(t.times + 1.0) /
                       (std::tgamma(j + 1.0) * std::tgamma(t.times - j + 1.0)) * std::pow(up, j) *
                       std::pow(1 - up, t.times - j);
        for (const auto& [s, v] : shifts) next.push_back({s + (2 * j - t.times) * t.eps, v * w});
      }
      shifts = std::move(next);
      log_keep += static_cast<real>(t.times) * std::log1p(-t.delta);
    }
    // (1 - keep from expm1: 1 - (1 - d)^k in double loses everything below
    // 1e-16 absolute, 3e-7 of a delta of 3.7e-10 at d = 4e-12)
    keep = std::exp(log_keep);
    lost = -std::expm1(log_keep);
  }
  std::vector<std::pair<real, real>> shifts{{0.0, 1.0}};  // (loss shift, Q-mass)
  real log_keep = 0, keep = 1, lost = 0;                  // the mass kept finite, and 1 - keep

  // Where at(x) has kinks (for the quadrature's breakpoints): Id's delta at
  // 0, the Laplace trade-off's at +-mu, each moved by every shift; G
  // smooths them out.
  std::vector<real> kinks() const {
    std::vector<real> k;
    if (mu_g > 0) return k;
    for (const auto& sw : shifts) {
      if (mu_lap == 0)
        k.push_back(sw.first);
      else
        k.push_back(sw.first - mu_lap), k.push_back(sw.first + mu_lap);
    }
    return k;
  }

  // delta or 1 - delta of the f_{eps,delta} terms (x) Laplace (x) G
  real at(real eps, bool complement) const {
    real fin = 0;
    for (const auto& [s, w] : shifts) fin += w * lap_g(eps - s, complement);
    return complement ? keep * fin : lost + keep * fin;
  }
};

// The subsampled term A: P = M(0), Q = (1-q) M(0) + q M(d), M a Gaussian
// (scale sigma) or Laplace (scale b) location family.
struct subsampled {
  bool laplace = false;
  real scale = 1, d = 1, q = 0.5;

  // L(x) from u = log dM(d)/dM(0) at x, without cancellation at either end.
  real loss_of_u(real u) const {
    if (u > 0) return u + std::log(q + (1 - q) * std::exp(-u));
    return std::log1p(q * std::expm1(u));
  }
  real u_of(real x) const {
    if (laplace) return (std::fabs(x) - std::fabs(x - d)) / scale;
    return d * (2 * x - d) / (2 * scale * scale);
  }

  // The x with L(x) = l on the continuous part (NaN when l is out of range):
  // u = log((e^l - 1 + q) / q), then x from u.
  real x_of_loss(real l) const {
    const real v = std::expm1(l) + q;
    if (!(v > 0)) return std::nan("");
    const real u = std::log(v) - std::log(q);
    return laplace ? (u * scale + d) / 2 : u * scale * scale / d + d / 2;
  }

  // Integral of f over [a, b], split where L(x) crosses a kink loss.
  real piecewise(const std::function<real(real)>& f, real a, real b,
                 const std::vector<real>& cuts) const {
    std::vector<real> pts{a};
    for (real c : cuts)
      if (c > a && c < b) pts.push_back(c);
    std::sort(pts.begin(), pts.end());
    pts.push_back(b);
    real sum = 0;
    for (std::size_t i = 0; i + 1 < pts.size(); ++i) sum += integrate(f, pts[i], pts[i + 1]);
    return sum;
  }

  // E_Q[g(L)] (forward) or E_P[g(L)] (inverse) for a bounded g whose kinks
  // sit at the losses kink_losses.
  real expect(const std::function<real(real)>& g, bool under_q,
              const std::vector<real>& kink_losses) const {
    const real w0 = under_q ? 1 - q : 1, w1 = under_q ? q : 0;
    std::vector<real> xs;
    for (real l : kink_losses) xs.push_back(x_of_loss(l));
    if (!laplace) {
      // the two mixture components in standard units z, each over |z| <= 40
      auto comp = [&](real shift) {
        std::vector<real> zs;
        for (real x : xs) zs.push_back((x - shift) / scale);
        return piecewise(
            [&](real z) {
              return std::exp(-z * z / 2) / std::sqrt(2 * M_PI) *
                     g(loss_of_u(u_of(scale * z + shift)));
            },
            -40, 40, zs);
      };
      return w0 * comp(0) + (w1 > 0 ? w1 * comp(d) : 0.0);
    }
    // Laplace: atoms x <= 0 (u = -d/b) and x >= d (u = d/b), density between
    const real t = d / scale, et = std::exp(-t);
    const real m_lo = w0 * 0.5 + w1 * 0.5 * et, m_hi = w0 * 0.5 * et + w1 * 0.5;
    const real atoms = m_lo * g(loss_of_u(-t)) + m_hi * g(loss_of_u(t));
    const real mid = piecewise(
        [&](real x) {
          const real dens =
              (w0 * std::exp(-x / scale) + w1 * std::exp(-(d - x) / scale)) / (2 * scale);
          return dens * g(loss_of_u((2 * x - d) / scale));
        },
        0, d, xs);
    return atoms + mid;
  }
};

struct truth {
  subsampled a;
  rest b;
  // max of the two orientations' delta; complement: min of the 1 - deltas
  // b.at(eps - l) has kinks at l = eps - k, b.at(eps + l) at l = k - eps
  std::vector<real> kinks(real eps, bool forward) const {
    std::vector<real> out;
    for (real k : b.kinks()) out.push_back(forward ? eps - k : k - eps);
    return out;
  }
  real oriented(real eps, bool forward, bool complement) const {
    return a.expect([&](real l) { return b.at(forward ? eps - l : eps + l, complement); }, forward,
                    kinks(eps, forward));
  }
  real delta(real eps) const {
    return std::max(oriented(eps, true, false), oriented(eps, false, false));
  }
  real cdelta(real eps) const {
    return std::min(oriented(eps, true, true), oriented(eps, false, true));
  }
  // sup_eps (1 - delta(eps) - e^eps alpha) by golden section over eps, and
  // the bound on its error: the quadrature's 1e-11 relative on the two terms
  // that cancel (near alpha = 1 both are far above their difference)
  struct value {
    real v, err;
  };
  value beta_with_error(real alpha) const {
    real at_eps = 0;
    const real v = beta(alpha, &at_eps);
    return {v, 1e-11 * (cdelta(at_eps) + std::exp(at_eps) * alpha)};
  }
  real beta(real alpha, real* argmax = nullptr) const {
    if (alpha >= 1) return 0;
    auto g = [&](real e) { return cdelta(e) - std::exp(e) * alpha; };
    real lo = -80, hi = 40;
    const real r = (std::sqrt(5.0) - 1) / 2;
    real x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo), g1 = g(x1), g2 = g(x2);
    // (eps to 1e-13: where the maximum sits on a kink of delta, an atom of
    // a Laplace or f_{eps,delta} term, g is not flat there and falls off
    // linearly; stopping at 1e-6 put the truth 1e-7 below the sup)
    for (int i = 0; i < 100 && hi - lo > 1e-13 * std::max<real>(1, std::fabs(lo)); ++i) {
      if (g1 < g2) {
        lo = x1, x1 = x2, g1 = g2, x2 = lo + r * (hi - lo), g2 = g(x2);
      } else {
        hi = x2, x2 = x1, g2 = g1, x1 = hi - r * (hi - lo), g1 = g(x1);
      }
    }
    if (argmax) *argmax = g1 > g2 ? x1 : x2;
    return std::max(0.0, std::max(g1, g2));
  }
};

std::string g17(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

struct sweep_case {
  truth t;
  std::vector<std::string> specs;
  std::string text;
};

sweep_case random_case(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  sweep_case c;
  subsampled& a = c.t.a;
  a.laplace = U(rng) < 0.5;
  const double loss = std::pow(10.0, -1 + U(rng) * std::log10(500.0));  // 0.1 .. 50
  const double d = U(rng) < 0.5 ? 1.0 : std::pow(10.0, -1 + 2 * U(rng));
  const double scale = d / loss;
  const double q = U(rng) < 0.7 ? std::pow(10.0, -8 * U(rng)) : 1 - std::pow(10.0, -1 - 7 * U(rng));
  a.scale = scale, a.d = d, a.q = q;
  c.specs.push_back(
      std::string(a.laplace ? "subsampled-laplace:b=" : "subsampled-gaussian:sigma=") + g17(scale) +
      ",q=" + g17(q) + ",sensitivity=" + g17(d));
  const int others = 1 + static_cast<int>(U(rng) * 3);
  double mu2 = 0;
  for (int i = 0; i < others; ++i) {
    const double pick = U(rng);
    if (pick < 0.4) {
      const double mu = std::pow(10.0, -1 + 1.7 * U(rng));
      mu2 += mu * mu;
      c.specs.push_back("gdp:mu=" + g17(mu));
    } else if (pick < 0.65 && c.t.b.mu_lap == 0) {
      const double m = std::pow(10.0, -1 + 2.5 * U(rng));  // 0.1 .. 31.6
      c.t.b.mu_lap = m;
      c.specs.push_back("laplace:b=" + g17(1.0 / m));
    } else {
      const double e = 0.05 + 3 * U(rng);
      const double dl = U(rng) < 0.5 ? 0.0 : std::pow(10.0, -3 - 9 * U(rng));
      const int times =
          1 + static_cast<int>(U(rng) * 3);  // (the truth's cost grows like the shifts' count)
      c.t.b.eds.push_back({e, dl, times});
      c.specs.push_back("epsdelta:eps=" + g17(e) + ",delta=" + g17(dl) +
                        ",times=" + std::to_string(times));
    }
  }
  c.t.b.mu_g = std::sqrt(mu2);
  c.t.b.finish();
  for (const auto& s : c.specs) c.text += (c.text.empty() ? "" : " ") + s;
  return c;
}

// An epsilon bracket [lo, up] at `target` is right iff delta(up) <= target
// (eps* <= up) and delta(lo) >= target (eps* >= lo), up to the truth's slack.
void check_epsilon(checker& chk, const std::string& ctx, const truth& t, double target,
                   interval e) {
  const std::string q = "epsilon(delta=" + g17(target) + ")";
  const double slack = 1e-9 * target + 1e-300;
  if (std::isfinite(e.upper)) {
    const double du = static_cast<double>(t.delta(e.upper));
    chk.contains(ctx, q + " upper end: delta(" + g17(e.upper) + ") <= target",
                 {0.0, target + slack}, du, 0.0);
  }
  if (e.lower > 0 && std::isfinite(e.lower)) {
    const double dl = static_cast<double>(t.delta(e.lower));
    chk.contains(ctx, q + " lower end: delta(" + g17(e.lower) + ") >= target",
                 {target - slack, 1.0}, dl, 0.0);
  }
  if (e.lower > e.upper) chk.contains(ctx, q + " ordered", e, 0.5 * (e.lower + e.upper), 0.0);
}

TEST(SubsampledSweep, CompositionsBracketTheQuadratureTruth) {
  const std::uint64_t seed = std::getenv("FDP_SUBSAMPLED_SEED")
                                 ? std::strtoull(std::getenv("FDP_SUBSAMPLED_SEED"), nullptr, 0)
                                 : 0x5b5a3d1eULL;
  const int n_cases =
      std::getenv("FDP_SUBSAMPLED_CASES") ? std::atoi(std::getenv("FDP_SUBSAMPLED_CASES")) : 60;
  const bool verbose = std::getenv("FDP_SWEEP_VERBOSE") != nullptr;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  checker chk("subsampled sweep (seed " + std::to_string(seed) + ")");
  int refused = 0;
  const auto t0 = std::chrono::steady_clock::now();
  // FDP_SUBSAMPLED_ONLY=i: draw every case, run case i alone (a reproducer)
  const int only =
      std::getenv("FDP_SUBSAMPLED_ONLY") ? std::atoi(std::getenv("FDP_SUBSAMPLED_ONLY")) : -1;
  for (int i = 0; i < n_cases; ++i) {
    const sweep_case sc = random_case(rng);
    const std::vector<double> deltas = {std::pow(10.0, -10 + 8 * U(rng)), 1e-3,
                                        0.5 + 0.49 * U(rng)};
    const std::vector<double> epss = {-0.1 - 5 * U(rng), 0.0, 8 * U(rng), 30 * U(rng)};
    const std::vector<double> alphas = {U(rng), 1 - std::pow(10.0, -1 - 7 * U(rng))};
    if (only >= 0 && i != only) continue;
    const std::string ctx = "subsampled seed=" + std::to_string(seed) + " case " +
                            std::to_string(i) + " [" + sc.text + "]";
    if (verbose) std::cerr << ctx << std::endl;
    std::vector<spec> specs;
    for (const auto& s : sc.specs) specs.push_back(parse_spec(s));
    compose_options o;
    o.delta_hint = deltas.front();  // (the CLI tunes for the smallest asked delta)
    // Near-identity terms (q ~ 1e-6) ask for grids of millions of points;
    // a small ceiling keeps the sweep fast and puts the coarsened grids of
    // the memory ceiling under the same checks.
    o.max_memory = std::size_t(1) << 28;
    std::optional<composition> c;
    const auto t1 = std::chrono::steady_clock::now();
    try {
      c = compose(specs, o);
    } catch (const std::invalid_argument&) {
      ++refused;  // losses beyond +-700: refused with the reason
      continue;
    } catch (const std::logic_error& e) {
      // an internal check failed (a discretization that does not conserve
      // mass): a failure of this case, and the sweep goes on
      ADD_FAILURE() << ctx << ": " << e.what();
      continue;
    }
    const auto tc = std::chrono::steady_clock::now();
    for (double e : epss) {
      const double truth = static_cast<double>(sc.t.delta(e));
      chk.contains(ctx, "delta(eps=" + g17(e) + ")", c->delta(e), truth, 1e-9, 1e-15);
    }
    for (double d : deltas) check_epsilon(chk, ctx, sc.t, d, c->epsilon(d));
    for (double a : alphas) {
      const auto truth = sc.t.beta_with_error(a);
      chk.contains(ctx, "beta(alpha=" + g17(a) + ")", c->beta(a), truth.v, 1e-7, truth.err);
    }
    if (verbose) {
      const auto t2 = std::chrono::steady_clock::now();
      std::cerr << "  compose " << std::chrono::duration<double>(tc - t1).count() << " s, checks "
                << std::chrono::duration<double>(t2 - tc).count() << " s" << std::endl;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[soundness] subsampled sweep: " << n_cases << " cases (" << refused
            << " refused: losses beyond +-700), " << chk.checked << " checks, " << secs << " s\n";
  chk.report();
}

// The truth's own pieces against closed forms: q = 1 is the plain mechanism
// (a Gaussian term alone is G_{d/sigma}; a Laplace with f_{e,0} composed in
// closed form by hand), and the inverse orientation of q = 1 equals the
// forward one (symmetric).
TEST(SubsampledSweep, TruthAgreesWithClosedForms) {
  truth g;
  g.a = {false, 2.0, 1.0, 1.0};
  for (real e : {-1.0, 0.0, 0.7})
    EXPECT_NEAR(static_cast<double>(g.delta(e)), static_cast<double>(delta_g(0.5, e)), 1e-12);
  truth gg = g;
  gg.b.mu_g = 1.2;
  for (real e : {-1.0, 0.0, 0.7, 3.0})
    EXPECT_NEAR(static_cast<double>(gg.delta(e)),
                static_cast<double>(delta_g(std::sqrt(1.44 + 0.25), e)), 1e-12);
  // Laplace (x) f_{1,0} at eps = 0.5: enumerate Lap's atoms and density by hand
  truth l;
  l.a = {true, 1.0, 1.0, 1.0};  // Lap(0,1) vs Lap(1,1): loss in [-1, 1]
  l.b.eds.push_back({1.0, 0.0, 1});
  l.b.finish();
  const real up = 1 / (1 + std::exp(-1.0));
  auto lap_delta = [&](real e) {  // delta of T(Lap(0,1), Lap(1,1)) at e
    return 0.5 * std::max(0.0, -std::expm1(e - 1)) +
           integrate(
               [&](real x) {
                 return 0.5 * std::exp(-(1 - x)) * std::max(0.0, -std::expm1(e - (2 * x - 1)));
               },
               0, 1);
  };
  const real want = up * lap_delta(0.5 - 1) + (1 - up) * lap_delta(0.5 + 1);
  EXPECT_NEAR(static_cast<double>(l.delta(0.5)), static_cast<double>(want), 1e-12);
  // Laplace (x) G in closed form against quadrature
  for (real s : {0.0, 0.3, 2.0}) {
    for (real m : {0.2, 3.0, 20.0}) {
      rest b;
      b.mu_g = s, b.mu_lap = m;
      for (real e : {-3.0, 0.0, 0.4, 5.0, 25.0}) {
        for (bool c : {false, true}) {
          const real x = b.lap_g(e, c), y = b.lap_g_quadrature(e, c);
          EXPECT_NEAR(static_cast<double>(x), static_cast<double>(y),
                      static_cast<double>(1e-10 * std::fabs(y) + 1e-300))
              << "s " << static_cast<double>(s) << " m " << static_cast<double>(m) << " eps "
              << static_cast<double>(e) << " complement " << c;
        }
      }
    }
  }
  // beta of G_1 through the golden section
  truth one;
  one.a = {false, 1.0, 1.0, 1.0};
  for (real a : {0.01, 0.3, 0.9}) {
    const real z = std::sqrt(2.0) * boost::math::erfc_inv(2 * a);  // Phi^-1(1 - a)
    EXPECT_NEAR(static_cast<double>(one.beta(a)), static_cast<double>(Phi(z - 1)), 1e-10);
  }
}

}  // namespace
}  // namespace fdp
