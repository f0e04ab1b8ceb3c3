// max_shift_law (fdp/ops/loss_law.hpp): the law of M = max_j Y_j over b
// coordinates, Y_j = Z_j + s_j with Z_j iid N(0, sigma^2): under P no shift;
// under Q, with probability rho, one coordinate (any, it does not matter for
// the max) shifted by 1, else none. With Phi_s(t) = Phi(t / sigma):
//   F_P(t) = Phi_s(t)^b,   F_Q(t) = rho Phi_s(t - 1) Phi_s(t)^{b-1} + (1 - rho) F_P(t),
// and the density ratio of the shifted max to the unshifted one is
//   r(t) = (1/b) [e^{(2t - 1)/(2 sigma^2)} + (b - 1) Phi_s(t - 1) / Phi_s(t)],
// both terms increasing in t (the second by log-concavity of Phi), so the
// loss L(t) = log(rho r(t) + 1 - rho) increases from log(1 - rho) (-inf at
// rho = 1) to +inf: losses in (a, b] are the t in (t(a), t(b)], found by
// bisection, and their masses are differences of F_P, F_Q (from the upper
// tail where that is the small side).
// Use: a lower bound on the privacy of shuffled batches (fdp/budget/dpsgd.hpp):
// the max over an epoch's steps is one test an adversary can run.
#include <algorithm>
#include <cmath>
#include <limits>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/loss_law.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// log F and log(1 - F) of one side at t; both accurate (log1p / expm1 forms).
struct log_cdf {
  double lower, upper;
};

class max_shift_impl final : public loss_law {
 public:
  max_shift_impl(double sigma, double b, double rho) : s_(sigma), b_(b), rho_(rho) {
    lo_ = rho_ < 1 ? std::log1p(-rho_) : -kInf;
    scale_ = spread();
  }

  double loss_at(double t) const {
    const double phi_ratio = std::exp((2.0 * t - 1.0) / (2.0 * s_ * s_));
    const double cdf_ratio = std::exp(log_norm_cdf((t - 1.0) / s_) - log_norm_cdf(t / s_));
    const double r = (phi_ratio + (b_ - 1.0) * cdf_ratio) / b_;
    return std::log(rho_ * r + (1.0 - rho_));
  }

  // The t with L(t) = l, to a few ulps: the upper end of a bracket
  // [a, z] with L(a) < l <= L(z) on the increasing L (the discretization
  // calls this twice per cell), narrowed by regula falsi with the Illinois
  // halving, a bisection step whenever an interpolated point is not inside
  // the bracket (L flat to rounding, or infinite far out) or two steps have
  // not halved it: about a quarter of plain bisection's evaluations.
  double t_of(double l) const {
    if (l <= lo_) return -kInf;
    if (l == kInf) return kInf;
    double a = -s_, z = s_;
    while (loss_at(a) >= l && a > -1e100) a *= 2.0;  // (t^2 stays finite)
    while (loss_at(z) < l && z < 1e300) z *= 2.0;
    double ga = loss_at(a) - l, gz = loss_at(z) - l;
    int kept = 0;          // which end the last step kept: -1 a, +1 z
    double width = z - a;  // the bracket's width at the last check
    for (int step = 1; !close(a, z); ++step) {
      double m = a - ga * (z - a) / (gz - ga);
      const bool slow = step % 2 == 0 && z - a > 0.5 * width;
      if (step % 2 == 0) width = z - a;
      if (slow || !(m > a && m < z)) m = 0.5 * (a + z);
      if (!(m > a && m < z)) break;
      const double gm = loss_at(m) - l;
      if (gm < 0) {
        a = m, ga = gm;
        if (kept == -1) gz *= 0.5;  // (Illinois: the stale end's value halved)
        kept = -1;
      } else {
        z = m, gz = gm;
        if (kept == 1) ga *= 0.5;
        kept = 1;
      }
      if (!std::isfinite(ga) || !std::isfinite(gz)) ga = -1.0, gz = 1.0;  // (signs only)
    }
    return z;
  }

  static bool close(double x, double y) {
    return y - x <= 4e-16 * std::max(std::fabs(x), std::fabs(y)) + 1e-300;
  }

  mass2 mass(double a, double b) const override {
    const double ta = t_of(a), tb = t_of(b);
    if (!(tb > ta)) return {};
    return {side_mass(ta, tb, false), side_mass(ta, tb, true)};
  }
  double lo() const override { return lo_; }
  double hi() const override { return kInf; }
  bool symmetric() const override { return false; }
  double scale() const override { return scale_; }
  std::string describe() const override {
    return "max-shift(sigma=" + detail::format_value(s_) + ", b=" + detail::format_value(b_) +
           ", rho=" + detail::format_value(rho_) + ")";
  }

 private:
  // log F_P(t), log(1 - F_P(t)); shifted: the same for Phi_s(t-1) Phi_s(t)^{b-1}.
  log_cdf unshifted(double t) const {
    const double lf = b_ * log_norm_cdf(t / s_);
    return {lf, std::log(-std::expm1(lf))};
  }
  log_cdf shifted(double t) const {
    const double lf = log_norm_cdf((t - 1.0) / s_) + (b_ - 1.0) * log_norm_cdf(t / s_);
    return {lf, std::log(-std::expm1(lf))};
  }
  // F(tb) - F(ta) from the side where F is small (no cancellation).
  static double difference(const log_cdf& a, const log_cdf& b) {
    if (a.lower < -0.7) return std::exp(b.lower) - std::exp(a.lower);
    return std::exp(a.upper) - std::exp(b.upper);
  }
  double side_mass(double ta, double tb, bool q) const {
    auto at = [&](double t, bool shift) -> log_cdf {
      if (t == -kInf) return {-kInf, 0.0};
      if (t == kInf) return {0.0, -kInf};
      return shift ? shifted(t) : unshifted(t);
    };
    const double p = std::max(0.0, difference(at(ta, false), at(tb, false)));
    if (!q) return p;
    const double s = std::max(0.0, difference(at(ta, true), at(tb, true)));
    return rho_ * s + (1.0 - rho_) * p;
  }
  // sd of L under Q by a coarse quadrature over the quantiles of the max (grid sizing only).
  double spread() const {
    double m1 = 0, m2 = 0, tot = 0;
    for (int k = 1; k < 400; ++k) {
      const double u = k / 400.0;
      // the max under the shifted law is at least the unshifted one's quantile
      const double t = s_ * norm_quantile(std::pow(u, 1.0 / b_)) + 0.5;
      const double l = loss_at(t);
      if (!std::isfinite(l)) continue;
      m1 += l, m2 += l * l, tot += 1;
    }
    m1 /= tot, m2 /= tot;
    return std::sqrt(std::max(1e-300, m2 - m1 * m1));
  }
  double s_, b_, rho_;
  double lo_, scale_ = 0.0;
};

}  // namespace

std::unique_ptr<loss_law> max_shift_law(double sigma, double b, double rho) {
  detail::require_finite_pos(sigma, "max_shift_law", "sigma");
  detail::require(b >= 1 && b <= 1e9 && b == std::floor(b), "max_shift_law", "b", b,
                  "must be an integer in [1, 1e9]");
  detail::require(rho > 0 && rho <= 1, "max_shift_law", "rho", rho, "must be in (0, 1]");
  return std::make_unique<max_shift_impl>(sigma, b, rho);
}

}  // namespace fdp
