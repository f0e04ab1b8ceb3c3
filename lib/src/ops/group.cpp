#include "fdp/ops/group.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <variant>

#include "ops/directed.hpp"
#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/spec.hpp"
#include "ops/group_bounds.hpp"

namespace fdp {
namespace {

using namespace detail::directed;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::size_t kMaxVertices = 20000000;
constexpr double kMaxNonconvexity = 1e-12;

void check_k(std::int64_t k, const char* func) {
  detail::require(k >= 1, func, "k", static_cast<long long>(k), "must be an integer >= 1");
}

// A concave non-decreasing piecewise-linear map h: [0,1] -> [0,1] with h(x) >= x,
// stored at its vertices: y = h(x) and z = 1 - h(x) (= f(x), kept separately
// for precision when h is close to 1).
struct pl_map {
  std::vector<double> x, y, z;
  std::size_t size() const { return x.size(); }
};

pl_map from_curve(const curve& c) { return {c.alpha(), c.one_minus_beta(), c.beta()}; }

// A value v of a map with w = 1 - v carried beside it: above 1/2, w is the
// precise one (v = 1 - 1e-20 is stored as v = 1.0, w = 1e-20), so every
// comparison and every distance to an abscissa x >= 1/2 (where 1 - x is
// exact) is taken in w. Deciding with the rounded v put the steep curve
// (0,1), (1e-20,0.5), (0.2,0.2), (0.5,1e-20), (1,0) on the wrong segment
// of its own map: grouped twice, its vertex (0.5, 2e-40) read f = 0 and
// the whole of [0.5, 1] with it.
int compare(double x, double v, double w) {  // sign of x - v
  if (v > 0.5 && x >= 0.5) {
    const double d = 1.0 - x;  // exact
    return d > w ? -1 : (d < w ? 1 : 0);
  }
  return x < v ? -1 : (x > v ? 1 : 0);
}

double minus(double v, double w, double x) {  // v - x
  return (v > 0.5 && x >= 0.5) ? (1.0 - x) - w : v - x;
}

// h at v (1 - v = w), by linear interpolation on h's segment containing v,
// from the nearer end of the segment (a value next to the right end keeps its
// small distance to it, and so the small 1 - h there).
// `seg` is a hint (monotone callers pass the last segment used).
void eval(const pl_map& h, double v, double w, std::size_t& seg, double& y, double& z) {
  const std::size_t n = h.size();
  while (seg + 2 < n && compare(h.x[seg + 1], v, w) <= 0) ++seg;
  while (seg > 0 && compare(h.x[seg], v, w) > 0) --seg;
  const double x0 = h.x[seg], x1 = h.x[seg + 1];
  if (compare(x0, v, w) >= 0) {
    y = h.y[seg];
    z = h.z[seg];
    return;
  }
  if (compare(x1, v, w) <= 0) {
    y = h.y[seg + 1];
    z = h.z[seg + 1];
    return;
  }
  const double t = minus(v, w, x0) / (x1 - x0);
  if (t <= 0.5) {
    y = h.y[seg] + t * (h.y[seg + 1] - h.y[seg]);
    z = h.z[seg] + t * (h.z[seg + 1] - h.z[seg]);
  } else {
    const double s = -minus(v, w, x1) / (x1 - x0);
    y = h.y[seg + 1] - s * (h.y[seg + 1] - h.y[seg]);
    z = h.z[seg + 1] - s * (h.z[seg + 1] - h.z[seg]);
  }
}

// (outer o inner): vertices of inner plus preimages under inner of the
// interior vertices of outer.
pl_map compose_maps(const pl_map& outer, const pl_map& inner) {
  pl_map r;
  r.x.reserve(inner.size() + outer.size());
  r.y.reserve(inner.size() + outer.size());
  r.z.reserve(inner.size() + outer.size());
  std::size_t seg = 0;
  std::size_t i = 1;  // next interior breakpoint of outer
  const std::size_t m = outer.size();
  auto emit = [&](double x, double y, double z) {
    if (!r.x.empty() && !(x > r.x.back())) return;  // duplicate abscissa
    r.x.push_back(x);
    r.y.push_back(std::clamp(y, 0.0, 1.0));
    r.z.push_back(std::clamp(z, 0.0, 1.0));
  };
  for (std::size_t j = 0; j < inner.size(); ++j) {
    double y, z;
    eval(outer, inner.y[j], inner.z[j], seg, y, z);
    emit(inner.x[j], y, z);
    if (j + 1 == inner.size()) break;
    const double v0 = inner.y[j], v1 = inner.y[j + 1];
    const double w0 = inner.z[j], w1 = inner.z[j + 1];
    while (i + 1 < m && compare(outer.x[i], v0, w0) <= 0) ++i;
    for (; i + 1 < m && compare(outer.x[i], v1, w1) < 0; ++i) {
      const double a = outer.x[i];
      const double t = -minus(v0, w0, a) / (v0 > 0.5 ? w0 - w1 : v1 - v0);
      const double x = inner.x[j] + t * (inner.x[j + 1] - inner.x[j]);
      // A kink whose abscissa underflows cannot be kept, and dropping it
      // would put the chord, far above the true curve, in its place:
      // f_{400,0} grouped twice read as f_{400,0} (epsilon 400 for 800).
      // Subnormal abscissas are kept down to 2^-1042 ~ 2.3e-314 (32
      // significant bits, ~2e-10 relative).
      if (inner.x[j] == 0.0 && t > 0 && x < 0x1p-1042) {
        throw evaluation_error(
            "group: the power of the curve has a kink at alpha below 2.3e-314 (its steepest slope "
            "is "
            "beyond e^721, e.g. k * eps > 721): beyond the limit of double precision");
      }
      if (x > inner.x[j] && x < inner.x[j + 1]) emit(x, outer.y[i], outer.z[i]);
    }
  }
  if (r.x.size() > kMaxVertices) {
    throw evaluation_error(
        "group: the power of the curve has more than 2e7 vertices (k too large)");
  }
  return r;
}

// Cleans a composed map into a trade-off polygon: y >= x, one vertex where h
// first reaches 1, concave y (convex f) with rounding-level violations removed.
curve finish(pl_map h, group_stats* stats) {
  const std::size_t n = h.size();
  pl_map s;
  for (std::size_t i = 0; i < n; ++i) {
    double y = h.y[i], z = h.z[i];
    if (y < h.x[i]) {  // h(x) >= x (f below Id), up to rounding
      y = h.x[i];
      z = 1.0 - h.x[i];
    }
    if (!s.x.empty() && s.z.back() == 0.0 && h.x[i] < 1.0) continue;  // saturated at 1
    s.x.push_back(h.x[i]);
    s.y.push_back(y);
    s.z.push_back(z);
  }
  if (s.x.back() != 1.0) {
    s.x.push_back(1.0);
    s.y.push_back(1.0);
    s.z.push_back(0.0);
  }
  // Upper hull of y (= lower hull of z). A point B between A and C is kept only
  // if it lies strictly above the chord AC in y (below it in z), tested in the
  // coordinate where B's value is small (y for y <= 1/2, z otherwise).
  double worst = 0.0;
  std::vector<std::size_t> st;
  auto excess = [&](std::size_t a, std::size_t b, std::size_t c) {
    // > 0: b lies on the convex side (keep); <= 0: b is below the chord in y.
    const long double t =
        (static_cast<long double>(s.x[b]) - s.x[a]) / (static_cast<long double>(s.x[c]) - s.x[a]);
    if (s.y[b] <= 0.5) {
      const long double chord = s.y[a] + t * (static_cast<long double>(s.y[c]) - s.y[a]);
      const long double d = s.y[b] - chord;
      const long double tol = 1e-15L * std::fabs(static_cast<long double>(s.y[b]));
      return static_cast<double>(d > tol ? d : (d >= -tol ? 0.0L : d));
    }
    const long double chord = s.z[a] + t * (static_cast<long double>(s.z[c]) - s.z[a]);
    const long double d = chord - s.z[b];
    const long double tol = 1e-15L * std::max(std::fabs(static_cast<long double>(s.z[b])), 1e-300L);
    return static_cast<double>(d > tol ? d : (d >= -tol ? 0.0L : d));
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    while (st.size() >= 2) {
      const double e = excess(st[st.size() - 2], st.back(), i);
      if (e > 0) break;
      worst = std::max(worst, -e);
      st.pop_back();
    }
    st.push_back(i);
  }
  if (worst > kMaxNonconvexity) {
    throw evaluation_error("group: the power of the curve is not convex by " +
                           detail::format_value(worst) + " (beyond rounding; a bug)");
  }
  std::vector<double> A, B, C;
  for (std::size_t i : st) {
    A.push_back(s.x[i]);
    B.push_back(s.z[i]);
    C.push_back(s.y[i]);
  }
  A.front() = 0.0;
  if (stats) {
    stats->vertices = A.size();
    stats->max_nonconvexity = worst;
  }
  return curve::from_vertices(std::move(A), std::move(B), std::move(C));
}

// -Phi^{-1}(p) with 1 - p given separately.
double neg_quantile(double p, double one_minus_p) {
  return p <= 0.5 ? norm_quantile_c(p) : norm_quantile(one_minus_p);
}

double laplace_summary(const laplace& f) {
  if (f.mu == 0) return 0.0;
  auto m = [&](double a) {
    return neg_quantile(a, 1.0 - a) + neg_quantile(fdp::beta(f, a), one_minus_beta(f, a));
  };
  // m(a) -> 0 at both ends; the sup is interior. Symmetric f: m(a) = m(f(a)),
  // so a in (0, 1/2] suffices.
  const int n = 600;
  std::vector<double> as(n);
  for (int i = 0; i < n; ++i)
    as[i] = std::pow(10.0, -300.0 + (300.0 - std::log10(2.0)) * i / (n - 1));
  int best = 0;
  double bv = -kInf;
  for (int i = 0; i < n; ++i) {
    const double v = m(as[i]);
    if (v > bv) bv = v, best = i;
  }
  // golden section in log a around the best scan point
  double lo = std::log(as[std::max(0, best - 1)]), hi = std::log(as[std::min(n - 1, best + 1)]);
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  double c = hi - g * (hi - lo), d = lo + g * (hi - lo);
  double fc = m(std::exp(c)), fd = m(std::exp(d));
  for (int it = 0; it < 200 && hi - lo > 1e-13 * std::max(1.0, std::fabs(lo)); ++it) {
    if (fc > fd) {
      hi = d, d = c, fd = fc;
      c = hi - g * (hi - lo);
      fc = m(std::exp(c));
    } else {
      lo = c, c = d, fc = fd;
      d = lo + g * (hi - lo);
      fd = m(std::exp(d));
    }
  }
  return std::max({0.0, bv, fc, fd});
}

// A polygon at or above a numeric composition's f, from the lower end of its
// privacy-profile bracket alone (composition::delta costs ~1 us, beta ~10 ms).
// With t = e^eps, f(a) = sup_{t > 0} [1 - delta(t) - t a] (DRS Prop. 2.12 /
// docs/formulas.md: f from its profile, all real eps). delta is non-increasing
// in t, so on [t_j, t_{j+1}] of a grid delta(t) >= delta(t_{j+1}) >=
// delta_lower(eps_{j+1}), and the sup over that piece is at most
// 1 - delta_lower(eps_{j+1}) - t_j a; below t_0 it is at most
// 1 - delta_lower(eps_0), above t_last at most 1 - t_last a. The lines are
// handed over as d = delta_lower (and slopes rounded down, which raises them):
// formed as intercepts 1 - d, a delta of 1e-16 became 1 - (1 - 1e-16) =
// 1.1e-16, and 'fdp group gdp:mu=0.3 epsdelta:eps=0.5,delta=1e-16 --k 1
// --eps 20' printed a lower end 1.1102e-16 above the truth 1e-16 + 1e-918.
curve upper_polygon(const composition& c) {
  double emax = 1.0;
  while (emax < 64.0 && c.delta(emax).upper > 0.0) emax *= 2.0;
  // a step well below the engine's own: the lines lose about t a (e^h - 1)
  double h = std::min(c.grid_step() > 0 ? c.grid_step() : 0.01, 0.01) / 8.0;
  const double max_lines = 200000.0;
  if (2.0 * emax / h > max_lines) h = 2.0 * emax / max_lines;
  const std::size_t n = static_cast<std::size_t>(std::ceil(2.0 * emax / h));
  std::vector<double> eps(n + 1), dlo(n + 1);
  for (std::size_t j = 0; j <= n; ++j) {
    eps[j] = -emax + static_cast<double>(j) * h;
    // (the composition's lower end, moved down by 8 ulps: see widened_below)
    dlo[j] = std::clamp(mul_dn(c.delta(eps[j]).lower, sub_dn(1.0, 8.0 * 0x1p-53)), 0.0, 1.0);
  }
  // the flat line below t_0, the pieces, the line above t_last
  std::vector<double> d{dlo[0]}, s{0.0};
  for (std::size_t j = 0; j < n; ++j) {
    d.push_back(dlo[j + 1]);
    s.push_back(detail::exp_times_dn(eps[j], 1.0));
  }
  d.push_back(0.0);
  s.push_back(detail::exp_times_dn(eps[n], 1.0));
  return detail::polygon_above_lines(d, s);
}

template <class... Ts>
struct overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
overloaded(Ts...) -> overloaded<Ts...>;

}  // namespace

gaussian group(const gaussian& f, std::int64_t k) {
  check_k(k, "group");
  return gaussian(static_cast<double>(k) * f.mu);
}

laplace group(const laplace& f, std::int64_t k) {
  check_k(k, "group");
  return laplace(static_cast<double>(k) * f.mu);
}

identity group(const identity& f, std::int64_t k) {
  check_k(k, "group");
  return f;
}

curve group(const curve& f, std::int64_t k, group_stats* stats) {
  check_k(k, "group");
  const pl_map h = from_curve(f);
  if (static_cast<long double>(h.size() - 1) * static_cast<long double>(k) >
      static_cast<long double>(kMaxVertices) * 4.0L) {
    throw evaluation_error("group(k=" + std::to_string(k) + "): the power of a curve with " +
                           std::to_string(h.size()) + " vertices would exceed 2e7 vertices");
  }
  std::optional<pl_map> result;
  pl_map base = h;
  std::int64_t e = k;
  while (e > 0) {
    if (e & 1) result = result ? compose_maps(base, *result) : base;
    e >>= 1;
    if (e > 0) base = compose_maps(base, base);
  }
  return finish(std::move(*result), stats);
}

curve group(const eps_delta& f, std::int64_t k, group_stats* stats) {
  return group(to_curve_exact(tradeoff(f)), k, stats);
}

tradeoff group(const tradeoff& f, std::int64_t k) {
  check_k(k, "group");
  return std::visit(overloaded{[&](const identity& g) { return tradeoff(group(g, k)); },
                               [&](const gaussian& g) { return tradeoff(group(g, k)); },
                               [&](const laplace& g) { return tradeoff(group(g, k)); },
                               [&](const eps_delta& g) {
                                 if (g.eps == 0) {
                                   // 1 - f = min(1, x + delta): its power is min(1, x + k delta)
                                   const double d = std::min(1.0, static_cast<double>(k) * g.delta);
                                   return tradeoff(eps_delta(0.0, d));
                                 }
                                 return tradeoff(group(g, k));
                               },
                               [&](const curve& g) { return tradeoff(group(g, k)); }},
                    f.get());
}

double gdp_summary(const curve& f) {
  const auto& a = f.alpha();
  const auto& b = f.beta();
  const auto& c = f.one_minus_beta();
  // 1 - alpha is not stored: for alpha close to 1 it is only absolutely
  // accurate (and the far tail of a long polygon can be off by more than
  // rounding). A symmetric f has f(b) = a at each vertex (a, b), so there
  // 1 - a is taken as 1 - f(b), interpolated from the stored 1 - beta.
  const bool sym = is_symmetric(f);
  double best = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == 0.0) {
      // f(0) < 1 (Q-mass at loss +inf): no G_mu lies below. Judged on the
      // stored 1 - beta, which exact constructions set to 0 exactly even when
      // beta itself rounds to 1 - 1e-16.
      if (c[i] > 0.0) return kInf;
      continue;
    }
    if (a[i] == 1.0) continue;
    if (b[i] == 0.0) return kInf;
    const double one_minus_a = (sym && a[i] > 0.5) ? one_minus_beta(f, b[i]) : 1.0 - a[i];
    best = std::max(best, neg_quantile(a[i], one_minus_a) + neg_quantile(b[i], c[i]));
  }
  return best;
}

