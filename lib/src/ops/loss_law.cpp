#include "fdp/ops/loss_law.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = std::numeric_limits<double>::epsilon() / 2;  // unit roundoff

// ------------------------------------------------------------ discrete
class discrete_law_impl final : public loss_law {
 public:
  discrete_law_impl(std::vector<loss_atom> atoms, double pn, double qp, bool sym, std::string name)
      : atoms_(std::move(atoms)), pn_(pn), qp_(qp), sym_(sym), name_(std::move(name)) {
    const auto below = [](const loss_atom& a, const loss_atom& b) { return a.loss < b.loss; };
    if (!std::is_sorted(atoms_.begin(), atoms_.end(), below))
      std::sort(atoms_.begin(), atoms_.end(), below);
    // merge equal losses
    std::vector<loss_atom> m;
    for (const auto& a : atoms_) {
      if (!(a.p > 0 || a.q > 0)) continue;
      if (!m.empty() && m.back().loss == a.loss) {
        m.back().p += a.p;
        m.back().q += a.q;
      } else {
        m.push_back(a);
      }
    }
    atoms_ = std::move(m);
    double s = 0, s2 = 0, t = 0;
    for (const auto& a : atoms_) {
      s += a.q * a.loss;
      s2 += a.q * a.loss * a.loss;
      t += a.q;
    }
    scale_ = t > 0 ? std::sqrt(std::max(0.0, s2 / t - (s / t) * (s / t))) : 0.0;
  }
  mass2 mass(double a, double b) const override {
    mass2 r;
    auto it = std::upper_bound(atoms_.begin(), atoms_.end(), a,
                               [](double x, const loss_atom& at) { return x < at.loss; });
    for (; it != atoms_.end() && it->loss <= b; ++it) {
      r.p += it->p;
      r.q += it->q;
    }
    return r;
  }
  double p_neg_inf() const override { return pn_; }
  double q_pos_inf() const override { return qp_; }
  double lo() const override { return atoms_.empty() ? 0.0 : atoms_.front().loss; }
  double hi() const override { return atoms_.empty() ? 0.0 : atoms_.back().loss; }
  std::vector<loss_atom> atoms() const override { return atoms_; }
  bool atomic() const override { return true; }
  bool symmetric() const override { return sym_; }
  double scale() const override { return scale_; }
  std::string describe() const override { return name_; }

 private:
  std::vector<loss_atom> atoms_;
  double pn_, qp_;
  bool sym_;
  std::string name_;
  double scale_ = 0.0;
};

// ------------------------------------------------------------ Gaussian
// G_mu: L = mu X - mu^2/2 with X ~ N(0,1) under P and X ~ N(mu,1) under Q,
// so L ~ N(-mu^2/2, mu^2) under P and N(mu^2/2, mu^2) under Q.
class gaussian_law final : public loss_law {
 public:
  explicit gaussian_law(double mu) : mu_(mu) {}
  // Outcomes z in (za, zb] (the loss mu z - mu^2/2 inverted): P = N(0, 1)
  // and Q = N(mu, 1) of that same set.
  mass2 mass(double a, double b) const override {
    const double h = 0.5 * mu_ * mu_;
    const double za = (a + h) / mu_, zb = (b + h) / mu_;
    return {norm_interval(za, zb), norm_interval_shifted(za, zb, mu_, 0.0)};
  }
  bool consistent_masses() const override { return true; }
  // z = (l + h) / mu rounds h, the sum and the quotient: mu |dz| <= u (h +
  // |l + h| + |l + h|); doubled.
  double boundary_error(double lo, double hi) const override {
    const double h = 0.5 * mu_ * mu_, l = std::max(std::fabs(lo), std::fabs(hi));
    return 2.0 * kU * (3.0 * h + 2.0 * l + 1e-300);
  }
  double lo() const override { return -kInf; }
  double hi() const override { return kInf; }
  bool symmetric() const override { return true; }
  double scale() const override { return mu_; }
  std::string describe() const override { return "G_" + detail::format_value(mu_); }

 private:
  double mu_;
};

