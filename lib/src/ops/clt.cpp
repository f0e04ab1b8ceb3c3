#include "fdp/ops/clt.hpp"

#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <limits>
#include <variant>

#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.141592653589793238462643383279502884;

clt_functionals infinite(std::string why) {
  clt_functionals r;
  r.finite = false;
  r.reason = std::move(why);
  return r;
}

double factorial(int n) {
  double f = 1.0;
  for (int i = 2; i <= n; ++i) f *= i;
  return f;
}

// T_n(w) = int_0^w t^n e^-t dt (lower incomplete gamma), w >= 0, n >= 0.
// Small w: n! e^-w sum_{j > n} w^j / j! (positive terms). Large w:
// n! (1 - e^-w sum_{j <= n} w^j / j!), where the subtracted part is <= 1/2.
double lower_gamma(int n, double w) {
  if (w <= 0) return 0.0;
  if (w < n + 2.0) {
    double term = 1.0;  // w^j / j!
    for (int j = 1; j <= n; ++j) term *= w / j;
    double sum = 0.0;
    for (int j = n + 1; j < 400; ++j) {
      term *= w / j;
      sum += term;
      if (term < 1e-18 * sum) break;
    }
    return factorial(n) * std::exp(-w) * sum;
  }
  double term = 1.0, sum = 1.0;
  for (int j = 1; j <= n; ++j) {
    term *= w / j;
    sum += term;
  }
  return factorial(n) * (1.0 - std::exp(-w) * sum);
}

// V_n(c) = int_0^c (c - x)^n e^-x dx = e^-c int_0^c s^n e^s ds, c >= 0, n in {0..3}.
// Small c: e^-c sum_{k >= 0} c^{n+1+k} / (k! (n+1+k)) (positive terms). Large c:
// sum_{j=0}^n (-1)^j n!/(n-j)! c^{n-j} - (-1)^n n! e^-c, whose alternating
// terms lose at most a factor ~2 for c >= 4.
double reflected_gamma(int n, double c) {
  if (c <= 0) return 0.0;
  if (c < 4.0) {
    double ck = 1.0;  // c^k / k!
    double sum = 0.0;
    for (int k = 0; k < 400; ++k) {
      if (k > 0) ck *= c / k;
      const double t = ck / (n + 1 + k);
      sum += t;
      if (t < 1e-18 * sum) break;
    }
    return std::exp(-c) * std::pow(c, n + 1) * sum;
  }
  double s = 0.0, coef = 1.0;  // coef = n!/(n-j)!
  for (int j = 0; j <= n; ++j) {
    s += ((j % 2) ? -coef : coef) * std::pow(c, n - j);
    coef *= (n - j);
  }
  s -= ((n % 2) ? -1.0 : 1.0) * factorial(n) * std::exp(-c);
  return s;
}

// E_P|L - c|^n for the Laplace trade-off with parameter mu > 0, c in [-mu, mu].
double laplace_abs_moment(double mu, double c, int n, double mu_plus_c, double mu_minus_c) {
  const double em = std::exp(-mu);
  const double xc = 0.5 * mu_plus_c;     // the kink x_c = (mu + c)/2
  const double rest = 0.5 * mu_minus_c;  // mu - x_c
  const double atoms = 0.5 * std::pow(mu_plus_c, n) + 0.5 * em * std::pow(mu_minus_c, n);
  const double cont =
      std::ldexp(1.0, n - 1) * (reflected_gamma(n, xc) + std::exp(-xc) * lower_gamma(n, rest));
  return atoms + cont;
}

// kl of the Laplace trade-off: mu + e^-mu - 1 = sum_{j>=2} (-mu)^j / j!.
double laplace_kl(double mu) {
  if (mu < 1.0) {
    double term = 0.5 * mu * mu, sum = term;  // term_j = (-mu)^j / j!, from j = 2
    for (int j = 3; j < 60; ++j) {
      term *= -mu / j;
      sum += term;
      if (std::fabs(term) < 1e-18 * sum) break;
    }
    return sum;
  }
  return mu + std::expm1(-mu);
}

template <class... Ts>
struct overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
overloaded(Ts...) -> overloaded<Ts...>;

// ------------------------------------------------------------ numeric route

