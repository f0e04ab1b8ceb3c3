#include "fdp/ops/compose.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <queue>
#include <type_traits>
#include <utility>
#include <variant>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <mutex>
#include <optional>

#include "fdp/core/cancel.hpp"
#include "fdp/core/error.hpp"
#include "fdp/ops/convert.hpp"
#include "ops/closed_form_bounds.hpp"
#include "ops/composition_grids.hpp"
#include "ops/pld/sums.hpp"
#include "ops/pld/numbers.hpp"

namespace fdp {
curve kfold_total_delta(double eps, double delta, std::int64_t k);
namespace detail {
curve kfold_polygon(double eps, double keep, double delta, std::int64_t k);
// The engine's access to a composition's grids: compose_terms, or one pass
// for a staged first stage (one pass: max_refinements = 0, method pld),
// whose result serves forward_lower_curve / forward_upper_curve alone:
// - the optimistic side skips the inverse orientation, which neither polygon
//   uses (the result's queries stay certified, from the forward orientation's
//   optimistic grid only);
// - `also` (one count per term): the same discretized grids are composed a
//   second time with these counts into *also_out (staged composition takes
//   its k-fold and (k+1)-fold from one discretization this way);
// - on_pessimistic(v, fwd, fwd_t, inv, inv_t) runs on the pessimistic side's
//   thread as soon as its compositions are done, for each variant v (0: the
//   terms' counts, 1: `also`): the lower polygon is built there while the
//   optimistic side is still sweeping.
}  // namespace detail
namespace {
struct grid_plan;
// One side's compositions for one variant of the counts: both orientations,
// plain and tilted.
struct side_result {
  std::optional<composed_pld> fwd, inv, fwd_t, inv_t;
};
// The refinement loop's memory between passes.
struct refine_state {
  double target = 0.0;  // the step asked for next
  std::size_t last_size = 0;
  double last_h = 0.0, last_width = std::numeric_limits<double>::infinity();
  int coarsenings = 0;
  double last_need =
      std::numeric_limits<double>::infinity();  // points the last refused grid needed
  bool coarsened = false, windowless = false;
  bool long_double = false;  // transforms in long double (escalate_precision)
  bool last_pass = false;    // the next pass is the refinement's last
};
}  // namespace
namespace detail {
// The engine's access to a composition's grids: the grid passes and the
// refinement that fill a composition (the steps of run, in order).
struct compose_access {
  struct first_stage {
    const std::vector<std::int64_t>* also = nullptr;
    std::optional<composition>* also_out = nullptr;
    std::function<void(std::size_t, const composed_pld&, const std::optional<composed_pld>&,
                       const std::optional<composed_pld>&, const std::optional<composed_pld>&)>
        on_pessimistic;
  };
  static composition run(const std::vector<compose_term>& terms, const compose_options& opt,
                         const first_stage* fs = nullptr);
  static void mark_unbounded(composition& c, bool unbounded);
  static void attach_floor(composition& c, const std::vector<compose_term>& terms,
                           double delta_hint);
  static bool tilt_clipped(const composition& c);
  static std::size_t widest_tilted_window(const composition& c);

 private:
  static composition refine(const grid_plan& plan, const compose_options& opt,
                            const first_stage* fs, double delta_hint);
  static bool finer_grid_fits(const grid_plan& plan, const compose_options& opt,
                              const refine_state& st, double h, composition& r);
  static composition one_pass(const grid_plan& plan, const compose_options& opt,
                              const first_stage* fs, double h, int ref, const refine_state& st,
                              std::optional<composition>& also);
  static bool escalate_precision(const compose_options& opt, double delta_hint, refine_state& st,
                                 const composition& r);
  static bool fft_limited(const composition& c, const compose_options& opt, double delta_hint);
  static bool tilt_fits(const compose_options& opt, const grid_plan& plan, const refine_state& st,
                        double h, const composition& r);
  static void unclip_tilt(const grid_plan& plan, const compose_options& opt, double delta_hint,
                          const refine_state& st, double& h, composition& next);
  static void step_back_from_limit(const grid_plan& plan, const compose_options& opt,
                                   const grid_limit_error& e, double h, refine_state& st);
  static bool keep_pass(const compose_options& opt, double delta_hint, double h, int ref,
                        refine_state& st, composition& next, std::optional<composition>& next_also,
                        const first_stage* fs, composition& r);
  static composition assemble(side_result& pess, side_result& opt,
                              const std::vector<compose_term>& terms, bool asym, double h,
                              int refinements);
};
}  // namespace detail
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Stirling's error log(n!) - log(sqrt(2 pi n) (n/e)^n) for integer n >= 1
// (Loader 2000, "Fast and accurate computation of binomial probabilities":
// the series in 1/n above 15, lgamma below, where its values are small).
double stirlerr(double n) {
  constexpr double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680, s4 = 1.0 / 1188;
  if (n <= 15.0)
    return std::lgamma(n + 1.0) - (n + 0.5) * std::log(n) + n - 0.5 * std::log(2 * M_PI);
  const double nn = n * n;
  if (n > 500) return (s0 - s1 / nn) / n;
  if (n > 80) return (s0 - (s1 - s2 / nn) / nn) / n;
  if (n > 35) return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n;
  return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n;
}

// Deviance term x log(x / m) + m - x, by its series when x is near m (no
// cancellation; Loader 2000).
double bd0(double x, double m) {
  if (std::fabs(x - m) < 0.1 * (x + m)) {
    double v = (x - m) / (x + m);
    double sum = (x - m) * v, ej = 2 * x * v;
    v *= v;
    for (int j = 1; j < 1000; ++j) {
      ej *= v;
      const double next = sum + ej / (2 * j + 1);
      if (next == sum) return next;
      sum = next;
    }
    return sum;
  }
  return x * std::log(x / m) + m - x;
}

// Log of a binomial pmf, C(k,s) a^s b^(k-s) with log a, log b given (a + b = 1),
// by Loader's saddle-point form: the large terms of log C(k, s) cancel
// analytically, so the result keeps a relative accuracy of a few ulps for any
// k (lgamma differences lose |lgamma(k)| ulps: 1e-8 relative at k = 1e7).
double log_binom(std::int64_t k, std::int64_t s, double la, double lb) {
  const double n = static_cast<double>(k), x = static_cast<double>(s);
  if (s == 0) return n * lb;
  if (s == k) return n * la;
  const double a = std::exp(la), b = std::exp(lb);
  const double lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n * a) - bd0(n - x, n * b);
  return lc - 0.5 * (std::log(2 * M_PI) + std::log(x) + std::log1p(-x / n));
}

// Loss-interval cut where the law's mass beyond it is at most tau on both measures.
double find_cut(const loss_law& law, double tau, bool upper) {
  return detail::loss_cut(law, tau, upper, 40);
}

// sqrt(sum_i times_i x_i^2) over the terms, scaled by the largest x_i so
// that values up to 1e300 do not square to inf (0 when none is positive,
// inf when one is infinite).
template <class F>
double root_sum_squares(const std::vector<compose_term>& terms, F x_of) {
  double m = 0.0;
  for (const auto& t : terms) m = std::max(m, x_of(t));
  if (m == 0.0 || !std::isfinite(m)) return m;
  double s = 0.0;
  for (const auto& t : terms) s += static_cast<double>(t.times) * (x_of(t) / m) * (x_of(t) / m);
  return m * std::sqrt(s);
}

std::optional<tradeoff> try_exact(const std::vector<compose_term>& terms) {
  bool all_gauss = true, all_ed = true;
  double mu2 = 0.0;
  double eps0 = -1.0;
  double log_keep = 0.0;  // log prod (1 - delta_i)^{n_i}
  std::int64_t k = 0;
  for (const auto& t : terms) {
    if (!t.closed) return std::nullopt;
    const auto& v = t.closed->get();
    if (std::holds_alternative<identity>(v)) continue;
    if (auto g = std::get_if<gaussian>(&v)) {
      mu2 += static_cast<double>(t.times) * g->mu * g->mu;
      all_ed = false;
      continue;
    }
    all_gauss = false;
    if (auto e = std::get_if<eps_delta>(&v)) {
      if (eps0 >= 0 && e->eps != eps0 && e->eps != 0 && eps0 != 0) all_ed = false;
      if (e->eps != 0) eps0 = e->eps;
      if (e->delta >= 1.0)
        log_keep = -kInf;
      else
        log_keep += static_cast<double>(t.times) * std::log1p(-e->delta);
      if (e->eps != 0) k += t.times;
      continue;
    }
    all_ed = false;
  }
  if (all_gauss) {
    // sqrt(sum n mu^2), scaled by the largest term: mu up to 1e300 must not
    // square to inf (gaussian:sigma=1e-300 failed as "gaussian(mu=inf)")
    if (!std::isfinite(mu2)) {
      const double mu = root_sum_squares(terms, [](const compose_term& t) {
        const auto* g = std::get_if<gaussian>(&t.closed->get());
        return g ? g->mu : 0.0;
      });
      if (!std::isfinite(mu))
        throw std::invalid_argument(
            "compose: the composed GDP mu overflows a double (above 1.8e308)");
      return tradeoff(gaussian(mu));
    }
    return tradeoff(gaussian(std::sqrt(mu2)));
  }
  if (all_ed && k <= 10000000) {
    const double total = -std::expm1(log_keep);  // 1 - prod (1 - delta_i)^{n_i}
    if (eps0 < 0) return tradeoff(eps_delta(0.0, total));
    if (k == 1) return tradeoff(eps_delta(eps0, total));
    return tradeoff(detail::kfold_polygon(eps0, std::exp(log_keep), total, k));
  }
  return std::nullopt;
}

// The relative rounding of a closed-form composition's parameter (see
// closed_form_bounds.hpp): the composed mu = sqrt(sum n mu_i^2) of G terms
// (each mu_i = d/sigma, its square and n times it one rounding each, the
// sum one per term, the square root half of it: (terms + 4) u, doubled);
// the total delta 1 - prod (1 - delta_i)^{n_i} of f_{eps,delta} terms
// (log1p, a product and the sum per term, expm1); the vertices of the
// k-fold polygon (Loader's binomial masses, 1e-13 relative, and their
// compensated sums).
double closed_form_rounding(const tradeoff& f, const std::vector<compose_term>& terms) {
  const double u = std::numeric_limits<double>::epsilon() / 2,
               m = static_cast<double>(terms.size());
  if (std::holds_alternative<curve>(f.get())) return 1e-12;
  if (std::holds_alternative<gaussian>(f.get())) {
    // (one application of one term: sqrt(mu^2) is mu exactly, only the
    // term's own mu may be rounded)
    double own = 0.0;
    for (const auto& t : terms) own = std::max(own, t.closed_rel);
    const bool single = terms.size() == 1 && terms.front().times == 1;
    return (single ? 0.0 : 2 * (m + 4) * u) + own;
  }
  if (std::holds_alternative<eps_delta>(f.get())) {
    // one application of one f_{eps,delta}: its delta is the user's, exact
    std::int64_t apps = 0;
    for (const auto& t : terms)
      if (t.law->q_pos_inf() > 0) apps += t.times;
    if (apps <= 1) return 0.0;
  }
  return 2 * (m + 4) * u;
}

// The exact Q-law of a composition of f_{eps0, delta_i} terms with one common
// eps0 > 0 (k terms with eps0, any number with eps = 0): the loss of k-fold
// randomized response is eps0 (k - 2S), S ~ Bin(k, 1/(1+e^eps0)) under Q;
// the deltas put mass 1 - prod (1-delta_i)^{n_i} at +inf (docs/formulas.md,
// f_{eps,delta} = f_{eps,0} (x) f_{0,delta}).
std::optional<composed_pld> exact_lattice(const std::vector<compose_term>& terms) {
  double eps0 = 0.0, log_keep = 0.0, one_delta = 0.0;
  std::int64_t k = 0, delta_apps = 0, delta_terms = 0;
  for (const auto& t : terms) {
    const auto& v = t.closed->get();
    if (std::holds_alternative<identity>(v)) continue;
    auto e = std::get_if<eps_delta>(&v);
    if (!e) return std::nullopt;
    if (e->eps > 0) eps0 = e->eps, k += t.times;
    log_keep += static_cast<double>(t.times) * std::log1p(-std::min(e->delta, 1.0 - 1e-300));
    if (e->delta > 0) delta_apps += t.times, delta_terms += 1, one_delta = e->delta;
  }
  if (k == 0 || k > 100000000) return std::nullopt;
  const double keep = std::exp(log_keep);
  const double lq0 = -std::log1p(std::exp(-eps0));  // log(e^eps0/(1+e^eps0))
  const double lq1 = -eps0 + lq0;                   // log(1/(1+e^eps0))
  // index j = k - s runs over losses eps0 (2j - k) = offset + j h, h = 2 eps0
  std::vector<double> m(static_cast<std::size_t>(k) + 1);
  for (std::int64_t s = 0; s <= k; ++s) {
    m[static_cast<std::size_t>(k - s)] = keep * std::exp(log_binom(k, s, lq1, lq0));
  }
  // Mass at +inf: 1 - prod (1 - delta_i)^{n_i}; a single application's is
  // its delta, exactly (f_{1,1e-5} at delta = 1e-5 read epsilon [1, inf]
  // under a blanket margin). Otherwise log1p, n x, the sum's additions and
  // expm1 round it by at most 2u (10 + terms) relative (-expm1(L) moves by at
  // most L's relative error), kept at least at 1e-12 as before.
  const bool single = delta_apps == 1;
  const double m_inf = single ? one_delta : -std::expm1(log_keep);
  const double rel = single ? 0.0
                            : std::max(1e-12, 2.0 * std::numeric_limits<double>::epsilon() *
                                                  (10.0 + static_cast<double>(delta_terms)));
  return composed_pld::from_lattice(2.0 * eps0, -eps0 * static_cast<double>(k), 0, std::move(m),
                                    m_inf, rel);
}

}  // namespace

curve kfold_eps_delta(double eps, double delta, std::int64_t k) {
  detail::require_finite_nonneg(eps, "kfold_eps_delta", "eps");
  detail::require_in(delta, 0.0, 1.0, "kfold_eps_delta", "delta");
  detail::require(k >= 1 && k <= 10000000, "kfold_eps_delta", "k", static_cast<long long>(k),
                  "must be in [1, 1e7]");
  // per-term delta: the k terms together put 1 - (1-delta)^k at +inf
  const double log_keep = static_cast<double>(k) * std::log1p(-std::min(delta, 1.0 - 1e-300));
  return detail::kfold_polygon(eps, std::exp(log_keep), -std::expm1(log_keep), k);
}

curve kfold_total_delta(double eps, double delta, std::int64_t k) {
  return detail::kfold_polygon(eps, 1.0 - delta, delta, k);
}