double gdp_summary(const tradeoff& f) {
  return std::visit(
      overloaded{[](const identity&) { return 0.0; }, [](const gaussian& g) { return g.mu; },
                 [](const laplace& g) { return laplace_summary(g); },
                 [&](const eps_delta&) { return gdp_summary(to_curve_exact(f)); },
                 [](const curve& g) { return gdp_summary(g); }},
      f.get());
}

// ------------------------------------------------------------ tradeoff_bracket

namespace {

// v (1 + tol) and v (1 - tol), rounded outward.
double widen_up(double v, double tol) { return mul_up(v, add_up(1.0, tol)); }
double widen_dn(double v, double tol) { return std::max(0.0, mul_dn(v, sub_dn(1.0, tol))); }

// Relative error of beta(G_mu, a) = Phi(x), x = z - mu, z = Phi^{-1}(1 - a):
// Phi^{-1} and Phi are good to a few ulps (tests/golden/normal_golden.csv:
// 2.9e-16 and 6.8e-16) and Phi's relative condition in x is at most |x| + 1,
// so beta is good to a few ulps per unit of 1 + (|x| + 1)(|z| + 1) (measured,
// tests/golden/tradeoff_golden.csv: at most 6.1e-16 per unit of condition).
// Allowed: 8 ulps per unit.
double gaussian_beta_tol(double a, double mu) {
  const double z = norm_quantile_c(a), x = z - mu;
  return 8.0 * 0x1p-52 * (1.0 + (std::fabs(x) + 1.0) * (std::fabs(z) + 1.0));
}

// The Laplace trade-off and Id: a product, a quotient and one exp or expm1
// (< 1 ulp each, glibc): 4 ulps.
constexpr double kLaplaceTol = 4.0 * 0x1p-52;
// gdp_delta: relative error below 1e-12 where delta >= 1e-300 (fdp/ops/convert.hpp).
constexpr double kGdpDeltaTol = 1e-12;
// laplace_summary: a scan and a golden-section search, ~1e-12 relative (group.hpp).
constexpr double kLaplaceSummaryTol = 1e-11;

interval closed_beta(const tradeoff& f, double lo, double hi, double a) {
  if (std::holds_alternative<identity>(f.get())) return {sub_dn(1.0, a), sub_up(1.0, a)};
  // (a larger parameter is the less private curve: it bounds beta from below)
  if (a == 0.0) return {1.0, 1.0};
  if (a == 1.0) return {0.0, 0.0};
  double b_lo, b_hi;
  if (std::holds_alternative<gaussian>(f.get())) {
    b_lo = widen_dn(beta(gaussian(hi), a), gaussian_beta_tol(a, hi));
    b_hi = widen_up(beta(gaussian(lo), a), gaussian_beta_tol(a, lo));
  } else {
    b_lo = widen_dn(beta(laplace(hi), a), kLaplaceTol);
    b_hi = widen_up(beta(laplace(lo), a), kLaplaceTol);
  }
  return {b_lo, std::max(b_lo, std::min(b_hi, sub_up(1.0, a)))};
}

// delta of the Laplace trade-off with parameter mu, as -expm1 of an argument
// bounded on the side that makes delta smaller (lower) or larger (upper):
// 0 for eps >= mu, 1 - e^eps for eps <= -mu, 1 - e^{(eps - mu)/2} between.
double laplace_delta(double mu, double eps, bool upper) {
  if (eps >= mu) return 0.0;
  const double y = eps <= -mu ? eps : 0.5 * (upper ? sub_dn(eps, mu) : sub_up(eps, mu));
  const double d = -std::expm1(y);
  return upper ? std::min(1.0, widen_up(d, kLaplaceTol)) : widen_dn(d, kLaplaceTol);
}

// The GDP delta bounded above also where it underflows: delta_mu(eps) > 0 for
// every finite eps when mu > 0, so the upper end is at least the smallest
// positive double (gdp_delta returns 0 below ~1e-308; 'fdp group
// gdp:mu=0.020965 --k 2 --eps 3.17025' printed [0, 0] where the truth is
// 10^-1246.19).
double gdp_delta_up(double mu, double eps) {
  const double d = gdp_delta(mu, eps);
  if (d >= 1e-300) return std::min(1.0, widen_up(d, kGdpDeltaTol));
  if (!(mu > 0.0) || !(eps > 0.0)) return d;  // (mu = 0: Id; eps <= 0: delta >= 1/2 anyway)
  const double lg = gdp_log_delta(mu, eps);
  const double from_log = std::isfinite(lg) ? std::exp(lg + 1e-9 * std::fabs(lg) + 1e-12) : 1e-300;
  return std::max({std::min(from_log, 1e-300), std::numeric_limits<double>::denorm_min()});
}

double gdp_delta_dn(double mu, double eps) {
  const double d = gdp_delta(mu, eps);
  return d >= 1e-300 ? widen_dn(d, kGdpDeltaTol) : 0.0;
}

}  // namespace