// One 15/31-point Gauss-Kronrod step on [a, b] (nodes and weights of
// boost::math::quadrature::gauss_kronrod<double, 31>): returns the Kronrod
// value, sets err = |K - G| and l1 = int |f| (both scaled to [a, b]).
template <class F>
double gk_step(F& f, double a, double b, double& err, double& l1) {
  using gkr = boost::math::quadrature::gauss_kronrod<double, 31>;
  using gr = boost::math::quadrature::gauss<double, 15>;
  static const auto& xk = gkr::abscissa();
  static const auto& wk = gkr::weights();
  static const auto& wg = gr::weights();
  const double m = 0.5 * (a + b), h = 0.5 * (b - a);
  // nodes 0 and +-xk[i], i = 1..15; the Gauss nodes are the even i, weights wg[i/2]
  const double f0 = f(m);
  double k = f0 * wk[0], g = f0 * wg[0], s1 = std::fabs(f0) * wk[0];
  for (std::size_t i = 1; i < xk.size(); ++i) {
    const double fp = f(m + h * xk[i]), fm = f(m - h * xk[i]);
    k += (fp + fm) * wk[i];
    s1 += (std::fabs(fp) + std::fabs(fm)) * wk[i];
    if (i % 2 == 0) g += (fp + fm) * wg[i / 2];
  }
  err = h * std::fabs(k - g);
  l1 = h * s1;
  return h * k;
}

// Adaptive bisection: a piece is accepted when |K - G| <= tol |K|, when the
// difference is at the rounding level of the sum (64 eps L1), or when it is
// below the absolute floor (a tiny fraction of the whole integral, so noise
// in negligible tails is not chased). (Boost 1.74's own adaptive driver
// compares an unscaled error with a scaled tolerance and recurses to its depth
// limit on short intervals, which is why it is not used here.)
//
// `budget` counts the rules left for the whole integral: depth-first
// bisection to depth 40 could take 2^40 of them where the estimate never
// settles (subsampled Gaussians with sigma ~ 0.2 ran for hours). Pieces
// accepted for want of budget add their error estimate to `unresolved`,
// which the caller weighs against the total.
struct gk_budget {
  long left;
  double unresolved = 0.0;
};
template <class F>
double gk_adapt(F& f, double a, double b, double tol, double abs_floor, int depth, gk_budget& bud) {
  double err, l1;
  const double k = gk_step(f, a, b, err, l1);
  --bud.left;
  if (err <= tol * std::fabs(k) || err <= 64 * 2.220446049250313e-16 * l1 || err <= abs_floor ||
      depth <= 0) {
    return k;
  }
  if (bud.left <= 0) {
    bud.unresolved += err;
    return k;
  }
  const double m = 0.5 * (a + b);
  return gk_adapt(f, a, m, tol, 0.5 * abs_floor, depth - 1, bud) +
         gk_adapt(f, m, b, tol, 0.5 * abs_floor, depth - 1, bud);
}

// int_c^end w(l) T(l) dl over the law's pieces, T(l) = P(L > l) (dir = +1,
// end > c) or P(L <= l) (dir = -1, end < c), w >= 0.
//  - Pieces are cut at the law's atoms (where T jumps) and support ends.
//  - Every finite piece is pre-split geometrically towards both ends (widths
//    1/4, 1/8, ... of the piece down to 1e-6 of the law's scale), so that a
//    boundary layer much thinner than the piece (the Laplace law with a large
//    mu: its P-tail varies on a scale of 2 over a support of 2 mu) cannot hide
//    from the Gauss-Kronrod error estimate.
//  - An unbounded end is covered by pieces of doubling width until one adds
//    less than 1e-18 of the total.
//  - Pass 1 estimates the total with one rule per piece; pass 2 integrates
//    adaptively with an absolute floor of 1e-3 tol times that estimate.
class layer_cake {
  static constexpr long kMaxRules = 20000;  // per integral (31 points each)

 public:
  layer_cake(const loss_law& law, double tol) : law_(law), tol_(tol) {
    for (const auto& at : law.atoms()) breaks_.push_back(at.loss);
    if (std::isfinite(law.lo())) breaks_.push_back(law.lo());
    if (std::isfinite(law.hi())) breaks_.push_back(law.hi());
    std::sort(breaks_.begin(), breaks_.end());
    breaks_.erase(std::unique(breaks_.begin(), breaks_.end()), breaks_.end());
    scale_ = law.scale();
    if (!(scale_ > 0) || !std::isfinite(scale_)) scale_ = 1.0;
  }
  double p_above(double l) const { return law_.mass(l, kInf).p; }
  double p_at_or_below(double l) const { return law_.mass(-kInf, l).p; }