// ------------------------------------------------------------ Laplace
// T(Lap(0,1), Lap(mu,1)): L(x) = |x| - |x - mu| is -mu for x <= 0, mu for
// x >= mu and 2x - mu in between. Atoms: at -mu P = 1/2, Q = e^-mu/2; at mu
// P = e^-mu/2, Q = 1/2. On (0, mu) the P-density of x is e^-x/2 and the
// Q-density e^-(mu-x)/2.
class laplace_law final : public loss_law {
 public:
  explicit laplace_law(double mu) : mu_(mu) {}
  mass2 mass(double a, double b) const override {
    mass2 r;
    const double em = std::exp(-mu_);
    if (a < -mu_ && b >= -mu_) r.p += 0.5, r.q += 0.5 * em;
    if (a < mu_ && b >= mu_) r.p += 0.5 * em, r.q += 0.5;
    const double lo = std::max(a, -mu_), hi = std::min(b, mu_);
    if (hi > lo) {
      // open interval (lo, hi) of the continuous part (atoms excluded above)
      const double x1 = 0.5 * (lo + mu_), x2 = 0.5 * (hi + mu_);
      const double w = -std::expm1(-(x2 - x1));
      r.p += 0.5 * std::exp(-x1) * w;
      r.q += 0.5 * std::exp(-(mu_ - x2)) * w;
    }
    return r;
  }
  double lo() const override { return -mu_; }
  double hi() const override { return mu_; }
  std::vector<loss_atom> atoms() const override {
    const double em = std::exp(-mu_);
    return {{-mu_, 0.5, 0.5 * em}, {mu_, 0.5 * em, 0.5}};
  }
  bool symmetric() const override { return true; }
  double scale() const override {
    // Var of L under Q, computed from its pieces (closed form).
    const double em = std::exp(-mu_);
    // E_Q[L] = mu - 1 + e^-mu ... use numeric moments on the explicit pieces
    double m1 = 0.5 * mu_ - 0.5 * em * mu_, m2 = 0.5 * mu_ * mu_ + 0.5 * em * mu_ * mu_;
    const int n = 200;
    for (int i = 0; i < n; ++i) {
      const double x = (i + 0.5) / n * mu_;
      const double l = 2 * x - mu_;
      const double w = 0.5 * std::exp(-(mu_ - x)) * mu_ / n;
      m1 += w * l;
      m2 += w * l * l;
    }
    return std::sqrt(std::max(0.0, m2 - m1 * m1));
  }
  std::string describe() const override { return "Lap_" + detail::format_value(mu_); }

 private:
  double mu_;
};

// ------------------------------------------------------------ subsampled Gaussian
// P = N(0, s^2), Q = (1-q) N(0, s^2) + q N(d, s^2). With u(x) = d (2x - d) / (2 s^2),
// L(x) = log(1 - q + q e^u) is increasing in x, with range (log(1-q), inf).
// x(l) = s^2/d * log((e^l - 1 + q)/q) + d/2.
class subsampled_gaussian_impl final : public loss_law {
 public:
  subsampled_gaussian_impl(double sigma, double d, double q)
      : s_(sigma), d_(d), q_(q), log_q_(std::log(q)) {
    lo_ = q_ < 1 ? std::log1p(-q_) : -kInf;
    c_hi_ = d_ / s_;
    c_lo_ = std::fma(-c_hi_, s_, d_) / s_;  // (d - c_hi s exactly, over s)
    scale_ = spread();  // (once: the tail cuts ask for it a dozen times per grid)
  }
  double x_of(double l) const {
    if (l <= lo_) return -kInf;
    if (l == kInf) return kInf;
    const double v = std::expm1(l) + q_;  // e^l - 1 + q > 0
    return s_ * s_ / d_ * (std::log(v) - log_q_) +
           0.5 * d_;  // (log q once: the sweeps call this ~10^5 times)
  }
  // Outcomes x in (s za, s zb], z the inverted loss over s: P = N(0, s^2)
  // and N(d, s^2) of that same set (the shift d / s carried to twice double
  // precision: rounding (x - d) / s on its own moved the second interval by
  // an ulp, 2e-10 of the mass of a cell 1e-6 wide).
  mass2 mass(double a, double b) const override {
    const double xa = x_of(a), xb = x_of(b);
    if (!(xb > xa)) return {};
    const double za = xa / s_, zb = xb / s_;
    const double p = norm_interval(za, zb);
    const double p1 = norm_interval_shifted(za, zb, c_hi_, c_lo_);
    return {p, (1.0 - q_) * p + q_ * p1};
  }
  bool consistent_masses() const override { return true; }
  // The outcome boundary s fl(x_of(l) / s) against the exact x(l): with v =
  // e^l - 1 + q, x = (s^2/d)(log v - log q) + d/2, and dL/dx = (d/s^2) w, w =
  // q e^{u(x)} / e^L = v / e^l in (0, 1], the roundings (expm1 and log 2u
  // each, the others u) move L by at most u [2 w |log v| + 2 |1 - e^{-l}| + 1
  // + 2 |log q| + 4 w |log v - log q| + 3 w |log v - log q| + 2 (d/s^2) w |x|].
  // w |log v| <= max(1/e / e^l, log v_hi) and w (d/s^2)|x| <= w |log v| +
  // |log q| + d^2 / (2 s^2) bound it over [lo, hi]; doubled.
  double boundary_error(double lo, double hi) const override {
    const double lq = std::fabs(log_q_);
    const double v_hi = std::expm1(hi) + q_;
    const double wlv = std::max(0.37 / (1.0 - q_), v_hi > 1 ? std::log(v_hi) : 0.0);
    const double e_lo = std::isfinite(lo) ? std::fabs(std::expm1(-lo)) : 0.0;
    const double one_minus = std::max({1.0, e_lo, q_ / (1.0 - q_)});
    const double r = 2 * wlv + 2 * one_minus + 1 + 2 * lq + 7 * (wlv + lq) +
                     2 * (wlv + lq + d_ * d_ / (2 * s_ * s_));
    return 2.0 * kU * r;
  }
  double lo() const override { return lo_; }
  double hi() const override { return kInf; }
  bool symmetric() const override { return q_ == 1.0; }
  double scale() const override { return scale_; }
  std::string describe() const override {
    return "subsampled-gaussian(sigma=" + detail::format_value(s_) +
           ",q=" + detail::format_value(q_) + ")";
  }

