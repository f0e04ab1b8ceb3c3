#include "fdp/core/tradeoff.hpp"

#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <limits>
#include <sstream>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"

namespace fdp {
namespace {
template <class... Ts>
struct overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
overloaded(Ts...) -> overloaded<Ts...>;

std::string num(double x) {
  std::ostringstream os;
  os.precision(6);
  os << x;
  return os.str();
}
}  // namespace

std::string tradeoff::describe() const {
  return std::visit(
      overloaded{[](const identity&) { return std::string("Id"); },
                 [](const gaussian& g) { return "G_" + num(g.mu); },
                 [](const eps_delta& f) { return "f_{" + num(f.eps) + "," + num(f.delta) + "}"; },
                 [](const laplace& l) { return "Lap_" + num(l.mu); },
                 [](const curve& c) { return "curve(" + std::to_string(c.size()) + " vertices)"; }},
      v_);
}

double beta(const tradeoff& f, double a) {
  return std::visit([a](const auto& x) { return beta(x, a); }, f.get());
}
double one_minus_beta(const tradeoff& f, double a) {
  return std::visit([a](const auto& x) { return one_minus_beta(x, a); }, f.get());
}
double beta_inverse(const tradeoff& f, double y) {
  return std::visit([y](const auto& x) { return beta_inverse(x, y); }, f.get());
}
double slope(const tradeoff& f, double a) {
  return std::visit([a](const auto& x) { return slope(x, a); }, f.get());
}
double profile_delta(const tradeoff& f, double eps) {
  return std::visit([eps](const auto& x) { return profile_delta(x, eps); }, f.get());
}
bool is_symmetric(const tradeoff& f) {
  return std::visit([](const auto& x) { return is_symmetric(x); }, f.get());
}
tradeoff inverse(const tradeoff& f) {
  return std::visit([](const auto& x) { return tradeoff(inverse(x)); }, f.get());
}

curve to_curve_exact(const tradeoff& f) {
  return std::visit(
      overloaded{
          [](const identity&) {
            return curve::from_points({{0, 1}, {1, 0}});
          },
          [](const eps_delta& g) {
            // the kink (1 - delta) / (1 + e^eps), without overflowing e^eps
            const double em = std::exp(-g.eps);
            const double x = (1.0 - g.delta) * em / (1.0 + em);
            if (g.delta < 1.0 && x < 0x1p-1042) {
              // (dropped, the kink would leave the chord 1 - delta - a: the
              // polygon of f_{750,0} read as perfect privacy; subnormal
              // kinks down to 2^-1042 keep 32 significant bits)
              throw evaluation_error(
                  "to_curve_exact(f_{eps,delta}): eps = " + num(g.eps) +
                  " puts the kink at alpha = e^-eps below 2.3e-314, beyond the limit of double "
                  "precision (eps must be <= 721 for a polygon)");
            }
            std::vector<double> al{0.0}, be{1.0 - g.delta}, om{g.delta};
            if (x > 0) {
              al.push_back(x);
              be.push_back(x);
              om.push_back(1.0 - x);
            }
            if (1.0 - g.delta > x && 1.0 - g.delta < 1.0) {
              al.push_back(1.0 - g.delta);
              be.push_back(0.0);
              om.push_back(1.0);
            }
            al.push_back(1.0);
            be.push_back(0.0);
            om.push_back(1.0);
            return curve::from_vertices(al, be, om);
          },
          [](const curve& c) { return c; },
          [&](const auto&) -> curve {
            throw std::invalid_argument("to_curve_exact(f=" + f.describe() +
                                        "): not a piecewise-linear trade-off function");
          }},
      f.get());
}

double tangent_alpha(const tradeoff& f, double s) {
  if (!(s < 0)) detail::throw_domain("tangent_alpha", "s", s, "must be < 0");
  return std::visit(
      // Id (and G_0) has slope -1 everywhere: f(a) - s a = 1 - (1 + s) a is
      // minimised at 0 for s <= -1 and at 1 for s > -1.
      overloaded{[s](const identity&) { return s > -1.0 ? 1.0 : 0.0; },
                 [s](const gaussian& g) {
                   if (g.mu == 0) return s > -1.0 ? 1.0 : 0.0;
                   // slope(a) = -exp(mu z - mu^2/2), z = Phi^{-1}(1-a)
                   const double z = (std::log(-s) + 0.5 * g.mu * g.mu) / g.mu;
                   return norm_sf(z);
                 },
                 [s](const laplace& l) {
                   const double em = std::exp(-l.mu);
                   if (-s >= 1.0 / em) return 0.0;
                   // Slopes of f lie in [-e^mu, -e^-mu]: for a flatter s,
                   // f(a) - s a decreases up to a = 1.
                   if (-s < em) return 1.0;
                   if (-s == em) return 0.5;
                   return std::sqrt(em / (4.0 * -s));
                 },
                 [&](const auto&) {
                   const curve c = to_curve_exact(f);
                   const auto& al = c.alpha();
                   const auto& be = c.beta();
                   for (std::size_t j = 0; j + 1 < al.size(); ++j) {
                     const double sj = (be[j + 1] - be[j]) / (al[j + 1] - al[j]);
                     if (sj >= s) return al[j];
                   }
                   return 1.0;
                 }},
      f.get());
}

namespace {
bool is_polygon(const tradeoff& f) {
  return !std::holds_alternative<gaussian>(f.get()) && !std::holds_alternative<laplace>(f.get());
}
}  // namespace

namespace {
// f(x) + tol < g(x), given both values and their complements 1 - f, 1 - g.
// Near beta = 1 the betas themselves cannot show a difference below 1e-16
// (G_0.5 < f_{5,0} only by 4e-24 near alpha = 6e-25), the complements can.
bool below(double fv, double f_omb, double gv, double g_omb, double tol) {
  if (fv > 0.5 && gv > 0.5) return f_omb - tol > g_omb;
  return fv + tol < gv;
}
}  // namespace

bool dominates(const tradeoff& f, const tradeoff& g, double tol) {
  // Same one-parameter family: monotone in the parameter.
  if (auto a = std::get_if<gaussian>(&f.get()))
    if (auto b = std::get_if<gaussian>(&g.get()))
      if (a->mu <= b->mu) return true;
  if (auto a = std::get_if<laplace>(&f.get()))
    if (auto b = std::get_if<laplace>(&g.get()))
      if (a->mu <= b->mu) return true;
  if (is_polygon(f)) {
    // f - g is concave on each segment of f: check f's vertices.
    const curve c = to_curve_exact(f);
    for (std::size_t i = 0; i < c.size(); ++i) {
      const double x = c.alpha()[i];
      if (below(c.beta()[i], c.one_minus_beta()[i], beta(g, x), one_minus_beta(g, x), tol)) {
        return false;
      }
    }
    return true;
  }
  if (is_polygon(g)) {
    // f - g is convex on each segment of g: its minimum is at f's tangent
    // point of the segment's slope, clipped to the segment.
    const curve c = to_curve_exact(g);
    const auto& al = c.alpha();
    const auto& be = c.beta();
    const auto& om = c.one_minus_beta();
    for (std::size_t j = 0; j + 1 < al.size(); ++j) {
      const double sj = (be[j + 1] - be[j]) / (al[j + 1] - al[j]);
      double x = sj < 0 ? tangent_alpha(f, sj) : al[j + 1];
      x = std::clamp(x, al[j], al[j + 1]);
      for (double y : {al[j], x, al[j + 1]}) {
        const double t = (y - al[j]) / (al[j + 1] - al[j]);
        const double gv = be[j] + (be[j + 1] - be[j]) * t;
        const double g_omb = om[j] + (om[j + 1] - om[j]) * t;
        if (below(beta(f, y), one_minus_beta(f, y), gv, g_omb, tol)) return false;
      }
    }
    return true;
  }
  // Two different smooth families: scan, then refine each local minimum.
  // f - g, from the complements where both are near 1 (see below()).
  auto diff = [&](double x) {
    const double fv = beta(f, x), gv = beta(g, x);
    if (fv > 0.5 && gv > 0.5) return one_minus_beta(g, x) - one_minus_beta(f, x);
    return fv - gv;
  };
  const int n = 4000;
  std::vector<double> xs;
  for (int i = 0; i <= n; ++i) {
    const double t = -300.0 + 300.0 * i / n;  // log10 spacing near 0 and near 1
    xs.push_back(std::pow(10.0, t) * 0.5);
    xs.push_back(1.0 - std::pow(10.0, t) * 0.5);
  }
  xs.push_back(0.0);
  xs.push_back(1.0);
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double d = diff(xs[i]);
    if (d + tol < 0) return false;
    if (i > 0 && i + 1 < xs.size() && d <= diff(xs[i - 1]) && d <= diff(xs[i + 1])) {
      auto r = boost::math::tools::brent_find_minima(diff, xs[i - 1], xs[i + 1], 50);
      if (r.second + tol < 0) return false;
    }
  }
  return true;
}

}  // namespace fdp
