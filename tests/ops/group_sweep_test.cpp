// Soundness of group privacy of piecewise-linear curves, against truths
// computed here in exact rational arithmetic, apart from fdp's polygon code.
//
// A case is a random convex polygon f (3-8 vertices, asymmetric; sometimes a
// segment of slope beyond -1e12 next to alpha = 0, a nearly flat one next to
// f = 0, a mass of 1e-15..1e-6 at loss +inf, or a point where f reaches 0
// before alpha = 1), written to a curve file and read back as fdp reads it.
// The truth (DRS Thm 2.14): the mechanism behind f is f_sym-DP for both
// orders of the neighbours, f_sym = min{f, f^-1}** (here: the lower convex
// hull of the vertices of f and of their mirror images, by exact rational
// cross products), and groups of k are [1 - (1 - f_sym)^{o k}]-DP, exactly
// (the chain of finite distributions P_j with CDF (1 - f_sym)^{o j} attains
// it). The power is the exact composition of the piecewise-linear maps
// x -> 1 - f_sym(x) in rationals (breakpoints: the inner map's and the
// preimages of the outer map's), for k = 1..5. Queries:
//   beta(alpha) = 1 - h^k(alpha), exact;
//   delta(eps)  = max over the power's vertices of h^k(x) - e^eps x, the
//                 exponential at 50 digits (boost cpp_bin_float_50);
//   epsilon(d)  = the root of delta = d (bisection at 50 digits) or +inf;
//   mu          = max over vertices of Phi^{-1}(1 - a) - Phi^{-1}(f(a))
//                 (+inf for f(0) < 1 or f = 0 before 1), in double: 1e-9 slack.
// Each bracket must hold the truth exactly (beta, delta, epsilon: the real
// number, compared through its rounding down and up), on both routes: the
// exact one (group of the curve spec) and the PLD one (the curve composed by
// the engine, its polygons grouped).
// CI: 16 cases, the PLD route at one k per case. FDP_GROUP_SEED /
// FDP_GROUP_CASES: another seed / more cases, the PLD route at every k
// (scripts/soundness_sweep.sh runs the large version).
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../../lib/src/ops/directed.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/group.hpp"
#include "fdp/ops/spec.hpp"
#include "soundness_checker.hpp"