namespace detail {
// keep = 1 - delta given apart: near delta = 1 the polygon's scale is keep,
// which 1 - delta rounds away (f_{0.056,0.0036}^(x)11761 keeps e^-42.9 =
// 2.3e-19 of the mass; 1 - delta was 0 and every beta read 0)
curve kfold_polygon(double eps, double keep, double delta, std::int64_t k) {
  // P: S ~ Bin(k, p), p = e^eps/(1+e^eps); Q: S ~ Bin(k, 1-p). Reject for S < j.
  const double lp = -std::log1p(std::exp(-eps)), lq = -eps - std::log1p(std::exp(-eps));
  const std::size_t n = static_cast<std::size_t>(k) + 1;
  std::vector<double> pp(n), qq(n);
  for (std::int64_t s = 0; s <= k; ++s) {
    pp[static_cast<std::size_t>(s)] = std::exp(log_binom(k, s, lp, lq));
    qq[static_cast<std::size_t>(s)] = std::exp(log_binom(k, s, lq, lp));
  }
  // alpha_j = P(S < j) from the small end; 1 - beta_j = Q(S < j) from the small end;
  // beta_j = Q(S >= j) from the top.
  // Prefix sums are compensated (Kahan), so their error stays a few ulps of
  // the sum for k up to 1e7 instead of growing like k ulps; a sum above 1/2
  // is taken as 1 minus the (accurate, small) sum from the other end.
  auto prefix = [n](const std::vector<double>& v, bool from_top) {
    std::vector<double> r(n + 1, 0.0);
    double sum = 0.0, c = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t idx = from_top ? n - 1 - i : i;
      const double y = v[idx] - c;
      const double t = sum + y;
      c = (t - sum) - y;
      sum = t;
      r[from_top ? idx : i + 1] = sum;  // bottom: r[j] = sum_{s<j}; top: r[j] = sum_{s>=j}
    }
    return r;
  };
  const std::vector<double> p_lo = prefix(pp, false), p_hi = prefix(pp, true);
  const std::vector<double> q_lo = prefix(qq, false), q_hi = prefix(qq, true);
  std::vector<double> al(n + 1, 0.0), om(n + 1, 0.0), be(n + 1, 0.0);
  for (std::size_t j = 0; j <= n; ++j) {
    al[j] = p_lo[j] <= 0.5 ? p_lo[j] : 1.0 - p_hi[j];
    om[j] = q_lo[j] <= 0.5 ? q_lo[j] : 1.0 - q_hi[j];
    be[j] = q_hi[j] <= 0.5 ? q_hi[j] : 1.0 - q_lo[j];
  }
  // scale by keep = 1 - delta: the composition with f_{0, delta}
  std::vector<double> A, B, C;
  for (std::size_t j = 0; j <= n; ++j) {
    double a = keep * std::min(1.0, al[j]);
    if (j == n) a = keep;
    const double b = std::min(1.0, keep * be[j]),
                 c = std::min(1.0, delta + keep * std::min(1.0, om[j]));
    // Vertices whose alpha rounds to the one before: the lowest beta at
    // that alpha is the polygon's (the last, j = n, is beta = 0 at alpha =
    // (1 - delta)^k; keeping the first of them left a positive beta up to
    // alpha = 1: 1.7e-175 at alpha 0.9999 for k = 8880, beyond (1 -
    // delta)^k = 0.147 where the truth is 0). At alpha = 0 the first vertex
    // stays (f(0) = 1 - delta exactly) and the ones whose alpha underflowed
    // gather at the smallest positive double instead.
    if (A.size() == 1 && A.back() == 0.0 && !(a > 0.0))
      a = std::numeric_limits<double>::denorm_min();
    if (!A.empty() && !(a > A.back())) {
      B.back() = std::min(B.back(), b);
      C.back() = std::max(C.back(), c);
      continue;
    }
    A.push_back(a);
    B.push_back(b);
    C.push_back(c);
  }
  A.front() = 0.0;
  if (A.back() < 1.0) {
    A.push_back(1.0);
    B.push_back(0.0);
    C.push_back(1.0);
  } else {
    B.back() = 0.0;
    C.back() = 1.0;
  }
  return curve::from_vertices(A, B, C);
}
}  // namespace detail

// (make_term: the table of spec kinds, spec_hooks.cpp)

// Runs fb on a second thread while fa runs on this one, and returns both
// results. Both always finish before it returns (fb's thread is joined even
// when fa throws); an exception of fb is rethrown first, then one of fa.
template <class FA, class FB>
std::pair<std::invoke_result_t<FA&>, std::invoke_result_t<FB&>> run_pair(FA&& fa, FB&& fb) {
  // (fb's thread polls the caller's cancel flag too: fdp/core/cancel.hpp)
  auto fut = std::async(std::launch::async, [&fb, flag = current_cancel_flag()] {
    cancel_scope scope(flag);
    return fb();
  });
  std::optional<std::invoke_result_t<FA&>> ra;
  std::exception_ptr err;
  try {
    ra.emplace(fa());
  } catch (...) {
    err = std::current_exception();
  }
  auto rb = fut.get();  // (joins; rethrows fb's exception)
  if (err) std::rethrow_exception(err);
  return {std::move(*ra), std::move(rb)};
}

double solve_eps(const std::function<double(double)>& delta, double target, bool upper_side) {
  if (delta(0.0) <= target) return 0.0;
  // Bracket the crossing: doubling up to 1e7, then steps of 10^4 (a
  // 10^8-fold Laplace composition crosses at eps ~ 4e7; a cap of 1e7 made its
  // certified lower end inf, above the truth). No crossing below 1e300: the
  // upper end is inf, and so is the lower one only if delta stays above the
  // target at the largest double (mass at loss +inf); otherwise the last
  // point seen above the target is a lower bound.
  double lo = 0.0, hi = 1.0;
  while (delta(hi) > target) {
    lo = hi;
    hi *= hi < 1e7 ? 2.0 : 1e4;
    if (hi > 1e300) {
      if (upper_side) return kInf;
      return delta(std::numeric_limits<double>::max()) > target ? kInf : lo;
    }
  }
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (delta(mid) > target)
      lo = mid;
    else
      hi = mid;
  }
  return upper_side ? hi : lo;
}

// The delta the grids are tuned for. Terms with mass at loss +inf (f(0) < 1:
// f_{eps,delta} with delta > 0) put m = 1 - prod (1 - q_inf)^n there in the
// composition, and delta_total = m + (1 - m) delta_finite: an epsilon at
// delta_hint needs the finite part at (delta_hint - m) / (1 - m), which can
// be far smaller (10 x f_{1,1e-6} at delta 1e-5: 4.5e-11; tuned at 1e-5, the
// bracket was 17% wide). Tuning only: every bound stays certified.
double tuning_delta(const std::vector<compose_term>& terms, double delta_hint) {
  double log_keep = 0.0;
  for (const auto& t : terms) {
    const double qi = std::min(1.0, t.law->q_pos_inf());
    if (qi > 0) log_keep += static_cast<double>(t.times) * std::log1p(-qi);
  }
  const double m = -std::expm1(log_keep);
  if (!(m > 0) || !(delta_hint > m)) return delta_hint;
  return std::max(1e-300, (delta_hint - m) / (1.0 - m));
}

// Where a grid point sits above an accumulation point at the bottom of a
// loss law's support, in cells (see run_side in compose_terms).
constexpr double kAccumulationPhase = 0.05;

