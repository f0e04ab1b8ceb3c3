#include "fdp/core/curve.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "fdp/core/error.hpp"
#include "fdp/core/families.hpp"

namespace fdp {
namespace {

// (shortest decimals that read back: the user's own numbers, not 0.40000000000000002)
std::string pt(double a, double b) {
  return "(" + detail::format_value(a) + ", " + detail::format_value(b) + ")";
}

[[noreturn]] void bad_point(std::size_t i, double a, double b, const std::string& what) {
  throw std::invalid_argument("curve point " + std::to_string(i + 1) + " = " + pt(a, b) + ": " +
                              what);
}

// Cross product sign for the lower hull: > 0 means a left (counter-clockwise) turn.
double cross(const curve::point& o, const curve::point& a, const curve::point& b) {
  return (a.alpha - o.alpha) * (b.beta - o.beta) - (a.beta - o.beta) * (b.alpha - o.alpha);
}

std::vector<curve::point> lower_hull(const std::vector<curve::point>& pts) {
  std::vector<curve::point> h;
  for (const auto& p : pts) {
    while (h.size() >= 2 && cross(h[h.size() - 2], h.back(), p) <= 0) h.pop_back();
    h.push_back(p);
  }
  return h;
}

double interp(double x0, double x1, double y0, double y1, double x) {
  if (x1 == x0) return std::min(y0, y1);
  // From the nearer end, with its own fraction: near x1, 1 - t computed as
  // (x1 - x)/(x1 - x0) keeps its precision where 1 - (x - x0)/(x1 - x0)
  // does not (the last segment of f_{1,0} (x) f_{1,0} at alpha = 1 - 2^-52
  // read beta 2^-55 instead of 2^-52 e^-2)
  if (x - x0 <= x1 - x) return y0 + (x - x0) / (x1 - x0) * (y1 - y0);
  return y1 + (x1 - x) / (x1 - x0) * (y0 - y1);
}

// Index j such that alpha[j] <= a < alpha[j+1] (j = n-2 for a = 1).
std::size_t segment(const std::vector<double>& alpha, double a) {
  auto it = std::upper_bound(alpha.begin(), alpha.end(), a);
  std::size_t j = static_cast<std::size_t>(it - alpha.begin());
  if (j == 0) return 0;
  j -= 1;
  if (j >= alpha.size() - 1) j = alpha.size() - 2;
  return j;
}

}  // namespace

curve curve::from_points(std::vector<point> pts, hull_policy policy) {
  if (pts.empty()) {
    throw std::invalid_argument("a curve needs at least one point");
  }
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double a = pts[i].alpha, b = pts[i].beta;
    if (!(a >= 0 && a <= 1)) bad_point(i, a, b, "alpha must be in [0, 1]");
    if (!(b >= 0 && b <= 1)) bad_point(i, a, b, "beta must be in [0, 1]");
    if (b > 1 - a + 1e-12)
      bad_point(i, a, b, "beta must be <= 1 - alpha (a trade-off function lies below Id)");
  }
  std::vector<std::size_t> order(pts.size());
  std::iota(order.begin(), order.end(), 0);
  // (polygons built by the library arrive in alpha order: the stable sort
  // would return the identity)
  const bool sorted = std::is_sorted(
      pts.begin(), pts.end(), [](const point& x, const point& y) { return x.alpha < y.alpha; });
  if (!sorted) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return pts[x].alpha < pts[y].alpha; });
  }
  std::vector<point> s;
  std::vector<std::size_t> orig;
  s.reserve(pts.size() + 2);
  orig.reserve(pts.size());
  for (std::size_t k : order) {
    point p{pts[k].alpha, std::min(pts[k].beta, 1.0 - pts[k].alpha)};
    if (!s.empty() && s.back().alpha == p.alpha) {
      if (p.beta < s.back().beta) s.back() = p, orig.back() = k;
      continue;
    }
    s.push_back(p);
    orig.push_back(k);
  }
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s[i].beta > s[i - 1].beta + 1e-12) {
      bad_point(orig[i], pts[orig[i]].alpha, pts[orig[i]].beta,
                "beta increases with alpha after point " + pt(s[i - 1].alpha, s[i - 1].beta) +
                    " (a trade-off function is non-increasing)");
    }
  }
  if (s.front().alpha > 0) s.insert(s.begin(), point{0.0, 1.0});
  if (s.back().alpha < 1) s.push_back(point{1.0, 0.0});
  std::vector<point> h = lower_hull(s);
  curve c;
  c.alpha_.reserve(h.size());
  for (const auto& p : h) {
    c.alpha_.push_back(p.alpha);
    c.beta_.push_back(p.beta);
    c.omb_.push_back(1.0 - p.beta);
  }
  if (policy == hull_policy::strict) {
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const double above = pts[i].beta - fdp::beta(c, pts[i].alpha);
      if (above > 1e-9) {
        bad_point(i, pts[i].alpha, pts[i].beta,
                  "not convex: the point lies " + detail::format_value(above) +
                      " above the convex hull of the curve (a trade-off function is convex)");
      }
    }
  }
  return c;
}