namespace fdp {
namespace {

using Q = boost::multiprecision::cpp_rational;
using F50 = boost::multiprecision::cpp_bin_float_50;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct qpoint {
  Q x, y;
};
using qmap = std::vector<qpoint>;  // a piecewise-linear map, x increasing from 0 to 1

// Q -> the doubles just below and above it (equal when it is a double).
template <class R>
std::pair<double, double> round_both(const R& v) {
  const double d = static_cast<double>(v);
  const R dv(d);
  if (dv == v) return {d, d};
  return dv < v ? std::pair{d, std::nextafter(d, kInf)} : std::pair{std::nextafter(d, -kInf), d};
}

Q cross(const qpoint& o, const qpoint& a, const qpoint& b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// f_sym: lower convex hull of f's vertices, their mirrors, (0, 1) and (1, 0)
// (the graph completed by its vertical piece at 0 and its flat piece to 1).
std::vector<qpoint> symmetrized(const curve& f) {
  std::vector<qpoint> pts{{Q(0), Q(1)}, {Q(1), Q(0)}};
  for (std::size_t i = 0; i < f.size(); ++i) {
    pts.push_back({Q(f.alpha()[i]), Q(f.beta()[i])});
    pts.push_back({Q(f.beta()[i]), Q(f.alpha()[i])});
  }
  std::sort(pts.begin(), pts.end(), [](const qpoint& a, const qpoint& b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  });
  std::vector<qpoint> h;
  for (const qpoint& p : pts) {
    if (!h.empty() && h.back().x == p.x) continue;  // (the lowest at each alpha)
    while (h.size() >= 2 && cross(h[h.size() - 2], h.back(), p) <= 0) h.pop_back();
    h.push_back(p);
  }
  return h;
}

Q eval(const qmap& h, const Q& v) {
  std::size_t j = 0;
  while (j + 2 < h.size() && h[j + 1].x <= v) ++j;
  const qpoint &a = h[j], &b = h[j + 1];
  return a.y + (b.y - a.y) * (v - a.x) / (b.x - a.x);
}

// outer o inner, exactly: inner's breakpoints and the preimages of outer's.
qmap compose(const qmap& outer, const qmap& inner) {
  std::vector<Q> xs;
  for (const qpoint& p : inner) xs.push_back(p.x);
  for (std::size_t i = 1; i + 1 < outer.size(); ++i) {
    const Q& a = outer[i].x;
    for (std::size_t j = 0; j + 1 < inner.size(); ++j) {
      if (inner[j].y < a && a < inner[j + 1].y) {
        xs.push_back(inner[j].x + (inner[j + 1].x - inner[j].x) * (a - inner[j].y) /
                                      (inner[j + 1].y - inner[j].y));
      }
    }
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  qmap r;
  for (const Q& x : xs) {
    const qpoint p{x, eval(outer, eval(inner, x))};
    // (collinear points dropped: the rationals stay small)
    if (r.size() >= 2 && cross(r[r.size() - 2], r.back(), p) == 0)
      r.back() = p;
    else
      r.push_back(p);
  }
  return r;
}

// A real number known to lie in [lo, hi] (lo == hi: exactly; the
// exponential's 50 digits are the only inexact step).
struct enclosure {
  F50 lo, hi;
};

// [lo, hi] as doubles: lo rounded down, hi rounded up.
std::pair<double, double> outward(const enclosure& e) {
  return {round_both(e.lo).first, round_both(e.hi).second};
}

// The truth of one case at one k: the power's vertices, as f = 1 - h^k.
struct truth {
  std::vector<Q> a, b;      // vertices of f_k (alpha, beta)
  std::vector<F50> fa, fb;  // the same at 50 digits
  Q mass;                   // 1 - f_k(0), the mass at loss +inf (delta(+inf))

  Q beta(const Q& alpha) const {
    std::size_t j = 0;
    while (j + 2 < a.size() && a[j + 1] <= alpha) ++j;
    return b[j] + (b[j + 1] - b[j]) * (alpha - a[j]) / (a[j + 1] - a[j]);
  }
  // delta(eps) = max(0, max over vertices of 1 - b_i - e^eps a_i): exact
  // (rational) at a_i = 0, within 1e-40 of the largest term elsewhere.
  enclosure delta(const F50& eps) const {
    const F50 t = exp(eps);
    F50 m = -1, slack = 0;
    for (std::size_t i = 1; i < a.size(); ++i) {
      const F50 ta = t * fa[i];
      const F50 v = 1 - fb[i] - ta;
      if (v > m) m = v, slack = F50(1e-40) * (1 + ta);
    }
    const F50 e(mass);  // (the vertex at alpha = 0, exact)
    return {std::max(e, m - slack), std::max(e, std::min(F50(1), m + slack))};
  }
  // the smallest eps >= 0 with delta(eps) <= d (+inf if none), from the
  // bisections on the ends of delta's enclosure
  enclosure epsilon(double d) const {
    if (mass > Q(d)) return {F50(kInf), F50(kInf)};  // the mass at loss +inf
    auto root = [&](bool upper) {  // inf{eps >= 0 : end(eps) <= d}, from the safe side
      auto end = [&](const F50& e) {
        const enclosure x = delta(e);
        return upper ? x.hi : x.lo;
      };
      if (end(0) <= d) return F50(0);
      F50 lo = 0, hi = 1;
      while (end(hi) > d) lo = hi, hi *= 2;
      for (int i = 0; i < 170; ++i) {  // (F50: 166 bits)
        const F50 mid = (lo + hi) / 2;
        (end(mid) > d ? lo : hi) = mid;
      }
      return upper ? hi : lo;
    };
    return {root(false), root(true)};
  }
  double mu() const {
    if (b.front() < 1) return kInf;
    double best = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] == 0 || a[i] == 1) continue;
      if (b[i] == 0) return kInf;
      best = std::max(best, norm_quantile_c(static_cast<double>(a[i])) +
                                norm_quantile_c(static_cast<double>(b[i])));
    }
    return best;
  }
};

truth power_truth(const std::vector<qpoint>& fsym, int k) {
  qmap g;
  for (const qpoint& p : fsym) g.push_back({p.x, 1 - p.y});
  qmap h = g;
  for (int i = 1; i < k; ++i) h = compose(g, h);
  truth t;
  for (const qpoint& p : h) {
    t.a.push_back(p.x);
    t.b.push_back(1 - p.y);
    t.fa.push_back(F50(t.a.back()));
    t.fb.push_back(F50(t.b.back()));
  }
  t.mass = 1 - t.b.front();
  return t;
}

// A random convex polygon through (0, b0) down to 0 at alpha = end <= 1:
// segment slopes increasing (convex), beta drops summing to b0.
std::vector<curve::point> random_polygon(std::mt19937_64& rng, std::string& kind) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int m = 2 + static_cast<int>(u(rng) * 6);  // segments
  std::vector<double> mag(m);                      // |slope|, steepest first
  for (double& s : mag) s = std::pow(10.0, -1.5 + 3.0 * u(rng));
  kind = "plain";
  const double r = u(rng);
  if (r < 0.25) {
    mag[0] = std::pow(10.0, 12.0 + 8.0 * u(rng));  // a steep first segment
    kind = "steep start";
  } else if (r < 0.4) {
    mag[m - 1] = std::pow(10.0, -20.0 + 8.0 * u(rng));  // nearly flat to f = 0
    kind = "flat end";
  }
  std::sort(mag.begin(), mag.end(), std::greater<>());
  double b0 = 1.0;
  if (u(rng) < 0.2) {
    b0 = 1.0 - std::pow(10.0, -15.0 + 9.0 * u(rng));  // a mass at loss +inf
    kind += ", mass at inf";
  }
  std::vector<double> drop(m);
  double total = 0.0;
  for (double& d : drop) total += (d = 0.05 + u(rng));
  double len = 0.0;
  for (int i = 0; i < m; ++i) len += drop[i] / total * b0 / mag[i];
  // lengths to fit in [0, end]: f reaches 0 at end (sometimes before 1)
  const double end = u(rng) < 0.3 ? 0.5 + 0.49 * u(rng) : 1.0;
  const double scale = std::max(1.0, len / end);
  std::vector<curve::point> pts{{0.0, b0}};
  double a = 0.0, b = b0;
  for (int i = 0; i < m; ++i) {
    const double d = drop[i] / total * b0;
    a += d / (mag[i] * scale);
    b -= d;
    pts.push_back({std::min(a, 1.0), i + 1 == m ? 0.0 : std::max(b, 0.0)});
  }
  if (pts.back().alpha < 1.0) pts.push_back({1.0, 0.0});
  return pts;
}

