#include "fdp/ops/rdp_tradeoff.hpp"

#include <algorithm>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <string>

#include "fdp/core/error.hpp"
#include "fdp/ops/compose.hpp"

namespace fdp {
namespace {

// log(e^x + e^y) without overflow (either may be -inf).
double log_sum_exp(double x, double y) {
  const double m = std::max(x, y);
  if (m == -INFINITY) return -INFINITY;
  return m + std::log(std::exp(x - m) + std::exp(y - m));
}

// One constraint D_alpha(Bern(u) || Bern(v)) <= r in the exponent form
//   log(u^alpha v^{1-alpha} + (1-u)^alpha (1-v)^{1-alpha}) - (alpha-1) r <= 0,
// with (u, v) = (a, 1 - b) (forward) or (1 - b, a) (reverse), as a function
// of b at fixed a. Both forms decrease in b on (0, 1 - a] and are < 0 at
// b = 1 - a (u = v there: the divergence is 0).
struct constraint {
  double alpha, r, a;
  bool reverse;
  // the two exponents at b
  void terms(double b, double& t1, double& t2) const {
    const double la = std::log(a), l1a = std::log1p(-a), lb = std::log(b), l1b = std::log1p(-b);
    if (!reverse) {
      t1 = alpha * la + (1 - alpha) * l1b;
      t2 = alpha * l1a + (1 - alpha) * lb;
    } else {
      t1 = alpha * l1b + (1 - alpha) * la;
      t2 = alpha * lb + (1 - alpha) * l1a;
    }
  }
  double operator()(double b) const {
    double t1, t2;
    terms(b, t1, t2);
    return log_sum_exp(t1, t2) - (alpha - 1) * r;
  }
  // db/da along the boundary: -F_a / F_b (implicit differentiation)
  double slope(double b) const {
    double t1, t2;
    terms(b, t1, t2);
    const double l = log_sum_exp(t1, t2), w1 = std::exp(t1 - l), w2 = std::exp(t2 - l);
    double fa, fb;
    if (!reverse) {
      fa = w1 * alpha / a - w2 * alpha / (1 - a);
      fb = w1 * (alpha - 1) / (1 - b) - w2 * (alpha - 1) / b;
    } else {
      fa = w1 * (1 - alpha) / a - w2 * (1 - alpha) / (1 - a);
      fb = -w1 * alpha / (1 - b) + w2 * alpha / b;
    }
    return -fa / fb;
  }
};

// The smallest feasible b of one constraint at a (0 if every b is), as the
// infeasible end of a root bracket: at or below the true boundary.
double boundary(const constraint& c, double& slope_out) {
  const double top = 1 - c.a;
  double lo = std::min(1e-300, 0.5 * top);
  if (c(lo) <= 0) {
    slope_out = 0.0;
    return 0.0;
  }
  std::uintmax_t iters = 200;
  auto tol = [](double x, double y) { return std::fabs(x - y) <= 4e-16 * std::max(x, y); };
  const auto br = boost::math::tools::toms748_solve(c, lo, top, tol, iters);
  slope_out = c.slope(br.second);
  return br.first;
}

// Grid of type I errors: log-spaced toward both ends.
std::vector<double> alpha_grid() {
  std::vector<double> as;
  const int n = 150;
  for (int i = 0; i < n; ++i) as.push_back(std::pow(10.0, -14.0 + 13.7 * i / (n - 1)) / 2);
  const std::size_t half = as.size();
  for (std::size_t i = half; i-- > 0;) as.push_back(1.0 - as[i]);
  return as;
}

void validate(const std::vector<double>& orders, const std::vector<double>& rdp) {
  if (orders.empty() || orders.size() != rdp.size())
    throw std::invalid_argument(
        "rdp_tradeoff_lower: orders and rdp must be non-empty and of equal length");
  for (std::size_t j = 0; j < orders.size(); ++j) {
    detail::require(std::isfinite(orders[j]) && orders[j] > 1 && orders[j] <= 1e6,
                    "rdp_tradeoff_lower", "order", orders[j], "must be in (1, 1e6]");
    detail::require(std::isfinite(rdp[j]) && rdp[j] >= 0 && rdp[j] <= 1e8, "rdp_tradeoff_lower",
                    "rdp", rdp[j], "must be finite and in [0, 1e8]");
  }
}

// The largest boundary over both constraints of the orders in [lo, hi)
// with the given stride, with its slope.
struct best_boundary {
  double b = -1.0, slope = 0.0;
  std::size_t order = 0;
};

void scan_orders(const std::vector<double>& orders, const std::vector<double>& rdp, double a,
                 std::size_t lo, std::size_t hi, std::size_t stride, best_boundary& best) {
  for (std::size_t j = lo; j < hi; j += stride) {
    for (bool rev : {false, true}) {
      double sl = 0.0;
      const double b = boundary({orders[j], rdp[j], a, rev}, sl);
      if (b > best.b) best = {b, sl, j};
    }
  }
}

}  // namespace

curve rdp_tradeoff_lower(const std::vector<double>& orders, const std::vector<double>& rdp) {
  validate(orders, rdp);
  std::vector<double> d, s;  // lines y = 1 - d - s a
  // Every order gives a valid line, so a search that misses the best order
  // costs tightness, never soundness: a coarse pass over every 8th order,
  // then all orders around the best one (the binding order moves smoothly
  // with a; 4x fewer root findings than all 113 zCDP orders).
  const std::size_t stride = orders.size() > 32 ? 8 : 1;
  for (double a : alpha_grid()) {
    best_boundary best;
    scan_orders(orders, rdp, a, 0, orders.size(), stride, best);
    if (stride > 1) {
      const std::size_t lo = best.order >= stride ? best.order - stride + 1 : 0;
      scan_orders(orders, rdp, a, lo, std::min(orders.size(), best.order + stride), 1, best);
    }
    if (!(best.b > 0) || !(best.slope < 0) || !std::isfinite(best.slope)) continue;
    const double sp = -best.slope;
    // (1 - b computed as such: b is the bracket's lower end, so 1 - b is an
    // upper end; lowering the line by 1e-14 covers the slope's rounding)
    d.push_back((1.0 - best.b) - sp * a + 1e-14);
    s.push_back(sp);
  }
  // (every order > 1 bounds b away from 0 near a = 0: no line at all
  // means the arithmetic failed)
  if (d.empty()) throw evaluation_error("rdp_tradeoff_lower: no tangent line could be computed");
  return envelope_of_lines_delta(std::move(d), std::move(s));
}

std::vector<double> zcdp_orders() {
  std::vector<double> out;
  for (int k = -48; k <= 64; ++k) out.push_back(1.0 + std::pow(10.0, k / 16.0));
  return out;
}

}  // namespace fdp
