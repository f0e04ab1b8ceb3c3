#include "ops/group_bounds.hpp"

#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ops/directed.hpp"
#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"

namespace fdp::detail {
namespace {

using namespace directed;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::size_t kMaxNodes = 20000000;

// A breakpoint x of the bounds on T = (1 - f)^{o j}:
//   lower chain  vl <= T(x), wu >= 1 - T(x);
//   cone         T(x) <= V = min(vu, 1 - wl), and T(y) <= V + sr (y - x) for
//                y >= x, T(y) <= V + sl (y - x) for y <= x (sr bounds every
//                slope of T right of x, sl every slope left of it, from above
//                and below; both >= 0 as T is non-decreasing).
struct node {
  double x;
  double vl, wu;
  double vu, wl;
  double sl, sr;
};
using bmap = std::vector<node>;

// A value known from below (lo: v <= value, w >= 1 - value) or from above
// (hi: v >= value, w <= 1 - value). Near 1 the w side is the precise one.
struct lo_val {
  double v, w;
};
struct hi_val {
  double v, w;
};

// Each side bounds the other through value + (1 - value) = 1; clamped to [0, 1].
lo_val tighten(lo_val a) {
  a.v = std::clamp(std::max(a.v, sub_dn(1.0, a.w)), 0.0, 1.0);
  a.w = std::clamp(std::min(a.w, sub_up(1.0, a.v)), 0.0, 1.0);
  return a;
}
hi_val tighten(hi_val a) {
  a.v = std::clamp(std::min(a.v, sub_up(1.0, a.w)), 0.0, 1.0);
  a.w = std::clamp(std::max(a.w, sub_dn(1.0, a.v)), 0.0, 1.0);
  return a;
}

// The last node with x <= p.
std::size_t node_at(const bmap& b, double p) {
  const auto it =
      std::upper_bound(b.begin(), b.end(), p, [](double v, const node& n) { return v < n.x; });
  return it == b.begin() ? 0 : static_cast<std::size_t>(it - b.begin()) - 1;
}

// y0 + t (y1 - y0) for some t in [t0, t1] (0 <= t0 <= t1), bounded below / above.
double lerp_dn(double y0, double y1, double t0, double t1) {
  const double d = sub_dn(y1, y0);
  return add_dn(y0, mul_dn(d >= 0 ? t0 : t1, d));
}
double lerp_up(double y0, double y1, double t0, double t1) {
  const double d = sub_up(y1, y0);
  return add_up(y0, mul_up(d >= 0 ? t1 : t0, d));
}

// T at a point a* known from below: the lower chain's chord around a*, at a
// point q <= a* (T is non-decreasing) placed from either end of the segment
// (from the nearer end, distances next to 1 keep their precision), and
// T(a*) >= a* (f <= 1 - alpha).
lo_val lower_at(const bmap& b, lo_val arg) {
  arg = tighten(arg);
  const double p = arg.v;  // <= a*
  if (p >= 1.0) return {1.0, 0.0};
  const std::size_t m = std::min(node_at(b, p), b.size() - 2);
  const node &n0 = b[m], &n1 = b[m + 1];
  double dl = sub_dn(arg.v, n0.x), du = sub_up(n1.x, arg.v);      // a* - x0 >= dl, x1 - a* <= du
  if (n0.x >= 0.5) dl = std::max(dl, sub_dn(1.0 - n0.x, arg.w));  // (1 - x exact for x >= 1/2)
  if (n1.x >= 0.5) du = std::min(du, sub_up(arg.w, 1.0 - n1.x));
  const double d_up = sub_up(n1.x, n0.x), d_dn = sub_dn(n1.x, n0.x);
  const double t = std::clamp(div_dn(dl, d_up), 0.0, 1.0);  // q = x0 + t (x1 - x0) <= a*
  const double s = std::clamp(div_up(du, d_dn), 0.0, 1.0);  // q = x1 - s (x1 - x0) <= a*
  lo_val r;
  r.v = std::max(lerp_dn(n0.vl, n1.vl, t, t), lerp_dn(n1.vl, n0.vl, s, s));
  r.w = std::min(lerp_up(n0.wu, n1.wu, t, t), lerp_up(n1.wu, n0.wu, s, s));
  r.v = std::max(r.v, p);
  r.w = std::min(r.w, arg.w);
  return tighten(r);
}

// The cone of n at a point a* known from above (the cone is non-decreasing,
// so its value at an upper bound of a* - x bounds its value at a*).
hi_val cone_at(const node& n, hi_val arg) {
  double d = sub_up(arg.v, n.x);
  if (n.x >= 0.5) d = std::min(d, sub_up(1.0 - n.x, arg.w));
  const double rise = d >= 0 ? mul_up(n.sr, d) : mul_up(n.sl, d);
  return {add_up(n.vu, rise), sub_dn(n.wl, rise)};
}

// T at a point a* known from above: the lower of the two cones around it.
hi_val upper_at(const bmap& b, hi_val arg) {
  arg = tighten(arg);
  const std::size_t m = node_at(b, arg.v);
  hi_val r = cone_at(b[m], arg);
  if (m + 1 < b.size()) {
    const hi_val r2 = cone_at(b[m + 1], arg);
    r.v = std::min(r.v, r2.v);
    r.w = std::max(r.w, r2.w);
  }
  return tighten(r);
}

// Slope bounds of a base polygon whose vertex values lie in the nodes'
// enclosures (values v in [vl, vu], 1 - v in [wl, wu]): on segment j every
// such polygon's slope is in [lo_j, up_j] (from the values and, next to 1,
// from their complements). sr takes the largest slope to the right, sl the
// smallest to the left: valid for any such polygon, convex or not (a
// rounding-level kink costs nothing).
void set_slopes(bmap& b) {
  const std::size_t n = b.size();
  std::vector<double> up(n - 1), lo(n - 1);
  for (std::size_t j = 0; j + 1 < n; ++j) {
    const node &p = b[j], &q = b[j + 1];
    const double d_dn = sub_dn(q.x, p.x), d_up = sub_up(q.x, p.x);
    up[j] =
        std::max(0.0, std::min(div_up(sub_up(q.vu, p.vl), d_dn), div_up(sub_up(p.wu, q.wl), d_dn)));
    lo[j] = std::max({0.0, div_dn(sub_dn(q.vl, p.vu), d_up), div_dn(sub_dn(p.wl, q.wu), d_up)});
  }
  double s = 0.0;
  for (std::size_t i = n; i-- > 0;) {
    b[i].sr = s;
    if (i > 0) s = std::max(s, up[i - 1]);
  }
  s = kInf;
  for (std::size_t i = 0; i < n; ++i) {
    b[i].sl = i == 0 ? 0.0 : s;
    if (i + 1 < n) s = std::min(s, lo[i]);
  }
}

// T(x) >= x (f <= 1 - alpha), applied to the lower chain.
void identity_floor(node& n) {
  n.vl = std::max(n.vl, n.x);
  n.wu = std::min(n.wu, sub_up(1.0, n.x));
}

// The map of f's polygon. A curve carries each vertex's value twice, as beta
// and as 1 - beta, and the two differ by rounding: the precise one is read
// (1 - beta where beta > 1/2, beta elsewhere, as curve::beta reads it), so
// a mass of 1e-15 at loss +inf keeps its digits (taking the looser of the
// two read 1e-16 at alpha = 1.6e-44 as 1 - 1, and an upper polygon's
// delta(20) as 0 for 1e-16).
bmap base_as_given(const curve& f) {
  const auto& a = f.alpha();
  const auto& b = f.beta();
  const auto& c = f.one_minus_beta();
  bmap r(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    node& n = r[i];
    n.x = a[i];
    if (b[i] > 0.5) {
      n.vl = n.vu = c[i];
      n.wl = sub_dn(1.0, c[i]);
      n.wu = sub_up(1.0, c[i]);
    } else {
      n.vl = sub_dn(1.0, b[i]);
      n.vu = sub_up(1.0, b[i]);
      n.wl = n.wu = b[i];
    }
    identity_floor(n);
  }
  set_slopes(r);
  return r;
}

struct point {
  double x, z;
  bool operator<(const point& o) const { return x < o.x || (x == o.x && z < o.z); }
  bool operator==(const point& o) const { return x == o.x && z == o.z; }
};

// The sign of an exact sum of doubles: a nonoverlapping expansion grown one
// term at a time by TwoSum (Shewchuk 1997, Grow-Expansion); its largest
// nonzero component carries the sign.
int sign_of_sum(const double* t, std::size_t n) {
  double e[32];
  std::size_t len = 0;
  for (std::size_t k = 0; k < n; ++k) {
    double q = t[k];
    for (std::size_t i = 0; i < len; ++i) {
      const double s = q + e[i], bb = s - q;
      const double err = (q - (s - bb)) + (e[i] - bb);
      e[i] = err;
      q = s;
    }
    e[len++] = q;
  }
  for (std::size_t i = len; i-- > 0;)
    if (e[i] != 0.0) return e[i] > 0 ? 1 : -1;
  return 0;
}

// Sign of (a - o) x (b - o), exactly. A floating-point filter (Shewchuk's
// static bound (3 + 16 eps) eps of the terms, valid without underflow);
// else the differences split exactly into two doubles each (TwoSum) and the
// 8 products of those into two each (fma), whose exact sum's sign is taken;
// where a product's error term could underflow, exact rationals.
int orientation(const point& o, const point& a, const point& b) {
  const double l = (a.x - o.x) * (b.z - o.z), r = (a.z - o.z) * (b.x - o.x);
  const double det = l - r, mag = std::fabs(l) + std::fabs(r);
  if (mag > 0x1p-900 && std::fabs(det) > 3.4e-16 * mag) return det > 0 ? 1 : -1;
  auto split = [](double u, double v, double& hi, double& lo) {  // u - v = hi + lo
    hi = u - v;
    const double bb = hi - u;
    lo = (u - (hi - bb)) + (-v - bb);
  };
  double d[4][2];
  split(a.x, o.x, d[0][0], d[0][1]);
  split(b.z, o.z, d[1][0], d[1][1]);
  split(a.z, o.z, d[2][0], d[2][1]);
  split(b.x, o.x, d[3][0], d[3][1]);
  double terms[16];
  std::size_t n = 0;
  bool exact = true;
  for (int side = 0; side < 2; ++side) {
    const double* u = d[2 * side];
    const double* v = d[2 * side + 1];
    const double sign = side == 0 ? 1.0 : -1.0;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        const double p = u[i] * v[j];
        if (u[i] != 0.0 && v[j] != 0.0 && !(std::fabs(p) >= 0x1p-968 && std::isfinite(p)))
          exact = false;
        terms[n++] = sign * p;
        terms[n++] = sign * std::fma(u[i], v[j], -p);
      }
    }
  }
  if (exact) return sign_of_sum(terms, n);
  using boost::multiprecision::cpp_rational;
  const cpp_rational ox(o.x), oz(o.z),
      e = (cpp_rational(a.x) - ox) * (cpp_rational(b.z) - oz) -
          (cpp_rational(a.z) - oz) * (cpp_rational(b.x) - ox);
  return e > 0 ? 1 : (e < 0 ? -1 : 0);
}

