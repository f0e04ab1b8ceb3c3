// First-order Edgeworth approximation of composed trade-off functions
// (Zheng, Dong, Long & Su, ICML 2020, arXiv:2003.04493, Sec. 3). See
// fdp/ops/edgeworth.hpp for what it is and is not.
#include "fdp/ops/edgeworth.hpp"

#include <array>
#include <cmath>
#include <functional>

#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"

namespace fdp {

using detail::format_value;
using detail::require;
using detail::require_finite_pos;

namespace {

// Raw moments E[L], E[L^2], E[L^3] -> mean, variance, third cumulant. The
// variance is formed from central quantities where the caller has them;
// here the raw-moment formulas are used at double precision, adequate for
// the accuracy stated in the header (the means are O(mu^2) and the variances
// O(mu^2) for small mu, so no catastrophic cancellation for mu >= 1e-3).
void cumulants_from_moments(double m1, double m2, double m3, double& mean, double& var,
                            double& k3) {
  mean = m1;
  var = m2 - m1 * m1;
  k3 = m3 - 3.0 * m1 * m2 + 2.0 * m1 * m1 * m1;
}

}  // namespace

loss_cumulants times(const loss_cumulants& c, std::int64_t n) {
  require(n >= 1, "times", "n", static_cast<long long>(n), "must be >= 1");
  const double k = static_cast<double>(n);
  return {k * c.mean_p, k * c.var_p, k * c.k3_p, k * c.mean_q, k * c.var_q, k * c.k3_q};
}

loss_cumulants operator+(const loss_cumulants& a, const loss_cumulants& b) {
  return {a.mean_p + b.mean_p, a.var_p + b.var_p, a.k3_p + b.k3_p,
          a.mean_q + b.mean_q, a.var_q + b.var_q, a.k3_q + b.k3_q};
}

loss_cumulants laplace_loss_cumulants(double mu) {
  require_finite_pos(mu, "laplace_loss_cumulants", "mu");
  // Under P = Lap(0,1): L = |X| - |X - mu| (DRS Sec. 2; the loss of the pair).
  using boost::math::quadrature::gauss;
  std::array<double, 3> m{};
  for (int k = 1; k <= 3; ++k) {
    const double atoms = 0.5 * std::pow(-mu, k) + 0.5 * std::exp(-mu) * std::pow(mu, k);
    const double mid = gauss<double, 40>::integrate(
        [&](double x) { return std::pow(2.0 * x - mu, k) * 0.5 * std::exp(-x); }, 0.0, mu);
    m[k - 1] = atoms + mid;
  }
  loss_cumulants c;
  cumulants_from_moments(m[0], m[1], m[2], c.mean_p, c.var_p, c.k3_p);
  // Under Q = Lap(mu,1), L has the law of -L under P (x -> mu - x maps Q to P).
  c.mean_q = -c.mean_p;
  c.var_q = c.var_p;
  c.k3_q = -c.k3_p;
  return c;
}

loss_cumulants gaussian_loss_cumulants(double mu) {
  require_finite_pos(mu, "gaussian_loss_cumulants", "mu");
  const double v = mu * mu;
  return {-0.5 * v, v, 0.0, 0.5 * v, v, 0.0};
}

loss_cumulants subsampled_gaussian_loss_cumulants(double sigma, double q) {
  require_finite_pos(sigma, "subsampled_gaussian_loss_cumulants", "sigma");
  require(q > 0.0 && q <= 1.0, "subsampled_gaussian_loss_cumulants", "q", q, "must be in (0, 1]");
  const double s2 = sigma * sigma;
  // L(x) = log(1 - q + q e^{(2x - 1)/(2 sigma^2)}), evaluated as
  // log1p(q expm1(.)) so that small q keeps its digits.
  // For large exponents u, e^u overflows (sigma = 0.05: u = 1000 at 40
  // sigma past 1, and inf times a zero density made the moments NaN):
  // there L = u + log q + log1p((1 - q) e^{-u} / q). With q = 1, L = u
  // exactly (log1p(expm1(u)) is -inf for u < -37).
  const double log_q = std::log(q);
  auto loss = [&](double x) {
    const double u = (2.0 * x - 1.0) / (2.0 * s2);
    if (q == 1.0) return u;
    if (u > 30.0) return u + log_q + std::log1p((1.0 - q) * std::exp(-u) / q);
    return std::log1p(q * std::expm1(u));
  };
  auto dens_p = [&](double x) { return norm_pdf(x / sigma) / sigma; };
  auto dens_q = [&](double x) {
    return (1.0 - q) * norm_pdf(x / sigma) / sigma + q * norm_pdf((x - 1.0) / sigma) / sigma;
  };
  using boost::math::quadrature::gauss_kronrod;
  // Both densities are below 1e-340 beyond 40 sigma from 0 and 1.
  const std::array<double, 5> pts{-40.0 * sigma, -5.0 * sigma, 0.5, 1.0 + 5.0 * sigma,
                                  1.0 + 40.0 * sigma};
  auto integrate = [&](const std::function<double(double)>& g) {
    double total = 0.0;
    for (std::size_t i = 0; i + 1 < pts.size(); ++i)
      total += gauss_kronrod<double, 61>::integrate(g, pts[i], pts[i + 1], 12, 1e-13);
    return total;
  };
  loss_cumulants c;
  std::array<double, 3> mp{}, mq{};
  for (int k = 1; k <= 3; ++k) {
    mp[k - 1] = integrate([&](double x) { return std::pow(loss(x), k) * dens_p(x); });
    mq[k - 1] = integrate([&](double x) { return std::pow(loss(x), k) * dens_q(x); });
  }
  cumulants_from_moments(mp[0], mp[1], mp[2], c.mean_p, c.var_p, c.k3_p);
  cumulants_from_moments(mq[0], mq[1], mq[2], c.mean_q, c.var_q, c.k3_q);
  return c;
}

double edgeworth_cdf(double x, double mean, double var, double k3) {
  require_finite_pos(var, "edgeworth_cdf", "var");
  const double s = std::sqrt(var);
  const double z = (x - mean) / s;
  const double g = k3 / (var * s);
  // One-term Edgeworth expansion of a standardized sum (Hall 1992, eq. (2.17);
  // Zheng et al. eq. (3.3)).
  const double v = norm_cdf(z) - norm_pdf(z) * g * (z * z - 1.0) / 6.0;
  return std::fmin(1.0, std::fmax(0.0, v));
}

namespace {

double approx_beta(const loss_cumulants& c, double alpha, bool with_k3, const char* func) {
  require(alpha > 0.0 && alpha < 1.0, func, "alpha", alpha, "must be in (0, 1)");
  require_finite_pos(c.var_p, func, "var_p");
  require_finite_pos(c.var_q, func, "var_q");
  const double k3p = with_k3 ? c.k3_p : 0.0;
  const double k3q = with_k3 ? c.k3_q : 0.0;
  const double sp = std::sqrt(c.var_p);
  // Upper tail under P: alpha(t) = 1 - F_P(t), decreasing in t where the
  // expansion is monotone. Bisection on [mean - 12 sd, mean + 12 sd].
  auto upper = [&](double t) { return 1.0 - edgeworth_cdf(t, c.mean_p, c.var_p, k3p); };
  double lo = c.mean_p - 12.0 * sp, hi = c.mean_p + 12.0 * sp;
  if (!(upper(lo) >= alpha && upper(hi) <= alpha))
    throw evaluation_error(std::string(func) +
                           ": the Edgeworth tail does not cross alpha = " + format_value(alpha));
  for (int i = 0; i < 200 && hi - lo > 1e-15 * (1.0 + std::fabs(lo)); ++i) {
    const double mid = 0.5 * (lo + hi);
    (upper(mid) > alpha ? lo : hi) = mid;
  }
  const double t = 0.5 * (lo + hi);
  return edgeworth_cdf(t, c.mean_q, c.var_q, k3q);
}

}  // namespace

double edgeworth_beta(const loss_cumulants& total, double alpha) {
  return approx_beta(total, alpha, true, "edgeworth_beta");
}

double normal_beta(const loss_cumulants& total, double alpha) {
  return approx_beta(total, alpha, false, "normal_beta");
}

}  // namespace fdp