 private:
  double spread() const {
    // sd of L under Q by a coarse quadrature over x (for grid sizing only).
    double m1 = 0, m2 = 0, w = 0;
    for (int i = -800; i <= 800; ++i) {
      const double z = i * 0.01;
      const double dens = norm_pdf(z);
      for (double shift : {0.0, d_}) {
        const double x = s_ * z + shift;
        const double u = d_ * (2 * x - d_) / (2 * s_ * s_);
        const double l = u > 30 ? u + std::log(q_) + std::log1p((1 - q_) * std::exp(-u) / q_)
                                : std::log1p(q_ * std::expm1(u));
        const double wt = dens * (shift == 0.0 ? 1 - q_ : q_);
        m1 += wt * l;
        m2 += wt * l * l;
        w += wt;
      }
    }
    m1 /= w;
    m2 /= w;
    return std::sqrt(std::max(1e-300, m2 - m1 * m1));
  }
  double s_, d_, q_, log_q_, lo_, scale_ = 0.0;
  double c_hi_ = 0.0, c_lo_ = 0.0;  // d / s to twice double precision
};

// ------------------------------------------------------------ subsampled Laplace
// P = Lap(0, b), Q = (1-q) Lap(0, b) + q Lap(d, b); r(x) = e^{(|x| - |x-d|)/b},
// L = log(1 - q + q r). Atoms for x <= 0 and x >= d; continuous in between
// where r = e^{(2x - d)/b}.
class subsampled_laplace_impl final : public loss_law {
 public:
  subsampled_laplace_impl(double b, double d, double q) : b_(b), d_(d), q_(q) {
    const double t = d_ / b_;
    lmin_ = std::log1p(q_ * std::expm1(-t));
    lmax_ = std::log1p(q_ * std::expm1(t));
    const double et = std::exp(-t);
    atoms_ = {{lmin_, 0.5, (1 - q_) * 0.5 + q_ * 0.5 * et},
              {lmax_, 0.5 * et, (1 - q_) * 0.5 * et + q_ * 0.5}};
  }
  double x_of(double l) const {  // inverse on the continuous part
    const double v = (std::expm1(l) + q_) / q_;
    return 0.5 * (b_ * std::log(v) + d_);
  }
  mass2 mass(double a, double b) const override {
    mass2 r;
    for (const auto& at : atoms_) {
      if (a < at.loss && b >= at.loss) r.p += at.p, r.q += at.q;
    }
    const double lo = std::max(a, lmin_), hi = std::min(b, lmax_);
    if (hi > lo) {
      // An interval reaching past an end of the loss range takes the
      // continuous part from that end of (0, d) exactly: near lmin the loss
      // is flat in x (dl/dx ~ q e^{(2x - d)/b}), so x_of(lmin) computed from
      // the rounded lmin can land well inside (0, d) (d/b = 33, q = 0.01:
      // x ~ 8e-5 = 0.0027 b), and the mass below it was in no interval at
      // all: 0.13% of P went missing and the pessimistic grid under-stated
      // delta. Intervals that partition the loss line now partition (0, d).
      const double x1 = a <= lmin_ ? 0.0 : std::clamp(x_of(lo), 0.0, d_);
      const double x2 = b >= lmax_ ? d_ : std::clamp(x_of(hi), 0.0, d_);
      if (x2 > x1) {
        const double w = -std::expm1(-(x2 - x1) / b_);
        const double pm = 0.5 * std::exp(-x1 / b_) * w;          // Lap(0,b) on (x1, x2)
        const double pm1 = 0.5 * std::exp(-(d_ - x2) / b_) * w;  // Lap(d,b) on (x1, x2)
        r.p += pm;
        r.q += (1 - q_) * pm + q_ * pm1;
      }
    }
    return r;
  }
  double lo() const override { return lmin_; }
  double hi() const override { return lmax_; }
  std::vector<loss_atom> atoms() const override { return atoms_; }
  bool symmetric() const override { return q_ == 1.0; }
  double scale() const override { return std::max(1e-300, 0.5 * (lmax_ - lmin_)); }
  std::string describe() const override {
    return "subsampled-laplace(b=" + detail::format_value(b_) + ",q=" + detail::format_value(q_) +
           ")";
  }

