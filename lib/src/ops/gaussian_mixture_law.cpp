// gaussian_mixture_law and gaussian_mixture_pair_law (fdp/ops/loss_law.hpp):
// P = sum_j v_j N(b_j, s^2) against Q = sum_i w_i N(c_i, s^2), with shifts
// b_j <= 0 <= c_i. With u_c(x) = c (2x - c) / (2 s^2) (the log-density of
// N(c, s^2) against N(0, s^2)),
//   L(x) = log dQ/dP (x) = log sum_i w_i e^{u_{c_i}(x)} - log sum_j v_j e^{u_{b_j}(x)}.
// Every u_{c_i} increases in x (c_i >= 0) and every u_{b_j} decreases
// (b_j <= 0), and some c_i > 0: L increases strictly, so the P- and Q-mass
// of losses in (a, b] are those of x in (x(a), x(b)]: normal intervals.
// x(l) has no closed form in general; it is found by bisection on the
// monotone L to adjacent doubles (the subsampled Gaussian, P = N(0) and two
// Q components, has one: subsampled_gaussian_law).
// Uses: P = N(0) and shifts j d with binomial weights is a user with K
// examples in a Poisson-sampled batch (TF-Privacy's user-level DP-SGD
// accounting; the K clipped gradients aligned is the worst case); P and Q
// mirror images, (1-q) N(0) + q N(-+d), is the Poisson-subsampled Gaussian
// under replace-one neighbours (subsampled-gaussian's neighbours key).
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

// One side of the pair: a mixture of shifted N(., s^2).
struct mixture {
  std::vector<double> shift, weight, log_weight;

  // log sum_i w_i e^{u_i(x)} by log-sum-exp (no overflow at large |x|).
  double log_ratio(double x, double s) const {
    double m = -kInf;
    for (std::size_t i = 0; i < shift.size(); ++i) m = std::max(m, exponent(i, x, s));
    double acc = 0.0;
    for (std::size_t i = 0; i < shift.size(); ++i) acc += std::exp(exponent(i, x, s) - m);
    return m + std::log(acc);
  }
  // Its mass on x in (xa, xb].
  double mass(double xa, double xb, double s) const {
    double r = 0.0;
    for (std::size_t i = 0; i < shift.size(); ++i)
      r += weight[i] * norm_interval((xa - shift[i]) / s, (xb - shift[i]) / s);
    return r;
  }
  // The limit of log_ratio at x -> -inf (increasing shifts) or +inf (decreasing):
  // the log of the weight at shift 0, or -inf / +inf.
  double log_weight_at_zero() const {
    double w0 = 0.0;
    for (std::size_t i = 0; i < shift.size(); ++i)
      if (shift[i] == 0.0) w0 += weight[i];
    return w0 > 0 ? std::log(w0) : -kInf;
  }
  bool any_nonzero() const {
    return std::any_of(shift.begin(), shift.end(), [](double c) { return c != 0.0; });
  }

 private:
  double exponent(std::size_t i, double x, double s) const {
    return log_weight[i] + shift[i] * (2.0 * x - shift[i]) / (2.0 * s * s);
  }
};

class gaussian_mixture_impl final : public loss_law {
 public:
  gaussian_mixture_impl(double sigma, mixture p, mixture q, bool mirrored)
      : s_(sigma), p_(std::move(p)), q_(std::move(q)), mirrored_(mirrored) {
    two_mirrored_ = mirrored_ && q_.shift.size() == 2 && std::min(q_.shift[0], q_.shift[1]) == 0.0;
    // x -> -inf: Q's ratio tends to its weight at 0 (or 0), P's to +inf when
    // P has a negative shift (else to its weight at 0)
    lo_ = p_.any_nonzero() ? -kInf : q_.log_weight_at_zero() - p_.log_weight_at_zero();
    scale_ = spread();
  }

  double loss_at(double x) const { return q_.log_ratio(x, s_) - p_.log_ratio(x, s_); }

