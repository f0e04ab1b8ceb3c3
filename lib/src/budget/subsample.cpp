#include "fdp/budget/subsample.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>
#include <vector>

#include "fdp/core/error.hpp"

namespace fdp {
namespace {

void check_p(double p, const char* func) { detail::require_in(p, 0.0, 1.0, func, "p"); }

// Alphas where closed forms are sampled: uniform in (0, 1) plus log-spaced
// towards both ends (where G_mu and Laplace bend most).
std::vector<double> sample_alphas(int points) {
  std::vector<double> a;
  const int nu = std::max(4, points / 2), nl = std::max(2, (points - nu) / 2);
  for (int i = 1; i < nu; ++i) a.push_back(static_cast<double>(i) / nu);
  for (int i = 0; i < nl; ++i) {
    const double x = std::pow(10.0, -15.0 + 14.7 * i / std::max(1, nl - 1));
    a.push_back(x);
    a.push_back(1.0 - x);
  }
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  a.erase(std::remove_if(a.begin(), a.end(), [](double x) { return !(x > 0 && x < 1); }), a.end());
  return a;
}

bool is_polygon(const tradeoff& f) {
  return !std::holds_alternative<gaussian>(f.get()) && !std::holds_alternative<laplace>(f.get());
}

}  // namespace

curve mix_with_identity(const curve& f, double p) {
  check_p(p, "mix_with_identity");
  const auto& al = f.alpha();
  const auto& be = f.beta();
  const auto& om = f.one_minus_beta();
  std::vector<double> a(al), b(al.size()), c(al.size());
  for (std::size_t i = 0; i < al.size(); ++i) {
    b[i] = std::clamp(p * be[i] + (1.0 - p) * (1.0 - al[i]), 0.0, 1.0);
    c[i] = std::clamp(p * om[i] + (1.0 - p) * al[i], 0.0, 1.0);
  }
  b.back() = 0.0;
  c.back() = 1.0;
  return curve::from_vertices(std::move(a), std::move(b), std::move(c));
}

curve subsample(const curve& f, double p) {
  check_p(p, "subsample");
  return symmetrize_hull(mix_with_identity(f, p));
}

curve_bracket subsample(const tradeoff& f, double p, int points) {
  check_p(p, "subsample");
  detail::require(points >= 8 && points <= 1000000, "subsample", "points", points,
                  "must be in [8, 1e6]");
  if (is_polygon(f)) {
    const curve c = subsample(to_curve_exact(f), p);
    return {c, c};
  }
  const std::vector<double> as = sample_alphas(points);
  // Lower: tangent lines 1 - delta_f(l) - e^l a at the slopes of f at the sample alphas.
  std::vector<double> cs, ss;
  for (double a : as) {
    const double s = slope(f, a);
    if (!(s < 0)) continue;
    const double l = std::log(-s);
    cs.push_back(profile_delta(f, l));
    ss.push_back(-s);
  }
  // (No vertical tangent at alpha = 0: the polygon then starts below f(0), which
  // keeps it below f and puts the tiny missing mass at loss +inf instead of at
  // an enormous finite loss that would stretch the engine's grid.)
  const curve lo = envelope_of_lines_delta(cs, ss);
  // Upper: chords through points of f.
  std::vector<curve::point> pts{{0.0, beta(f, 0.0)}, {1.0, 0.0}};
  // G_mu and the Laplace curve are positive on [0, 1): where beta underflows
  // to 0 the chord point must still lie above f, or the inverse of the upper
  // polygon reaches 0 too early and min{f_p, f_p^-1}** drops below the truth
  // (C_1(G_100) at alpha = 0 was 1e-15; the truth is 1).
  for (double a : as)
    pts.push_back(
        {a, std::min(1.0 - a, std::max(beta(f, a), std::numeric_limits<double>::denorm_min()))});
  const curve up = curve::from_points(std::move(pts), curve::hull_policy::convexify);
  return {subsample(lo, p), subsample(up, p)};
}

curve_bracket subsample(const composition& c, double p, int points) {
  check_p(p, "subsample");
  return {subsample(c.lower_curve(points), p), subsample(c.upper_curve(points), p)};
}

double subsample_beta(const tradeoff& f, double p, double a) {
  check_p(p, "subsample_beta");
  detail::check_alpha(a, "subsample_beta");
  if (!is_symmetric(f)) {
    throw std::invalid_argument(
        "subsample_beta(f=" + f.describe() +
        "): the closed form needs a symmetric f; use subsample(f, p) for polygons");
  }
  auto fp = [&](double x) { return p * beta(f, x) + (1.0 - p) * (1.0 - x); };
  const double xs = tangent_alpha(f, -1.0);
  if (a <= xs) return fp(a);
  // When x* underflows to 0 (G_mu with mu > ~75: x* = Phi(-mu/2)), f(x*) must
  // be the right limit f(0+), not f(0) = 1; the smallest positive alpha gives
  // it (the G_100 answers were 1 - a instead of about (1 - p) - a;
  // tests/hardening/extreme_sweep_test.cpp).
  const double ys =
      xs > 0.0 ? fp(xs) : p * beta(f, std::numeric_limits<double>::denorm_min()) + (1.0 - p);
  if (a <= ys) return xs + ys - a;
  // f_p^{-1}(a) = inf{t : f_p(t) <= a}; f_p is non-increasing and a >= f_p(x*),
  // so the answer lies in [0, x*].
  double lo = 0.0, hi = xs;
  if (fp(0.0) <= a) return 0.0;
  for (int i = 0; i < 200 && hi - lo > 4e-17; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (fp(mid) <= a)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

}  // namespace fdp