tradeoff_bracket tradeoff_bracket::exact(tradeoff f) {
  tradeoff_bracket r;
  if (const auto* e = std::get_if<eps_delta>(&f.get())) {
    detail::group_polygons p = detail::group_bounds(*e, 1);
    r.lower_ = std::move(p.lower);
    r.upper_ = std::move(p.upper);
  } else if (const auto* c = std::get_if<curve>(&f.get())) {
    r.lower_ = *c;
    r.upper_ = *c;
  } else if (const auto* g = std::get_if<gaussian>(&f.get())) {
    r.param_lo_ = r.param_hi_ = g->mu;
  } else if (const auto* l = std::get_if<laplace>(&f.get())) {
    r.param_lo_ = r.param_hi_ = l->mu;
  }
  r.exact_ = std::move(f);
  return r;
}

tradeoff_bracket tradeoff_bracket::exact(tradeoff f, double param_lo, double param_hi) {
  tradeoff_bracket r = exact(std::move(f));
  if (r.lower_ || !(param_lo <= param_hi)) {
    throw std::invalid_argument("tradeoff_bracket::exact(f, lo, hi): a closed form with lo <= hi");
  }
  r.param_lo_ = param_lo;
  r.param_hi_ = param_hi;
  return r;
}

tradeoff_bracket tradeoff_bracket::exact(tradeoff f, curve lower, curve upper) {
  tradeoff_bracket r = between(std::move(lower), std::move(upper));
  r.exact_ = std::move(f);
  return r;
}