// Staged composition. A term repeated n >= opt.stage_min times is composed in
// two stages: its k-fold composition (k ~ sqrt(n)) on a grid fine enough for
// one term, then that result, as a new term whose spread is sqrt(k) times
// larger, (n / k)-fold on a grid sized for it. One uniform grid for the
// n-fold would need N ~ n^{1/4}..n^{1/2} points (its step is tied to one
// term's spread) and powers the transform n-fold, which amplifies the FFT's
// rounding by n; the stages keep both near those of a sqrt(n)-fold.
//
// Soundness: the k-fold result is certified two-sided, so its forward
// trade-off function F_k lies between two polygons, F_lo <= F_k <= F_hi
// (forward_lower_curve / forward_upper_curve). The tensor product is
// monotone (DRS Prop. 3.2) and so is the inverse, so F_lo^{(x)r} <= F_k^{(x)r}
// <= F_hi^{(x)r} in both orientations; the pessimistic side composes the law
// of F_lo, the optimistic side that of F_hi (compose_term::law_opt). A term
// whose law is symmetric keeps that flag: then only the forward orientation
// matters.
namespace {

// opt.max_grid (0: none) capped at `limit` points.
std::size_t capped_grid(std::size_t max_grid, std::size_t limit) {
  return max_grid > 0 ? std::min(max_grid, limit) : limit;
}

// The memory model behind compose_options::max_memory, measured on the
// engine (peak RSS over grid size, both sides on two threads, tilted and
// plain, both orientations): about 500 bytes per point of the composed
// window and under 200 per point of the terms' discretized grids.
constexpr double kBytesPerTermPoint = 192.0, kBytesPerWindowPoint = 512.0;

// The terms' grid points allowed: half the memory ceiling, and max_grid.
double term_points_limit(const compose_options& opt) {
  double lim = opt.max_grid > 0 ? static_cast<double>(opt.max_grid) : kInf;
  if (opt.max_memory > 0)
    lim = std::min(lim, 0.5 * static_cast<double>(opt.max_memory) / kBytesPerTermPoint);
  return lim;
}

// The widest loss range of the terms, clipped to +-700 as the grids are:
// the largest grid step worth trying when a grid must be made coarser.
double widest_loss_range(const std::vector<compose_term>& terms) {
  double w = 0;
  for (const auto& t : terms) {
    if (!t.law) continue;
    w = std::max(w, std::min(t.law->hi(), 700.0) - std::max(t.law->lo(), -700.0));
  }
  return w > 0 ? w : 1400.0;
}

// The composed window's points allowed beside terms of `pts` points (0: no
// limit but the engine's own).
std::int64_t window_cap(const compose_options& opt, double pts) {
  double lim = opt.max_grid > 0 ? static_cast<double>(opt.max_grid) : kInf;
  if (opt.max_memory > 0) {
    const double left = static_cast<double>(opt.max_memory) - kBytesPerTermPoint * pts;
    lim = std::min(lim, std::max(64.0, left / kBytesPerWindowPoint));
  }
  return std::isfinite(lim) ? static_cast<std::int64_t>(lim) : 0;
}

bool fits_memory(const compose_options& opt, double pts, double window) {
  const std::int64_t cap = window_cap(opt, pts);
  return pts <= term_points_limit(opt) && (cap == 0 || window <= static_cast<double>(cap));
}

// The first grid step for terms given as (per-term spread, count) pairs.
double auto_step_of(const std::vector<std::pair<double, double>>& scale_times) {
  double var = 0.0, cnt = 0.0;
  for (const auto& [s, n] : scale_times) {
    var += n * s * s;
    cnt += n;
  }
  // Second-order error: the composed variance moves by about n h^2/4, so h is
  // a fraction of the average per-term spread; and the optimistic garbling
  // needs the grid to resolve every term, so h is also below each term's spread.
  // The relative epsilon error of the second-order discretizations falls
  // like 1/sqrt(n) for n-fold compositions, so the starting step grows like
  // n^{1/4} (then capped by the per-term resolution below).
  double h0 = 0.1 * std::sqrt(var / cnt) * std::max(1.0, std::pow(cnt / 1e5, 0.25));
  for (const auto& st : scale_times) {
    if (st.first > 0) h0 = std::min(h0, 0.25 * st.first);
  }
  return h0 > 0 ? h0 : 1e-3;
}

// The first grid step for a list of terms (see compose_terms).
double auto_step(const std::vector<compose_term>& terms) {
  std::vector<std::pair<double, double>> st;
  for (const auto& t : terms) st.emplace_back(t.law->scale(), static_cast<double>(t.times));
  return auto_step_of(st);
}

// The first stage's count k for an n-fold: a divisor of n within a factor 2
// of sqrt(n), the one nearest to it, or else round(sqrt(n)) (a remainder
// n - (n / k) k > 0 costs extra work, see staged_terms). Within that range
// the cost barely depends on k (10^6-fold subsampled Gaussian: 280-315 M
// instructions for k = 500 .. 2000).
std::int64_t stage_split(std::int64_t n) {
  const std::int64_t s0 = std::llround(std::sqrt(static_cast<double>(n)));
  for (std::int64_t d = 0; d <= s0; ++d) {
    for (const std::int64_t k : {s0 - d, s0 + d}) {
      if (2 * k >= s0 && k <= 2 * s0 && k >= 2 && n % k == 0 && n / k >= 2) return k;
    }
    if (s0 - d < s0 / 2 && s0 + d > 2 * s0) break;
  }
  return s0;
}

curve forward_lower_of(const composed_pld& pess, const std::optional<composed_pld>& pess_t,
                       const std::optional<composed_pld>& inv,
                       const std::optional<composed_pld>& inv_t, std::size_t stride);

// A term composed in two stages: a long repetition not already staged.
bool stages(const compose_term& t, const compose_options& opt) {
  return opt.stage_min > 0 && t.times >= opt.stage_min && !t.law_opt;
}

// The second stage's first step, estimated from the terms' spreads (a
// k-fold's is sqrt(k) times one term's): the first stage's lower polygon
// needs tangent lines only a fraction of it apart (tangent_stride).
double second_stage_step(const std::vector<compose_term>& terms, const compose_options& opt) {
  std::vector<std::pair<double, double>> st;
  for (const auto& t : terms) {
    const double sc = t.law->scale();
    if (!stages(t, opt)) {
      st.emplace_back(sc, static_cast<double>(t.times));
      continue;
    }
    const std::int64_t k = stage_split(t.times), r = t.times / k;
    st.emplace_back(std::sqrt(static_cast<double>(k)) * sc, static_cast<double>(r));
  }
  return auto_step_of(st);
}

// The options of the first stage of term t (a k-fold, used r times).
compose_options first_stage_options(const compose_term& t, std::int64_t k, std::int64_t r,
                                    const std::vector<compose_term>& terms,
                                    const compose_options& opt, double step_scale) {
  compose_options o1 = opt;
  o1.method = compose_method::pld;
  compose_term tk = t;
  tk.times = k;
  // (the step of the k-fold's own one-grid composition: unlike a one-grid
  // n-fold, whose second-order errors average out over all n terms, the
  // first stage hands on two polygons that bracket the k-fold, and their
  // gap is carried through the second stage as it is)
  o1.initial_step = step_scale * auto_step({tk});
  o1.max_refinements = 0;
  o1.delta_at_eps.clear();  // (the queries are the second stage's)
  // the first stage is a sqrt(n)-fold: a grid beyond 2^20 points means the
  // one-term resolution is too fine for staging to pay; the first stage
  // is then coarsened to fit (compose_access::refine), which for such
  // near-identity terms still beats one n-fold grid coarsened alike (whose
  // FFT rounding is amplified n-fold, not sqrt(n)-fold)
  o1.max_grid = capped_grid(opt.max_grid, std::size_t(1) << 20);
  o1.outer_times = r * std::max<std::int64_t>(opt.outer_times, 1);
  // The second stage tilts the r-fold at its tuning delta d: the Chernoff
  // tilt argmin_t (r K(t) - log d) / t of the k-fold's log-MGF K is the
  // k-fold's own at d^(1/r). The k-fold tilted there is accurate, relative
  // to its mass, where the second stage's tilted measure lies; untilted,
  // its FFT rounding (absolute) swamps the thin right tail that the second
  // tilt multiplies by e^{theta loss} (P1 of the perf scenarios: 500,000-fold
  // subsampled Gaussian at delta 1e-7 was [3.29, 3.56] for a truth of 3.344).
  const double d2 =
      tuning_delta(terms, opt.delta_hint > 0 ? std::max(opt.delta_hint, 1e-300) : 1e-5);
  o1.tilt_delta = std::exp(std::log(d2) / static_cast<double>(o1.outer_times));
  // The mass outside the first stage's FFT window counts in each of the r
  // k-folds: its share of the accuracy at delta_hint is that of the
  // one-grid default (1e-3 tolerance delta_hint) split among them, rather
  // than the one-grid cap of 1e-16 (10^6-fold subsampled Gaussian: a
  // window of 21,883 points instead of 25,606 for 3e-14).
  if (opt.tail <= 0) {
    const double dh =
        tuning_delta(terms, opt.delta_hint > 0 ? std::max(opt.delta_hint, 1e-300) : 1e-5);
    o1.tail = 1e-3 * opt.tolerance * dh / static_cast<double>(o1.outer_times);
  }
  return o1;
}

// A first-stage polygon of term t's kk-fold as a discrete loss law.
std::shared_ptr<const loss_law> polygon_law(const curve& c, const compose_term& t, std::int64_t kk,
                                            const char* which) {
  const pld d = to_pld(c);
  std::vector<loss_atom> at;
  at.reserve(d.loss.size());
  for (std::size_t i = 0; i < d.loss.size(); ++i) at.push_back({d.loss[i], d.p[i], d.q[i]});
  return std::shared_ptr<const loss_law>(
      discrete_law(std::move(at), d.p_neg_inf, d.q_pos_inf, t.law->symmetric(),
                   t.text + " (" + std::to_string(kk) + "-fold, " + which + ")"));
}

// The second stage discretizes the lower polygon on its own, coarser grid,
// whose connect-the-dots construction takes the polygon's delta at that
// grid's losses only. Tangent lines an eighth of that step apart (instead
// of every first-stage grid point: 10^6-fold subsampled Gaussian, h2 / h1 ~
// 32) lower it by a second-order amount well inside the second stage's own
// discretization error and take a third of the work (there, stride 3: upper
// end 1.625893 -> 1.625905, 321 -> 277 M instructions).
std::size_t tangent_stride(double h1, double h2) {
  return h1 > 0 && h2 > 0
             ? static_cast<std::size_t>(std::clamp(std::floor(h2 / (8.0 * h1)), 1.0, 64.0))
             : std::size_t(1);
}

// The first stage of term t: the k-fold's composition (and the (k+1)-fold's
// when rem > 0) with their lower polygons as laws.
struct first_stage_result {
  std::optional<composition> c1, c_plus;
  std::shared_ptr<const loss_law> lower[2];
};

first_stage_result run_first_stage(const compose_term& t, std::int64_t k, std::int64_t rem,
                                   const compose_options& o1, const compose_options& opt,
                                   double h2) {
  first_stage_result fr;
  compose_term t1 = t;
  t1.times = k;
  t1.closed.reset();
  if (opt.stage_min > 0 && k >= opt.stage_min) {
    // (n >= stage_min^2: the k-fold is itself staged; its polygons and the
    // (k+1)-fold's come from whole compositions)
    fr.c1 = compose_terms({t1}, o1);
    fr.lower[0] = polygon_law(fr.c1->forward_lower_curve(tangent_stride(fr.c1->grid_step(), h2)), t,
                              k, "lower polygon");
    if (rem > 0) {
      t1.times = k + 1;
      fr.c_plus = compose_terms({t1}, o1);
      fr.lower[1] =
          polygon_law(fr.c_plus->forward_lower_curve(tangent_stride(fr.c_plus->grid_step(), h2)), t,
                      k + 1, "lower polygon");
    }
    return fr;
  }
  // The lower polygons are built on the pessimistic side's thread while the
  // optimistic side still sweeps (its discretization is the longer one);
  // the upper ones need the optimistic compositions.
  const std::vector<std::int64_t> plus_one{k + 1};
  detail::compose_access::first_stage fs;
  if (rem > 0) fs.also = &plus_one, fs.also_out = &fr.c_plus;
  fs.on_pessimistic =
      [&](std::size_t v, const composed_pld& f, const std::optional<composed_pld>& ft,
          const std::optional<composed_pld>& inv, const std::optional<composed_pld>& invt) {
        fr.lower[v] = polygon_law(forward_lower_of(f, ft, inv, invt, tangent_stride(f.h(), h2)), t,
                                  v == 0 ? k : k + 1, "lower polygon");
      };
  fr.c1 = detail::compose_access::run({t1}, o1, &fs);
  return fr;
}

// What a staged pass's first stages tell the next pass (compose_staged).
struct stage_report {
  double coarse_step = 0.0;  // the largest coarsened first-stage step (0: none)
  bool clipped = false;      // a first stage's tilted window did not fit its cap
  double room = kInf;        // how many times finer every first stage's tilted window fits
  double first_step = 0.0;   // the largest first-stage step
};

// Notes how far the first stage c (composed with options o1) could refine
// before its tilted windows stop fitting the cap: they grow like 1/h, and
// compose_grid's window_for takes one only up to window_points_within(cap)
// points.
void note_tilt_room(const composition& c, const compose_options& o1, stage_report& report) {
  if (detail::compose_access::tilt_clipped(c)) report.clipped = true;
  const std::size_t widest = detail::compose_access::widest_tilted_window(c);
  if (o1.max_grid == 0 || widest == 0) return;
  report.room =
      std::min(report.room, (detail::window_points_within(static_cast<double>(o1.max_grid)) - 4.0) /
                                static_cast<double>(widest));
}

// Term t in two stages, appended to out: a remainder rem = n - r k > 0
// (0 < rem <= r, stage_split) makes rem of the r first-stage results
// (k+1)-folds: n = (r - rem) k + rem (k + 1). Both come from one
// discretization (compose_access: the (k+1)-fold is one more composition
// of the same grids). As rem raw terms the remainder would make the second
// stage resolve one term (10^6 + 3 Laplace: 80,859 points against 5,692);
// as a second first stage it would repeat the discretization, the dearer
// part for a continuous law (subsampled Gaussian x (10^6 + 3): 575 M
// instructions with raw terms, 674 M with a second first stage). Throws
// evaluation_error when the term cannot be staged; returns the first
// stage's step when it had to be coarsened for the grid or memory limits,
// else 0. Notes in `report` how much finer the first stage's tilted
// window lets its step go (stage_report).
double stage_term(const compose_term& t, const std::vector<compose_term>& terms,
                  const compose_options& opt, double step_scale, double h2,
                  std::vector<compose_term>& out, stage_report& report) {
  const std::int64_t k = stage_split(t.times);
  const std::int64_t r = t.times / k, rem = t.times - r * k;
  const compose_options o1 = first_stage_options(t, k, r, terms, opt, step_scale);
  first_stage_result fr = run_first_stage(t, k, rem, o1, opt, h2);
  note_tilt_room(*fr.c1, o1, report);
  report.first_step = std::max(report.first_step, fr.c1->grid_step());
  // A kk-fold's two polygons as the laws of one second-stage term, composed
  // `times` times.
  auto polygons = [&](const composition& c, std::shared_ptr<const loss_law> lo, std::int64_t kk,
                      std::int64_t times) {
    compose_term s;
    s.law = std::move(lo);
    s.law_opt = polygon_law(c.forward_upper_curve(), t, kk, "upper polygon");
    s.times = times;
    s.text =
        t.text + " (staged: " + std::to_string(kk) + "-fold, then x" + std::to_string(times) + ")";
    return s;
  };
  if (r - rem > 0 && rem > 0 && opt.threads != 1) {
    // the two upper polygons on two threads
    auto both = run_pair([&] { return polygons(*fr.c1, fr.lower[0], k, r - rem); },
                         [&] { return polygons(*fr.c_plus, fr.lower[1], k + 1, rem); });
    out.push_back(std::move(both.first));
    out.push_back(std::move(both.second));
  } else {
    if (r - rem > 0) out.push_back(polygons(*fr.c1, fr.lower[0], k, r - rem));
    if (rem > 0) out.push_back(polygons(*fr.c_plus, fr.lower[1], k + 1, rem));
  }
  if (fr.c1->grid_limited() != composition::grid_limit::coarsened) return 0.0;
  return fr.c1->grid_step();
}

// The terms with every long repetition replaced by its staged form. Stage
// one is a single pass on the grid the k-fold's own one-grid composition
// would start with, times step_scale; its accuracy budgets are shared among
// all n terms (compose_options::outer_times). Nothing when no term stages
// or one cannot be staged (then one grid as before). report.coarse_step:
// the largest step of a first stage that had to be coarsened (0: none
// was); its tilted windows in the rest of the report.
std::optional<std::vector<compose_term>> staged_terms(const std::vector<compose_term>& terms,
                                                      const compose_options& opt, double step_scale,
                                                      stage_report& report) {
  if (std::none_of(terms.begin(), terms.end(),
                   [&](const compose_term& t) { return stages(t, opt); })) {
    return std::nullopt;
  }
  const double h2 = second_stage_step(terms, opt);
  report = stage_report{};
  std::vector<compose_term> out;
  for (const auto& t : terms) {
    if (!stages(t, opt)) {
      out.push_back(t);
      continue;
    }
    try {
      report.coarse_step =
          std::max(report.coarse_step, stage_term(t, terms, opt, step_scale, h2, out, report));
    } catch (const evaluation_error&) {
      return std::nullopt;  // not representable in stages: one grid as before
    }
  }
  return out;
}

std::optional<composition> relax_near_identity(const std::vector<compose_term>& terms,
                                               const compose_options& opt);
double answer_width(const composition& c, const compose_options& opt, double delta_hint);
double pass_width(const composition& c, const compose_options& opt, double delta_hint);

// The terms composed on one grid, or with their near-identity terms relaxed
// (relax_near_identity) when that meets the tolerance; when neither alone
// is known to, both are composed and the narrower stands.
composition compose_joint_or_relaxed(const std::vector<compose_term>& terms,
                                     const compose_options& opt) {
  std::optional<composition> relaxed = relax_near_identity(terms, opt);
  if (!relaxed) return detail::compose_access::run(terms, opt);
  const double hint = opt.delta_hint > 0 ? std::max(opt.delta_hint, 1e-300) : 1e-5;
  if (answer_width(*relaxed, opt, hint) <= opt.tolerance) return std::move(*relaxed);
  composition joint = detail::compose_access::run(terms, opt);
  if (pass_width(*relaxed, opt, hint) < pass_width(joint, opt, hint)) return std::move(*relaxed);
  return joint;
}

}  // namespace

namespace {
void check_compose_inputs(const std::vector<compose_term>& terms, const compose_options& opt);
}  // namespace

composition compose_terms(const std::vector<compose_term>& terms, const compose_options& opt) {
  check_compose_inputs(terms, opt);
  composition c = compose_joint_or_relaxed(terms, opt);
  // (rounded up: the caps themselves are computed, the Laplace summary to
  // ~1e-11, and their root sum of squares rounds once per term)
  c.gdp_cap_ = std::nextafter(
      root_sum_squares(terms, [](const compose_term& t) { return t.gdp_cap; }) * (1 + 1e-9), kInf);
  detail::compose_access::attach_floor(
      c, terms, opt.delta_hint > 0 ? std::max(opt.delta_hint, 1e-300) : 1e-5);
  return c;
}