curve curve::from_vertices(std::vector<double> alpha, std::vector<double> beta,
                           std::vector<double> omb) {
  const std::size_t n = alpha.size();
  if (n < 2 || beta.size() != n || omb.size() != n) {
    throw std::invalid_argument("curve::from_vertices(size): need >= 2 vertices of equal length");
  }
  if (alpha.front() != 0.0 || alpha.back() != 1.0) {
    throw std::invalid_argument("curve::from_vertices(alpha): must run from 0 to 1");
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!(beta[i] >= 0 && beta[i] <= 1 && omb[i] >= 0 && omb[i] <= 1) ||
        (i > 0 && !(alpha[i] > alpha[i - 1]))) {
      throw std::invalid_argument("curve::from_vertices(vertex " + std::to_string(i) + " = " +
                                  pt(alpha[i], beta[i]) + "): out of range or out of order");
    }
  }
  curve c;
  c.alpha_ = std::move(alpha);
  c.beta_ = std::move(beta);
  c.omb_ = std::move(omb);
  return c;
}

curve curve::from_pld(const pld& d) {
  const std::size_t n = d.loss.size();
  if (d.p.size() != n || d.q.size() != n) {
    throw std::invalid_argument("curve::from_pld(pld): loss, p and q must have equal length");
  }
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(),
            [&](std::size_t a, std::size_t b) { return d.loss[a] > d.loss[b]; });
  // Vertices in order of decreasing loss; beta from the bottom, 1 - beta from the top.
  std::vector<double> alpha{0.0}, omb{std::min(1.0, d.q_pos_inf)};
  for (std::size_t k : idx) {
    if (!(d.p[k] > 0 || d.q[k] > 0)) continue;
    alpha.push_back(std::min(1.0, alpha.back() + d.p[k]));
    omb.push_back(std::min(1.0, omb.back() + d.q[k]));
  }
  std::vector<double> beta(alpha.size(), 0.0);
  double acc = 0.0;
  std::size_t m = alpha.size();
  std::vector<double> qs;
  for (std::size_t k : idx)
    if (d.p[k] > 0 || d.q[k] > 0) qs.push_back(d.q[k]);
  for (std::size_t i = m; i-- > 1;) {
    beta[i] = acc;
    acc += qs[i - 1];
  }
  beta[0] = std::min(1.0, acc);
  std::vector<curve::point> pts;
  pts.reserve(m + 1);
  for (std::size_t i = 0; i < m; ++i) pts.push_back({alpha[i], std::min(beta[i], 1.0 - alpha[i])});
  if (alpha.back() < 1.0) pts.push_back({1.0, 0.0});
  curve c = from_points(std::move(pts), hull_policy::convexify);
  // Restore 1 - beta computed from the top where it is more precise.
  for (std::size_t i = 0; i < c.alpha_.size(); ++i) {
    auto it = std::lower_bound(alpha.begin(), alpha.end(), c.alpha_[i]);
    if (it != alpha.end() && *it == c.alpha_[i]) {
      const std::size_t j = static_cast<std::size_t>(it - alpha.begin());
      if (c.beta_[i] > 0.5) c.omb_[i] = omb[j];
    }
  }
  return c;
}

double beta(const curve& f, double a) {
  detail::check_alpha(a, "beta(curve)");
  const auto& al = f.alpha();
  const std::size_t j = segment(al, a);
  const auto& b = f.beta();
  if (b[j] > 0.5 && b[j + 1] > 0.5) {
    const auto& c = f.one_minus_beta();
    return 1.0 - interp(al[j], al[j + 1], c[j], c[j + 1], a);
  }
  return interp(al[j], al[j + 1], b[j], b[j + 1], a);
}

