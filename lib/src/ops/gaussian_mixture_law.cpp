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
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/loss_law.hpp"
#include "ops/pld/numbers.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One side of the pair: a mixture of shifted N(., s^2).
struct mixture {
  std::vector<double> shift, weight, log_weight;

  // log sum_i w_i e^{u_i(x)} by log-sum-exp (no overflow at large |x|).
  double log_ratio(double x, double s) const { return log_ratio_and_slope(x, s).first; }
  // The same and its derivative in x, sum_i w_i u_i' e^{u_i} / sum_i w_i
  // e^{u_i} with u_i' = c_i / s^2 (a weighted mean of the shifts).
  std::pair<double, double> log_ratio_and_slope(double x, double s) const {
    double m = -kInf;
    for (std::size_t i = 0; i < shift.size(); ++i) m = std::max(m, exponent(i, x, s));
    double acc = 0.0, acc_shift = 0.0;
    for (std::size_t i = 0; i < shift.size(); ++i) {
      const double e = std::exp(exponent(i, x, s) - m);
      acc += e;
      acc_shift += shift[i] * e;
    }
    return {m + std::log(acc), acc_shift / acc / (s * s)};
  }
  // log_ratio(x) (the same arithmetic) and a bound on its rounding error:
  // to first order the error of log sum_i e^{e_i} is sum_i pi_i de_i with
  // pi_i the softmax weights, and each exponent e_i = log w_i + u_i(x) is
  // within 6 u (|log w_i| + |u_i|) (its five roundings and log w_i's own);
  // exp, the sum and the log add (k + 4) u and u |result|. Doubled for the
  // second order.
  std::pair<double, double> log_ratio_and_error(double x, double s) const {
    double m = -kInf;
    for (std::size_t i = 0; i < shift.size(); ++i) m = std::max(m, exponent(i, x, s));
    double acc = 0.0, weighted = 0.0;
    for (std::size_t i = 0; i < shift.size(); ++i) {
      const double e = std::exp(exponent(i, x, s) - m);
      const double u_i = shift[i] * (2.0 * x - shift[i]) / (2.0 * s * s);
      acc += e;
      weighted += e * (std::fabs(log_weight[i]) + std::fabs(u_i));
    }
    const double value = m + std::log(acc);
    return {value,
            2.0 * detail::kU *
                (6.0 * weighted / acc + static_cast<double>(shift.size() + 4) + std::fabs(value))};
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

// A shift with its weights in P and in Q (0 where the side lacks it): a
// shift both sides share (0, in every use above) has its normal interval
// computed once per cell.
struct shared_component {
  double shift, p_weight, q_weight;
  double z_hi = 0.0, z_lo = 0.0;  // shift / sigma = z_hi + z_lo (twice double precision)
};

std::vector<shared_component> shared_components(const mixture& p, const mixture& q, double sigma) {
  std::vector<shared_component> all;
  auto add = [&all](double shift, double wp, double wq) {
    for (auto& c : all) {
      if (c.shift != shift) continue;
      c.p_weight += wp;
      c.q_weight += wq;
      return;
    }
    all.push_back({shift, wp, wq});
  };
  for (std::size_t i = 0; i < p.shift.size(); ++i) add(p.shift[i], p.weight[i], 0.0);
  for (std::size_t i = 0; i < q.shift.size(); ++i) add(q.shift[i], 0.0, q.weight[i]);
  for (auto& c : all) {
    c.z_hi = c.shift / sigma;
    c.z_lo = std::fma(-c.z_hi, sigma, c.shift) / sigma;
  }
  return all;
}

// The last boundaries x_of found, per thread (the pessimistic and the
// optimistic discretizations run on two threads): adjacent cells share a
// boundary, and the optimistic root finder asks for one lower end many
// times. Four entries: a mixture of two such laws (revealed_mixture_law)
// asks each for both ends of a cell in turn. Keyed by a serial number, not
// the law's address (a law freed and another made in its place must not
// read the old one's boundaries).
struct boundary_memo {
  struct entry {
    std::uint64_t law = 0;  // (serials start at 1)
    double loss = 0.0, x = 0.0;
  };
  entry slot[4];
  unsigned next = 0;

  const entry* find(std::uint64_t law, double loss) const {
    for (const entry& e : slot)
      if (e.law == law && e.loss == loss) return &e;
    return nullptr;
  }
  void put(std::uint64_t law, double loss, double x) { slot[next++ % 4] = {law, loss, x}; }
};
thread_local boundary_memo memo;
std::atomic<std::uint64_t> law_serials{0};

class gaussian_mixture_impl final : public loss_law {
 public:
  gaussian_mixture_impl(double sigma, mixture p, mixture q, bool mirrored)
      : s_(sigma),
        p_(std::move(p)),
        q_(std::move(q)),
        components_(shared_components(p_, q_, sigma)),
        mirrored_(mirrored) {
    two_mirrored_ = mirrored_ && q_.shift.size() == 2 && std::min(q_.shift[0], q_.shift[1]) == 0.0;
    // x -> -inf: Q's ratio tends to its weight at 0 (or 0), P's to +inf when
    // P has a negative shift (else to its weight at 0)
    lo_ = p_.any_nonzero() ? -kInf : q_.log_weight_at_zero() - p_.log_weight_at_zero();
    scale_ = spread();
    max_slope_ = (*std::max_element(q_.shift.begin(), q_.shift.end()) -
                  *std::min_element(p_.shift.begin(), p_.shift.end())) /
                 (s_ * s_);
  }

  double loss_at(double x) const { return q_.log_ratio(x, s_) - p_.log_ratio(x, s_); }
  // L(x) and L'(x) (> 0 wherever a shift contributes).
  std::pair<double, double> loss_and_slope(double x) const {
    const auto [lq, dq] = q_.log_ratio_and_slope(x, s_);
    const auto [lp, dp] = p_.log_ratio_and_slope(x, s_);
    return {lq - lp, dq - dp};
  }

  // The x with L(x) = l: -inf at or below lo, +inf at +inf; else the upper
  // end b of a bracket L(a) < l <= L(b) (as evaluated) of width at most a
  // few ulps, or 1e-18 sigma near 0 (a mass error below 1e-18: the masses
  // are normal intervals in x / sigma).
  double x_of(double l) const {
    if (l <= lo_) return -kInf;
    if (l == kInf) return kInf;
    if (const auto* e = memo.find(serial_, l)) return e->x;
    const double x = find_x(l);
    note_boundary_error(l, x);
    memo.put(serial_, l, x);
    return x;
  }
  // The loss error of a boundary (consistent_masses): mass() splits at
  // s fl(x / s), within u |x| of x; there |L - l| <= |L_eval(x) - l| + the
  // evaluation's error bound + L'max u |x|. The largest seen so far is
  // kept: every boundary of a grid is found before the grid asks for
  // boundary_error, so the running maximum covers them all.
  void note_boundary_error(double l, double x) const {
    if (!std::isfinite(x)) return;  // (an infinite end is exact)
    const auto [lq, eq] = q_.log_ratio_and_error(x, s_);
    const auto [lp, ep] = p_.log_ratio_and_error(x, s_);
    const double u = detail::kU;
    const double e = (std::fabs((lq - lp) - l) + eq + ep + u * std::fabs(l)) * (1.0 + 8.0 * u) +
                     2.0 * max_slope_ * u * std::fabs(x);
    double seen = boundary_error_.load(std::memory_order_relaxed);
    while (e > seen && !boundary_error_.compare_exchange_weak(seen, e)) {
    }
  }
  double find_x(double l) const {
    if (two_mirrored_) return l < 0 ? -x_of_mirrored(-l) : x_of_mirrored(l);
    double a = -s_, b = s_;
    while (loss_at(a) >= l) a *= 2.0;
    while (loss_at(b) < l) b *= 2.0;
    return bracket_root(l, a, b);
  }

  // Shrinks the bracket L(a) < l <= L(b) to the width x_of promises.
  // Newton steps on the smooth, increasing L, each aimed a quarter of the
  // target width past the root so that the next evaluation lands on the
  // other side and closes the bracket; a step that leaves the bracket, or
  // a bracket that stops halving, falls back to bisection (which alone
  // takes some 60 evaluations where Newton takes 4-6).
  double bracket_root(double l, double a, double b) const {
    const auto width_goal = [&] {
      return 4e-16 * std::max(std::fabs(a), std::fabs(b)) + 1e-18 * s_;
    };
    double x = 0.5 * (a + b);
    for (int step = 0; b - a > width_goal(); ++step) {
      if (!(x > a && x < b)) break;  // (adjacent doubles)
      const auto [f, slope] = loss_and_slope(x);
      const double before = b - a;
      (f - l < 0 ? a : b) = x;
      const double push = 0.25 * width_goal() * (f - l < 0 ? 1.0 : -1.0);
      x = x - (f - l) / slope + push;
      const bool stalled = step >= 8 && b - a > 0.5 * before;
      if (!(x > a && x < b) || stalled || !(slope > 0)) x = 0.5 * (a + b);
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

  // Outcomes x in (s za, s zb], z the boundaries over s: every component's
  // normal interval is of that same set (the shifts over s carried to twice
  // double precision), so P and Q are the masses of one outcome set.
  mass2 mass(double a, double b) const override {
    const double xa = x_of(a), xb = x_of(b);
    if (!(xb > xa)) return {};
    const double za = xa / s_, zb = xb / s_;
    mass2 m;
    for (const shared_component& c : components_) {
      const double n =
          c.shift == 0.0 ? norm_interval(za, zb) : norm_interval_shifted(za, zb, c.z_hi, c.z_lo);
      m.p += c.p_weight * n;
      m.q += c.q_weight * n;
    }
    return m;
  }
  bool consistent_masses() const override { return true; }
  // One normal interval's accuracy, plus the weights' and the sums'
  // roundings over the components (all terms positive).
  double mass_rel() const override {
    return kIntervalRel + static_cast<double>(components_.size() + 2) * detail::kU;
  }
  double boundary_error(double lo, double hi) const override {
    (void)lo, (void)hi;
    return boundary_error_.load();
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
  std::vector<shared_component> components_;
  std::uint64_t serial_ = ++law_serials;
  bool mirrored_, two_mirrored_ = false;
  double lo_, scale_ = 0.0;
  double max_slope_ = 0.0;  // L'(x) <= (largest Q shift - smallest P shift) / s^2
  mutable std::atomic<double> boundary_error_{0.0};
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