namespace {

// The checks of compose's arguments (std::invalid_argument naming the
// parameter and its range).
void check_compose_inputs(const std::vector<compose_term>& terms, const compose_options& opt) {
  if (terms.empty()) throw std::invalid_argument("compose(specs): at least one spec is required");
  for (const auto& t : terms) {
    if (t.times < 1)
      detail::throw_domain("compose", "times", static_cast<long long>(t.times),
                           "must be an integer >= 1");
    // (a caller's law builder may return none, e.g. balls_in_bins_laws
    // where its lattice cannot serve)
    if (!t.law)
      throw std::invalid_argument("compose: term \"" + t.text + "\" has no loss law (law is null)");
  }
  detail::require(opt.tolerance > 0 && opt.tolerance < 1, "compose", "tolerance", opt.tolerance,
                  "must be in (0, 1)");
  detail::require(opt.delta_hint >= 0 && opt.delta_hint < 1, "compose", "delta_hint",
                  opt.delta_hint, "must be in [0, 1)");
  detail::require(opt.initial_step >= 0 && std::isfinite(opt.initial_step), "compose",
                  "initial_step", opt.initial_step, "must be finite and >= 0 (0: automatic)");
  for (double e : opt.delta_at_eps)
    detail::require(!std::isnan(e), "compose", "delta_at_eps", e, "must be a number");
  if (opt.outer_times < 1) {
    detail::throw_domain("compose", "outer_times", static_cast<long long>(opt.outer_times),
                         "must be >= 1");
  }
  if (opt.stage_min < 0) {
    detail::throw_domain("compose", "stage_min", static_cast<long long>(opt.stage_min),
                         "must be >= 0 (0: no staged composition)");
  }
}

// True if delta(eps) > 0 for every eps: some term's loss is unbounded above
// (or below, when a term is asymmetric and the inverse orientation counts).
bool unbounded_losses(const std::vector<compose_term>& terms) {
  bool asym = false, unbounded = false;
  for (const auto& t : terms) asym = asym || !t.law->symmetric();
  for (const auto& t : terms)
    unbounded = unbounded || !std::isfinite(t.law->hi()) || (asym && !std::isfinite(t.law->lo()));
  return unbounded;
}

// The relative width of an epsilon bracket as the refinement judges it (an
// infinite upper end is useful only when the lower end certifies it).
double relative_width(const interval& e) {
  if (std::isinf(e.lower)) return 0.0;
  return std::isfinite(e.upper) ? (e.upper - e.lower) / std::max(e.upper, 1e-3) : kInf;
}

// The relative width the refinement judges a composition by: the epsilon
// bracket's at delta_hint and every delta bracket's asked for at an epsilon
// (relative to its upper end; below 1e-300 the double range allows no
// better, and an infinite epsilon certified by its lower end is met).
double answer_width(const composition& c, const compose_options& opt, double delta_hint) {
  // With deltas asked, delta_hint only tunes the grid for them. An epsilon
  // bracket there whose lower end is 0 steers nothing: when the tilted
  // composition alone serves the deltas, its bounds far below the tilt are
  // vacuous, and a relative width of 1 sent the next pass 10x finer
  // (mixture-gaussian:sigma=5,...,times=100000 --eps 66.458: 2.8 million
  // points, 4.7 s, for no narrower delta).
  const interval at_hint = c.epsilon(delta_hint);
  double w = !opt.delta_at_eps.empty() && !(at_hint.lower > 0) ? 0.0 : relative_width(at_hint);
  for (double e : opt.delta_at_eps) {
    const interval d = c.delta(e);
    if (d.upper > 1e-300) w = std::max(w, (d.upper - d.lower) / d.upper);
  }
  return w;
}

// What the refinement compares passes by: the widest relative delta
// bracket asked for, or else the absolute epsilon width at delta_hint.
double pass_width(const composition& c, const compose_options& opt, double delta_hint) {
  if (!opt.delta_at_eps.empty()) return answer_width(c, opt, delta_hint);
  const interval e = c.epsilon(delta_hint);
  return std::isfinite(e.upper) ? e.upper - e.lower : kInf;
}

// Terms near the identity beside ordinary ones (a Poisson rate of 1e-6
// composed with DP-SGD): one grid must resolve the tiny term's loss spread
// (~1e-6) over the other's range, and is coarsened or given up (DP-SGD on
// MNIST with 1000 steps at q = 1e-6, sigma 1, read [0, 3.009], Chernoff
// only, in 4 s; alone, DP-SGD reads [2.3803, 2.3837]). Such a term, n-fold,
// is (e, d)-DP for e its own certified epsilon at a tiny d, so it is at
// least as private as f_{e,d} in both orders, and at most as private as
// no release. The pessimistic side composes f_{e,d} in its place (upper
// bounds) and the optimistic side the identity (lower bounds: the other
// terms alone, a post-processing of the whole): the bracket widens by about
// e (to second order only, where the rest's delta is smooth: f_{e,d} is a
// symmetric coin). Candidates: continuous terms whose loss spread over
// their n applications (scale sqrt(n)) is below 1e-3 of the largest term's
// (atomic ones sit on the grid's atoms); each
// is composed alone at d = 1e-3 tolerance delta_hint, and relaxed when its
// e is at most the tolerance times the largest epsilon of the others alone
// at d (a first-order bound on what it costs; where the rest's delta is
// smooth the cost is second order, and a relaxed composition that misses
// the tolerance is checked against the one grid). Empty when no term is
// relaxed.
std::optional<composition> relax_near_identity(const std::vector<compose_term>& terms,
                                               const compose_options& opt) {
  if (terms.size() < 2 || opt.method == compose_method::exact) return std::nullopt;
  // (a closed form composes them exactly: 10 Gaussians of sigma 1 with 100
  // of sigma 1e5 is G_mu, not a bracket)
  if (opt.method != compose_method::pld && try_exact(terms)) return std::nullopt;
  std::vector<double> spread(terms.size());
  double widest = 0.0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    spread[i] = terms[i].law->scale() * std::sqrt(static_cast<double>(terms[i].times));
    widest = std::max(widest, spread[i]);
  }
  const double hint = opt.delta_hint > 0 ? std::max(opt.delta_hint, 1e-300) : 1e-5;
  const double d = 1e-3 * opt.tolerance * hint;
  compose_options solo = opt;
  solo.delta_hint = d;
  solo.delta_at_eps.clear();
  std::vector<double> e(terms.size(), kInf);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (!(spread[i] > 0 && spread[i] <= 1e-3 * widest) || terms[i].law->atomic()) continue;
    try {
      e[i] = detail::compose_access::run({terms[i]}, solo).epsilon(d).upper;
    } catch (const std::exception&) {
      continue;  // (no bound of its own: not relaxed)
    }
  }
  // the largest e of the others: composed alone only when some term is small
  double largest = 0.0;
  bool any_small = false;
  for (double x : e) any_small = any_small || std::isfinite(x);
  if (!any_small) return std::nullopt;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (std::isfinite(e[i])) continue;
    try {
      largest = std::max(largest, detail::compose_access::run({terms[i]}, solo).epsilon(d).lower);
    } catch (const std::exception&) {
    }
  }
  std::vector<compose_term> relaxed;
  std::size_t n_relaxed = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (!(e[i] <= opt.tolerance * largest)) {
      relaxed.push_back(terms[i]);
      continue;
    }
    // (e rounded up to 1% of the tolerance times that largest epsilon: a
    // coarser f_{e,d}, still below the term, whose atoms need no finer grid
    // than the rest's; at e = 1e-4 beside epsilon 353 the grid followed the
    // atoms and was coarsened, 4.6% wide)
    compose_term t;
    t.law = make_law(tradeoff(eps_delta(std::max(e[i], 0.01 * opt.tolerance * largest), d)));
    t.law_opt = make_law(tradeoff(identity{}));
    t.text = terms[i].text + " (as f_{eps,delta} above, the identity below)";
    relaxed.push_back(std::move(t));
    ++n_relaxed;
  }
  if (n_relaxed == 0 || n_relaxed == terms.size()) return std::nullopt;
  return detail::compose_access::run(relaxed, opt);
}

}  // namespace

// Whether the FFT's rounding takes a tenth of the tolerance or more of an
// answer's delta, and half or more of its bracket's gap (at the epsilon
// bracket's ends at delta_hint, and at each epsilon a delta is asked for),
// on the better grid (plain or tilted) of each side and orientation.
bool detail::compose_access::fft_limited(const composition& c, const compose_options& opt,
                                         double delta_hint) {
  const detail::composition_grids& g = c.grids();
  std::vector<std::pair<double, double>> at;  // (eps, delta there)
  const interval e = c.epsilon(delta_hint);
  if (e.lower > 0 && std::isfinite(e.upper)) at = {{e.lower, delta_hint}, {e.upper, delta_hint}};
  for (double x : opt.delta_at_eps) {
    const interval d = c.delta(x);
    if (d.upper > 1e-300) at.emplace_back(x, d.upper);
  }
  auto fft = [](const std::optional<composed_pld>& plain, const std::optional<composed_pld>& tilted,
                double eps) {
    double f = plain ? plain->fft_error_at(eps) : 0.0;
    if (tilted) f = std::min(f, tilted->fft_error_at(eps));
    return f;
  };
  for (const auto& [eps, delta] : at) {
    // (each side's, the larger orientation's; both sides' against the gap
    // of the delta bracket there)
    const double fft_both =
        std::max(fft(g.pess, g.pess_t, eps), fft(g.inv_pess, g.inv_pess_t, eps)) +
        std::max(fft(g.opt, g.opt_t, eps), fft(g.inv_opt, g.inv_opt_t, eps));
    const interval d = c.delta(eps);
    if (fft_both > 0.1 * opt.tolerance * delta && fft_both >= 0.5 * (d.upper - d.lower))
      return true;
  }
  return false;
}

namespace {

// A staged composition whose first stage had to be coarsened (near-identity
// terms: a one-term resolution finer than its grid allows) is set by that
// stage's polygon gap. One grid of all n terms at twice the coarsened first
// stage's step can do better: its discretization error is second order in
// h, and from 2^20 terms on the engine computes it in long double
// (compose_grid). Below that, down to the staging threshold 2^17, double's
// n-fold FFT rounding (~1e-11 of the tilted masses) still leaves it far
// narrower (sigma 0.5, q = 1e-5, 10^6 steps at delta 1.73e-8: staged
// [1.988, 3.248], one grid [1.9992, 2.0004], reference 2.0). P7 of the perf
// scenarios (a 10^7-fold subsampled Gaussian, q = 1e-6, delta 1e-9):
// staged [0.141, 1.498], one grid's upper end 0.950698 (the eta form of
// docs/formulas.md 12.2; 1.252 under the absolute mass-error bound). One
// pass, no refinement (a finer step would not fit the tilted window);
// nothing when it fails.
std::optional<composition> one_grid_for_coarsened(const std::vector<compose_term>& terms,
                                                  const compose_options& opt, double coarse_step) {
  double n = 0.0;
  for (const auto& t : terms) n += static_cast<double>(t.times);
  if (n < static_cast<double>(opt.stage_min)) return std::nullopt;
  compose_options o = opt;
  o.stage_min = 0;
  o.initial_step = 2.0 * coarse_step;
  o.max_refinements = 0;
  try {
    return compose_terms(terms, o);
  } catch (const evaluation_error&) {
    return std::nullopt;
  }
}

// The first-stage step scale of compose_staged's next pass. Each pass aims,
// by the width's h^2 shrinking, at 0.64 of the tolerance, at most 4x finer
// per pass. A first stage too fine for its tilted window to fit its cap
// (2^20 points) loses the tilted masses beyond the plain window, and its
// pass comes out far wider (a cliff, not a slope: P1's DP-SGD, 500,000
// steps, delta at epsilon 3.4 went from 0.3% wide to 7.5% between first-
// stage steps 1.9e-5 and 1.3e-5). So a pass goes no finer than the last
// one's tilted windows allow (their size grows like 1/h). Returns 0 when
// they leave no room for a step 10% finer.
double next_stage_scale(double scale, double width, double tolerance, double room) {
  double next = scale * std::clamp(0.8 * std::sqrt(tolerance / width), 0.1, 0.7);
  next = std::max(next, 1.02 * scale / room);
  return next < 0.9 * scale ? next : 0.0;
}

// Staged composition of long repetitions (staged_terms): the second stage
// refines its own grid; when the bracket is still too wide, the first
// stage's share is what remains, and it shrinks like its step^2. Nothing
// when no term is long or staging does not pay.
std::optional<composition> compose_staged(const std::vector<compose_term>& terms,
                                          const compose_options& opt, double delta_hint) {
  std::optional<composition> best;
  double best_w = kInf, scale = 1.0, coarse_step = 0.0;
  bool best_clipped = false;
  const bool unbounded = unbounded_losses(terms);  // (decided on the terms as given)
  for (int pass = 0; pass <= opt.max_refinements; ++pass) {
    stage_report report;
    auto st = staged_terms(terms, opt, scale, report);
    if (!st) break;
    const bool coarse = report.coarse_step > 0;
    coarse_step = std::max(coarse_step, report.coarse_step);
    // (a finer pass whose first stage clipped what the last one's did not:
    // its second stage would only carry the loose polygons on)
    if (report.clipped && !coarse && best && !best_clipped) break;
    std::optional<composition> cs;
    try {
      // (a second stage beyond 2^22 points means staging does not pay:
      // near-identity terms whose polygons span far more than their spread)
      compose_options o2 = opt;
      o2.max_grid = capped_grid(opt.max_grid, std::size_t(1) << 22);
      // A coarsened first stage's polygon gap sets the width: neither a
      // finer second stage nor another pass (its step is the limit's, not
      // the scale's) narrows it (P7: a second-stage refinement and a second
      // pass tripled the time and left [0.141, 1.498]).
      if (coarse) o2.max_refinements = 0;
      cs = compose_terms(*st, o2);
    } catch (const evaluation_error&) {
      break;  // keep the best so far, or fall back to one grid
    }
    composition c = std::move(*cs);
    detail::compose_access::mark_unbounded(c, unbounded);
    const double w = answer_width(c, opt, delta_hint);
    const bool better = w < best_w;
    if (better) best = std::move(c), best_w = w, best_clipped = report.clipped;
    if (w <= opt.tolerance || coarse || !better) break;
    // (a first stage clipped already says nothing of the room left: finer
    // passes coarsen it to fit, as before)
    scale = next_stage_scale(scale, w, opt.tolerance, report.clipped ? kInf : report.room);
    if (scale == 0.0) {
      coarse_step = std::max(coarse_step, report.first_step);  // (as good as coarsened)
      break;
    }
  }
  if (best) {
    // (judged with the terms' floor, as the result will have it)
    detail::compose_access::attach_floor(*best, terms, delta_hint);
    best_w = answer_width(*best, opt, delta_hint);
  }
  if (best && best_w > opt.tolerance && coarse_step > 0) {
    if (auto one = one_grid_for_coarsened(terms, opt, coarse_step)) {
      // Between equal relative widths (both lower ends 0: width 1) the
      // smaller upper end wins (near-identity terms without a floor; with
      // none, 'subsampled-gaussian:sigma=0.3,q=1e-9,times=10000000 --delta
      // 1e-5' kept staged [0, 0.3305] over one grid's [0, 0.00405]).
      const double w = answer_width(*one, opt, delta_hint);
      if (w < best_w ||
          (w == best_w && one->epsilon(delta_hint).upper < best->epsilon(delta_hint).upper))
        best = std::move(one);
    }
  }
  return best;
}

// The grid works with e^loss in double precision: a term with noticeable
// mass beyond |loss| = 700 cannot be represented (its answer is astronomic
// anyway); refuse with the reason rather than return a useless bracket.
void refuse_losses_beyond_700(const std::vector<compose_term>& terms) {
  for (const auto& t : terms) {
    const double beyond = t.law->mass(700.0, kInf).q + t.law->mass(-kInf, -700.0).p;
    if (beyond > 1e-6) {
      throw std::invalid_argument(
          "compose(method=pld): term '" + t.text +
          "' has privacy losses beyond +-700 (outside the double "
          "exponent range of the PLD engine); only lists of gdp, gaussian "
          "and epsdelta terms compose in closed form beyond it (fdp compose "
          "--method exact)");
    }
  }
}

// What every grid pass of one composition shares: the terms, the first
// step, the tail cuts, and the accuracy budgets of the window and the
// optimistic sweep's grouping.
struct grid_plan {
  const std::vector<compose_term>& terms;
  double tune = 0.0;       // the delta the grid is tuned for
  double h0 = 0.0;         // the first step
  double span = 0.0;       // the atoms' spacing of the most repeated atomic law
  double tail = 0.0;       // mass allowed outside the composed window
  double coarse = 0.0;     // the optimistic sweep's grouping budget per term
  bool tilt = false;       // also compose with an exponential tilt at tilt_at
  double tilt_at = 0.0;    // the delta whose Chernoff tilt that is
  double fft_floor = 0.0;  // a plain composition with more FFT error is also tilted
  bool asym = false;       // some term is asymmetric: both orientations
  std::vector<std::pair<double, double>> cuts, cuts_opt;

  // The step nearest `target` that divides the atoms' spacing (span: the
  // lattice step, or the lowest-to-highest span; with the per-term offset
  // those atoms sit on the grid): both discretizations keep them exact. (A
  // step coarser than that, for the memory ceiling, leaves atoms off the
  // grid: as certified, only looser.)
  double grid_h(double target) const {
    if (span > 0 && target <= span) return span / std::ceil(span / target);
    return target;
  }
  // The terms' grid points at step h (within the cuts and +-700).
  double term_points(double h) const {
    double pts = 0.0;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const double a = std::max({terms[i].law->lo(), cuts[i].first, -700.0});
      const double b = std::min({terms[i].law->hi(), cuts[i].second, 700.0});
      if (b > a) pts += (b - a) / h;
    }
    return pts;
  }
};

// The spacing the grid's step must divide so that every atom of the most
// repeated law with two or more sits on the grid (a staged term's polygon is
// skipped: its atoms are not a lattice): the step of a lattice law (equally
// spaced atoms: discrete Laplace, discrete Gaussian, randomized response),
// else the span from its lowest atom to its highest (both on the grid).
// Other laws' bottom atoms are on the grid only when their spans happen to
// be multiples of h, and the optimistic side's error from an off-grid atom
// grows with the term's count ('laplace:b=5,times=3
// epsdelta:eps=0.3,delta=1e-7 subsampled-laplace:b=2,q=0.02,times=10000'
// at delta 1e-3: [3.265, 3.288] with the first law's span, [3.2796,
// 3.2840] with the 10,000-fold one's).
double atom_spacing_of_most_repeated(const std::vector<compose_term>& terms) {
  double spacing = 0.0;
  std::int64_t most = 0;
  for (const auto& t : terms) {
    if (t.law_opt || t.times <= most) continue;
    const auto at = t.law->atoms();
    if (at.size() < 2) continue;
    const double span = at.back().loss - at.front().loss;
    const double step = span / static_cast<double>(at.size() - 1);
    bool lattice = step > 0;
    for (std::size_t k = 1; k < at.size() && lattice; ++k)
      lattice = std::fabs(at[k].loss - at[k - 1].loss - step) <= 1e-9 * step;
    spacing = lattice ? step : span;
    most = t.times;
  }
  return spacing;
}