// f_sym = min{f, f^-1}**: the lower convex hull of the graphs of f and of
// f^-1 (the reflection (alpha, beta) -> (beta, alpha)), each completed by
// (0, 1) (the top of the vertical piece when f(0) < 1) and (1, 0). Built
// with exact orientation tests from the stored doubles, so that f_sym is
// exactly convex (the cones need it) and its vertex values exact.
bmap base_symmetrized(const curve& f) {
  std::vector<point> pts{{0.0, 1.0}, {1.0, 0.0}};
  for (std::size_t i = 0; i < f.size(); ++i) {
    pts.push_back({f.alpha()[i], f.beta()[i]});
    pts.push_back({f.beta()[i], f.alpha()[i]});
  }
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  std::vector<point> h;
  for (const point& p : pts) {
    while (h.size() >= 2 && orientation(h[h.size() - 2], h.back(), p) <= 0) h.pop_back();
    if (!h.empty() && h.back().x == p.x) continue;  // (the lower point at this alpha is kept)
    h.push_back(p);
  }
  bmap r(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) {
    node& n = r[i];
    n.x = h[i].x;
    n.wl = n.wu = h[i].z;
    n.vl = sub_dn(1.0, h[i].z);
    n.vu = sub_up(1.0, h[i].z);
    identity_floor(n);
  }
  set_slopes(r);
  return r;
}