  /// int_c^stop w(l) P(L > l) dl (stop = +inf: to the end of the support).
  template <class W>
  double right(double c, W&& w, double stop = kInf) const {
    auto f = [&](double l) {
      const double t = p_above(l);
      return t > 0 ? w(l) * t : 0.0;
    };
    return side(c, f, +1, stop);
  }
  /// int_{-inf}^c w(l) P(L <= l) dl.
  template <class W>
  double left(double c, W&& w) const {
    auto f = [&](double l) {
      const double t = p_at_or_below(l);
      return t > 0 ? w(l) * t : 0.0;
    };
    return side(c, f, -1, -kInf);
  }

 private:
  template <class F>
  double side(double c, F& f, int dir, double stop) const {
    double end = dir > 0 ? std::min(law_.hi(), stop) : std::max(law_.lo(), stop);
    if (dir > 0 ? !(end > c) : !(end < c)) return 0.0;
    // finite cut points in the direction of travel
    std::vector<double> cuts{c};
    if (dir > 0) {
      for (double b : breaks_)
        if (b > c && b < end) cuts.push_back(b);
    } else {
      for (auto it = breaks_.rbegin(); it != breaks_.rend(); ++it)
        if (*it<c&& * it> end) cuts.push_back(*it);
    }
    if (std::isfinite(end)) cuts.push_back(end);
    std::vector<std::pair<double, double>> pieces;  // (lo, hi) with lo < hi
    auto add = [&](double x, double y) {
      if (x > y) std::swap(x, y);
      if (y > x) pieces.emplace_back(x, y);
    };
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      const double a = cuts[i], b = cuts[i + 1], w = b - a;  // w has the sign of dir
      std::vector<double> t{0.25, 0.5, 0.75};
      for (double u = 0.125; u * std::fabs(w) > 1e-6 * scale_ && u > 0x1p-40; u *= 0.5) {
        t.push_back(u);
        t.push_back(1.0 - u);
      }
      std::sort(t.begin(), t.end());
      double prev = a;
      for (double u : t) {
        add(prev, a + u * w);
        prev = a + u * w;
      }
      add(prev, b);
    }
    // pass 1: one rule per piece; unbounded end by doubling pieces
    double est = 0.0;
    for (const auto& pc : pieces) {
      double err, l1;
      est += std::fabs(gk_step(f, pc.first, pc.second, err, l1));
    }
    if (!std::isfinite(end)) {
      double a = cuts.back(), w = scale_;
      bool done = false;
      for (int k = 0; k < 200 && !done; ++k) {
        const double b = a + dir * w;
        double err, l1;
        const double piece =
            std::fabs(dir > 0 ? gk_step(f, a, b, err, l1) : gk_step(f, b, a, err, l1));
        add(a, b);
        est += piece;
        const double fb = f(b);
        if ((piece <= 1e-18 * est && fb * w <= 1e-18 * est) || (est == 0.0 && fb == 0.0))
          done = true;
        a = b;
        w *= 2.0;
      }
      if (!done) {
        throw evaluation_error("functionals_numeric(" + law_.describe() +
                               "): the tail integrals do not converge (heavy-tailed loss?)");
      }
    }
    // pass 2: adaptive
    const double floor = 1e-3 * tol_ * est / static_cast<double>(pieces.size());
    double total = 0.0;
    gk_budget bud{kMaxRules};
    for (const auto& pc : pieces) total += gk_adapt(f, pc.first, pc.second, tol_, floor, 40, bud);
    // (Gauss-Kronrod error estimates are pessimistic: the budget's leftovers
    // are refused only beyond 1e-6 of the total -- these functionals feed an
    // approximation, not a certified bound)
    if (bud.unresolved > 1e-6 * std::fabs(total) + floor * static_cast<double>(pieces.size())) {
      throw evaluation_error(
          "functionals_numeric(" + law_.describe() + "): the quadrature did not settle within " +
          std::to_string(kMaxRules) + " rules (unresolved error " +
          detail::format_value(bud.unresolved) + " of " + detail::format_value(total) + ")");
    }
    return total;
  }

  const loss_law& law_;
  double tol_;
  std::vector<double> breaks_;
  double scale_;
};

}  // namespace