grid_plan plan_grid(const std::vector<compose_term>& terms, const compose_options& opt,
                    double tune) {
  grid_plan p{terms, 0.0, 0.0, 0.0, 0.0, 0.0, false, 0.0, 0.0, false, {}, {}};
  p.tune = tune;
  double cnt = 0.0;
  for (const auto& t : terms) {
    cnt += static_cast<double>(t.times);
    p.asym = p.asym || !t.law->symmetric();
  }
  // h from the per-term loss spread (second-order error ~ (h/sd)^2)
  p.h0 = opt.initial_step > 0 ? opt.initial_step : auto_step(terms);
  p.span = atom_spacing_of_most_repeated(terms);
  // Component tails beyond the cut go to the infinite atoms (pessimistic) or
  // are merged/dropped (optimistic); n times the cut mass stays far below the
  // accuracy asked for at delta_hint.
  const double tau_c = std::min(1e-12, 1e-3 * opt.tolerance * tune) / std::max(1.0, cnt);
  for (const auto& t : terms) {
    p.cuts.emplace_back(find_cut(*t.law, tau_c, false), find_cut(*t.law, tau_c, true));
    p.cuts_opt.push_back(t.law_opt ? std::make_pair(find_cut(*t.law_opt, tau_c, false),
                                                    find_cut(*t.law_opt, tau_c, true))
                                   : p.cuts.back());
  }
  p.tail = opt.tail > 0 ? opt.tail : std::min(1e-16, 1e-3 * opt.tolerance * tune);
  // The optimistic sweep may group thin tails coarsely (discretize's
  // `coarse`): each term's delta(eps) curve moves by at most this, and the
  // composed one by at most the count of terms times it (delta of a tensor
  // product is an average of one factor's delta curve over the others'
  // losses), a fifth of the tolerance at delta_hint.
  p.coarse = 0.2 * opt.tolerance * tune / (cnt * static_cast<double>(opt.outer_times));
  // Below ~1e-7 the FFT's rounding (~1e-16 of the largest mass, amplified
  // by the powering) is no longer small against delta: the grids are also
  // composed with an exponential tilt at delta_hint (compose_grid), which
  // costs one more transform pass per orientation, not another discretization.
  p.tilt = tune < 1e-7 || opt.tilt_delta > 0;
  p.tilt_at = opt.tilt_delta > 0 ? opt.tilt_delta : tune;
  // Above it, long compositions still amplify that rounding n-fold (P1 of
  // the perf scenarios, a 500,000-fold subsampled Gaussian at delta 1e-7:
  // its FFT error alone made the bracket 2.8% wide): a plain composition
  // whose FFT error could move delta at tune by more than a tenth of
  // the tolerance is tilted as well (compose_orientation).
  p.fft_floor = opt.tolerance * tune;
  return p;
}

// Where term t's grid starts modulo h on one side (law: that side's law).
double grid_offset(const compose_term& t, const loss_law& law, double h) {
  const auto at = law.atoms();
  if (t.law_opt && !at.empty()) {
    // a staged term's polygon law: thousands of atoms, one of them often
    // heavy (the k-fold's "nothing sampled" spike of Poisson subsampling);
    // that one goes on the grid
    std::size_t heavy = 0;
    for (std::size_t k = 1; k < at.size(); ++k)
      if (at[k].q > at[heavy].q) heavy = k;
    return at[heavy].loss - h * std::floor(at[heavy].loss / h);
  }
  // An atomic law's top atom goes on the grid: large losses decide delta
  // at positive epsilons, and the optimistic side can only move an off-grid
  // atom down, by up to h (30 Laplace terms b = 1..30 at delta 1e-6: lower
  // end 3.386 with bottom atoms on the grid, 3.504 with top ones, truth
  // 3.5203). A law whose span is a multiple of h has both on it.
  if (!at.empty()) return at.back().loss - h * std::floor(at.back().loss / h);
  if (std::isfinite(t.law->lo()) && !std::isfinite(t.law->hi())) {
    // A finite lower end without an atom is an accumulation point
    // (log(1 - q) of Poisson subsampling): put a grid point inside the
    // first cell above it. With none there (h > -log(1 - q)), the
    // optimistic sweep's first group must balance at ratio e^0 and
    // swallows the whole law (the bound collapses to Id).
    const double lo = t.law->lo();
    const double a = lo + std::min(kAccumulationPhase * h, lo < 0 ? -0.5 * lo : h);
    return a - h * std::floor(a / h);
  }
  return 0.0;
}

// One grid pass's settings: the step, the counts to compose with (the
// terms' own and the first stage's variant when asked), the window cap,
// and whether the window is given up for Chernoff bounds.
struct grid_pass {
  const grid_plan& plan;
  double h = 0.0;
  std::vector<const std::vector<std::int64_t>*> variants;
  std::int64_t cap = 0;
  bool windowless = false;
  const detail::compose_access::first_stage* fs = nullptr;
  const compose_options& opt;
  bool long_double = false;
};

// One orientation's compositions, plain and tilted, per variant.
using oriented_result = std::pair<composed_pld, std::optional<composed_pld>>;

// A composition for delta queries (compose_options::delta_at_eps) is
// tilted at the smallest delta asked. When that tilted composition alone
// answers every asked epsilon with error terms below a tenth of the
// tolerance (relative to its delta), the plain one could narrow no answer
// by more than that, and is not computed: its transform is the larger part
// of the pass's work saved (P4 of the perf scenarios: deltas at epsilons
// 1.5, 2, 3 of DP-SGD on MNIST). Its other answers stay certified, from the
// tilted composition alone.
constexpr double kTiltedAloneShare = 0.1;

bool tilted_answers_alone(const composed_pld& tilted, const compose_options& opt) {
  for (double e : opt.delta_at_eps) {
    const double raw = tilted.delta_raw(e);
    const double slack = tilted.delta_upper(e) - tilted.delta_lower(e);
    if (!(raw > 0) || !(slack <= kTiltedAloneShare * opt.tolerance * raw)) return false;
  }
  return true;
}

std::vector<oriented_result> compose_orientation(const grid_pass& gp,
                                                 const std::vector<const grid_pmf*>& ptrs,
                                                 bool use_p) {
  std::vector<oriented_result> r;
  const grid_plan& p = gp.plan;
  const bool tilted_first =
      !gp.opt.delta_at_eps.empty() && p.tilt && p.tilt_at > 0 && !gp.windowless && gp.fs == nullptr;
  auto plain_of = [&](const std::vector<std::int64_t>& times) {
    return compose_grid(ptrs, times, use_p, p.tail, 0.0, gp.cap, gp.windowless, gp.opt.trace,
                        gp.long_double);
  };
  auto tilted_of = [&](const std::vector<std::int64_t>& times) {
    return compose_grid(ptrs, times, use_p, p.tail, p.tilt_at, gp.cap, false, gp.opt.trace,
                        gp.long_double);
  };
  for (const auto* tv : gp.variants) {
    throw_if_cancelled("compose");
    if (tilted_first) {
      composed_pld tilted = tilted_of(*tv);
      if (tilted_answers_alone(tilted, gp.opt))
        r.push_back({std::move(tilted), std::nullopt});
      else
        r.push_back({plain_of(*tv), std::move(tilted)});
      continue;
    }
    r.push_back({plain_of(*tv), std::nullopt});
    // (the FFT error's share of a delta: at most its 2-norm times the root
    // of the window's size, by Cauchy-Schwarz)
    const composed_pld& plain = r.back().first;
    const bool noisy =
        plain.fft_error_l2() * std::sqrt(static_cast<double>(plain.size())) > p.fft_floor;
    if ((p.tilt || noisy) && p.tilt_at > 0 && !gp.windowless) r.back().second = tilted_of(*tv);
  }
  return r;
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return 1e3 * static_cast<double>(ts.tv_sec) + 1e-6 * static_cast<double>(ts.tv_nsec);
}

// One side (pessimistic or optimistic): discretize every term, then compose
// in both orientations. The two sides share nothing but the (immutable)
// laws and FFTW's planner (behind its mutex), so they run on two threads:
// the wall time of a composition is about half its CPU time. split_inv:
// compose the inverse orientation on a thread of its own once the
// discretization is done (the optimistic side's discretization is the
// longest task; the pessimistic thread is idle by then: S3a's wall time
// goes from disc_opt + 2 compositions to disc_opt + 1).
std::vector<side_result> run_side(const grid_pass& gp, pld_side side, bool split_inv) {
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = thread_cpu_ms();
  const auto& terms = gp.plan.terms;
  std::vector<grid_pmf> g;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    throw_if_cancelled("compose");
    const bool use_opt = side == pld_side::optimistic && terms[i].law_opt;
    const loss_law& law = use_opt ? *terms[i].law_opt : *terms[i].law;
    const auto& cut = use_opt ? gp.plan.cuts_opt[i] : gp.plan.cuts[i];
    g.push_back(discretize(law, gp.h, grid_offset(terms[i], law, gp.h), cut.first, cut.second, side,
                           gp.plan.coarse));
  }
  const double cpu_disc = thread_cpu_ms();
  std::vector<const grid_pmf*> ptrs;
  for (auto& x : g) ptrs.push_back(&x);
  std::vector<side_result> out(gp.variants.size());
  // (the inverse orientation: both sides, but the pessimistic one only
  // when the result is for its polygons)
  const bool inv = gp.plan.asym && !(gp.fs && side == pld_side::optimistic);
  std::vector<oriented_result> fwd, bwd;
  if (inv && split_inv) {
    std::tie(fwd, bwd) = run_pair([&] { return compose_orientation(gp, ptrs, false); },
                                  [&] { return compose_orientation(gp, ptrs, true); });
  } else {
    fwd = compose_orientation(gp, ptrs, false);
    if (inv) bwd = compose_orientation(gp, ptrs, true);
  }
  for (std::size_t v = 0; v < out.size(); ++v) {
    std::tie(out[v].fwd, out[v].fwd_t) = std::move(fwd[v]);
    if (inv) std::tie(out[v].inv, out[v].inv_t) = std::move(bwd[v]);
  }
  if (gp.fs && gp.fs->on_pessimistic && side == pld_side::pessimistic) {
    for (std::size_t v = 0; v < out.size(); ++v)
      gp.fs->on_pessimistic(v, *out[v].fwd, out[v].fwd_t, out[v].inv, out[v].inv_t);
  }
  if (gp.opt.trace) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    char line[160];
    std::snprintf(line, sizeof line,
                  "  %s side: %.2f ms wall, %.2f ms thread CPU (discretize %.2f)",
                  side == pld_side::pessimistic ? "pessimistic" : "optimistic", ms,
                  thread_cpu_ms() - cpu0, cpu_disc - cpu0);
    gp.opt.trace(line);
  }
  return out;
}

// Both sides of one grid pass (on two threads when the grids are large
// enough to pay for one), or grid_limit_error when the terms' grids pass
// the memory ceiling.
std::pair<std::vector<side_result>, std::vector<side_result>> run_sides(const grid_pass& gp) {
  const double pts = gp.plan.term_points(gp.h);
  const double pts_limit = term_points_limit(gp.opt);
  if (pts > pts_limit) {
    throw grid_limit_error("compose: the terms' grids need " + detail::format_value(pts) +
                               " points, above the limit of " + detail::format_value(pts_limit),
                           pts, pts_limit);
  }
  // Small problems stay on the calling thread (a thread costs ~50 us).
  if (gp.opt.threads != 1 && pts > 2000.0) {
    auto both = run_pair([&] { return run_side(gp, pld_side::optimistic, true); },
                         [&] { return run_side(gp, pld_side::pessimistic, false); });
    return {std::move(both.second), std::move(both.first)};
  }
  auto ps = run_side(gp, pld_side::pessimistic, false);
  auto os = run_side(gp, pld_side::optimistic, false);
  return {std::move(ps), std::move(os)};
}

}  // namespace

