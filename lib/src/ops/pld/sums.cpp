#include "ops/pld/sums.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "fdp/core/error.hpp"

#include "ops/pld/numbers.hpp"

namespace fdp::detail {

void tilted_log_mgfs(const std::vector<double>& v, double off, double h, std::int64_t k0,
                     const std::vector<double>& ts, std::vector<double>& out) {
  out.assign(ts.size(), -kInf);
  const std::size_t n = v.size();
  if (n == 0) return;
  // One pass per sign over v for all tilts of that sign: the tilts' Horner
  // chains are independent, so the inner loop over them vectorizes (one
  // chain at a time is bound by the latency of its multiply-add). Each
  // chain does exactly the arithmetic of a pass of its own.
  constexpr std::size_t kBlock = 32;
  for (int sign : {1, -1}) {
    std::size_t idx[kBlock];
    double sc[kBlock], acc[kBlock];
    std::size_t m = 0;
    auto flush = [&] {
      if (m == 0) return;
      for (std::size_t j = 0; j < m; ++j) acc[j] = 0.0;
      if (sign > 0) {
        for (std::size_t i = 0; i < n; ++i) {
          const double x = std::max(0.0, v[i]);
          for (std::size_t j = 0; j < m; ++j) acc[j] = acc[j] * sc[j] + x;
        }
      } else {
        for (std::size_t i = n; i-- > 0;) {
          const double x = std::max(0.0, v[i]);
          for (std::size_t j = 0; j < m; ++j) acc[j] = acc[j] * sc[j] + x;
        }
      }
      const double top = off + static_cast<double>(k0 + static_cast<std::int64_t>(n) - 1) * h;
      const double bot = off + static_cast<double>(k0) * h;
      for (std::size_t j = 0; j < m; ++j) {
        const double t = ts[idx[j]];
        out[idx[j]] = acc[j] > 0 ? t * (sign > 0 ? top : bot) + std::log(acc[j]) + 1e-9 : -kInf;
      }
      m = 0;
    };
    for (std::size_t j = 0; j < ts.size(); ++j) {
      if ((ts[j] > 0) != (sign > 0)) continue;
      idx[m] = j;
      sc[m] = std::exp(-std::fabs(ts[j]) * h);
      if (++m == kBlock) flush();
    }
    flush();
  }
}

namespace {
// log(1 + e^x) without overflow
double log1p_exp(double x) {
  return x > 30.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
// For a term with masses M = e^lm and errors D = e^le: r = log(1 + D/M), kept
// apart from log(M + D) = lm + r (which rounds at the scale of lm: r ~ 1e-16
// would vanish in lm + r - lm).
struct mass_err_logs {
  double r, lmd;
};
mass_err_logs logs_of(double lm, double le) {
  if (le == -kInf) return {0.0, lm};
  if (lm == -kInf) return {kInf, le};
  const double r = log1p_exp(le - lm);
  return {r, lm + r};
}
}  // namespace

error_bound_acc::error_bound_acc() : ls(-kInf) {}

void error_bound_acc::add(double lm, double le, double la, double n) {
  const mass_err_logs g = logs_of(lm, le);
  // log(((M + D)^n - M^n) / D) = n log(M + D) - log D + log(1 - (M / (M + D))^n),
  // and log(n M^{n-1}) where D = 0
  double lf;
  if (le == -kInf) {
    lf = n == 1.0 ? 0.0 : std::log(n) + (n - 1.0) * lm;
  } else {
    lf = n * g.lmd - le + std::log(-std::expm1(-n * g.r));
  }
  // the terms so far: times M^n (an empty sum stays empty)
  if (ls != -kInf) ls += n * lm;
  if (la != -kInf) {
    const double v = lmd + lf + la;
    if (ls == -kInf || v > ls)
      ls = v + (ls == -kInf ? 0.0 : log1p_exp(ls - v));
    else if (v != -kInf)
      ls = ls + log1p_exp(v - ls);
  }
  lmd += n * g.lmd;
  r += n * g.r;
}

// prod (M + D)^n (1 - prod (M / (M + D))^n): no cancellation for small D
double error_bound_acc::log_product() const { return lmd + std::log(-std::expm1(-r)); }

std::vector<double> shift_discounted_errors(const grid_pmf& g, bool use_p,
                                            const std::vector<double>& e, double h) {
  // Shifts (grid_pmf::shift_p / shift_q) in this orientation's index: the
  // move between atoms k - 1 and k sits at k, its upper end (reflecting
  // maps the move between original atoms i - 1 and i to n - i - 1, n - i).
  const std::vector<double>& sh = use_p ? g.shift_p : g.shift_q;
  const std::size_t n = e.size();
  bool any_shift = false;
  for (double v : sh) any_shift = any_shift || v > 0;
  if (!any_shift || sh.size() != n) return {};
  std::vector<double> up(n + 1, 0.0);
  for (std::size_t i = 1; i < n; ++i) up[use_p ? n - i : i] = sh[i];
  const double hc = std::min(h, 1.0);
  std::vector<double> a(n);
  for (std::size_t k = 0; k < n; ++k) {
    // (the subtraction's rounding is covered by 4 kU of e)
    const double mono = std::max(0.0, e[k] - up[k] - up[k + 1]) + 4 * kU * e[k];
    a[k] = mono + hc * up[k];
  }
  return a;
}

double loss_cut(const loss_law& law, double tau, bool upper, int bisections) {
  const double edge = upper ? law.hi() : law.lo();
  const double s = std::max(law.scale(), 1e-300);
  double in = upper ? std::max(0.0, law.lo()) : std::min(0.0, law.hi());
  if (!std::isfinite(in)) in = 0.0;
  // A finite end is the cut, unless it lies more than 10^4 scales away
  // (Poisson subsampling of a near-identity mechanism: log(1 - q) = -2.3
  // with a loss spread of 1e-8 would need 10^9 grid points); then the cut
  // is searched as for an infinite tail, and stops at the end.
  if (std::isfinite(edge) && !(std::fabs(edge - in) > 1e4 * s)) return edge;
  auto tail = [&](double l) {
    const mass2 m = upper ? law.mass(l, kInf) : law.mass(-kInf, l);
    return std::max(m.p, m.q);
  };
  auto clamp_end = [&](double l) {
    return std::isfinite(edge) ? (upper ? std::min(l, edge) : std::max(l, edge)) : l;
  };
  double step = s;
  double out = clamp_end(in + (upper ? step : -step));
  while (tail(out) > tau && out != edge) {
    in = out;
    step *= 2;
    out = clamp_end(in + (upper ? step : -step));
    if (step > 1e8) break;
  }
  for (int i = 0; i < bisections; ++i) {
    const double mid = 0.5 * (in + out);
    if (tail(mid) > tau)
      in = mid;
    else
      out = mid;
  }
  return out;
}

}  // namespace fdp::detail