 private:
  double b_, d_, q_, lmin_, lmax_;
  std::vector<loss_atom> atoms_;
};

template <class... Ts>
struct overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
overloaded(Ts...) -> overloaded<Ts...>;

}  // namespace

std::unique_ptr<loss_law> discrete_law(std::vector<loss_atom> atoms, double pn, double qp, bool sym,
                                       std::string name) {
  return std::make_unique<discrete_law_impl>(std::move(atoms), pn, qp, sym, std::move(name));
}

std::unique_ptr<loss_law> make_law(const tradeoff& f) {
  const std::string name = f.describe();
  return std::visit(
      overloaded{
          [&](const identity&) -> std::unique_ptr<loss_law> {
            return discrete_law({{0.0, 1.0, 1.0}}, 0, 0, true, name);
          },
          [&](const gaussian& g) -> std::unique_ptr<loss_law> {
            if (g.mu == 0) return discrete_law({{0.0, 1.0, 1.0}}, 0, 0, true, name);
            return std::make_unique<gaussian_law>(g.mu);
          },
          [&](const laplace& l) -> std::unique_ptr<loss_law> {
            if (l.mu == 0) return discrete_law({{0.0, 1.0, 1.0}}, 0, 0, true, name);
            return std::make_unique<laplace_law>(l.mu);
          },
          [&](const eps_delta& e) -> std::unique_ptr<loss_law> {
            const double d = e.delta, ee = std::exp(-e.eps);
            // P = [delta, (1-d)/(1+e^-eps) at -eps, (1-d) e^-eps/(1+e^-eps) at +eps, 0]
            const double big = (1 - d) / (1 + ee), small = (1 - d) * ee / (1 + ee);
            if (e.eps == 0) return discrete_law({{0.0, 1 - d, 1 - d}}, d, d, true, name);
            return discrete_law({{-e.eps, big, small}, {e.eps, small, big}}, d, d, true, name);
          },
          [&](const curve& c) -> std::unique_ptr<loss_law> {
            const pld d = to_pld(c);
            std::vector<loss_atom> at;
            for (std::size_t i = 0; i < d.loss.size(); ++i)
              at.push_back({d.loss[i], d.p[i], d.q[i]});
            // Symmetric exactly, or both orientations are composed: a law
            // flagged symmetric has only T(P,Q) composed, and a curve
            // within 1e-12 of symmetric (a zero from alpha = 1 - 5e-13: that
            // much mass at +inf in T(Q,P) only) read [0.847, 0.847] at
            // delta 1e-13 where the truth is inf.
            return discrete_law(std::move(at), d.p_neg_inf, d.q_pos_inf,
                                d.p_neg_inf == d.q_pos_inf && is_symmetric(c, 0.0), name);
          }},
      f.get());
}

std::unique_ptr<loss_law> subsampled_gaussian_law(double sigma, double d, double q) {
  detail::require_finite_pos(sigma, "subsampled_gaussian_law", "sigma");
  detail::require_finite_pos(d, "subsampled_gaussian_law", "sensitivity");
  detail::require(q > 0 && q <= 1, "subsampled_gaussian_law", "q", q, "must be in (0, 1]");
  if (q == 1.0) return std::make_unique<gaussian_law>(d / sigma);
  return std::make_unique<subsampled_gaussian_impl>(sigma, d, q);
}

std::unique_ptr<loss_law> subsampled_laplace_law(double b, double d, double q) {
  detail::require_finite_pos(b, "subsampled_laplace_law", "b");
  detail::require_finite_pos(d, "subsampled_laplace_law", "sensitivity");
  detail::require(q > 0 && q <= 1, "subsampled_laplace_law", "q", q, "must be in (0, 1]");
  if (q == 1.0) return std::make_unique<laplace_law>(d / b);
  return std::make_unique<subsampled_laplace_impl>(b, d, q);
}

}  // namespace fdp