interval beta_bracket(const curve& f, double a, double vertex_rel) {
  detail::check_alpha(a, "beta_bracket(curve)");
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  const auto& x = f.alpha();
  const auto& y = f.beta();
  const std::size_t n = x.size(), j = segment(x, a);
  // (a vertex at the smallest doubles may stand for alphas that underflowed)
  auto ex = [&](std::size_t i) {
    const double xi = x[i];
    return xi == 0.0 || xi == 1.0 ? 0.0
                                  : vertex_rel * std::min(xi, 1 - xi) + 2 * u * xi +
                                        std::numeric_limits<double>::denorm_min();
  };
  auto ey = [&](std::size_t i) { return (vertex_rel + 2 * u) * y[i]; };
  // The true polygon is the computed one with each vertex moved by at most
  // (ex, ey). Its point at a is the computed graph's point at a - xi moved
  // up or down by zeta, where (xi, zeta) mixes the moves of the true
  // segment's two vertices in the proportion of a along it. That segment is
  // the computed one, or a neighbour when a lies within the moves of a
  // vertex; along each candidate the proportion is known to within E / dx.
  // The computed graph falls at most |slope| xi over xi (xi can be far
  // below a's own ulp: 1 - alpha of a vertex near 1 is only known to an
  // absolute ulp, 1e-5 of 1e-11), so f(a) is within |slope| xi + zeta of v.
  double shift = 0.0, zeta = 0.0;
  auto candidate = [&](std::size_t s) {
    const double dx = x[s + 1] - x[s], E = std::max(ex(s), ex(s + 1));
    if (!(dx > 0) || a < x[s] - E || a > x[s + 1] + E) return;
    const double lam = (a - x[s]) / dx, d = E / dx;
    const double l0 = std::clamp(lam - d, 0.0, 1.0), l1 = std::clamp(lam + d, 0.0, 1.0);
    auto mix = [&](double l, double e0, double e1) { return (1 - l) * e0 + l * e1; };
    const double xi = std::max(mix(l0, ex(s), ex(s + 1)), mix(l1, ex(s), ex(s + 1)));
    const double slope = std::fabs(y[s] - y[s + 1]) / dx;
    shift = std::max(shift, slope * xi);
    zeta = std::max(zeta, std::max(mix(l0, ey(s), ey(s + 1)), mix(l1, ey(s), ey(s + 1))));
  };
  for (std::size_t s = j > 0 ? j - 1 : 0; s <= std::min(n - 2, j + 1); ++s) candidate(s);
  // (and the rounding of the evaluation itself, from the nearer vertex: 4
  // ulps of v and of the part s |dy| of the drop it adds)
  const double dxj = x[j + 1] - x[j];
  const double s_near = dxj > 0 ? std::min(a - x[j], x[j + 1] - a) / dxj : 0.0;
  const double v = beta(f, a),
               err = shift + zeta + 4 * u * (v + s_near * std::fabs(y[j] - y[j + 1]));
  // (f(a) <= 1 - a: the cap is 1 - a rounded up, never below the truth;
  // the ends one ulp outward for the rounding of the sums themselves)
  const double cap = std::min(1.0, std::nextafter(1.0 - a, 2.0));
  return {std::max(0.0, std::nextafter(v - err, -1.0)),
          std::min(cap, std::nextafter(v + err, 2.0))};
}

double one_minus_beta(const curve& f, double a) {
  detail::check_alpha(a, "one_minus_beta(curve)");
  const auto& al = f.alpha();
  const std::size_t j = segment(al, a);
  const auto& c = f.one_minus_beta();
  return interp(al[j], al[j + 1], c[j], c[j + 1], a);
}

double beta_inverse(const curve& f, double y) {
  detail::check_alpha(y, "beta_inverse(curve)", "y");
  const auto& b = f.beta();
  const auto& al = f.alpha();
  // first vertex with beta <= y (beta is non-increasing)
  std::size_t i = 0;
  while (i < b.size() && b[i] > y) ++i;
  if (i == 0) return 0.0;
  if (i == b.size()) return 1.0;
  return al[i - 1] + (b[i - 1] - y) / (b[i - 1] - b[i]) * (al[i] - al[i - 1]);
}

double slope(const curve& f, double a) {
  detail::check_alpha(a, "slope(curve)");
  const auto& al = f.alpha();
  const auto& b = f.beta();
  const std::size_t j = segment(al, a);
  return (b[j + 1] - b[j]) / (al[j + 1] - al[j]);
}