std::string write_curve(const std::vector<curve::point>& pts, int n) {
  const std::string path = ::testing::TempDir() + "fdp_group_sweep_" + std::to_string(n) + ".csv";
  std::FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("alpha,beta\n", f);
  for (const auto& p : pts) std::fprintf(f, "%.17g,%.17g\n", p.alpha, p.beta);
  std::fclose(f);
  return path;
}

// The queries of one case at one k with their true values (rounded
// outward to doubles), computed once for both routes.
struct query {
  enum { beta, delta, epsilon, mu } kind;
  double x, dn, up;
};

std::vector<query> queries(const truth& t, const std::vector<double>& alphas, double eps_max) {
  std::vector<query> qs;
  for (double a : alphas) {
    const auto [dn, up] = round_both(t.beta(Q(a)));
    qs.push_back({query::beta, a, dn, up});
  }
  for (double e :
       {-0.5, 0.0, 0.3, 1.0, 0.25 * eps_max, 0.5 * eps_max, 0.9 * eps_max, 1.1 * eps_max}) {
    const auto [dn, up] = outward(t.delta(F50(e)));
    qs.push_back({query::delta, e, dn, up});
  }
  for (double d : {1e-12, 1e-6, 1e-3, 0.05, 0.3}) {
    const auto [dn, up] = outward(t.epsilon(d));
    qs.push_back({query::epsilon, d, dn, up});
  }
  qs.push_back({query::mu, 0.0, t.mu(), t.mu()});
  return qs;
}

void check_all(checker& chk, const std::string& ctx, const tradeoff_bracket& g,
               const std::vector<query>& qs) {
  for (const query& q : qs) {
    const std::string x = std::to_string(q.x);
    switch (q.kind) {
      case query::beta:
        chk.contains_exact(ctx, "beta(" + x + ")", g.beta(q.x), q.dn, q.up);
        break;
      case query::delta:
        chk.contains_exact(ctx, "delta(" + x + ")", g.delta(q.x), q.dn, q.up);
        break;
      case query::epsilon:
        if (std::isinf(q.dn))
          chk.contains(ctx, "epsilon(" + x + ")", g.epsilon(q.x), kInf, 0.0);
        else
          chk.contains_exact(ctx, "epsilon(" + x + ")", g.epsilon(q.x), q.dn, q.up);
        break;
      case query::mu:  // (the truth in double: its quantiles' rounding)
        chk.contains(ctx, "mu", g.mu(), q.dn, 1e-9);
        break;
    }
  }
}