// The map of f_{eps,delta}, T = min(1, delta + e^eps a, 1 - e^-eps (1 - delta - a))
// (DRS eq. for f_{eps,delta}): its kink (1 - delta)/(1 + e^eps) is not a
// double, so it gets the two doubles around it, and each node's bounds and
// slopes come from the lines themselves (e^eps to the left of the kink,
// e^-eps to the right until T = 1 at 1 - delta, 0 after).
bmap base_eps_delta(double eps, double delta) {
  const double E = std::exp(eps), e = std::exp(-eps);
  const double E_dn = std::isinf(E) ? std::numeric_limits<double>::max() : next_dn(next_dn(E));
  const double E_up = next_up(next_up(E));  // (exp: < 1 ulp)
  const double e_dn = std::max(0.0, next_dn(next_dn(e))), e_up = next_up(next_up(e));
  const double od_dn = sub_dn(1.0, delta), od_up = sub_up(1.0, delta);  // 1 - delta
  auto at = [&](double x, double sl, double sr) {
    node n{x, 0, 0, 0, 0, sl, sr};
    const double w_dn = sub_dn(od_dn, x), w_up = sub_up(od_up, x);  // 1 - delta - x
    // from below: min(1, delta + E x, 1 - e w); 1 - T from above
    n.vl = std::min(
        {1.0, add_dn(delta, mul_dn(E_dn, x)), w_up > 0 ? sub_dn(1.0, mul_up(e_up, w_up)) : 1.0});
    n.wu = std::max({0.0, sub_up(od_up, mul_dn(E_dn, x)), mul_up(e_up, w_up)});
    // from above
    n.vu = std::min({1.0, add_up(delta, mul_up(E_up, x)), sub_up(1.0, mul_dn(e_dn, w_dn))});
    n.wl = std::max({0.0, sub_dn(od_dn, mul_up(E_up, x)), mul_dn(e_dn, w_dn)});
    identity_floor(n);
    return n;
  };
  // the kink from both sides: x- <= (1 - delta) / (1 + e^eps) <= x+
  const double k_dn = div_dn(od_dn, add_up(1.0, E_up)), k_up = div_up(od_up, add_dn(1.0, E_dn));
  bmap r{at(0.0, 0.0, E_up)};
  auto add = [&](node n) {
    if (n.x <= r.back().x) {  // (the same abscissa: both nodes' bounds hold)
      node& m = r.back();
      m.vl = std::max(m.vl, n.vl), m.wu = std::min(m.wu, n.wu);
      m.vu = std::min(m.vu, n.vu), m.wl = std::max(m.wl, n.wl);
      m.sl = std::max(m.sl, n.sl), m.sr = std::min(m.sr, n.sr);
      return;
    }
    r.push_back(n);
  };
  add(at(k_dn, E_dn, E_up));
  add(at(std::min(k_up, od_dn), e_dn, e_up));
  add(at(od_dn, e_dn, e_up));  // (T reaches 1 at 1 - delta)
  add(at(1.0, delta > 0 ? 0.0 : e_dn, 0.0));
  return r;
}

// v - x for a value v = 1 - w (w the precise side above 1/2); approximate.
double approx_minus(double v, double w, double x) {
  return (v > 0.5 && x >= 0.5) ? (1.0 - x) - w : v - x;
}

// Abscissae of (outer o inner): inner's breakpoints and, inside each of its
// segments, the preimages of outer's breakpoints u, located on the lower
// chain's chord (any position is sound: the bounds at it are computed, not
// assumed; near the true kinks they are tight). Each kink carries its u (a
// preimage that falls on one of inner's breakpoints marks that one).
struct abscissa {
  double x;
  double u;  // the outer breakpoint whose preimage x is (NaN if none)
};

std::vector<abscissa> breakpoints(const bmap& outer, const bmap& inner) {
  std::vector<abscissa> xs;
  xs.reserve(inner.size() + outer.size());
  auto value = [](const node& n) { return tighten(lo_val{n.vl, n.wu}); };
  auto cmp = [](double x, const lo_val& v) { return -approx_minus(v.v, v.w, x); };  // ~ x - v
  std::size_t i = 1;  // next interior breakpoint of outer
  for (std::size_t j = 0; j < inner.size(); ++j) {
    xs.push_back({inner[j].x, NAN});
    const lo_val a = value(inner[j]);
    // a breakpoint of inner that maps (within rounding) onto one of outer's
    for (std::size_t c = node_at(outer, a.v) > 1 ? node_at(outer, a.v) - 1 : 1;
         c + 1 < outer.size() && c <= node_at(outer, a.v) + 1; ++c) {
      const double u = outer[c].x, scale = u > 0.5 ? 1.0 - u : u;
      if (std::fabs(cmp(u, a)) <= 1e-12 * scale) xs.back().u = u;
    }
    if (j + 1 == inner.size()) break;
    const lo_val b = value(inner[j + 1]);
    while (i + 1 < outer.size() && cmp(outer[i].x, a) <= 0) ++i;
    for (; i + 1 < outer.size() && cmp(outer[i].x, b) < 0; ++i) {
      const double u = outer[i].x;
      const double span = a.v > 0.5 ? a.w - b.w : b.v - a.v;
      if (!(span > 0)) continue;
      const double t = -approx_minus(a.v, a.w, u) / span, s = approx_minus(b.v, b.w, u) / span;
      const double x0 = inner[j].x, x1 = inner[j + 1].x;
      const double x = t <= 0.5 ? x0 + t * (x1 - x0) : x1 - s * (x1 - x0);
      if (x > xs.back().x && x < x1) xs.push_back({x, u});
    }
  }
  return xs;
}

