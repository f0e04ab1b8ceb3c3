#include "fdp/budget/dpsgd.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "fdp/budget/subsample.hpp"
#include "fdp/core/error.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/loss_law.hpp"

namespace fdp {
namespace {

// The shortest decimal that reads back exactly: spec texts and messages
// show q=0.01024, not q=0.010240000000000001.
std::string fmt_exact(double x) { return detail::format_value(x); }

compose_term curve_term(const curve& c, std::int64_t times, const std::string& name) {
  compose_term t;
  t.closed = tradeoff(c);
  t.law = make_law(*t.closed);
  t.times = times;
  t.text = name;
  return t;
}

}  // namespace

sampling_scheme parse_sampling(const std::string& s) {
  if (s == "poisson") return sampling_scheme::poisson;
  if (s == "without-replacement" || s == "fixed-size") return sampling_scheme::without_replacement;
  if (s == "shuffle") return sampling_scheme::shuffle;
  throw std::invalid_argument("--sampling '" + s +
                              "' must be one of poisson, without-replacement, shuffle");
}

neighbour_relation parse_neighbours(const std::string& s) {
  if (s == "add-remove") return neighbour_relation::add_remove;
  if (s == "replace-one") return neighbour_relation::replace_one;
  throw std::invalid_argument("--neighbours '" + s + "' must be one of add-remove, replace-one");
}

std::string to_string(sampling_scheme s) {
  switch (s) {
    case sampling_scheme::poisson:
      return "poisson";
    case sampling_scheme::without_replacement:
      return "without-replacement";
    case sampling_scheme::shuffle:
      return "shuffle";
  }
  return "?";
}

std::string to_string(neighbour_relation n) {
  return n == neighbour_relation::add_remove ? "add-remove" : "replace-one";
}

std::string dpsgd_refusal(sampling_scheme s, neighbour_relation n) {
  if (s == sampling_scheme::shuffle) {
    return "shuffled fixed batches (each record used once per epoch) have no certified "
           "amplification in fdp: the Poisson analysis does not apply and shuffling can leak "
           "more than Poisson accounting says (Chua et al. 2024); use --sampling poisson if your "
           "implementation samples each record independently";
  }
  if (s == sampling_scheme::poisson && n == neighbour_relation::replace_one) {
    return "Poisson sampling under replace-one neighbours: fdp has no dominating pair it can "
           "certify for composition (the mixture pair (1-q)N(0)+qN(-1) vs (1-q)N(0)+qN(1) is "
           "not established; see Lebeda et al. 2024); use --neighbours add-remove";
  }
  if (s == sampling_scheme::without_replacement && n == neighbour_relation::add_remove) {
    return "fixed-size sampling without replacement under add-remove neighbours: no dominating "
           "pair is implemented; use --neighbours replace-one (DRS Thm 4.2) or Poisson sampling";
  }
  return "";
}

std::int64_t dpsgd_steps(double epochs, std::int64_t n, std::int64_t b) {
  detail::require(std::isfinite(epochs) && epochs > 0 && epochs <= 1e9, "dpsgd_steps", "epochs",
                  epochs, "must be in (0, 1e9]");
  detail::require(n >= 1, "dpsgd_steps", "dataset_size", static_cast<long long>(n), "must be >= 1");
  detail::require(b >= 1 && b <= n, "dpsgd_steps", "batch_size", static_cast<long long>(b),
                  "must be in [1, dataset_size]");
  const long double t =
      static_cast<long double>(epochs) * static_cast<long double>(n) / static_cast<long double>(b);
  const long double c = std::ceil(t - 1e-9L * t);  // 4687.5 -> 4688; 4688.0000000001 -> 4688
  if (c > 1e12L)
    detail::throw_domain("dpsgd_steps", "epochs", epochs, "gives more than 1e12 steps");
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(c));
}

double clt_mu_poisson(double q, double mu0, std::int64_t steps) {
  return q * std::sqrt(static_cast<double>(steps) * std::expm1(mu0 * mu0));
}

double clt_mu_uniform(double p, double mu0, std::int64_t steps) {
  const double v = std::exp(mu0 * mu0) * norm_cdf(1.5 * mu0) + 3.0 * norm_cdf(-0.5 * mu0) - 2.0;
  return std::sqrt(2.0) * p * std::sqrt(static_cast<double>(steps) * std::max(0.0, v));
}

