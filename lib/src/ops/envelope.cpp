// Trade-off polygons from families of lines (compose.hpp): the upper
// envelope of lines y = 1 - d_j - s_j a on [0, 1], and the trade-off
// function of a finite privacy profile (DRS Prop. 2.12), both exact.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fdp/core/error.hpp"
#include "fdp/ops/compose.hpp"

namespace fdp {
namespace {

// Lines y = 1 - d - s a by d (= 1 - intercept) and slope -s.
struct lines {
  std::vector<double> d, s;
};

// The usable lines (finite, s > 0) in slope order, steepest first, one per
// slope (the one with the largest intercept), then the line y = 0 (d = 1,
// s = 0).
lines by_slope(const std::vector<double>& d, const std::vector<double>& s) {
  std::vector<std::size_t> idx;
  idx.reserve(d.size());
  for (std::size_t i = 0; i < d.size(); ++i)
    if (std::isfinite(d[i]) && std::isfinite(s[i]) && s[i] > 0) idx.push_back(i);
  const auto steeper = [&](std::size_t a, std::size_t b) {
    return s[a] > s[b] || (s[a] == s[b] && d[a] < d[b]);
  };
  // (the grids' lines come in eps order, flattest first: reversed, they are
  // in slope order and only runs of equal slopes, short, need sorting; the
  // full sort is for any other input)
  if (!std::is_sorted(idx.begin(), idx.end(), steeper)) {
    std::reverse(idx.begin(), idx.end());
    const auto by_s = [&](std::size_t a, std::size_t b) { return s[a] > s[b]; };
    if (std::is_sorted(idx.begin(), idx.end(), by_s)) {
      for (auto it = idx.begin(); it != idx.end();) {
        auto end = it + 1;
        while (end != idx.end() && s[*end] == s[*it]) ++end;
        if (end - it > 1) std::sort(it, end, steeper);
        it = end;
      }
    } else {
      std::sort(idx.begin(), idx.end(), steeper);
    }
  }
  lines out;
  out.d.reserve(idx.size() + 1);
  out.s.reserve(idx.size() + 1);
  for (std::size_t i : idx) {
    if (!out.s.empty() && out.s.back() == s[i]) continue;  // same slope, smaller intercept
    out.d.push_back(d[i]);
    out.s.push_back(s[i]);
  }
  out.d.push_back(1.0);
  out.s.push_back(0.0);
  return out;
}

// Where two lines cross, from their d difference (the intercept difference
// c1 - c2 = d2 - d1, without forming 1 - d).
double crossing(double d1, double s1, double d2, double s2) { return (d2 - d1) / (s1 - s2); }

// The lines that appear on the upper envelope (convex hull trick over lines
// in slope order, steepest first): line k is useless if line k+1 overtakes
// line k-1 before line k does.
lines upper_hull(const lines& l) {
  lines h;
  for (std::size_t i = 0; i < l.d.size(); ++i) {
    while (!h.d.empty()) {
      if (h.d.size() >= 2) {
        const std::size_t m = h.d.size();
        const double x1 = crossing(h.d[m - 2], h.s[m - 2], h.d[m - 1], h.s[m - 1]);
        const double x2 = crossing(h.d[m - 2], h.s[m - 2], l.d[i], l.s[i]);
        if (x2 <= x1) {
          h.d.pop_back();
          h.s.pop_back();
          continue;
        }
      } else if (l.d[i] <= h.d.back()) {
        // at a = 0 the new (flatter) line is at least as high: the old one never wins
        h.d.pop_back();
        h.s.pop_back();
        continue;
      }
      break;
    }
    h.d.push_back(l.d[i]);
    h.s.push_back(l.s[i]);
  }
  return h;
}

// A polygon's vertices: a, beta and 1 - beta, each kept where it is accurate.
struct vertices {
  std::vector<double> a, beta, one_minus_beta;
};

// The envelope's vertices on [0, 1] from its hull lines, from a = 0 to a = 1.
vertices envelope_vertices(const lines& h) {
  vertices v;
  const double omb0 = std::clamp(h.d.front(), 0.0, 1.0);
  v.a.push_back(0.0);
  v.beta.push_back(1.0 - omb0);
  v.one_minus_beta.push_back(omb0);
  for (std::size_t k = 0; k + 1 < h.d.size(); ++k) {
    const double x = crossing(h.d[k], h.s[k], h.d[k + 1], h.s[k + 1]);
    if (!(x > v.a.back() && x < 1)) continue;
    // 1 - beta = d + s x and beta = (1 - d) - s x, each where it is small and
    // accurate; beta <= 1 - x
    v.a.push_back(x);
    v.beta.push_back(std::clamp((1.0 - h.d[k + 1]) - h.s[k + 1] * x, 0.0, 1.0 - x));
    v.one_minus_beta.push_back(std::clamp(h.d[k + 1] + h.s[k + 1] * x, x, 1.0));
  }
  v.a.push_back(1.0);
  v.beta.push_back(0.0);
  v.one_minus_beta.push_back(1.0);
  return v;
}

// The clamp at 1 - a (a line flatter than -1 crosses the diagonal) leaves
// min(envelope, 1 - a), not convex: its lower convex hull (below it, so a
// lower bound stays one), taken on 1 - beta (concave, precise near a = 0).
vertices lower_convex_hull(const vertices& v) {
  const auto& A = v.a;
  const auto& C = v.one_minus_beta;
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < A.size(); ++i) {
    while (keep.size() >= 2) {
      const std::size_t i1 = keep[keep.size() - 2], i2 = keep.back();
      // i2 stays if it is above the chord i1 -> i (1 - beta is concave)
      const double chord = C[i1] + (C[i] - C[i1]) * (A[i2] - A[i1]) / (A[i] - A[i1]);
      if (C[i2] > chord) break;
      keep.pop_back();
    }
    keep.push_back(i);
  }
  vertices out;
  for (std::size_t i : keep) {
    out.a.push_back(A[i]);
    out.beta.push_back(v.beta[i]);
    out.one_minus_beta.push_back(C[i]);
  }
  // (rounding can leave beta or 1 - beta a hair out of order)
  for (std::size_t i = 1; i < out.a.size(); ++i) {
    out.beta[i] = std::min(out.beta[i], out.beta[i - 1]);
    out.one_minus_beta[i] = std::max(out.one_minus_beta[i], out.one_minus_beta[i - 1]);
  }
  return out;
}

}  // namespace