// Inner's bounds and slope bounds at any abscissa x.
struct inner_value {
  lo_val l;
  hi_val h;
  double sl, sr;
};

inner_value inner_at(const bmap& inner, double x) {
  const std::size_t j = node_at(inner, x);
  const node& n = inner[j];
  if (n.x == x) return {tighten(lo_val{n.vl, n.wu}), tighten(hi_val{n.vu, n.wl}), n.sl, n.sr};
  return {lower_at(inner, {x, sub_up(1.0, x)}), upper_at(inner, {x, sub_dn(1.0, x)}),
          inner[j + 1].sl, n.sr};
}

// value >= u / value <= u for certain (next to 1 through 1 - value; 1 - u
// is exact for u >= 1/2).
bool certain_ge(const lo_val& l, double u) { return l.v >= u || (u >= 0.5 && l.w <= 1.0 - u); }
bool certain_le(const hi_val& h, double u) { return h.v <= u || (u >= 0.5 && h.w >= 1.0 - u); }

// The last outer node certainly at or below T_i(x), and the first certainly
// at or above it.
std::size_t node_below(const bmap& outer, const lo_val& l) {
  std::size_t m = node_at(outer, l.v);
  while (m + 1 < outer.size() && certain_ge(l, outer[m + 1].x)) ++m;
  return m;
}
std::size_t node_above(const bmap& outer, const hi_val& h) {
  std::size_t q =
      static_cast<std::size_t>(std::lower_bound(outer.begin(), outer.end(), h.v,
                                                [](const node& n, double v) { return n.x < v; }) -
                               outer.begin());
  q = std::min(q, outer.size() - 1);
  while (q > 0 && certain_le(h, outer[q - 1].x)) --q;
  return q;
}

// (outer o inner) at one abscissa: inner's bounds there, outer's bounds at
// them, and the chain rule for the slopes: every slope of T_o o T_i right of
// x is at most (T_o's largest slope right of T_i(x)) (T_i's largest slope
// right of x), and likewise from below on the left.
node compose_at(const bmap& outer, const inner_value& iv, double x) {
  const lo_val ol = lower_at(outer, iv.l);
  const hi_val oh = upper_at(outer, iv.h);
  const double o_sr = outer[node_below(outer, iv.l)].sr, o_sl = outer[node_above(outer, iv.h)].sl;
  node r{x, ol.v, ol.w, oh.v, oh.w, std::max(0.0, mul_dn(o_sl, iv.sl)), mul_up(o_sr, iv.sr)};
  identity_floor(r);
  return r;
}

// At a kink of the composition, T_i(x) is within rounding of an outer
// breakpoint u. Unless T_i(x) = u is certain, one side of u is not, and the
// slope bounds there take the wrong piece on that side (the steeper one on
// the right, the flatter on the left): the cone is loose there, and so is the
// polygon below, out to the next breakpoint. So the kink gets the nearest
// abscissae (doubling steps) where T_i(x-) <= u and T_i(x+) >= u are
// certain; between them the loose bounds cost a few ulps of alpha.
double step_until(const bmap& inner, double x, double limit, double u, bool up) {
  double step = up ? next_up(x) - x : x - next_dn(x);
  for (int i = 0; i < 1100 && std::isfinite(step); ++i, step *= 2.0) {
    const double y = up ? x + step : x - step;
    if (up ? !(y < limit) : !(y > limit)) return NAN;
    const inner_value iv = inner_at(inner, y);
    if (up ? certain_ge(iv.l, u) : certain_le(iv.h, u)) return y;
  }
  return NAN;
}

// A node whose bounds its neighbours give within 1e-15 (relative, on the
// precise side) is dropped: without it, the chord of the lower chain and the
// two neighbouring cones still bound T (any subset of points below a concave
// function, any set of cones above it, stays sound), only up to 1e-15
// looser. The power of a polygon close to Id has k (n - 1) kinks with slope
// changes at the rounding level; kept, a 1000-fold group of a subsampled
// Gaussian's polygons carried 10^6 of them.
bool redundant(const node& a, const node& m, const node& b) {
  constexpr double tol = 1e-15;
  // the lower chain without m: the chord of a and b, looser at m only
  const bmap chord{a, b};
  const lo_val l = lower_at(chord, lo_val{m.x, sub_up(1.0, m.x)});
  if (!(m.vl > 0.5 ? l.w <= m.wu + tol * m.wu : l.v >= m.vl - tol * m.vl)) return false;
  // the cones without m: min(cone_a, cone_b) instead of min(cone_a, cone_m)
  // left of m and min(cone_m, cone_b) right of it; the difference is
  // largest at m or where cone_a and cone_b cross (m's slopes may be the
  // tight ones there: a point next to a kink carries its one-sided slope)
  auto looser = [&](double y) {
    const hi_val arg{y, sub_dn(1.0, y)};
    const hi_val ca = cone_at(a, arg), cb = cone_at(b, arg), cm = cone_at(m, arg);
    const hi_val without = tighten(hi_val{std::min(ca.v, cb.v), std::max(ca.w, cb.w)});
    const hi_val& other = y <= m.x ? ca : cb;
    const hi_val with = tighten(hi_val{std::min(other.v, cm.v), std::max(other.w, cm.w)});
    return with.v > 0.5 ? without.w < with.w - tol * with.w : without.v > with.v + tol * with.v;
  };
  if (looser(m.x)) return false;
  if (a.sr > b.sl) {
    const double rise = b.vu > 0.5 ? a.wl - b.wl : b.vu - a.vu;
    const double y = a.x + std::fma(-b.sl, b.x - a.x, rise) / (a.sr - b.sl);
    if (y > a.x && y < b.x && looser(y)) return false;
  }
  return true;
}