tradeoff_bracket tradeoff_bracket::between(curve lower, curve upper) {
  tradeoff_bracket r;
  r.lower_ = std::move(lower);
  r.upper_ = std::move(upper);
  return r;
}

const curve& tradeoff_bracket::lower() const {
  if (!lower_) throw std::logic_error("tradeoff_bracket::lower: a closed form has no polygons");
  return *lower_;
}

const curve& tradeoff_bracket::upper() const {
  if (!upper_) throw std::logic_error("tradeoff_bracket::upper: a closed form has no polygons");
  return *upper_;
}

interval tradeoff_bracket::beta(double alpha) const {
  detail::check_alpha(alpha, "tradeoff_bracket::beta");
  if (!lower_) return closed_beta(*exact_, param_lo_, param_hi_, alpha);
  const double lo = detail::beta_below(*lower_, alpha);
  return {lo, std::max(lo, detail::beta_above(*upper_, alpha))};
}

interval tradeoff_bracket::closed_delta(double eps) const {
  const auto& f = exact_->get();
  if (std::holds_alternative<gaussian>(f)) {
    return {gdp_delta_dn(param_lo_, eps), gdp_delta_up(param_hi_, eps)};
  }
  if (std::holds_alternative<laplace>(f)) {
    return {laplace_delta(param_lo_, eps, false), laplace_delta(param_hi_, eps, true)};
  }
  return {laplace_delta(0.0, eps, false), laplace_delta(0.0, eps, true)};  // Id = Laplace_0
}