// ------------------------------------------------------------ closed forms

clt_functionals functionals(const gaussian& f) {
  const double mu = f.mu;
  clt_functionals r;
  if (mu == 0) return r;
  const double t = 0.5 * mu;
  // E|Z + t|^3 = (t^3 + 3t) erf(t/sqrt2) + 2 (t^2 + 2) phi(t)
  const double e3 =
      (t * t * t + 3 * t) * std::erf(t / std::sqrt(2.0)) + 2 * (t * t + 2) * norm_pdf(t);
  r.kl = 0.5 * mu * mu;
  r.var = mu * mu;
  r.kappa2 = mu * mu + 0.25 * mu * mu * mu * mu;
  r.kappa3 = mu * mu * mu * e3;
  r.kappa3bar = 2.0 * std::sqrt(2.0 / kPi) * mu * mu * mu;
  return r;
}

clt_functionals functionals(const eps_delta& f) {
  if (f.delta > 0) {
    return infinite("f_{eps,delta} with delta = " + detail::format_value(f.delta) +
                    " > 0 vanishes on [1 - delta, 1], so log|f'| = -inf there and kl, kappa2, "
                    "kappa3, kappa3bar are infinite (DRS Sec. 3.2)");
  }
  clt_functionals r;
  const double e = f.eps;
  if (e == 0) return r;
  const double ch = std::cosh(0.5 * e);
  const double q = 0.25 / (ch * ch);  // p (1 - p), p = e^eps / (1 + e^eps)
  r.kl = e * std::tanh(0.5 * e);
  r.kappa2 = e * e;
  r.kappa3 = e * e * e;
  r.var = 4.0 * e * e * q;
  r.kappa3bar = 8.0 * e * e * e * q * (1.0 - 2.0 * q);
  return r;
}

clt_functionals functionals(const laplace& f) {
  const double mu = f.mu;
  clt_functionals r;
  if (mu == 0) return r;
  const double kl = laplace_kl(mu);
  const double one_minus_em = -std::expm1(-mu);  // mu - kl
  r.kl = kl;
  // c = 0: E|L|^n, kink at x = mu/2
  r.kappa2 = laplace_abs_moment(mu, 0.0, 2, mu, mu);
  r.kappa3 = laplace_abs_moment(mu, 0.0, 3, mu, mu);
  // c = -kl: mu + c = mu - kl = 1 - e^-mu, mu - c = mu + kl
  r.var = laplace_abs_moment(mu, -kl, 2, one_minus_em, mu + kl);
  r.kappa3bar = laplace_abs_moment(mu, -kl, 3, one_minus_em, mu + kl);
  return r;
}

clt_functionals functionals(const identity&) { return {}; }

clt_functionals functionals(const curve& f) {
  const pld d = to_pld(f);
  if (d.p_neg_inf > 0) {
    return infinite("the curve is 0 on an interval of length " + detail::format_value(d.p_neg_inf) +
                    " before alpha = 1, so log|f'| = -inf there and kl, kappa2, kappa3, kappa3bar "
                    "are infinite");
  }
  long double kl = 0, k2 = 0, k3 = 0;
  for (std::size_t i = 0; i < d.loss.size(); ++i) {
    const long double p = d.p[i], l = d.loss[i];
    kl -= p * l;
    k2 += p * l * l;
    k3 += p * std::fabs(l) * l * l;
  }
  long double var = 0, k3b = 0;
  for (std::size_t i = 0; i < d.loss.size(); ++i) {
    const long double p = d.p[i], u = d.loss[i] + kl;
    var += p * u * u;
    k3b += p * std::fabs(u) * u * u;
  }
  clt_functionals r;
  r.kl = static_cast<double>(kl);
  r.kappa2 = static_cast<double>(k2);
  r.kappa3 = static_cast<double>(k3);
  r.var = static_cast<double>(var);
  r.kappa3bar = static_cast<double>(k3b);
  return r;
}

clt_functionals functionals(const tradeoff& f) {
  return std::visit([](const auto& x) { return functionals(x); }, f.get());
}