namespace detail {
void compose_access::mark_unbounded(composition& c, bool unbounded) {
  c.unbounded_ = c.unbounded_ || unbounded;
}

// One repeated term with a floor (the near-identity DP-SGD runs whose
// grids lose the lower end): every lower end of delta, and so of epsilon,
// is also the floor's. It costs ~20 us per delta, ~100 of them per epsilon
// query, so it is kept only where it helps at the tuning delta: above half
// that delta at the grids' own lower epsilon there (an epsilon query of
// DP-SGD on MNIST went from 12 to 15 ms with a floor that was 10^6 times
// too small to matter). With other terms beside it, one term's floor is
// still valid but rarely the better bound.
void compose_access::attach_floor(composition& c, const std::vector<compose_term>& terms,
                                  double delta_hint) {
  if (terms.size() != 1 || !terms[0].delta_floor || c.is_exact()) return;
  const auto& f = terms[0].delta_floor;
  const std::int64_t n = terms[0].times;
  const double eps_grid = c.epsilon(delta_hint).lower;
  if (std::isfinite(eps_grid) && !(f(eps_grid, n) > 0.5 * delta_hint)) return;
  c.delta_floor_ = [f, n](double eps) { return f(eps, n); };
}

composition compose_access::assemble(side_result& pess, side_result& opt,
                                     const std::vector<compose_term>& terms, bool asym, double h,
                                     int refinements) {
  composition c;
  c.grids_for_build().pess = std::move(pess.fwd);
  c.grids_for_build().opt = std::move(opt.fwd);
  c.grids_for_build().pess_t = std::move(pess.fwd_t);
  c.grids_for_build().opt_t = std::move(opt.fwd_t);
  if (asym) {
    c.grids_for_build().inv_pess = std::move(pess.inv);
    c.grids_for_build().inv_opt = std::move(opt.inv);
    c.grids_for_build().inv_pess_t = std::move(pess.inv_t);
    c.grids_for_build().inv_opt_t = std::move(opt.inv_t);
  }
  c.h_ = h;
  c.unbounded_ = unbounded_losses(terms);
  c.refinements_ = refinements;
  return c;
}

// The refinement loop: a first grid at the plan's step, then finer ones
// while the bracket at delta_hint is wider than the tolerance and each pass
// pays. When even the first grid does not fit the memory ceiling, the step
// grows (coarsened) and, when no step fits, the window goes (Chernoff only).
composition compose_access::refine(const grid_plan& plan, const compose_options& opt,
                                   const first_stage* fs, double delta_hint) {
  composition r;
  refine_state st;
  st.target = plan.h0;
  for (int ref = 0;; ++ref) {
    throw_if_cancelled("compose");
    const double h = plan.grid_h(st.target);
    if (ref > 0 && !finer_grid_fits(plan, opt, st, h, r)) {
      if (fs == nullptr && escalate_precision(opt, delta_hint, st, r)) continue;
      break;
    }
    std::optional<composition> next_also;
    composition next;
    try {
      next = one_pass(plan, opt, fs, h, ref, st, next_also);
    } catch (const grid_limit_error& e) {
      if (ref > 0) {
        if (r.grid_limit_ == composition::grid_limit::none)
          r.grid_limit_ = composition::grid_limit::refinement_stopped;
        break;  // the finer grid does not fit: keep the previous bracket
      }
      step_back_from_limit(plan, opt, e, h, st);
      // A first stage may coarsen too: its polygons are certified at any
      // step, only further apart (P7 of the perf scenarios, a 10^7-fold
      // subsampled Gaussian with q = 1e-6, whose one-term resolution needs
      // 6e6 points: [0.114, 3.108] on one coarsened grid, [0.141, 1.498]
      // staged). Without a window it hands on nothing the second stage can
      // use: the caller then composes on one grid.
      if (fs && st.windowless) throw;
      --ref;
      continue;
    } catch (const evaluation_error&) {
      if (ref == 0) throw;
      break;  // the finer grid does not fit: keep the previous bracket
    }
    double h_next = h;
    if (ref == 0 && fs == nullptr && opt.initial_step > 0)
      unclip_tilt(plan, opt, delta_hint, st, h_next, next);
    if (st.coarsened) next.grid_limit_ = composition::grid_limit::coarsened;
    if (st.windowless) next.grid_limit_ = composition::grid_limit::chernoff_only;
    const bool last = st.last_pass;
    const bool more = keep_pass(opt, delta_hint, h_next, ref, st, next, next_also, fs, r);
    if (last) break;
    if (!more && !(fs == nullptr && escalate_precision(opt, delta_hint, st, r))) break;
  }
  r.envelopes_ = std::make_shared<composition::beta_envelopes>();
  if (fs && fs->also && *fs->also_out)
    (*fs->also_out)->envelopes_ = std::make_shared<composition::beta_envelopes>();
  return r;
}

// The FFT's rounding in double is amplified about n-fold by the powers
// (~3 n u of the tilted masses' norm): long compositions at small deltas
// can stop there, short of the tolerance (subsampled-gaussian:sigma=0.8,
// q=1e-4,times=10^4 at delta 1e-9 stopped at 0.31%, its tilted FFT error
// 0.67% of delta; 0.07% in long double). When the refinement ends short of
// the tolerance and that rounding is half or more of an answer's error
// terms (fft_limited), the kept step is composed once more in long double
// (2048x less rounding, at a few times a double transform's cost); the
// pass stands only when narrower, and is the last (what it leaves is not
// the FFT's).
bool compose_access::escalate_precision(const compose_options& opt, double delta_hint,
                                        refine_state& st, const composition& r) {
  if (st.long_double || st.windowless || !r.grids().pess) return false;
  if (answer_width(r, opt, delta_hint) <= opt.tolerance) return false;
  if (!fft_limited(r, opt, delta_hint)) return false;
  st.long_double = true;
  st.last_pass = true;  // (what remains is not the FFT's: a finer step seldom pays)
  st.target = st.last_h;
  st.last_width = pass_width(r, opt, delta_hint);
  return true;
}

std::size_t compose_access::widest_tilted_window(const composition& c) {
  const detail::composition_grids& g = c.grids();
  std::size_t widest = 0;
  for (const auto* t : {&g.pess_t, &g.opt_t, &g.inv_pess_t, &g.inv_opt_t})
    if (*t) widest = std::max(widest, (*t)->size());
  return widest;
}

bool compose_access::tilt_clipped(const composition& c) {
  const detail::composition_grids& g = c.grids();
  for (const auto* t : {&g.pess_t, &g.opt_t, &g.inv_pess_t, &g.inv_opt_t})
    if (*t && (*t)->tilt_clipped()) return true;
  return false;
}

// A first step planned from another composition's widths (initial_step:
// compose_for_queries' deltas) can be too fine for the tilted window to fit
// the cap; the tilted mass outside the plain window is then all error
// ('subsampled-gaussian:sigma=1,q=0.0001,sampling=truncated-poisson,
// max-batch=8,dataset-size=60000,times=100000 --eps 2.81946' read [9.45e-8,
// 1.06e-7] on 2.4 million points). Up to two steps 2x coarser are tried,
// and the narrower pass stands.
void compose_access::unclip_tilt(const grid_plan& plan, const compose_options& opt,
                                 double delta_hint, const refine_state& st, double& h,
                                 composition& next) {
  for (int i = 0; i < 2 && tilt_clipped(next); ++i) {
    const double coarser = plan.grid_h(2.0 * h);
    if (!(coarser > h)) return;
    std::optional<composition> unused;
    composition alt;
    try {
      alt = one_pass(plan, opt, nullptr, coarser, 0, st, unused);
    } catch (const grid_limit_error&) {
      return;
    } catch (const evaluation_error&) {
      return;
    }
    if (!(pass_width(alt, opt, delta_hint) < pass_width(next, opt, delta_hint))) return;
    next = std::move(alt);
    h = coarser;
  }
}

// Refinements stop before a grid of max_auto_grid points or one past the
// memory ceiling: the bracket of the previous pass stands (it is valid,
// only wider than asked for).
bool compose_access::finer_grid_fits(const grid_plan& plan, const compose_options& opt,
                                     const refine_state& st, double h, composition& r) {
  const double next = static_cast<double>(st.last_size) * st.last_h / h;
  if (next > static_cast<double>(opt.max_auto_grid)) return false;
  if (!fits_memory(opt, plan.term_points(h), next) || !tilt_fits(opt, plan, st, h, r)) {
    if (r.grid_limit_ == composition::grid_limit::none)
      r.grid_limit_ = composition::grid_limit::refinement_stopped;
    return false;
  }
  return true;
}

// A tilted composition's window is wider than the plain one's; at a step
// where it no longer fits the window's memory cap (with the transform
// length's rounding up, as compose_grid's window_for allows), the tilted
// measure's mass outside the plain window is all error, and the finer pass
// reads wider than the kept one (sigma 0.8, q = 1e-4, 10^4 steps, --eps
// 0.2466: a pass of 2.4 million points, ~2 s, for a wider bracket). No
// finer pass then.
bool compose_access::tilt_fits(const compose_options& opt, const grid_plan& plan,
                               const refine_state& st, double h, const composition& r) {
  const auto& tilted = r.grids().pess_t;
  const std::int64_t cap = window_cap(opt, plan.term_points(h));
  if (!tilted || cap == 0) return true;
  const double next = static_cast<double>(tilted->size()) * st.last_h / h;
  return next <= detail::window_points_within(static_cast<double>(cap));
}

// One grid pass at step h: both sides, assembled (and the variant's when a
// first stage asks for one).
composition compose_access::one_pass(const grid_plan& plan, const compose_options& opt,
                                     const first_stage* fs, double h, int ref,
                                     const refine_state& st, std::optional<composition>& also) {
  std::vector<std::int64_t> times;
  for (const auto& t : plan.terms) times.push_back(t.times);
  grid_pass gp{plan,          h,  {&times}, window_cap(opt, plan.term_points(h)),
               st.windowless, fs, opt,      st.long_double};
  if (fs && fs->also) gp.variants.push_back(fs->also);
  auto [ps, os] = run_sides(gp);
  if (fs && fs->also) also = assemble(ps[1], os[1], plan.terms, plan.asym, h, ref);
  return assemble(ps[0], os[0], plan.terms, plan.asym, h, ref);
}

// Even the first grid does not fit: a coarser one does (every grid step
// gives certified bounds; a coarse one only looser ones). The step grows
// with the excess; grid_h cannot pass the atoms' span. Throws e again when
// nothing is left to try.
void compose_access::step_back_from_limit(const grid_plan& plan, const compose_options& opt,
                                          const grid_limit_error& e, double h, refine_state& st) {
  const double grown = plan.grid_h(st.target * std::max(2.0, 1.25 * e.needed / e.limit));
  // A coarser step that did not shrink the need (every term already one or
  // two atoms wide: the composed support grows with the repetitions, not
  // with 1/h) will not fit at any step; one wider than every term's loss
  // range keeps no information.
  const bool shrinking = e.needed < 0.9 * st.last_need && grown <= widest_loss_range(plan.terms);
  st.last_need = e.needed;
  if (++st.coarsenings <= 40 && grown > h && shrinking) {
    st.target = grown;
    st.coarsened = true;
  } else if (!st.windowless) {
    // No grid step makes the composed window fit (its width in loss units
    // grows like sqrt(n), and an atomic law's step stops at its atoms'
    // span): Chernoff bounds alone, on the finest grid tried.
    st.windowless = true;
    if (plan.term_points(plan.grid_h(plan.h0)) <= term_points_limit(opt)) st.target = plan.h0;
  } else {
    throw e;
  }
}

// Takes a pass's composition into r when it is the narrower bracket, and
// sets the next step; false when the refinement is over.
bool compose_access::keep_pass(const compose_options& opt, double delta_hint, double h, int ref,
                               refine_state& st, composition& next,
                               std::optional<composition>& next_also, const first_stage* fs,
                               composition& r) {
  const interval e = next.epsilon(delta_hint);
  if (opt.trace) {
    char line[160];
    std::snprintf(line, sizeof line, "ref %d h=%g N=%zu eps=[%.9g, %.9g]", ref, h,
                  next.grids().pess->size(), e.lower, e.upper);
    opt.trace(line);
  }
  // A finer grid can widen the bracket when the error bounds of the
  // discretized masses dominate (the pessimistic split divides the law's
  // rounding by e^h - 1; booked as shifts it costs about h times that, but
  // many terms can still reach the floor; before the shift channel the
  // subsampled Gaussian sigma = 5, q = 0.001 x 10^5 went from 0.9% to
  // 1.6%): both passes are certified, the narrower one stands.
  // (passes compare by the absolute epsilon width, which falls with the
  // upper end also where the lower end is 0; with delta queries, by the
  // widest relative bracket)
  const double w = answer_width(next, opt, delta_hint);
  const double width = pass_width(next, opt, delta_hint);
  if (ref > 0 && std::isfinite(st.last_width) && !(width < st.last_width)) return false;
  const double prev_h = st.last_h, prev_width = st.last_width;
  r = std::move(next);
  if (fs && fs->also) *fs->also_out = std::move(next_also);
  st.last_size = r.grids().pess->size();
  st.last_h = h;
  if (w <= opt.tolerance || ref >= opt.max_refinements) return false;
  // A lower bound of +inf is certified (the mass at +inf alone exceeds
  // delta_hint): no grid makes the answer finite, so stop refining (unless
  // a delta asked for at an epsilon still needs a finer grid).
  if (std::isinf(e.lower) && opt.delta_at_eps.empty()) return false;
  // A finer grid no longer helps when the width is set by the error floor
  // (FFT rounding ~1e-16 in delta): stop once a pass fails to cut it by a
  // quarter.
  if (ref > 0 && std::isfinite(width) && width > 0.75 * prev_width) return false;
  st.last_width = width;
  // Jump straight to the step that should meet the tolerance: the width
  // shrinks like h^p, p = 2 for the second-order discretizations, p = 1
  // where the optimistic side must move atoms off the grid (30 Laplace
  // terms of distinct scales: each top atom sits on its own term's grid,
  // but a term's bottom atom only when its span is a multiple of h). After
  // two passes p is measured.
  double order = 2.0;
  if (ref > 0 && std::isfinite(prev_width) && width > 0 && prev_width > width && prev_h > h)
    order = std::clamp(std::log(prev_width / width) / std::log(prev_h / h), 1.0, 2.0);
  double factor = 0.5;
  if (std::isfinite(w) && w > 0 && (e.lower > 0 || !opt.delta_at_eps.empty()))
    factor = std::clamp(0.8 * std::pow(opt.tolerance / w, 1.0 / order), 0.1, 0.7);
  st.target = h * factor;
  return true;
}

composition compose_access::run(const std::vector<compose_term>& terms, const compose_options& opt,
                                const first_stage* fs) {
  const std::vector<std::int64_t>* also = fs ? fs->also : nullptr;
  if (fs && (opt.max_refinements != 0 || opt.method != compose_method::pld ||
             (also && (also->size() != terms.size() || !fs->also_out)))) {
    throw std::logic_error(
        "compose_access::run: a first stage is one pass of method pld, a variant has one count per "
        "term and an output");
  }
  check_compose_inputs(terms, opt);
  // delta_hint = 0 (an epsilon at delta = 0 is set by the loss support, not
  // by the grid's accuracy) tunes the grid at the default 1e-5 instead.
  const double delta_hint = opt.delta_hint > 0 ? std::max(opt.delta_hint, 1e-300) : 1e-5;
  if (opt.method != compose_method::pld) {
    composition r;
    r.exact_ = try_exact(terms);
    if (r.exact_) {
      r.grids_for_build().lattice = exact_lattice(terms);
      r.exact_rel_ = closed_form_rounding(*r.exact_, terms);
      return r;
    }
    if (opt.method == compose_method::exact) {
      throw std::invalid_argument(
          "compose(method=exact): these specs have no closed-form composition (use pld or auto)");
    }
  }
  // (a staged bracket with no finite upper end, from degenerate
  // near-identity terms, is no answer: the one-grid path decides or refuses)
  if (!fs) {
    if (auto staged = compose_staged(terms, opt, delta_hint)) return std::move(*staged);
  }
  refuse_losses_beyond_700(terms);
  return refine(plan_grid(terms, opt, tuning_delta(terms, delta_hint)), opt, fs, delta_hint);
}
}  // namespace detail

composition compose(const std::vector<spec>& specs, const compose_options& opt) {
  std::vector<compose_term> terms;
  for (const auto& s : specs) terms.push_back(make_term(s));
  return compose_terms(terms, opt);
}

const detail::composition_grids& composition::grids() const {
  static const detail::composition_grids none;
  return grids_ ? *grids_ : none;
}

// (copy on write: a composition under construction may share its grids
// with a copy taken earlier)
detail::composition_grids& composition::grids_for_build() {
  if (!grids_) {
    grids_ = std::make_shared<detail::composition_grids>();
  } else if (grids_.use_count() > 1) {
    grids_ = std::make_shared<detail::composition_grids>(*grids_);
  }
  return *grids_;
}

bool composition::symmetric() const { return !grids().inv_pess.has_value(); }

std::size_t composition::grid_size() const { return grids().pess ? grids().pess->size() : 0; }

// Each orientation's bound is the better of the plain and the tilted
// composition of the same grids (both are certified); the composition's
// delta is the larger of the two orientations'.
double composition::delta_up(double eps) const {
  auto up = [eps](const composed_pld& c, const std::optional<composed_pld>& t) {
    const double d = c.delta_upper(eps);
    return t ? std::min(d, t->delta_upper(eps)) : d;
  };
  double d = up(*grids().pess, grids().pess_t);
  if (grids().inv_pess) d = std::max(d, up(*grids().inv_pess, grids().inv_pess_t));
  return d;
}

double composition::delta_lo(double eps) const {
  auto lo = [eps](const composed_pld& c, const std::optional<composed_pld>& t) {
    const double d = c.delta_lower(eps);
    return t ? std::max(d, t->delta_lower(eps)) : d;
  };
  double d = lo(*grids().opt, grids().opt_t);
  if (grids().inv_opt) d = std::max(d, lo(*grids().inv_opt, grids().inv_opt_t));
  if (delta_floor_) d = std::max(d, delta_floor_(eps));
  // (below 1e-290 the subnormal range leaves no relative precision to
  // certify: a single subsampled Gaussian step read delta(10.18) >= 3.6e-320
  // against the truth 4.05e-322)
  return d < 1e-290 ? 0.0 : d;
}