  // The x with L(x) = l: -inf at or below lo, +inf at +inf; else to a
  // few ulps, or 1e-18 sigma near 0 (a mass error below 1e-18: the masses
  // are normal intervals in x / sigma).
  double x_of(double l) const {
    if (l <= lo_) return -kInf;
    if (l == kInf) return kInf;
    if (two_mirrored_) return l < 0 ? -x_of_mirrored(-l) : x_of_mirrored(l);
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

  // The replace-one pair (1-w) N(0) + w N(-+d): with y = e^{x d / s^2} and
  // c = w e^{-d^2 / (2 s^2)} / (1 - w), e^L = y (1 + c y) / (y + c), a
  // quadratic in y whose positive root, for L >= 0 and t = 1 - e^{-L}, is
  //   log y = L - log(2c) + log(t + sqrt(t^2 + 4 c^2 e^{-L}))
  // (no overflow at large L, no cancellation: both terms are >= 0).
  double x_of_mirrored(double l) const {
    const std::size_t i = q_.shift[0] == 0.0 ? 1 : 0;
    const double d = q_.shift[i], w = q_.weight[i];
    const double log_c = std::log(w) - std::log1p(-w) - d * d / (2.0 * s_ * s_);
    const double t = -std::expm1(-l);
    const double r = std::exp(std::log(4.0) + 2.0 * log_c - l);  // 4 c^2 e^{-L}
    const double log_y = l - std::log(2.0) - log_c + std::log(t + std::sqrt(t * t + r));
    return log_y * s_ * s_ / d;
  }

  mass2 mass(double a, double b) const override {
    const double xa = x_of(a), xb = x_of(b);
    if (!(xb > xa)) return {};
    return {p_.mass(xa, xb, s_), q_.mass(xa, xb, s_)};
  }
  double lo() const override { return lo_; }
  double hi() const override { return kInf; }
  bool symmetric() const override { return mirrored_; }
  double scale() const override { return scale_; }
  std::string describe() const override {
    return "gaussian-mixture(sigma=" + detail::format_value(s_) + ", " +
           std::to_string(p_.shift.size()) + " + " + std::to_string(q_.shift.size()) +
           " components)";
  }

 private:
  // sd of L under Q by a coarse quadrature over x (for grid sizing only).
  double spread() const {
    double m1 = 0, m2 = 0, tot = 0;
    for (int k = -800; k <= 800; ++k) {
      const double z = k * 0.01, dens = norm_pdf(z);
      for (std::size_t i = 0; i < q_.shift.size(); ++i) {
        const double l = loss_at(s_ * z + q_.shift[i]), wt = dens * q_.weight[i];
        m1 += wt * l, m2 += wt * l * l, tot += wt;
      }
    }
    m1 /= tot, m2 /= tot;
    return std::sqrt(std::max(1e-300, m2 - m1 * m1));
  }
  double s_;
  mixture p_, q_;
  bool mirrored_, two_mirrored_ = false;
  double lo_, scale_ = 0.0;
};

// Validated and normalized; `sign` +1: shifts >= 0 (Q), -1: shifts <= 0 (P).
mixture mixture_of(std::vector<double> shifts, std::vector<double> weights, double sigma, int sign,
                   const char* side) {
  const char* fn = "gaussian_mixture_law";
  if (shifts.empty() || shifts.size() != weights.size())
    throw std::invalid_argument(std::string(fn) + "(" + side +
                                " shifts, weights): need one weight per shift, at least one");
  double total = 0.0;
  for (std::size_t i = 0; i < shifts.size(); ++i) {
    detail::require(sign * shifts[i] >= 0 && std::isfinite(shifts[i]), fn, "shift", shifts[i],
                    sign > 0 ? "must be finite and >= 0" : "must be finite and <= 0");
    detail::require(weights[i] > 0 && weights[i] <= 1, fn, "weight", weights[i],
                    "must be in (0, 1]");
    // (the exponents c (2x - c) / (2 sigma^2) must stay finite at the x
    // the engine visits: c / sigma within double range squared)
    detail::require(std::fabs(shifts[i]) / sigma < 1e150, fn, "shift / sigma",
                    std::fabs(shifts[i]) / sigma, "must be < 1e150");
    total += weights[i];
  }
  detail::require(std::fabs(total - 1.0) <= 1e-12, fn, "weights", total, "must sum to 1");
  mixture m;
  m.shift = std::move(shifts);
  m.weight = std::move(weights);
  for (double& w : m.weight) w /= total;
  for (double w : m.weight) m.log_weight.push_back(std::log(w));
  return m;
}

// P the mirror image of Q: then T(P, Q) = T(Q, P) (x -> -x swaps them).
bool mirrored(const mixture& p, const mixture& q) {
  if (p.shift.size() != q.shift.size()) return false;
  std::vector<std::pair<double, double>> a, b;
  for (std::size_t i = 0; i < p.shift.size(); ++i) a.emplace_back(-p.shift[i], p.weight[i]);
  for (std::size_t i = 0; i < q.shift.size(); ++i) b.emplace_back(q.shift[i], q.weight[i]);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

}  // namespace

std::unique_ptr<loss_law> gaussian_mixture_pair_law(double sigma, std::vector<double> p_shifts,
                                                    std::vector<double> p_weights,
                                                    std::vector<double> q_shifts,
                                                    std::vector<double> q_weights) {
  detail::require_finite_pos(sigma, "gaussian_mixture_law", "sigma");
  mixture p = mixture_of(std::move(p_shifts), std::move(p_weights), sigma, -1, "P");
  mixture q = mixture_of(std::move(q_shifts), std::move(q_weights), sigma, +1, "Q");
  const double top = *std::max_element(q.shift.begin(), q.shift.end());
  detail::require(top > 0, "gaussian_mixture_law", "shifts", top, "must include one > 0");
  const bool m = mirrored(p, q);
  return std::make_unique<gaussian_mixture_impl>(sigma, std::move(p), std::move(q), m);
}

std::unique_ptr<loss_law> gaussian_mixture_law(double sigma, std::vector<double> shifts,
                                               std::vector<double> weights) {
  return gaussian_mixture_pair_law(sigma, {0.0}, {1.0}, std::move(shifts), std::move(weights));
}

}  // namespace fdp