clt_functionals functionals_numeric(const loss_law& law, const clt_quadrature_options& opt) {
  detail::require(opt.rel_tol > 0 && opt.rel_tol < 1, "functionals_numeric", "rel_tol", opt.rel_tol,
                  "must be in (0, 1)");
  if (law.p_neg_inf() > 0) {
    return infinite("P-mass " + detail::format_value(law.p_neg_inf()) + " at loss -inf (" +
                    law.describe() +
                    " has f' = 0 on an interval), so kl, kappa2, kappa3, kappa3bar are infinite");
  }
  const layer_cake lc(law, opt.rel_tol);
  clt_functionals r;
  // kl = E_P[e^L - 1 - L] + q_pos_inf, g'(l) = e^l - 1
  // Right side beyond l* = 400, where e^l P(L > l) would multiply a huge
  // number by a tail near underflow: int_{l*}^inf (e^l - 1) P(L > l) dl
  //   = E_P[(e^L - e^{l*})_+] - int_{l*}^inf P(L > l) dl
  //   = Q(L > l*) - e^{l*} P(L > l*) - int_{l*}^inf P(L > l) dl.
  constexpr double kSwitch = 400.0;
  double kl = lc.right(
                  0.0, [](double l) { return std::expm1(l); }, kSwitch) +
              lc.left(0.0, [](double l) { return -std::expm1(l); }) + law.q_pos_inf();
  if (law.hi() > kSwitch) {
    const mass2 t = law.mass(kSwitch, kInf);
    kl += t.q - std::exp(kSwitch) * t.p - lc.right(kSwitch, [](double) { return 1.0; });
  }
  const double c = -kl;
  r.kl = kl;
  r.var = lc.right(c, [c](double l) { return 2.0 * (l - c); }) +
          lc.left(c, [c](double l) { return 2.0 * (c - l); });
  r.kappa2 = r.var + kl * kl;
  r.kappa3bar = lc.right(c, [c](double l) { return 3.0 * (l - c) * (l - c); }) +
                lc.left(c, [c](double l) { return 3.0 * (c - l) * (c - l); });
  r.kappa3 = lc.right(0.0, [](double l) { return 3.0 * l * l; }) +
             lc.left(0.0, [](double l) { return 3.0 * l * l; });
  for (double v : {r.kl, r.var, r.kappa2, r.kappa3, r.kappa3bar}) {
    if (!std::isfinite(v)) {
      throw evaluation_error("functionals_numeric(" + law.describe() +
                             "): a functional came out non-finite");
    }
  }
  return r;
}

clt_functionals functionals(const compose_term& t) {
  if (t.closed) return functionals(*t.closed);
  return functionals_numeric(*t.law);
}

// ------------------------------------------------------------ the CLT

double clt_approximation::clt_mu() const {
  if (!applicable_) throw std::invalid_argument("clt_mu: the CLT is not applicable: " + reason_);
  return mu_;
}

double clt_approximation::gamma() const {
  if (!applicable_) throw std::invalid_argument("clt gamma: the CLT is not applicable: " + reason_);
  return gamma_;
}

bool clt_approximation::band_valid() const { return applicable_ && gamma_ < 0.5; }

std::optional<interval> clt_approximation::band(double alpha) const {
  detail::check_alpha(alpha, "clt_approximation::band");
  if (!band_valid() || alpha < gamma_ || alpha > 1.0 - gamma_) return std::nullopt;
  const gaussian g(mu_);
  const double lo = fdp::beta(g, std::min(1.0, alpha + gamma_)) - gamma_;
  const double hi = fdp::beta(g, std::max(0.0, alpha - gamma_)) + gamma_;
  return interval{std::max(0.0, lo), std::min(1.0 - alpha, hi)};
}

double clt_approximation::beta(double alpha) const {
  detail::check_alpha(alpha, "clt_approximation::beta");
  return fdp::beta(gaussian(clt_mu()), alpha);
}