interval tradeoff_bracket::delta(double eps) const {
  if (std::isnan(eps))
    detail::throw_domain("tradeoff_bracket::delta", "eps", eps, "must not be NaN");
  if (!lower_) {
    const interval d = closed_delta(eps);
    return {d.lower, std::max(d.lower, d.upper)};
  }
  const double lo = detail::delta_below(*upper_, eps);
  return {lo, std::max(lo, detail::delta_above(*lower_, eps))};
}

interval tradeoff_bracket::epsilon(double delta) const {
  detail::require_in(delta, 0.0, 1.0, "tradeoff_bracket::epsilon", "delta");
  // (the certified delta bounds are non-increasing in eps: the root ends hold)
  if (!lower_) {
    const double lo = solve_eps([&](double e) { return closed_delta(e).lower; }, delta, false);
    const double hi = solve_eps([&](double e) { return closed_delta(e).upper; }, delta, true);
    return {lo, std::max(lo, hi)};
  }
  const double lo =
      solve_eps([&](double e) { return detail::delta_below(*upper_, e); }, delta, false);
  const double hi =
      solve_eps([&](double e) { return detail::delta_above(*lower_, e); }, delta, true);
  return {lo, std::max(lo, hi)};
}

interval tradeoff_bracket::mu() const {
  if (!lower_) {
    const auto& f = exact_->get();
    if (std::holds_alternative<gaussian>(f)) return {param_lo_, param_hi_};
    if (std::holds_alternative<laplace>(f)) {
      return {widen_dn(laplace_summary(laplace(param_lo_)), kLaplaceSummaryTol),
              widen_up(laplace_summary(laplace(param_hi_)), kLaplaceSummaryTol)};
    }
    return {0.0, 0.0};
  }
  const double lo = detail::mu_below(*upper_);
  return {lo, std::max(lo, detail::mu_above(*lower_))};
}