TEST(GroupSweep, PowersOfRandomCurvesBracketTheExactTruth) {
  const std::uint64_t seed = std::getenv("FDP_GROUP_SEED")
                                 ? std::strtoull(std::getenv("FDP_GROUP_SEED"), nullptr, 0)
                                 : 20261126;
  const int cases = std::getenv("FDP_GROUP_CASES") ? std::atoi(std::getenv("FDP_GROUP_CASES")) : 16;
  const bool all_k = std::getenv("FDP_GROUP_CASES") != nullptr;  // (the large run: PLD at every k)
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  checker exact("group sweep, exact route (seed " + std::to_string(seed) + ")");
  checker pld("group sweep, PLD route (seed " + std::to_string(seed) + ")");
  const auto t0 = std::chrono::steady_clock::now();
  for (int n = 0; n < cases; ++n) {
    std::string kind;
    const std::string path = write_curve(random_polygon(rng, kind), n);
    const std::vector<spec> specs{parse_spec("curve:file=" + path)};
    const curve f = read_curve_csv(path);
    const std::vector<qpoint> fsym = symmetrized(f);
    // alphas: 0, next to 0 (the steep start), the vertices, uniform ones, next to 1
    std::vector<double> alphas{0.0, 1e-300, 1e-25, 1e-16, 1e-9, 1.0 - 1e-12};
    for (const qpoint& p : fsym) alphas.push_back(static_cast<double>(p.x));
    for (int i = 0; i < 4; ++i) alphas.push_back(u(rng));
    // eps up to about the largest privacy loss of the power
    double steepest = 1.0;
    for (std::size_t i = 0; i + 1 < fsym.size(); ++i) {
      const Q s = (fsym[i].y - fsym[i + 1].y) / (fsym[i + 1].x - fsym[i].x);
      steepest = std::max(steepest, static_cast<double>(s));
    }
    compose_options o;
    o.method = compose_method::pld;
    const composition c = compose(specs, o);
    for (int k = 1; k <= 5; ++k) {
      const double eps_max = k * std::log(std::min(steepest, 1e300));
      const std::vector<query> qs = queries(power_truth(fsym, k), alphas, eps_max);
      const std::string ctx =
          "case " + std::to_string(n) + " (" + kind + ", " + path + ") k=" + std::to_string(k);
      try {
        check_all(exact, ctx, group(specs, k), qs);
      } catch (const std::exception& e) {
        exact.contains(ctx + " threw '" + e.what() + "'", "group", {NAN, NAN}, 0.0, 0.0);
      }
      if (k != 1 + n % 5 && !all_k) continue;  // (the PLD route: one k per case in CI)
      try {
        check_all(pld, ctx, group(c, k), qs);
      } catch (const std::exception& e) {
        pld.contains(ctx + " threw '" + e.what() + "'", "group", {NAN, NAN}, 0.0, 0.0);
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[soundness] group sweep: " << cases << " random curves x k = 1..5, seed " << seed
            << ", " << secs << " s\n";
  exact.report();
  pld.report();
}

// The directed arithmetic under the certified powers (src/ops/directed.hpp)
// against exact rationals: every result on its side of the exact one, and
// exact results kept exact (outside the subnormal range). Operands over the
// whole range, subnormals and exact cases included.
TEST(GroupSweep, DirectedRoundingBracketsTheExactResult) {
  namespace d = detail::directed;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto any = [&]() {
    const double r = u(rng);
    if (r < 0.05) return 0.0;
    if (r < 0.1)
      return std::ldexp(1.0 + std::floor(u(rng) * 8), -1074 + static_cast<int>(u(rng) * 60));
    if (r < 0.2) return std::floor(u(rng) * 64) / 8;  // (exact results)
    const double m = u(rng) + 0.5;
    return (u(rng) < 0.3 ? -1.0 : 1.0) * std::ldexp(m, static_cast<int>(u(rng) * 200) - 150);
  };
  checker chk("directed rounding");
  for (int i = 0; i < 5000; ++i) {
    const double a = any(), b = any();
    const Q qa(a), qb(b);
    auto check = [&](const char* op, double dn, double up, const Q& exact) {
      if (!std::isfinite(static_cast<double>(exact))) return;  // (beyond the doubles)
      const auto [tdn, tup] = round_both(exact);
      chk.contains_exact(std::to_string(a) + " " + op + " " + std::to_string(b), op, {dn, up}, tdn,
                         tup);
      // exact results stay exact (away from the subnormals, where the error
      // term of a product or quotient is not representable)
      if (tdn == tup && (tdn == 0 || std::fabs(tdn) >= 0x1p-900) && std::fabs(a) >= 0x1p-900 &&
          std::fabs(b) >= 0x1p-900) {
        EXPECT_TRUE(dn == tdn && up == tdn) << a << " " << op << " " << b;
      }
    };
    check("+", d::add_dn(a, b), d::add_up(a, b), qa + qb);
    check("-", d::sub_dn(a, b), d::sub_up(a, b), qa - qb);
    check("*", d::mul_dn(a, b), d::mul_up(a, b), qa * qb);
    if (b != 0) check("/", d::div_dn(a, b), d::div_up(a, b), qa / qb);
  }
  chk.report();
}

}  // namespace
}  // namespace fdp
