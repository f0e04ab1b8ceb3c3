#include "fdp/ops/group.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <variant>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp {
namespace {

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
            "group: the power of the curve has a kink at alpha below 2.3e-314 (its steepest slope is "
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
// REFERENCES.md: f from its profile, all real eps). delta is non-increasing
// in t, so on [t_j, t_{j+1}] of a grid delta(t) >= delta(t_{j+1}) >=
// delta_lower(eps_{j+1}), and the sup over that piece is at most
// 1 - delta_lower(eps_{j+1}) - t_j a; below t_0 it is at most
// 1 - delta_lower(eps_0), above t_last at most 1 - t_last a. The upper
// envelope of these lines is >= f everywhere; its vertices, capped at
// 1 - a (where f also lies below), and their convex hull stay >= f.
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
    dlo[j] = std::max(0.0, c.delta(eps[j]).lower);
  }
  // lines y = C - S a, by increasing slope S (steepest last): the flat line
  // below t_0, the pieces, the line above t_last.
  std::vector<double> C{1.0 - dlo[0]}, S{0.0};
  for (std::size_t j = 0; j < n; ++j) {
    C.push_back(1.0 - dlo[j + 1]);
    S.push_back(std::exp(eps[j]));
  }
  C.push_back(1.0);
  S.push_back(std::exp(eps[n]));
  // upper envelope on [0, 1] (convex hull trick; slopes strictly increase)
  std::vector<std::size_t> hull;
  auto x_cross = [&](std::size_t p, std::size_t q) { return (C[q] - C[p]) / (S[q] - S[p]); };
  for (std::size_t i = C.size(); i-- > 0;) {  // steepest first: it wins near a = 0
    while (!hull.empty() && C[i] >= C[hull.back()]) hull.pop_back();  // flatter and higher
    while (hull.size() >= 2 &&
           x_cross(hull[hull.size() - 2], i) <= x_cross(hull[hull.size() - 2], hull.back()))
      hull.pop_back();
    hull.push_back(i);
  }
  std::vector<curve::point> pts{{0.0, std::min(1.0, C[hull.front()])}, {1.0, 0.0}};
  for (std::size_t k = 0; k + 1 < hull.size(); ++k) {
    const double x = x_cross(hull[k], hull[k + 1]);
    if (x > 0.0 && x < 1.0) {
      const double y = C[hull[k]] - S[hull[k]] * x;
      pts.push_back({x, std::clamp(y, 0.0, 1.0 - x)});
    }
  }
  return curve::from_points(std::move(pts), curve::hull_policy::convexify);
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

tradeoff_bracket tradeoff_bracket::exact(tradeoff f) {
  tradeoff_bracket r;
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
  if (!lower_) throw std::logic_error("tradeoff_bracket::lower: an exact object has no polygons");
  return *lower_;
}

const curve& tradeoff_bracket::upper() const {
  if (!upper_) throw std::logic_error("tradeoff_bracket::upper: an exact object has no polygons");
  return *upper_;
}

interval tradeoff_bracket::beta(double alpha) const {
  detail::check_alpha(alpha, "tradeoff_bracket::beta");
  if (exact_) {
    const double b = fdp::beta(*exact_, alpha);
    return {b, b};
  }
  const double lo = fdp::beta(*lower_, alpha), hi = fdp::beta(*upper_, alpha);
  return {lo, std::max(lo, hi)};
}

interval tradeoff_bracket::delta(double eps) const {
  if (std::isnan(eps))
    detail::throw_domain("tradeoff_bracket::delta", "eps", eps, "must not be NaN");
  if (exact_) {
    const double d = profile_delta(*exact_, eps);
    return {d, d};
  }
  const double lo = profile_delta(*upper_, eps), hi = profile_delta(*lower_, eps);
  return {lo, std::max(lo, hi)};
}

interval tradeoff_bracket::epsilon(double delta) const {
  detail::require_in(delta, 0.0, 1.0, "tradeoff_bracket::epsilon", "delta");
  if (exact_) {
    if (auto g = std::get_if<gaussian>(&exact_->get())) {
      const double e = gdp_eps(g->mu, delta);
      return {e, e};
    }
    auto fn = [&](double e) { return profile_delta(*exact_, e); };
    return {solve_eps(fn, delta, false), solve_eps(fn, delta, true)};
  }
  const double lo = solve_eps([&](double e) { return profile_delta(*upper_, e); }, delta, false);
  const double hi = solve_eps([&](double e) { return profile_delta(*lower_, e); }, delta, true);
  return {lo, std::max(lo, hi)};
}

interval tradeoff_bracket::mu() const {
  if (exact_) {
    const double m = gdp_summary(*exact_);
    return {m, m};
  }
  const double lo = gdp_summary(*upper_), hi = gdp_summary(*lower_);
  return {lo, std::max(lo, hi)};
}

tradeoff_bracket group(const composition& c, std::int64_t k) {
  check_k(k, "group");
  if (c.is_exact()) return tradeoff_bracket::exact(group(*c.exact(), k));
  const curve lower = c.lower_curve();
  const curve upper = upper_polygon(c);
  return tradeoff_bracket::between(group(lower, k), group(upper, k));
}

tradeoff_bracket group(const std::vector<spec>& specs, std::int64_t k, const compose_options& opt) {
  check_k(k, "group");
  if (specs.empty()) throw std::invalid_argument("group(specs): at least one spec is required");
  if (specs.size() == 1 && specs[0].times == 1 && opt.method != compose_method::pld) {
    if (auto f = single_tradeoff(specs[0])) {
      // An asymmetric curve is read as compose reads it: every ordered pair of
      // neighbours is min{f, f^-1}**-DP (with f alone, 'group curve:file=...
      // --k 1' read epsilon 0.847 at delta 1e-9 where compose, and
      // f >= f_{eps,delta}, which constrains both orientations, give log 5).
      // DRS Thm 2.14 applies to that symmetric guarantee, so it is
      // symmetrized before the power: the symmetrization of the power of f
      // alone is not below the power of the symmetrization (an asymmetric
      // curve grouped twice read delta(0.178577) = 0.579365 against 0.604807).
      if (const curve* c = std::get_if<curve>(&f->get()); c && !is_symmetric(*c, 0.0)) {
        f = tradeoff(symmetrize_hull(*c));
      }
      return tradeoff_bracket::exact(group(*f, k));
    }
  }
  return group(compose(specs, opt), k);
}

}  // namespace fdp