bmap pruned(bmap b) {
  bmap r;
  r.reserve(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (!r.empty() && i + 1 < b.size() && r.size() >= 1 && redundant(r.back(), b[i], b[i + 1])) {
      // (b[i] dropped; its cone's slopes stay valid for the neighbours' own)
      continue;
    }
    r.push_back(b[i]);
  }
  return r;
}

bmap compose(const bmap& outer, const bmap& inner) {
  const std::vector<abscissa> xs = breakpoints(outer, inner);
  bmap r;
  r.reserve(xs.size() + xs.size() / 2);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i].x, u = xs[i].u;
    const inner_value iv = inner_at(inner, x);
    if (!std::isnan(u) && !certain_le(iv.h, u) && !r.empty()) {
      const double below = step_until(inner, x, r.back().x, u, false);
      if (!std::isnan(below)) r.push_back(compose_at(outer, inner_at(inner, below), below));
    }
    r.push_back(compose_at(outer, iv, x));
    if (!std::isnan(u) && !certain_ge(iv.l, u) && i + 1 < xs.size()) {
      const double above = step_until(inner, x, xs[i + 1].x, u, true);
      if (!std::isnan(above)) r.push_back(compose_at(outer, inner_at(inner, above), above));
    }
    if (r.size() > kMaxNodes) {
      throw evaluation_error(
          "group: the power of the curve has more than 2e7 vertices (k too large)");
    }
  }
  return pruned(std::move(r));
}

bmap power(const bmap& h, std::int64_t k) {
  if (static_cast<long double>(h.size() - 1) * static_cast<long double>(k) >
      static_cast<long double>(kMaxNodes) * 4.0L) {
    throw evaluation_error("group(k=" + std::to_string(k) + "): the power of a curve with " +
                           std::to_string(h.size()) + " vertices would exceed 2e7 vertices");
  }
  std::optional<bmap> result;
  bmap base = h;
  for (std::int64_t e = k; e > 0;) {
    if (e & 1) result = result ? compose(base, *result) : base;
    e >>= 1;
    if (e > 0) base = compose(base, base);
  }
  return std::move(*result);
}

// The polygon above the power: the lower chain's points (chords of points
// under the concave T lie under it; for f = 1 - T, over it).
curve polygon_above(const bmap& b) {
  std::vector<double> A, B, C;
  for (const node& n : b) {
    const lo_val v = tighten(lo_val{n.vl, n.wu});
    A.push_back(n.x);
    B.push_back(v.w);
    C.push_back(v.v);
  }
  return curve::from_vertices(std::move(A), std::move(B), std::move(C));
}

// The polygon below the power: between neighbouring breakpoints p, q,
// T <= min(cone_p, cone_q), a concave function with at most one kink, where
// the two cone lines cross. The polygon takes each breakpoint's cone value
// and, at the crossing (rounded to the neighbouring double that costs
// less), the larger of the two lines: each chord then lies above one line
// of min(cone_p, cone_q) over its whole span. A crossing that rounds onto
// p or q raises that end instead.
curve polygon_below(const bmap& b) {
  std::vector<double> A, B, C;  // alpha, beta (<= 1 - T), 1 - beta (>= T)
  auto push = [&](double x, hi_val v) {
    if (!A.empty() && A.back() == x) {
      C.back() = std::max(C.back(), v.v);
      B.back() = std::min(B.back(), v.w);
      return;
    }
    A.push_back(x);
    C.push_back(v.v);
    B.push_back(v.w);
  };
  // the larger of the two lines at x (not capped at 1: see below)
  auto both = [&](const node& p, const node& q, double x) {
    const hi_val arg{x, sub_dn(1.0, x)};
    const hi_val l = cone_at(p, arg), r = cone_at(q, arg);
    return hi_val{std::max(l.v, r.v), std::min(l.w, r.w)};
  };
  for (std::size_t m = 0; m < b.size(); ++m) {
    const node& p = b[m];
    push(p.x, tighten(hi_val{p.vu, p.wl}));
    if (m + 1 == b.size()) break;
    const node& q = b[m + 1];
    if (!(p.sr > q.sl)) continue;  // min(cone_p, cone_q) is convex here: the chord lies above it
    // l_q(x_p) - V_p = (V_q - V_p) - sl_q (x_q - x_p), from the precise side
    // (the difference of two nearly equal lines: one rounding, by fma)
    const double rise = q.vu > 0.5 ? p.wl - q.wl : q.vu - p.vu;
    double y = std::isinf(p.sr) ? p.x : p.x + std::fma(-q.sl, q.x - p.x, rise) / (p.sr - q.sl);
    if (!(y >= p.x)) y = p.x;
    if (!(y <= q.x)) y = q.x;
    // An abscissa strictly inside if there is one (raising p or q would raise
    // their other side too), else the cheaper one. Its value must not be
    // capped at 1 (T <= 1 everywhere, but the chord to a capped value can
    // pass below a line that rises above 1 there: with a cone of slope
    // e^800 at 0, a crossing rounded to 5e-324 read 1, and the chord from 0
    // dropped f_{400,0} grouped twice to epsilon 744 for 788). Where no
    // candidate is below 1, p is raised to cone q's line instead: the chord
    // from there lies above that line over the whole segment.
    const double c0 = std::max(p.x, next_dn(y)), c1 = std::min(q.x, next_up(y));
    const hi_val v0 = both(p, q, c0), v1 = both(p, q, c1);
    auto ok = [](const hi_val& v) { return v.v <= 1.0 || v.w >= 0.0; };
    auto inside = [&](double c, const hi_val& v) { return c > p.x && c < q.x && ok(v); };
    const bool in0 = inside(c0, v0), in1 = inside(c1, v1);
    const bool cheaper0 = v0.v > 0.5 ? v0.w >= v1.w : v0.v <= v1.v;
    if (in0 || in1) {
      const bool first = in0 != in1 ? in0 : cheaper0;
      push(first ? c0 : c1, tighten(first ? v0 : v1));
    } else if (ok(v0) || ok(v1)) {
      const bool first = ok(v0) != ok(v1) ? ok(v0) : cheaper0;
      push(first ? c0 : c1, tighten(first ? v0 : v1));
    } else {
      push(p.x, tighten(cone_at(q, hi_val{p.x, sub_dn(1.0, p.x)})));
    }
  }
  return curve::from_vertices(std::move(A), std::move(B), std::move(C));
}