namespace {

// The exact group power of a closed form or polygon, as a bracket: G_mu ->
// G_{k mu}, Laplace_mu -> Laplace_{k mu}, Id -> Id, polygons -> the
// certified polygons around their power. rel: the relative rounding of the
// closed form's parameter (mu = sensitivity / sigma; a composition's mu,
// total delta or polygon vertices: composition::exact_rel), so that k mu is
// bracketed from both ends of mu's own bracket ('group gaussian:sigma=3 --k
// 2' took 2 fl(1/3), an exact double, for 2/3).
tradeoff_bracket exact_group(const tradeoff& f, std::int64_t k, detail::group_input input,
                             double rel) {
  const double kd = static_cast<double>(k);
  auto param = [&](double mu, auto grouped) {
    const double lo = mul_dn(mu, sub_dn(1.0, rel)), hi = mul_up(mu, add_up(1.0, 2.0 * rel));
    return tradeoff_bracket::exact(tradeoff(grouped), mul_dn(kd, lo), mul_up(kd, hi));
  };
  if (const auto* g = std::get_if<gaussian>(&f.get())) return param(g->mu, group(*g, k));
  if (const auto* l = std::get_if<laplace>(&f.get())) return param(l->mu, group(*l, k));
  if (std::holds_alternative<identity>(f.get())) return tradeoff_bracket::exact(f);
  const auto* e = std::get_if<eps_delta>(&f.get());
  detail::group_polygons p;
  if (e) {
    p = detail::group_bounds(*e, k, rel);
  } else if (rel > 0.0) {  // (a composition's polygon: bound it first, then group the bounds)
    const detail::group_polygons b =
        detail::rounded_polygon_bounds(std::get<curve>(f.get()), std::max(rel, 2.0 * 0x1p-52));
    p = detail::group_bounds(b.lower, b.upper, k);
  } else {
    p = detail::group_bounds(std::get<curve>(f.get()), k, input);
  }
  // (shown as f_{0, k delta} when it is one; otherwise as the polygon above)
  tradeoff shown =
      e && e->eps == 0 ? tradeoff(eps_delta(0.0, std::min(1.0, kd * e->delta))) : tradeoff(p.upper);
  return tradeoff_bracket::exact(std::move(shown), p.lower, p.upper);
}

}  // namespace