clt_approximation clt(const std::vector<clt_term>& terms) {
  clt_approximation r;
  if (terms.empty()) {
    r.reason_ = "no terms";
    return r;
  }
  std::string why;
  for (const auto& t : terms) {
    detail::require(t.times >= 1, "clt", "times", static_cast<long long>(t.times), "must be >= 1");
    if (!t.f.finite) {
      if (why.empty()) why = "term '" + t.name + "': " + t.f.reason;
      continue;
    }
    if (!t.symmetric && why.empty()) {
      why = "term '" + t.name +
            "' is not symmetric (T(P,Q) != T(Q,P)); the CLT of DRS Thm 3.5 needs symmetric "
            "trade-off functions";
    }
    const double n = static_cast<double>(t.times);
    r.kl_l1_ += n * t.f.kl;
    r.kl_l2sq_ += n * t.f.kl * t.f.kl;
    r.kappa2_l1_ += n * t.f.kappa2;
    r.kappa3_l1_ += n * t.f.kappa3;
    r.kappa3bar_l1_ += n * t.f.kappa3bar;
    r.var_l1_ += n * t.f.var;
  }
  if (!why.empty()) {
    r.reason_ = why;
    return r;
  }
  r.applicable_ = true;
  if (r.var_l1_ == 0.0) {
    // Var_P(L) = 0 for every term: L = 0 a.s., every term is Id = G_0.
    r.mu_ = 0.0;
    r.gamma_ = 0.0;
    return r;
  }
  const double s = std::sqrt(r.var_l1_);
  r.mu_ = 2.0 * r.kl_l1_ / s;
  r.gamma_ = 0.56 * r.kappa3bar_l1_ / (r.var_l1_ * s);
  return r;
}

clt_term make_clt_term(const spec& s) {
  const compose_term t = make_term(s);
  clt_term c;
  c.f = functionals(t);
  c.times = t.times;
  c.symmetric = t.closed ? is_symmetric(*t.closed) : t.law->symmetric();
  c.name = s.text;
  return c;
}

clt_approximation clt(const std::vector<spec>& specs) {
  std::vector<clt_term> terms;
  for (const auto& s : specs) terms.push_back(make_clt_term(s));
  return clt(terms);
}

// ------------------------------------------------------------ (eps, delta) limit

clt_eps_delta_limit::clt_eps_delta_limit(double mu, double delta_sum)
    : mu_(mu), delta_sum_(delta_sum), d_(-std::expm1(-delta_sum)) {
  detail::require_finite_nonneg(mu, "clt_eps_delta_limit", "mu");
  detail::require(delta_sum >= 0 && !std::isnan(delta_sum), "clt_eps_delta_limit", "delta_sum",
                  delta_sum, "must be >= 0");
}

double clt_eps_delta_limit::beta(double alpha) const {
  detail::check_alpha(alpha, "clt_eps_delta_limit::beta");
  const double keep = 1.0 - d_;
  if (!(alpha < keep)) return 0.0;
  return keep * fdp::beta(gaussian(mu_), alpha / keep);
}

double clt_eps_delta_limit::profile_delta(double eps) const {
  if (std::isnan(eps))
    detail::throw_domain("clt_eps_delta_limit::profile_delta", "eps", eps, "must not be NaN");
  return std::min(1.0, d_ + (1.0 - d_) * gdp_delta(mu_, eps));
}

double clt_eps_delta_limit::epsilon(double delta) const {
  detail::require_in(delta, 0.0, 1.0, "clt_eps_delta_limit::epsilon", "delta");
  if (delta < d_) return kInf;
  return solve_eps([this](double e) { return profile_delta(e); }, delta, true);
}

std::vector<compose_term> clt_eps_delta_limit::terms() const {
  std::vector<compose_term> out(2);
  out[0].closed = tradeoff(gaussian(mu_));
  out[0].law = make_law(*out[0].closed);
  out[0].text = "gdp:mu=" + detail::format_value(mu_);
  out[1].closed = tradeoff(eps_delta(0.0, d_));
  out[1].law = make_law(*out[1].closed);
  out[1].text = "epsdelta:eps=0,delta=" + detail::format_value(d_);
  return out;
}

clt_eps_delta_limit clt_eps_delta(const std::vector<std::pair<eps_delta, std::int64_t>>& terms) {
  long double s2 = 0, sd = 0;
  for (const auto& [f, n] : terms) {
    detail::require(n >= 1, "clt_eps_delta", "times", static_cast<long long>(n), "must be >= 1");
    s2 += static_cast<long double>(n) * f.eps * f.eps;
    sd += static_cast<long double>(n) * f.delta;
  }
  return clt_eps_delta_limit(std::sqrt(static_cast<double>(s2)), static_cast<double>(sd));
}

}  // namespace fdp