// ---------------------------------------------------------------- evaluation

// The polygon's segment around a and the position of a in it, bounded.
struct position {
  std::size_t j;
  double t0, t1;  // a = A_j + t (A_{j+1} - A_j)
  double s0, s1;  // a = A_{j+1} - s (A_{j+1} - A_j)
};

position locate(const curve& p, double a) {
  const auto& A = p.alpha();
  std::size_t j = static_cast<std::size_t>(std::upper_bound(A.begin(), A.end(), a) - A.begin());
  j = std::min(j == 0 ? 0 : j - 1, A.size() - 2);
  const double d_up = sub_up(A[j + 1], A[j]), d_dn = sub_dn(A[j + 1], A[j]);
  auto frac = [](double v) { return std::clamp(v, 0.0, 1.0); };
  position r{j, 0, 0, 0, 0};
  r.t0 = frac(div_dn(sub_dn(a, A[j]), d_up));
  r.t1 = frac(div_up(sub_up(a, A[j]), d_dn));
  r.s0 = frac(div_dn(sub_dn(A[j + 1], a), d_up));
  r.s1 = frac(div_up(sub_up(A[j + 1], a), d_dn));
  return r;
}

// Bounds on the polygon's value at a, from beta and from 1 - beta, from
// either end of the segment.
double value_dn(const curve& p, double a) {
  const position q = locate(p, a);
  const auto& B = p.beta();
  const auto& C = p.one_minus_beta();
  const std::size_t j = q.j;
  const double b =
      std::max(lerp_dn(B[j], B[j + 1], q.t0, q.t1), lerp_dn(B[j + 1], B[j], q.s0, q.s1));
  const double c =
      std::min(lerp_up(C[j], C[j + 1], q.t0, q.t1), lerp_up(C[j + 1], C[j], q.s0, q.s1));
  return std::clamp(std::max(b, sub_dn(1.0, c)), 0.0, 1.0);
}

double value_up(const curve& p, double a) {
  const position q = locate(p, a);
  const auto& B = p.beta();
  const auto& C = p.one_minus_beta();
  const std::size_t j = q.j;
  const double b =
      std::min(lerp_up(B[j], B[j + 1], q.t0, q.t1), lerp_up(B[j + 1], B[j], q.s0, q.s1));
  const double c =
      std::max(lerp_dn(C[j], C[j + 1], q.t0, q.t1), lerp_dn(C[j + 1], C[j], q.s0, q.s1));
  return std::clamp(std::min(b, sub_up(1.0, c)), 0.0, 1.0);
}

// -Phi^{-1}(p) = Phi^{-1}(1 - p), and Phi^{-1}(c) (= -Phi^{-1}(1 - c)): both
// accurate to 1e-13 relative for arguments in [1e-300, 1 - 1e-16]
// (fdp/core/normal.hpp); 1e-10 is allowed outside.
double quantile_tol(double p) { return (p >= 1e-300 && p <= 1.0 - 1e-16) ? 2e-13 : 1e-10; }

// Phi^{-1}(1 - a) - Phi^{-1}(f(a)) at a vertex, from f's bound b (beta) or
// c (1 - beta), widened by the quantiles' error; `up` selects the side.
double summary_term(double a, double f_side, bool from_beta, bool up) {
  const double t1 = norm_quantile_c(a);
  const double t2 = from_beta ? norm_quantile_c(f_side) : norm_quantile(f_side);
  if (!std::isfinite(t1 + t2)) return t1 + t2;  // (f = 0 before alpha = 1: +inf)
  const double tol =
      quantile_tol(a) * std::fabs(t1) + quantile_tol(f_side) * std::fabs(t2) + 1e-300;
  return up ? add_up(add_up(t1, t2), tol) : sub_dn(add_dn(t1, t2), tol);
}

}  // namespace

group_polygons group_bounds(const curve& f, std::int64_t k, group_input input) {
  const bmap h =
      power(input == group_input::symmetrized ? base_symmetrized(f) : base_as_given(f), k);
  return {polygon_below(h), polygon_above(h)};
}

group_polygons group_bounds(const eps_delta& f, std::int64_t k, double delta_rel) {
  if (delta_rel == 0.0) {
    const bmap h = power(base_eps_delta(f.eps, f.delta), k);
    return {polygon_below(h), polygon_above(h)};
  }
  // f_{eps,delta} decreases in delta, and so does its power: the largest
  // delta bounds it from below, the smallest from above
  const double d_lo = std::max(0.0, mul_dn(f.delta, sub_dn(1.0, delta_rel)));
  const double d_hi = std::min(1.0, mul_up(f.delta, add_up(1.0, delta_rel)));
  return {polygon_below(power(base_eps_delta(f.eps, d_hi), k)),
          polygon_above(power(base_eps_delta(f.eps, d_lo), k))};
}