namespace {

// A numeric composition's polygon below its f, moved down by a few ulps:
// its vertices are the crossings of lines 1 - delta_upper(eps) - e^eps a,
// rounded to nearest (envelope_of_lines_delta), and its mass at loss +inf
// can sit an ulp too low ('fdp compose curve:file=... --eps 1000' has read
// [0.8549929121380888, 0.8549929121380888] for 1 - 0.14500708786191116 =
// 0.8549929121380888397). 8 ulps of each vertex's precise side (1 - beta
// where beta > 1/2, as curve::beta reads it), beta down and 1 - beta up.
curve widened_below(const curve& c) {
  std::vector<double> B(c.beta()), C(c.one_minus_beta());
  constexpr double tol = 8.0 * 0x1p-53;
  for (std::size_t i = 0; i < B.size(); ++i) {
    if (B[i] > 0.5) {
      C[i] = std::min(
          1.0, add_up(mul_up(C[i], add_up(1.0, tol)), std::numeric_limits<double>::denorm_min()));
      B[i] = sub_dn(1.0, C[i]);
    } else {
      B[i] = std::max(0.0, mul_dn(B[i], sub_dn(1.0, tol)));
      C[i] = sub_up(1.0, B[i]);
    }
  }
  return curve::from_vertices(c.alpha(), std::move(B), std::move(C));
}

}  // namespace