interval composition::delta(double eps) const {
  if (std::isnan(eps)) detail::throw_domain("composition::delta", "eps", eps, "must not be NaN");
  // (a single f_{eps,delta} is its own closed form; k-folds use the lattice)
  if (grids().lattice && !std::holds_alternative<eps_delta>(exact_->get())) {
    return {grids().lattice->delta_lower(eps), grids().lattice->delta_upper(eps)};
  }
  if (exact_) return exact_form().delta(eps);
  // Unbounded losses: the truth is positive at every eps; where the upper
  // bound underflowed to 0, the smallest positive double is still above it.
  const double up = delta_up(eps);
  return {delta_lo(eps),
          (up == 0.0 && unbounded_) ? std::numeric_limits<double>::denorm_min() : up};
}

interval composition::epsilon(double delta) const {
  detail::require_in(delta, 0.0, 1.0, "composition::epsilon", "delta");
  if (exact_) {
    if (grids().lattice && !std::holds_alternative<eps_delta>(exact_->get())) {
      return {solve_eps([&](double e) { return grids().lattice->delta_lower(e); }, delta, false),
              solve_eps([&](double e) { return grids().lattice->delta_upper(e); }, delta, true)};
    }
    return exact_form().epsilon(delta);
  }
  // delta = 0 with an unbounded loss: no finite eps (the grid's upper bound
  // underflows to 0 far out, but the truth stays positive).
  if (delta == 0.0 && unbounded_)
    return {solve_eps([&](double e) { return delta_lo(e); }, delta, false), kInf};
  return {solve_eps([&](double e) { return delta_lo(e); }, delta, false),
          solve_eps([&](double e) { return delta_up(e); }, delta, true)};
}

namespace {

// Sorts [first, last) under comp when it is made of a few monotone runs (a
// grid's lines come in eps order, one run per orientation): each run is put
// in order (reversed if it runs the other way) and the runs are merged.
// Otherwise, or beyond 8 runs, std::sort.
template <class It, class Comp>
void sort_runs(It first, It last, Comp comp) {
  std::vector<It> starts;
  for (It i = first; i != last;) {
    starts.push_back(i);
    It j = std::next(i);
    if (j != last && comp(*j, *i)) {  // descending: extend while strictly so, then reverse
      while (j != last && comp(*j, *std::prev(j))) ++j;
      std::reverse(i, j);
    } else {
      while (j != last && !comp(*j, *std::prev(j))) ++j;
    }
    i = j;
    if (starts.size() > 8) {
      std::sort(first, last, comp);
      return;
    }
  }
  for (std::size_t r = 1; r < starts.size(); ++r) {
    const It end = r + 1 < starts.size() ? starts[r + 1] : last;
    std::inplace_merge(first, starts[r], end, comp);
  }
}

// max_k (c_k - e^{eps_k} a) over many lines, for many a. The upper hull of
// the lines is built once (O(n log n)); a query finds its hull segment by
// binary search (or, with a hint, by stepping from the previous query's)
// and evaluates the few hull lines around it with the same expression a
// direct scan over all lines uses. Lines whose slope e^{eps}
// overflows matter only for a < e^{-709}; such a (and a = 0) are answered
// by the direct scan.
class line_max {
 public:
  line_max(std::vector<double> eps, std::vector<double> c)
      : eps_(std::move(eps)), c_(std::move(c)) {
    // slopes -e^{eps}, each computed once (e^{eps} a instead of e^{eps + log a}
    // at a query: no transcendental per line evaluated, and no rounding of
    // log a amplified by |eps|)
    s_.resize(c_.size());
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < c_.size(); ++i) {
      // an intercept of +inf (or NaN) is a line above everything: the
      // maximum is +inf (a -inf line is never the maximum: dropped)
      if (std::isnan(c_[i]) || c_[i] == std::numeric_limits<double>::infinity()) vacuous_ = true;
      s_[i] = std::exp(std::min(eps_[i], 709.0));
      if (std::isfinite(c_[i]) && eps_[i] < 709.0) idx.push_back(i);
    }
    // slope -e^{eps}: steepest first; equal slopes keep the higher intercept
    const auto steeper = [&](std::size_t x, std::size_t y) {
      return eps_[x] > eps_[y] || (eps_[x] == eps_[y] && c_[x] > c_[y]);
    };
    sort_runs(idx.begin(), idx.end(), steeper);
    for (std::size_t i : idx) {
      if (!hull_.empty() && eps_[hull_.back()] == eps_[i]) continue;
      const double si = s_[i];
      while (!hull_.empty()) {
        const std::size_t last = hull_.back();
        const double sl = s_[last];
        // the flatter new line overtakes `last` at x; `last` is useless if
        // that happens before `last` overtakes its predecessor
        const double x = (c_[last] - c_[i]) / (sl - si);
        if (std::isnan(x) || x <= (breaks_.empty() ? 0.0 : breaks_.back())) {
          hull_.pop_back();
          if (!breaks_.empty()) breaks_.pop_back();
          continue;
        }
        breaks_.push_back(x);
        break;
      }
      hull_.push_back(i);
    }
  }

  // The maximum at a, and (via err) a bound on what the hull's rounding
  // could have missed. hint (optional): the hull segment of the previous
  // query, for sweeps in increasing a (found by stepping, not a binary search).
  double at(double a, double* err, std::size_t* hint = nullptr) const {
    if (err) *err = 0.0;
    if (vacuous_) return std::numeric_limits<double>::infinity();
    double best = -std::numeric_limits<double>::infinity(), scale = 0.0;
    auto eval = [&](std::size_t k) {
      const double t = a > 0 ? s_[k] * a : 0.0;
      const double v = c_[k] - t;
      if (v > best) {
        best = v;
        scale = std::fabs(c_[k]) + t;
      }
    };
    if (!(a > 1e-300) || hull_.empty()) {
      for (std::size_t k = 0; k < c_.size(); ++k) eval(k);
    } else {
      // hull_[i] is the maximum on [breaks_[i-1], breaks_[i]]; i = the first
      // break above a
      std::size_t i;
      if (hint && *hint <= breaks_.size() && (*hint == 0 || breaks_[*hint - 1] <= a)) {
        i = *hint;
        while (i < breaks_.size() && breaks_[i] <= a) ++i;
      } else {
        i = static_cast<std::size_t>(std::upper_bound(breaks_.begin(), breaks_.end(), a) -
                                     breaks_.begin());
      }
      if (hint) *hint = i;
      const std::size_t lo = i >= 2 ? i - 2 : 0, hi = std::min(hull_.size() - 1, i + 2);
      for (std::size_t k = lo; k <= hi; ++k) eval(hull_[k]);
    }
    if (err) *err = 8 * std::numeric_limits<double>::epsilon() * scale;
    return best;
  }

  // Where the maximizing line changes (ascending; may extend beyond [0, 1]).
  const std::vector<double>& breaks() const { return breaks_; }

 private:
  std::vector<double> eps_, c_, s_;  // s_: e^{eps} (capped at e^709; lines beyond are dropped)
  std::vector<std::size_t> hull_;    // indices into eps_/c_, steepest first
  std::vector<double> breaks_;       // breaks_[i]: where hull_[i+1] overtakes hull_[i]
  bool vacuous_ = false;
};

// The lower convex envelope of points (a_i, v_i) with a_i covering 0 and 1
// (curve::from_points), evaluated by linear interpolation with a margin for
// its rounding. If every v_i >= f(a_i) for a convex f, the envelope is >= f
// (chords of a convex function lie above it).
class chord_hull {
 public:
  explicit chord_hull(curve c) : c_(std::move(c)) {}
  // hint (optional): the index found for the previous, smaller a (a sweep
  // steps from it; it is used only when it is still below a).
  double at(double a, std::size_t* hint = nullptr) const {
    const auto& x = c_.alpha();
    const auto& y = c_.beta();
    std::size_t i;
    if (hint && *hint < x.size() && (*hint == 0 || x[*hint - 1] < a)) {
      i = *hint;
      while (i < x.size() && x[i] < a) ++i;
    } else {
      i = static_cast<std::size_t>(std::lower_bound(x.begin(), x.end(), a) - x.begin());
    }
    if (hint) *hint = i;
    if (i < x.size() && x[i] == a) return y[i];
    if (i == 0 || i == x.size()) return std::numeric_limits<double>::infinity();  // outside [0, 1]
    const double t = (a - x[i - 1]) / (x[i] - x[i - 1]);
    const double v = y[i - 1] + t * (y[i] - y[i - 1]);
    return v + 4 * std::numeric_limits<double>::epsilon() *
                   std::max(std::fabs(y[i - 1]), std::fabs(y[i]));
  }

 private:
  curve c_;
};

}  // namespace

// lower: f(a) >= max over the pessimistic grids' eps of 1 - delta_up(eps) -
// e^eps a (every eps gives a valid line; delta_up takes both orientations).
// upper: f(a) <= the optimistic side's lines (beta_from_lower_delta), the
// smaller of the two orientations when there are two.
// With two orientations each upper envelope bounds its own orientation's
// curve, so f = min{F, F^-1}** <= min(U_1, U_2), and (f being convex) also
// <= the convex envelope of min(U_1, U_2): it is taken through the points
// where either envelope bends or the two cross, which is exact for
// piecewise-linear U_1, U_2. Near the crossing of a subsampled mechanism's
// two orientations this is what makes the upper bound tight.
struct composition::beta_envelopes {
  std::once_flag built;
  std::optional<line_max> lower;
  std::vector<line_max> upper;
  std::optional<chord_hull> upper_hull;

  // hints: one per envelope, for sweeps in increasing a (line_max::at)
  double upper_at(double a, std::vector<std::size_t>* hints = nullptr) const {
    if (hints) hints->resize(upper.size(), 0);
    double hi = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < upper.size(); ++k) {
      const line_max& u = upper[k];
      double err = 0.0;
      const double v = u.at(a, &err, hints ? &(*hints)[k] : nullptr);
      hi = std::min(hi, std::clamp(v + err, 0.0, 1.0 - a));
    }
    return hi;
  }

  // Where a sweep over increasing a stands in each envelope.
  struct sweep {
    std::size_t lower = 0, hull = 0;
    std::vector<std::size_t> upper;
  };
  // beta(a) bracketed from the envelopes (s: optional sweep hints).
  interval beta_at(double a, sweep* s) const {
    const double lo =
        std::min(std::max(0.0, lower->at(a, nullptr, s ? &s->lower : nullptr)), 1.0 - a);
    double hi = upper_at(a, s ? &s->upper : nullptr);
    if (upper_hull) hi = std::min(hi, std::max(0.0, upper_hull->at(a, s ? &s->hull : nullptr)));
    return {lo, std::max(hi, lo)};
  }
};

namespace {

// The lines 1 - delta_up(eps) - e^eps a at the pessimistic grids' eps
// values (both orientations; delta_up takes the larger delta of the two).
line_max tangent_lines(const composed_pld& pess, const composed_pld* inv_pess, double h,
                       const std::function<double(double)>& delta_up) {
  std::vector<double> eps, c;
  for (const composed_pld* p : {&pess, inv_pess}) {
    if (!p) continue;
    for (std::size_t j = 0; j < p->size(); ++j) {
      const double e = p->lo() + static_cast<double>(j) * p->h();
      eps.push_back(e);
      c.push_back(1.0 - delta_up(e));
    }
  }
  // Where the two orientations' profiles cross (eps = 0 for a pair that is
  // symmetric in law) the best line sits between grid points: add a fine
  // sweep of eps around 0 (any eps gives a valid line).
  if (inv_pess) {
    const double step = h / 16;
    for (int k = -32; k <= 32; ++k) {
      eps.push_back(k * step);
      c.push_back(1.0 - delta_up(k * step));
    }
  }
  return line_max(std::move(eps), std::move(c));
}

// One orientation's upper envelope. With a tilted composition of the same
// grid, each grid interval takes the line pair (its two end points) of
// whichever composition bounds delta from below better there: the sup of
// 1 - delta_lower - e^eps a over an interval is at an end point for either
// composition alone, so any per-interval choice is valid (mixing the two
// compositions' end points within an interval would not be).
void upper_lines_of(const composed_pld& plain, const std::optional<composed_pld>& tilted,
                    std::vector<double>& ue, std::vector<double>& uc) {
  plain.upper_lines(ue, uc);
  if (!tilted) return;
  std::vector<double> te, tc;
  tilted->upper_lines(te, tc);
  // Both list their intervals' line pairs (k, k+1) in increasing eps on
  // one grid (same offset and step; the tilted window is often wider):
  // the same interval has bitwise the same end points in both.
  std::size_t m = 0;
  for (std::size_t k = 0; k + 1 < ue.size(); k += 2) {
    while (m + 1 < te.size() && te[m] < ue[k]) m += 2;
    if (m + 1 >= te.size()) break;
    if (te[m] == ue[k] && te[m + 1] == ue[k + 1] && tc[m] <= uc[k] && tc[m + 1] <= uc[k + 1]) {
      uc[k] = tc[m];
      uc[k + 1] = tc[m + 1];
    }
  }
}

line_max upper_envelope(const composed_pld& plain, const std::optional<composed_pld>& tilted) {
  std::vector<double> ue, uc;
  upper_lines_of(plain, tilted, ue, uc);
  return line_max(std::move(ue), std::move(uc));
}

// The alphas where min over the envelopes bends: every envelope's breaks,
// and on [as[i], as[i+1]] (where every envelope is affine) the crossing of
// the two smallest where the smallest changes (any point of min(U) is a
// valid chord end, so a missed crossing costs tightness only).
std::vector<double> bends_of_min(const std::vector<line_max>& up) {
  std::vector<double> as = {0.0, 1.0};
  for (const line_max& u : up)
    for (double x : u.breaks())
      if (x > 0 && x < 1) as.push_back(x);
  sort_runs(as.begin(), as.end(), std::less<double>());
  as.erase(std::unique(as.begin(), as.end()), as.end());
  const std::size_t n0 = as.size();
  std::vector<std::size_t> hint(up.size(), 0);
  auto argmin_at = [&](double a, std::vector<double>& vals) {
    std::size_t best = 0;
    vals.resize(up.size());
    for (std::size_t k = 0; k < up.size(); ++k) {
      vals[k] = up[k].at(a, nullptr, &hint[k]);
      if (vals[k] < vals[best]) best = k;
    }
    return best;
  };
  std::vector<double> v_prev, v_next;
  std::size_t k_prev = argmin_at(as[0], v_prev);
  for (std::size_t i = 0; i + 1 < n0; ++i) {
    const std::size_t k_next = argmin_at(as[i + 1], v_next);
    if (k_next != k_prev) {
      const double d0 = v_prev[k_prev] - v_prev[k_next], d1 = v_next[k_prev] - v_next[k_next];
      if (d0 < 0 && d1 > 0) {
        const double x = as[i] + (as[i + 1] - as[i]) * d0 / (d0 - d1);
        if (x > as[i] && x < as[i + 1]) as.push_back(x);
      }
    }
    k_prev = k_next;
    std::swap(v_prev, v_next);
  }
  return as;
}

}  // namespace