namespace {

// The vertex moves of a rounded polygon (the convention of curve.hpp's
// beta_bracket): alpha by ex, beta by ey; the ends alpha = 0, 1 exact.
double alpha_move(double x, double rel) {
  if (x == 0.0 || x == 1.0) return 0.0;
  const double m = std::min(x, 1.0 - x);
  return add_up(add_up(mul_up(rel, m), mul_up(0x1p-52, x)),
                std::numeric_limits<double>::denorm_min());
}
double beta_move(double y, double rel) { return mul_up(add_up(rel, 0x1p-52), y); }

// A vertex's value from both of its sides: beta off by ey, 1 - beta (the
// precise side next to 1, the mass at loss +inf at alpha = 0) by its own
// relative error; lo/hi bound beta, clo/chi bound 1 - beta.
struct vertex_range {
  double lo, hi, clo, chi;
};

std::vector<vertex_range> vertex_ranges(const curve& f, double rel) {
  std::vector<vertex_range> r(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    const double y = f.beta()[i], c = f.one_minus_beta()[i];
    const double ey = beta_move(y, rel), ec = beta_move(c, rel);
    const double clo = std::max(0.0, sub_dn(c, ec)), chi = std::min(1.0, add_up(c, ec));
    const double lo = std::max({0.0, sub_dn(y, ey), sub_dn(1.0, chi)});
    const double hi = std::min({1.0, add_up(y, ey), sub_up(1.0, clo)});
    r[i] = {lo, hi, std::max(clo, sub_dn(1.0, hi)), std::min(chi, sub_up(1.0, lo))};
  }
  return r;
}

// Bounds on the true slope magnitude of each segment, from the moved ends
// (+inf where the moves may overlap).
std::vector<double> slope_bounds(const curve& f, const std::vector<double>& ex,
                                 const std::vector<vertex_range>& v) {
  const auto& x = f.alpha();
  std::vector<double> s(x.size() - 1);
  for (std::size_t i = 0; i + 1 < x.size(); ++i) {
    const double dx = sub_dn(sub_dn(x[i + 1], x[i]), add_up(ex[i], ex[i + 1]));
    const double dy =
        std::max(0.0, std::min(sub_up(v[i].hi, v[i + 1].lo), sub_up(v[i + 1].chi, v[i].clo)));
    s[i] = dx > 0.0 ? div_up(dy, dx) : kInf;
  }
  return s;
}

}  // namespace

group_polygons rounded_polygon_bounds(const curve& f, double vertex_rel) {
  const auto& x = f.alpha();
  const std::size_t n = x.size();
  std::vector<double> ex(n), lb(n), lc(n), ub(n), uc(n);  // below: beta, 1 - beta; above: same
  for (std::size_t i = 0; i < n; ++i) ex[i] = alpha_move(x[i], vertex_rel);
  const std::vector<vertex_range> v = vertex_ranges(f, vertex_rel);
  const std::vector<double> s = slope_bounds(f, ex, v);
  for (std::size_t i = 0; i < n; ++i) {
    const double left = i > 0 ? s[i - 1] : 0.0, right = i + 1 < n ? s[i] : 0.0;
    // Below: the true lines of the segments left and right of vertex i lie
    // below f (f is convex) and at x_i above its value less slope ex; the
    // chord of two such points lies below the true segment's line between them.
    const double drop = ex[i] == 0.0 ? 0.0 : mul_up(std::max(left, right), ex[i]);
    lb[i] = std::max(0.0, sub_dn(v[i].lo, drop));
    lc[i] = std::min(1.0, add_up(v[i].chi, drop));
    // Above: f(x_i) is the true vertex's value, or on the true segment to
    // its left (within ex of it); chords of points above a convex f stay
    // above it. (f <= 1 - alpha.)
    const double rise = ex[i] == 0.0 ? 0.0 : mul_up(left, ex[i]);
    ub[i] = std::min({1.0, add_up(v[i].hi, rise), sub_up(1.0, x[i])});
    uc[i] = std::max({0.0, sub_dn(v[i].clo, rise), x[i]});
  }
  // (monotone, as the power's maps need: lowering / raising keeps each side)
  for (std::size_t i = 1; i < n; ++i) {
    lb[i] = std::min(lb[i], lb[i - 1]);
    lc[i] = std::max(lc[i], lc[i - 1]);
  }
  for (std::size_t i = n - 1; i-- > 0;) {
    ub[i] = std::max(ub[i], ub[i + 1]);
    uc[i] = std::min(uc[i], uc[i + 1]);
  }
  return {curve::from_vertices(x, std::move(lb), std::move(lc)),
          curve::from_vertices(x, std::move(ub), std::move(uc))};
}

group_polygons group_bounds(const curve& below, const curve& above, std::int64_t k) {
  return {polygon_below(power(base_as_given(below), k)),
          polygon_above(power(base_as_given(above), k))};
}

curve polygon_above_lines(const std::vector<double>& d, const std::vector<double>& s) {
  // min_j (d_j + s_j a) is 1 - (the lines' upper envelope); its lines are the
  // lower convex hull of the points (s_j, d_j), which ends at the smallest d.
  std::vector<point> pts;
  for (std::size_t j = 0; j < d.size(); ++j) pts.push_back({s[j], d[j]});
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  std::vector<point> h;
  for (const point& p : pts) {
    while (h.size() >= 2 && orientation(h[h.size() - 2], h.back(), p) <= 0) h.pop_back();
    if (!h.empty() && h.back().x == p.x) continue;  // (same slope: the smaller d)
    h.push_back(p);
  }
  const std::size_t last = static_cast<std::size_t>(
      std::min_element(h.begin(), h.end(),
                       [](const point& a, const point& b) { return a.z < b.z; }) -
      h.begin());
  h.resize(last + 1);  // (beyond the smallest d no line is ever the minimum for a >= 0)
  // crossing of hull lines i and i + 1 (decreasing in i): the line i + 1 is the
  // minimum between crossings i + 1 and i.
  auto crossing = [&](std::size_t i) { return (h[i].z - h[i + 1].z) / (h[i + 1].x - h[i].x); };
  // 1 - beta at a: a lower bound of min_j (d_j + s_j a), >= a (f <= 1 - a)
  auto line_dn = [&](std::size_t i, double a) { return add_dn(h[i].z, mul_dn(h[i].x, a)); };
  std::vector<double> A{0.0}, C{h.back().z};
  for (std::size_t i = h.size() - 1; i-- > 0;) {  // crossings by increasing a
    const double a = crossing(i);
    if (!(a > A.back() && a < 1.0)) continue;
    // Kept only where lines i and i + 1 are certainly the only candidates
    // (a strictly between the neighbouring crossings, by more than their
    // few ulps of rounding); any vertex may be left out: chords of points at
    // or above a convex function stay above it.
    const double lo = i + 2 < h.size() ? crossing(i + 1) : 0.0, hi = i > 0 ? crossing(i - 1) : kInf;
    if (!(a > lo * (1 + 1e-14) && a < hi * (1 - 1e-14))) continue;
    A.push_back(a);
    C.push_back(std::max(std::min(line_dn(i, a), line_dn(i + 1, a)), a));
  }
  A.push_back(1.0);
  C.push_back(1.0);
  std::vector<double> B(C.size());
  for (std::size_t i = 0; i < C.size(); ++i) {
    C[i] = std::clamp(C[i], 0.0, 1.0);
    B[i] = std::min(sub_up(1.0, C[i]), sub_up(1.0, A[i]));
  }
  return curve::from_vertices(std::move(A), std::move(B), std::move(C));
}