double profile_delta(const curve& f, double eps) {
  if (std::isnan(eps)) detail::throw_domain("profile_delta(curve)", "eps", eps, "must not be NaN");
  const auto& al = f.alpha();
  const auto& c = f.one_minus_beta();
  // e^eps alpha_i as exp(eps + log alpha_i): e^eps alone overflows for
  // eps > 709 while the product with a tiny alpha_i is still finite.
  double best = 0.0;
  for (std::size_t i = 0; i < al.size(); ++i) {
    const double v = al[i] == 0.0 ? c[i] : c[i] - std::exp(eps + std::log(al[i]));
    best = std::max(best, v);
  }
  return std::min(best, 1.0);
}

curve inverse(const curve& f) {
  std::vector<curve::point> pts;
  const auto& al = f.alpha();
  const auto& b = f.beta();
  pts.reserve(al.size() + 1);
  for (std::size_t i = al.size(); i-- > 0;) pts.push_back({b[i], al[i]});
  return curve::from_points(std::move(pts), curve::hull_policy::convexify);
}

bool is_symmetric(const curve& f, double tol) {
  const curve g = inverse(f);
  for (double a : f.alpha())
    if (std::fabs(beta(f, a) - beta(g, a)) > tol) return false;
  for (double a : g.alpha())
    if (std::fabs(beta(f, a) - beta(g, a)) > tol) return false;
  return true;
}

curve pointwise_max(const curve& a, const curve& b) {
  // (both vertex lists are sorted: merged, not sorted again)
  std::vector<double> xs(a.alpha().size() + b.alpha().size());
  std::merge(a.alpha().begin(), a.alpha().end(), b.alpha().begin(), b.alpha().end(), xs.begin());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::vector<curve::point> pts;
  pts.reserve(xs.size() + xs.size() / 8);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double fa = beta(a, xs[i]), fb = beta(b, xs[i]);
    pts.push_back({xs[i], std::max(fa, fb)});
    if (i + 1 < xs.size()) {
      const double d0 = fa - fb, d1 = beta(a, xs[i + 1]) - beta(b, xs[i + 1]);
      if ((d0 < 0 && d1 > 0) || (d0 > 0 && d1 < 0)) {
        const double x = xs[i] + d0 / (d0 - d1) * (xs[i + 1] - xs[i]);
        if (x > xs[i] && x < xs[i + 1]) pts.push_back({x, std::min(beta(a, x), beta(b, x))});
      }
    }
  }
  return curve::from_points(std::move(pts), curve::hull_policy::convexify);
}

curve symmetrize_max(const curve& f) { return pointwise_max(f, inverse(f)); }

curve symmetrize_hull(const curve& f) {
  const curve g = inverse(f);
  std::vector<curve::point> pts;
  for (std::size_t i = 0; i < f.size(); ++i) pts.push_back({f.alpha()[i], f.beta()[i]});
  for (std::size_t i = 0; i < g.size(); ++i) pts.push_back({g.alpha()[i], g.beta()[i]});
  // The union of the two vertex sets is not the graph of a non-increasing
  // function when f is asymmetric (a vertex of f can lie above one of f^-1
  // further left), and from_points rejects such input. A point with a lower
  // point to its left lies above the lower convex hull (the hull is convex
  // with its minimum 0 at alpha = 1, hence non-increasing), so drop it first.
  std::sort(pts.begin(), pts.end(), [](const curve::point& x, const curve::point& y) {
    return x.alpha < y.alpha || (x.alpha == y.alpha && x.beta < y.beta);
  });
  std::vector<curve::point> kept;
  double lowest = std::numeric_limits<double>::infinity();
  for (const auto& p : pts) {
    if (p.beta < lowest) {
      kept.push_back(p);
      lowest = p.beta;
    }
  }
  return curve::from_points(std::move(kept), curve::hull_policy::convexify);
}

pld to_pld(const curve& f) {
  pld d;
  const auto& al = f.alpha();
  const auto& b = f.beta();
  const auto& c = f.one_minus_beta();
  d.q_pos_inf = c[0];
  for (std::size_t i = 0; i + 1 < al.size(); ++i) {
    const double p = al[i + 1] - al[i];
    const double q = (b[i] > 0.5) ? c[i + 1] - c[i] : b[i] - b[i + 1];
    if (q <= 0) {
      d.p_neg_inf += p;
      continue;
    }
    d.loss.push_back(std::log(q / p));
    d.p.push_back(p);
    d.q.push_back(q);
  }
  std::reverse(d.loss.begin(), d.loss.end());
  std::reverse(d.p.begin(), d.p.end());
  std::reverse(d.q.begin(), d.q.end());
  return d;
}

}  // namespace fdp