tradeoff_bracket group(const composition& c, std::int64_t k) {
  check_k(k, "group");
  if (c.is_exact()) return exact_group(*c.exact(), k, detail::group_input::as_given, c.exact_rel());
  const detail::group_polygons p =
      detail::group_bounds(widened_below(c.lower_curve()), upper_polygon(c), k);
  return tradeoff_bracket::between(p.lower, p.upper);
}

tradeoff_bracket group(const std::vector<spec>& specs, std::int64_t k, const compose_options& opt) {
  check_k(k, "group");
  if (specs.empty()) throw std::invalid_argument("group(specs): at least one spec is required");
  if (specs.size() == 1 && specs[0].times == 1 && opt.method != compose_method::pld) {
    if (auto f = single_tradeoff(specs[0])) {
      // A curve is read as compose reads it: every ordered pair of neighbours
      // is min{f, f^-1}**-DP (with f alone, 'group curve:file=... --k 1' read
      // epsilon 0.847 at delta 1e-9 where compose, and f >= f_{eps,delta},
      // which constrains both orientations, give log 5). DRS Thm 2.14
      // applies to that symmetric guarantee, so it is symmetrized before the
      // power: the symmetrization of the power of f alone is not below the
      // power of the symmetrization (an asymmetric curve grouped twice read
      // delta(0.178577) = 0.579365 against 0.604807).
      const bool is_curve = std::holds_alternative<curve>(f->get());
      return exact_group(
          *f, k, is_curve ? detail::group_input::symmetrized : detail::group_input::as_given,
          spec_closed_rounding(specs[0]));
    }
  }
  return group(compose(specs, opt), k);
}

}  // namespace fdp