double beta_below(const curve& lower, double alpha) { return value_dn(lower, alpha); }
double beta_above(const curve& upper, double alpha) { return value_up(upper, alpha); }

double exp_times_up(double eps, double a) {
  if (!(a > 0)) return 0.0;
  if (eps < 700.0) return mul_up(next_up(next_up(std::exp(eps))), a);  // exp: < 1 ulp (glibc)
  if (eps > 1500.0) return kInf;
  // e^{eps + log a}: the sum carries log a's ulp and its own half ulp
  const double l = std::log(a), s = eps + l;
  const double err = 0x1p-52 * (std::fabs(eps) + 2.0 * std::fabs(l));
  return next_up(next_up(std::exp(add_up(s, err))));
}

double exp_times_dn(double eps, double a) {
  if (!(a > 0)) return 0.0;
  if (eps < 700.0) return std::max(0.0, mul_dn(next_dn(next_dn(std::exp(eps))), a));
  if (eps > 1500.0) return std::numeric_limits<double>::max();  // (e^1500 * 4.9e-324 > 1e308)
  const double l = std::log(a), s = eps + l;
  const double err = 0x1p-52 * (std::fabs(eps) + 2.0 * std::fabs(l));
  return std::max(0.0, next_dn(next_dn(std::exp(sub_dn(s, err)))));
}

// delta(eps) = sup_a 1 - f(a) - e^eps a. From above f (the upper polygon):
// its value at any vertex is a lower bound. From below f: the sup of
// 1 - P(a) - e^eps a over a polygon P <= f, attained at P's vertices, for
// P through the betas and for P through the 1 - betas (the smaller of the two).
double delta_below(const curve& upper, double eps) {
  const auto& A = upper.alpha();
  const auto& B = upper.beta();
  const auto& C = upper.one_minus_beta();
  double best = 0.0;
  for (std::size_t i = 0; i < A.size(); ++i) {
    const double e = exp_times_up(eps, A[i]);
    best = std::max({best, sub_dn(C[i], e), sub_dn(sub_dn(1.0, B[i]), e)});
  }
  return std::min(best, 1.0);
}

double delta_above(const curve& lower, double eps) {
  const auto& A = lower.alpha();
  const auto& B = lower.beta();
  const auto& C = lower.one_minus_beta();
  double from_b = 0.0, from_c = 0.0;
  for (std::size_t i = 0; i < A.size(); ++i) {
    const double e = exp_times_dn(eps, A[i]);
    from_b = std::max(from_b, sub_up(sub_up(1.0, B[i]), e));
    from_c = std::max(from_c, sub_up(C[i], e));
  }
  return std::min({from_b, from_c, 1.0});
}

// The GDP summary sup_a Phi^{-1}(1 - a) - Phi^{-1}(f(a)). From above f: any
// vertex gives a lower bound. From below: for a polygon P <= f, G_mu <= P
// holds iff it holds at P's vertices (G_mu is convex), so the largest vertex
// term of P bounds it, for P through the betas and through the 1 - betas.
double mu_below(const curve& upper) {
  const auto& A = upper.alpha();
  // f(0) <= beta_0 < 1 (or 1 - f(0) >= 1 - beta_0 > 0): no G_mu lies below f
  if (upper.beta()[0] < 1.0 || upper.one_minus_beta()[0] > 0.0) return kInf;
  double best = 0.0;
  for (std::size_t i = 0; i < A.size(); ++i) {
    if (!(A[i] > 0.0 && A[i] < 1.0)) continue;
    best = std::max({best, summary_term(A[i], upper.beta()[i], true, false),
                     summary_term(A[i], upper.one_minus_beta()[i], false, false)});
  }
  return best;
}

double mu_above(const curve& lower) {
  const auto& A = lower.alpha();
  auto summary = [&](bool from_beta) {
    const auto& v = from_beta ? lower.beta() : lower.one_minus_beta();
    double best = 0.0;
    for (std::size_t i = 0; i < A.size(); ++i) {
      const bool one = from_beta ? v[i] >= 1.0 : v[i] <= 0.0;   // P = 1 here
      const bool zero = from_beta ? v[i] <= 0.0 : v[i] >= 1.0;  // P = 0 here
      if (A[i] == 0.0) {
        if (!one) return kInf;  // P(0) < 1: no G_mu lies below
        continue;
      }
      if (A[i] == 1.0) continue;
      if (zero) return kInf;  // P = 0 before alpha = 1
      best = std::max(best, summary_term(A[i], v[i], from_beta, true));
    }
    return best;
  };
  return std::min(summary(true), summary(false));
}

}  // namespace fdp::detail
