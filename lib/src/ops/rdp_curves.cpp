// Renyi-DP curves of the trade-off families (formulas and sources in
// fdp/ops/rdp_curves.hpp).
#include "fdp/ops/rdp_curves.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fdp/core/error.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double lse(double a, double b) {
  if (a == -kInf) return b;
  if (b == -kInf) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

void check_order(double alpha, const char* func) {
  detail::require(std::isfinite(alpha) && alpha > 1, func, "alpha", alpha,
                  "must be finite and > 1");
}

bool is_integer(double a) { return a == std::floor(a); }

}  // namespace

double rdp_gaussian(double mu, double alpha) {
  check_order(alpha, "rdp_gaussian");
  detail::require_finite_nonneg(mu, "rdp_gaussian", "mu");
  return 0.5 * alpha * mu * mu;
}

double rdp_laplace(double mu, double alpha) {
  check_order(alpha, "rdp_laplace");
  detail::require_finite_nonneg(mu, "rdp_laplace", "mu");
  const double t1 = std::log(alpha / (2 * alpha - 1)) + (alpha - 1) * mu;
  const double t2 = std::log((alpha - 1) / (2 * alpha - 1)) - alpha * mu;
  return std::max(0.0, lse(t1, t2) / (alpha - 1));
}

double rdp_pure(double eps, double alpha) {
  check_order(alpha, "rdp_pure");
  detail::require_finite_nonneg(eps, "rdp_pure", "eps");
  // log p and log(1 - p) for p = e^eps / (1 + e^eps)
  const double lp = -std::log1p(std::exp(-eps)), lq = -eps - std::log1p(std::exp(-eps));
  const double t1 = alpha * lp + (1 - alpha) * lq, t2 = alpha * lq + (1 - alpha) * lp;
  return std::clamp(lse(t1, t2) / (alpha - 1), 0.0, eps);
}

double rdp_subsampled_gaussian(double s, double q, double alpha) {
  check_order(alpha, "rdp_subsampled_gaussian");
  detail::require(is_integer(alpha), "rdp_subsampled_gaussian", "alpha", alpha,
                  "must be an integer (Mironov, Talwar & Zhang 2019, Sec. 3.3)");
  detail::require_finite_pos(s, "rdp_subsampled_gaussian", "s");
  detail::require(q > 0 && q <= 1, "rdp_subsampled_gaussian", "q", q, "must be in (0, 1]");
  if (q == 1.0) return rdp_gaussian(1.0 / s, alpha);
  const long long a = static_cast<long long>(alpha);
  const double l1q = std::log1p(-q), lq = std::log(q), c = 1.0 / (2 * s * s);
  double acc = -kInf;
  for (long long k = 0; k <= a; ++k) {
    const double kk = static_cast<double>(k);
    const double lb = std::lgamma(alpha + 1) - std::lgamma(kk + 1) - std::lgamma(alpha - kk + 1);
    acc = lse(acc, lb + (alpha - kk) * l1q + kk * lq + (kk * kk - kk) * c);
  }
  return std::max(0.0, acc / (alpha - 1));
}

double rdp_of_law(const loss_law& law, double alpha, double bin) {
  check_order(alpha, "rdp_of_law");
  const double lo = law.lo(), hi = law.hi();
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    detail::throw_domain("rdp_of_law", "law", law.describe(), "needs a bounded loss support");
  }
  if (law.q_pos_inf() > 0 || law.p_neg_inf() > 0) return kInf;
  // Atoms exactly; the continuous part by upper sums:
  // E_P[e^{alpha L}] = E_Q[e^{(alpha-1) L}] <= sum Q(bin) e^{(alpha-1) l_hi},
  // E_Q[e^{-alpha L}] = E_P[e^{-(alpha-1) L}] <= sum P(bin) e^{-(alpha-1) l_lo}.
  const std::vector<loss_atom> atoms = law.atoms();
  double fwd = -kInf, rev = -kInf;
  double pa = 0.0, qa = 0.0;
  for (const auto& at : atoms) {
    if (at.q > 0) fwd = lse(fwd, std::log(at.q) + (alpha - 1) * at.loss);
    if (at.p > 0) rev = lse(rev, std::log(at.p) - (alpha - 1) * at.loss);
    pa += at.p;
    qa += at.q;
  }
  const double edge = std::max(1e-12, 1e-12 * std::fabs(lo));
  const mass2 all = law.mass(lo - edge, hi);
  if (all.p - pa > 1e-15 || all.q - qa > 1e-15) {
    const double w = std::min(bin, 0.01 / alpha);
    const double span = hi - lo;
    const long long n = std::max<long long>(1, static_cast<long long>(std::ceil(span / w)));
    std::size_t j = 0;
    double a = lo - edge;
    for (long long i = 0; i < n; ++i) {
      const double b =
          (i + 1 == n) ? hi : lo + span * static_cast<double>(i + 1) / static_cast<double>(n);
      mass2 m = law.mass(a, b);
      while (j < atoms.size() && atoms[j].loss <= b) {
        if (atoms[j].loss > a) {
          m.p -= atoms[j].p;
          m.q -= atoms[j].q;
        }
        ++j;
      }
      if (m.q > 1e-300) fwd = lse(fwd, std::log(m.q) + (alpha - 1) * b);
      if (m.p > 1e-300) rev = lse(rev, std::log(m.p) - (alpha - 1) * a);
      a = b;
    }
  }
  return std::max(0.0, std::max(fwd, rev) / (alpha - 1));
}

}  // namespace fdp