dpsgd_report account_dpsgd(const dpsgd_config& c) {
  detail::require(c.q > 0 && c.q <= 1, "dpsgd", "q", c.q, "must be in (0, 1]");
  detail::require(std::isfinite(c.sigma) && c.sigma > 0, "dpsgd", "sigma", c.sigma,
                  "must be finite and > 0");
  detail::require(c.steps >= 1 && c.steps <= 1000000000000LL, "dpsgd", "steps",
                  static_cast<long long>(c.steps), "must be in [1, 1e12]");
  detail::require(c.delta > 0 && c.delta < 1, "dpsgd", "delta", c.delta, "must be in (0, 1)");
  detail::require(c.sensitivity == 0 || (std::isfinite(c.sensitivity) && c.sensitivity > 0),
                  "dpsgd", "sensitivity", c.sensitivity, "must be finite and > 0");
  const std::string why = dpsgd_refusal(c.sampling, c.neighbours);
  if (!why.empty()) throw std::invalid_argument("dpsgd: refused: " + why);
  const auto t0 = std::chrono::steady_clock::now();
  dpsgd_report r;
  r.sensitivity = c.sensitivity > 0 ? c.sensitivity
                                    : (c.neighbours == neighbour_relation::replace_one ? 2.0 : 1.0);
  const double mu0 = r.sensitivity / c.sigma;
  compose_options o;
  o.tolerance = c.tolerance;
  o.delta_hint = c.delta;
  if (c.sampling == sampling_scheme::poisson) {
    const std::string s = "subsampled-gaussian:sigma=" + fmt_exact(c.sigma) +
                          ",q=" + fmt_exact(c.q) + ",sensitivity=" + fmt_exact(r.sensitivity) +
                          ",times=" + std::to_string(c.steps);
    const composition comp = compose({parse_spec(s)}, o);
    r.epsilon = comp.epsilon(c.delta);
    if (c.gdp_summary) {
      r.mu = comp.mu();
      r.has_mu = true;
    }
    r.route =
        "Poisson sampling, add/remove neighbours: PLD of the pair (N(0,s^2), (1-q)N(0,s^2) + "
        "q N(D,s^2)) and its reverse, composed " +
        std::to_string(c.steps) + " times (" + s + ")";
    r.clt_mu = clt_mu_poisson(c.q, mu0, c.steps);
    r.clt_formula = "mu = q sqrt(T (e^{(D/sigma)^2} - 1))  (Bu, Dong, Long & Su 2020)";
  } else {
    // without replacement, replace-one: C_p(G_{mu0})^{(x)T} (DRS Thm 4.2 + Thm 3.2)
    const curve_bracket cp = subsample(tradeoff(gaussian(mu0)), c.q, 2000);
    const composition lo =
        compose_terms({curve_term(cp.lower, c.steps, "C_p(G) lower polygon")}, o);
    const composition up =
        compose_terms({curve_term(cp.upper, c.steps, "C_p(G) upper polygon")}, o);
    const interval el = lo.epsilon(c.delta), eu = up.epsilon(c.delta);
    r.epsilon = {std::min(eu.lower, el.upper), el.upper};
    if (c.gdp_summary) {
      const interval ml = lo.mu(), mu_up = up.mu();
      // C_p(G_{mu0}) >= G_{mu0} (DRS Thm 4.2), so the T-fold is >= G_{sqrt(T) mu0}:
      // a certified upper end where the polygons give none (q = 1, 4 steps,
      // sigma 1 read [3.9988, inf] for what is exactly G_4)
      const double cap = std::sqrt(static_cast<double>(c.steps)) * mu0;
      const double hi = std::min(ml.upper, cap);
      r.mu = {std::min(mu_up.lower, hi), hi};
      r.has_mu = true;
    }
    r.route =
        "fixed-size sampling without replacement (fraction p), replace-one neighbours: "
        "C_p(G_{D/sigma}) per step (DRS Thm 4.2) composed " +
        std::to_string(c.steps) + " times; the bracket is on that guarantee";
    r.clt_mu = clt_mu_uniform(c.q, mu0, c.steps);
    r.clt_formula =
        "mu = sqrt(2) p sqrt(T (e^{mu0^2} Phi(1.5 mu0) + 3 Phi(-0.5 mu0) - 2)), mu0 = D/sigma "
        "(Bu, Dong, Long & Su 2020)";
  }
  r.clt_epsilon = gdp_eps(r.clt_mu, c.delta);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace fdp
