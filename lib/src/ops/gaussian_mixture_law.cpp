// gaussian_mixture_law (fdp/ops/loss_law.hpp): P = N(0, s^2) against
// Q = sum_i w_i N(c_i, s^2). With u_i(x) = c_i (2x - c_i) / (2 s^2),
//   L(x) = log dQ/dP (x) = log sum_i w_i e^{u_i(x)},
// L'(x) = sum_i w_i (c_i / s^2) e^{u_i} / sum_i w_i e^{u_i} > 0 when some
// c_i > 0: L is increasing, from log(sum of the weights with c_i = 0) (or
// -inf) at x = -inf to +inf. The P- and Q-mass of losses in (a, b] are then
// those of x in (x(a), x(b)]: normal intervals. x(l) has no closed form
// for three or more components; it is found by bisection on the monotone L
// to adjacent doubles (the subsampled Gaussian, two components, has one:
// subsampled_gaussian_law). With shifts {0, d} and weights {1 - q, q} this
// is that law; with shifts j d and binomial weights it is a user with K
// examples in a Poisson-sampled batch (TF-Privacy's user-level DP-SGD
// accounting; the K clipped gradients aligned is the worst case).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/loss_law.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class gaussian_mixture_impl final : public loss_law {
 public:
  gaussian_mixture_impl(double sigma, std::vector<double> c, std::vector<double> w)
      : s_(sigma), c_(std::move(c)), w_(std::move(w)) {
    double w0 = 0.0;
    for (std::size_t i = 0; i < c_.size(); ++i)
      if (c_[i] == 0.0) w0 += w_[i];
    lo_ = w0 > 0 ? std::log(w0) : -kInf;
    log_w_.resize(w_.size());
    for (std::size_t i = 0; i < w_.size(); ++i) log_w_[i] = std::log(w_[i]);
    scale_ = spread();
  }

  // log sum_i w_i e^{u_i(x)}, by log-sum-exp (no overflow at large x).
  double loss_at(double x) const {
    double m = -kInf;
    for (std::size_t i = 0; i < c_.size(); ++i) m = std::max(m, exponent(i, x));
    double acc = 0.0;
    for (std::size_t i = 0; i < c_.size(); ++i) acc += std::exp(exponent(i, x) - m);
    return m + std::log(acc);
  }

  // The x with L(x) = l: -inf at or below lo, +inf at +inf; else to a
  // few ulps, or 1e-18 sigma near 0 (a mass error below 1e-18: the masses
  // are normal intervals in x / sigma).
  double x_of(double l) const {
    if (l <= lo_) return -kInf;
    if (l == kInf) return kInf;
    double a = -s_, b = s_;
    while (loss_at(a) >= l) a *= 2.0;
    while (loss_at(b) < l) b *= 2.0;
    while (b - a > 4e-16 * std::max(std::fabs(a), std::fabs(b)) + 1e-18 * s_) {
      const double m = 0.5 * (a + b);
      if (!(m > a && m < b)) break;
      (loss_at(m) < l ? a : b) = m;
    }
    return b;
  }

  mass2 mass(double a, double b) const override {
    const double xa = x_of(a), xb = x_of(b);
    if (!(xb > xa)) return {};
    mass2 r;
    r.p = norm_interval(xa / s_, xb / s_);
    for (std::size_t i = 0; i < c_.size(); ++i)
      r.q += w_[i] * norm_interval((xa - c_[i]) / s_, (xb - c_[i]) / s_);
    return r;
  }
  double lo() const override { return lo_; }
  double hi() const override { return kInf; }
  bool symmetric() const override { return false; }
  double scale() const override { return scale_; }
  std::string describe() const override {
    return "gaussian-mixture(sigma=" + detail::format_value(s_) + ", " + std::to_string(c_.size()) +
           " components)";
  }

 private:
  double exponent(std::size_t i, double x) const {
    return log_w_[i] + c_[i] * (2.0 * x - c_[i]) / (2.0 * s_ * s_);
  }
  // sd of L under Q by a coarse quadrature over x (for grid sizing only).
  double spread() const {
    double m1 = 0, m2 = 0, tot = 0;
    for (int k = -800; k <= 800; ++k) {
      const double z = k * 0.01, dens = norm_pdf(z);
      for (std::size_t i = 0; i < c_.size(); ++i) {
        const double l = loss_at(s_ * z + c_[i]), wt = dens * w_[i];
        m1 += wt * l, m2 += wt * l * l, tot += wt;
      }
    }
    m1 /= tot, m2 /= tot;
    return std::sqrt(std::max(1e-300, m2 - m1 * m1));
  }
  double s_;
  std::vector<double> c_, w_, log_w_;
  double lo_, scale_ = 0.0;
};

}  // namespace

std::unique_ptr<loss_law> gaussian_mixture_law(double sigma, std::vector<double> shifts,
                                               std::vector<double> weights) {
  const char* fn = "gaussian_mixture_law";
  detail::require_finite_pos(sigma, fn, "sigma");
  if (shifts.empty() || shifts.size() != weights.size())
    throw std::invalid_argument(std::string(fn) +
                                "(shifts, weights): need one weight per shift, at least one");
  double total = 0.0, top = 0.0;
  for (std::size_t i = 0; i < shifts.size(); ++i) {
    detail::require(shifts[i] >= 0 && std::isfinite(shifts[i]), fn, "shift", shifts[i],
                    "must be finite and >= 0");
    detail::require(weights[i] > 0 && weights[i] <= 1, fn, "weight", weights[i],
                    "must be in (0, 1]");
    total += weights[i];
    top = std::max(top, shifts[i]);
  }
  detail::require(std::fabs(total - 1.0) <= 1e-12, fn, "weights", total, "must sum to 1");
  detail::require(top > 0, fn, "shifts", top, "must include one > 0");
  // (the losses c (2x - c) / (2 sigma^2) must stay finite at the x the
  // engine visits: c / sigma within double range squared)
  detail::require(top / sigma < 1e150, fn, "shift / sigma", top / sigma, "must be < 1e150");
  for (double& w : weights) w /= total;
  return std::make_unique<gaussian_mixture_impl>(sigma, std::move(shifts), std::move(weights));
}

}  // namespace fdp