const composition::beta_envelopes& composition::envelopes() const {
  std::call_once(envelopes_->built, [&] {
    const auto& g = grids();
    envelopes_->lower.emplace(tangent_lines(*g.pess, g.inv_pess ? &*g.inv_pess : nullptr, h_,
                                            [this](double e) { return delta_up(e); }));
    envelopes_->upper.push_back(upper_envelope(*g.opt, g.opt_t));
    if (g.inv_opt) envelopes_->upper.push_back(upper_envelope(*g.inv_opt, g.inv_opt_t));
    if (envelopes_->upper.size() < 2) return;
    std::vector<curve::point> pts;
    std::vector<std::size_t> hints;
    for (double a : bends_of_min(envelopes_->upper))
      pts.push_back({a, envelopes_->upper_at(a, &hints)});
    try {
      envelopes_->upper_hull.emplace(
          curve::from_points(std::move(pts), curve::hull_policy::convexify));
    } catch (const std::invalid_argument&) {
      // (not a trade-off polygon after rounding: the envelopes alone stand)
    }
  });
  return *envelopes_;
}

namespace {
// The tangent-line polygon of one orientation: max_j (1 - delta_upper(eps_j)
// - e^{eps_j} a) over the grid's eps values (each line is a valid lower
// bound on that orientation's trade-off function).
// With stride > 1 only every stride-th eps (and the last) gives a line: the
// polygon is still a valid lower bound, lower by O((stride h)^2).
curve lower_polygon(const composed_pld& c, const std::optional<composed_pld>& tilted,
                    std::size_t stride) {
  std::vector<double> ds, ss;  // the lines' deltas and slopes
  auto line_at = [&](double e) {
    double d = c.delta_upper(e);
    if (tilted) d = std::min(d, tilted->delta_upper(e));
    ds.push_back(d);
    ss.push_back(std::exp(e));  // (beyond e = 709 the line is dropped: a slope of inf)
    return d;
  };
  auto line = [&](std::size_t j) { line_at(c.lo() + static_cast<double>(j) * c.h()); };
  const std::size_t n = c.size();
  for (std::size_t j = 0; j < n; j += stride) line(j);
  if (n > 0 && (n - 1) % stride != 0) line(n - 1);
  // delta_upper is certified beyond the window too (Chernoff bounds of the
  // mass past it; past the support's top, the mass at +inf alone): lines
  // there, at doubling distances from the window's edge, take the polygon's
  // mass at +inf, 1 - f(0), from the bound at the edge down to within 1e-40
  // of the mass at +inf. (A nested staged first stage, n >= stage_min^2 with
  // a remainder, left 1e-12 at +inf per 463-fold, more than delta over its
  // 10^8 copies: laplace:b=316227,times=100000000003 fell back to one grid,
  // 20 s for [2.48, 67.6].) They stop early so that the polygon's law does
  // not reach far beyond the window: its finite end is where the next
  // stage's grid must reach.
  const double edge = c.hi(), top = c.support_top();
  if (n > 0 && top > edge) {
    const double past = top + 2e-9 * std::max(1.0, std::fabs(top));
    double dist = c.h() * static_cast<double>(stride);
    for (int m = 0; m < 64; ++m, dist *= 2.0) {
      const double e = std::min(edge + dist, past);
      if (line_at(e) <= c.m_inf_upper() + 1e-40 || e >= past) break;
    }
  }
  return envelope_of_lines_delta(ds, ss);
}

// The forward orientation's lower polygon from a pass's pessimistic grids
// (composition::forward_lower_curve).
curve forward_lower_of(const composed_pld& pess, const std::optional<composed_pld>& pess_t,
                       const std::optional<composed_pld>& inv,
                       const std::optional<composed_pld>& inv_t, std::size_t stride) {
  const curve fwd = lower_polygon(pess, pess_t, stride);
  if (!inv) return fwd;
  // The inverse orientation's polygon G <= F^{-1} gives G^{-1} <= F: it is
  // what bounds F near a = 1 (the forward grid's lower tail ends there, and
  // its polygon reaches 0 before a = 1; for the inverse orientation that
  // would be a mass at +inf).
  // At a = 0 both are 1 minus the forward mass at +inf in exact arithmetic
  // (G's zero is that far below a = 1), but inverting G reads its zero
  // from an alpha, and 1 - 1e-19 is 1 in double: that mass was lost, and a
  // staged second stage built on the polygon had none at +inf, its delta
  // bounded by 0 at large eps
  // ('subsampled-gaussian:sigma=1.1,q=1e-9,times=10000000' tuned at delta
  // 1e-5 read delta <= 5e-324 at eps 1, against a true delta >= 3.8e-120,
  // max_statistic.hpp). The forward polygon's value at 0 caps the max.
  return capped_at_zero(pointwise_max(fwd, inverse(lower_polygon(*inv, inv_t, stride))),
                        fwd.one_minus_beta()[0]);
}

}  // namespace

curve composition::forward_lower_curve(std::size_t stride) const {
  if (stride < 1)
    detail::throw_domain("forward_lower_curve", "stride", static_cast<long long>(stride),
                         "must be >= 1");
  if (exact_) return to_curve_exact(*exact_);
  return forward_lower_of(*grids().pess, grids().pess_t, grids().inv_pess, grids().inv_pess_t,
                          stride);
}

curve composition::forward_upper_curve() const {
  if (exact_) return to_curve_exact(*exact_);
  std::vector<double> e, c;
  // (with the tilted composition where it bounds delta from below better:
  // a staged first stage is tilted where the second stage looks)
  upper_lines_of(*grids().opt, grids().opt_t, e, c);
  // F(a) <= min(1 - a, max_k (c_k - e^{eps_k} a)) (beta_from_lower_delta):
  // every line must be kept, so none may have an infinite slope or intercept
  std::vector<double> s, cc;
  s.reserve(e.size());
  cc.reserve(e.size());
  for (std::size_t k = 0; k < e.size(); ++k) {
    if (!(e[k] < 700.0) || !std::isfinite(c[k]))
      throw evaluation_error("compose: a staged term's upper polygon has a loss beyond 700");
    // (the two intervals beside a grid loss give two lines of one slope, in
    // a row: the envelope keeps the higher, so only that one is passed on)
    if (k > 0 && e[k] == e[k - 1]) {
      cc.back() = std::max(cc.back(), c[k]);
      continue;
    }
    s.push_back(std::exp(e[k]));
    cc.push_back(c[k]);
  }
  return envelope_of_lines(std::move(cc), std::move(s));
}

const char* composition::grid_limit_name() const {
  switch (grid_limit_) {
    case grid_limit::refinement_stopped:
      return "refinement_stopped";
    case grid_limit::coarsened:
      return "coarsened";
    case grid_limit::chernoff_only:
      return "chernoff_only";
    case grid_limit::none:
      break;
  }
  return "none";
}

interval composition::beta(double alpha) const {
  detail::check_alpha(alpha, "composition::beta");
  if (exact_) return exact_form().beta(alpha);
  return envelopes().beta_at(alpha, nullptr);
}

std::vector<interval> composition::beta(const std::vector<double>& alphas) const {
  std::vector<double> lower(alphas.size()), upper(alphas.size());
  beta(alphas.data(), alphas.size(), lower.data(), upper.data());
  std::vector<interval> out(alphas.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {lower[i], upper[i]};
  return out;
}

void composition::beta(const double* alphas, std::size_t n, double* lower, double* upper) const {
  // (the message comes from check_alpha; the test is inline: a call per alpha
  // was 3% of a 10^6-alpha sweep)
  for (std::size_t i = 0; i < n; ++i)
    if (!(alphas[i] >= 0.0 && alphas[i] <= 1.0))
      detail::check_alpha(alphas[i], "composition::beta");
  auto put = [&](std::size_t i, interval r) { lower[i] = r.lower, upper[i] = r.upper; };
  if (exact_) {
    const detail::closed_form f = exact_form();
    for (std::size_t i = 0; i < n; ++i) put(i, f.beta(alphas[i]));
    return;
  }
  // The hints carry each envelope's segment from one alpha to the next: an
  // increasing sweep steps instead of searching (any order stays correct,
  // line_max::at checks a hint before using it), with the same answers as
  // beta(alpha) one at a time. A long array is swept in two halves on two
  // threads (the envelopes are immutable once built; each half keeps its
  // own hints): the answers are the same as one sweep's.
  const beta_envelopes& env = envelopes();
  auto sweep_range = [&](std::size_t from, std::size_t to) {
    beta_envelopes::sweep s;
    for (std::size_t i = from; i < to; ++i) put(i, env.beta_at(alphas[i], &s));
    return 0;
  };
  constexpr std::size_t kSplitAbove = std::size_t{1} << 16;
  if (n < kSplitAbove)
    sweep_range(0, n);
  else
    run_pair([&] { return sweep_range(0, n / 2); }, [&] { return sweep_range(n / 2, n); });
}

interval composition::mu() const {
  interval r = mu_of_grids();
  // (the terms' caps are certified upper bounds too: a subsampled Gaussian's
  // grids carry tail mass at +inf, which leaves no finite mu of their own)
  if (gdp_cap_ < r.upper) r.upper = std::max(r.lower, gdp_cap_);
  return r;
}

interval composition::mu_of_grids() const {
  if (exact_) {
    // polygons (f_{eps,delta}, the k-fold of f_{eps,0}): exact at the
    // vertices, two quantiles each (up to 1e5 of them: a 1e7-fold polygon
    // took 2 s; the bound search below takes milliseconds)
    const curve* poly = std::get_if<curve>(&exact_->get());
    if (std::holds_alternative<eps_delta>(exact_->get()) || (poly && poly->size() <= 100000)) {
      try {
        return exact_form().mu();
      } catch (const evaluation_error&) {
        // (eps beyond the polygons' range: the bound search below)
      }
    }
    if (std::holds_alternative<gaussian>(exact_->get())) return exact_form().mu();
  }
  auto dup = [&](double e) {
    if (grids().lattice) return grids().lattice->delta_upper(e);
    return exact_ ? profile_delta(*exact_, e) : delta_up(e);
  };
  auto dlo = [&](double e) {
    if (grids().lattice) return grids().lattice->delta_lower(e);
    return exact_ ? profile_delta(*exact_, e) : delta_lo(e);
  };
  // Mass at +inf in the truth (certified by the lower side): no finite mu
  // exists, since G_mu(0) = 1 > f(0).
  if (dlo(1e300) > 0) return {kInf, kInf};
  if (dup(1e300) > 0) {
    // mass at +inf (or a bound that does not vanish): no finite mu certified.
    double best = 0.0;
    for (double e = 0.0; e < 60; e += 0.25) best = std::max(best, gdp_mu(e, dlo(e)));
    return {best, kInf};
  }
  // eps range where delta_up is above double underflow.
  double emax = 1.0;
  while (dup(emax) > 1e-300 && emax < 1e6) emax *= 2.0;
  // Beyond emax: delta_up(eps) <= delta_up(emax), and gdp_mu grows with
  // both arguments, so mu(eps) <= gdp_mu(top, delta_up(emax)) up to the top
  // of the composed support (delta = 0 above it). An unbounded loss has no
  // top: no grid certifies its tail, where the sup may be approached as eps
  // -> inf (a Poisson-subsampled Gaussian's is 1/sigma however small q;
  // 'subsampled-gaussian:sigma=1,q=1e-20 --mu' read [0, 2.47e-12]). Its
  // upper end is then the terms' cap alone (mu()).
  double tail_mu = 0.0;
  if (!exact_) {
    if (unbounded_) {
      tail_mu = kInf;
    } else {
      double top = grids().pess->support_top();
      if (grids().inv_pess) top = std::max(top, grids().inv_pess->support_top());
      tail_mu = emax < top ? gdp_mu(top, std::max(dup(emax), 1e-300)) : 0.0;
    }
  }
  // Branch and bound for sup_eps gdp_mu(eps, delta_up(eps)); on [a, b] the
  // value is at most gdp_mu(b, delta_up(a)) (gdp_mu grows with both).
  struct node {
    double bound, a, b;
    bool operator<(const node& o) const { return bound < o.bound; }
  };
  std::priority_queue<node> pq;
  double best = 0.0;  // a point value: lower estimate of the sup
  const int init = 64;
  for (int i = 0; i < init; ++i) {
    const double a = emax * i / init, b = emax * (i + 1) / init;
    pq.push({gdp_mu(b, dup(a)), a, b});
    best = std::max(best, gdp_mu(a, dup(a)));
  }
  double upper = kInf;
  for (int it = 0; it < 3000 && !pq.empty(); ++it) {
    node n = pq.top();
    upper = n.bound;
    if (n.bound <= best * (1 + 1e-7) + 1e-12) break;
    pq.pop();
    const double m = 0.5 * (n.a + n.b);
    best = std::max(best, gdp_mu(m, dup(m)));
    pq.push({gdp_mu(m, dup(n.a)), n.a, m});
    pq.push({gdp_mu(n.b, dup(m)), m, n.b});
  }
  if (!pq.empty()) upper = std::max(best, pq.top().bound);
  upper = std::max(upper, tail_mu);
  // lower bound: the same search on delta_lo at a few points around the argmax
  double lower = 0.0;
  for (int i = 0; i <= 400; ++i) {
    const double e = emax * i / 400.0;
    lower = std::max(lower, gdp_mu(e, dlo(e)));
  }
  lower = std::min(lower, upper);
  return {lower, upper};
}

curve composition::lower_curve(int points) const {
  std::vector<double> c, s;
  if (exact_) {
    if (!std::holds_alternative<gaussian>(exact_->get()) &&
        !std::holds_alternative<laplace>(exact_->get())) {
      return to_curve_exact(*exact_);
    }
    // tangent lines of a smooth family at `points` slopes
    for (int i = 0; i < points; ++i) {
      const double e = -20.0 + 40.0 * i / (points - 1);
      c.push_back(profile_delta(*exact_, e));
      s.push_back(std::exp(e));
    }
    return envelope_of_lines_delta(c, s);
  }
  for (const composed_pld* p : {&*grids().pess, grids().inv_pess ? &*grids().inv_pess : nullptr}) {
    if (!p) continue;
    for (std::size_t j = 0; j < p->size(); ++j) {
      const double e = p->lo() + static_cast<double>(j) * p->h();
      c.push_back(delta_up(e));
      s.push_back(std::exp(e));
    }
  }
  return envelope_of_lines_delta(c, s);
}

curve composition::upper_curve(int points) const {
  if (exact_ && !std::holds_alternative<gaussian>(exact_->get()) &&
      !std::holds_alternative<laplace>(exact_->get())) {
    return to_curve_exact(*exact_);
  }
  std::vector<curve::point> pts;
  for (int i = 0; i < points; ++i) {
    const double u = static_cast<double>(i) / (points - 1);
    const double a = u * u;  // denser near 0
    pts.push_back({a, std::min(1.0 - a, beta(a).upper)});
  }
  pts.push_back({1.0, 0.0});
  return curve::from_points(std::move(pts), curve::hull_policy::convexify);
}

}  // namespace fdp

namespace fdp {
detail::closed_form composition::exact_form() const { return {*exact_, exact_rel_}; }
}  // namespace fdp