curve envelope_of_lines(std::vector<double> c, std::vector<double> s) {
  for (double& v : c) v = 1.0 - v;
  return envelope_of_lines_delta(std::move(c), std::move(s));
}

// Everything is done in d = 1 - intercept, and each vertex's 1 - beta =
// d + s a is computed from it: a polygon whose small 1 - beta (near a = 0)
// came from 1 - (1 - d) kept an absolute 1e-16 of rounding, 1% of a delta
// of 1e-14 (group of a PLD composition at delta 1e-14 read epsilon
// [16.40, 16.56] where G_2 gives 16.89).
curve envelope_of_lines_delta(std::vector<double> d, std::vector<double> s) {
  vertices v = lower_convex_hull(envelope_vertices(upper_hull(by_slope(d, s))));
  return curve::from_vertices(std::move(v.a), std::move(v.beta), std::move(v.one_minus_beta));
}

curve capped_at_zero(const curve& f, double omb0) {
  if (!(omb0 > f.one_minus_beta()[0])) return f;
  vertices v{f.alpha(), f.beta(), f.one_minus_beta()};
  v.beta[0] = 1.0 - omb0;
  v.one_minus_beta[0] = omb0;
  // (vertices left below the lowered start, or under a chord from it, go)
  v = lower_convex_hull(v);
  return curve::from_vertices(std::move(v.a), std::move(v.beta), std::move(v.one_minus_beta));
}

curve tradeoff_from_profile(const std::vector<std::pair<double, double>>& pairs, bool symmetric) {
  if (pairs.empty())
    throw std::invalid_argument(
        "tradeoff_from_profile(pairs): at least one (eps, delta) pair is required");
  std::vector<double> c, s;
  for (const auto& [e, d] : pairs) {
    if (std::isnan(e) || !(e < 700 && e > -700))
      detail::throw_domain("tradeoff_from_profile", "eps", e, "must be finite, |eps| < 700");
    detail::require_in(d, 0.0, 1.0, "tradeoff_from_profile", "delta");
    c.push_back(d);  // 1 - delta - e^eps a
    s.push_back(std::exp(e));
    if (symmetric) {  // e^-eps (1 - delta - a): 1 - intercept = 1 - e^-eps + e^-eps delta
      c.push_back(-std::expm1(-e) + std::exp(-e) * d);
      s.push_back(std::exp(-e));
    }
  }
  return envelope_of_lines_delta(c, s);
}

}  // namespace fdp
