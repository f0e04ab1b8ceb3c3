#include "fdp/mech/selection.hpp"

#include <algorithm>
#include <cmath>

#include "fdp/core/error.hpp"
#include "mech/quadrature.hpp"

namespace fdp::mech {

using fdp::detail::require;
using fdp::detail::require_finite_pos;

namespace detail {

void gauss_legendre_01(std::size_t n, std::vector<double>& nodes, std::vector<double>& weights) {
  nodes.assign(n, 0.0);
  weights.assign(n, 0.0);
  const double pi = 3.14159265358979323846;
  for (std::size_t i = 0; i < (n + 1) / 2; ++i) {
    // Newton's method on P_n from the classical initial guess.
    double x = std::cos(pi * (static_cast<double>(i) + 0.75) / (static_cast<double>(n) + 0.5));
    double dp = 1.0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1.0, p1 = x;
      for (std::size_t j = 2; j <= n; ++j) {
        const double jd = static_cast<double>(j);
        const double p2 = ((2.0 * jd - 1.0) * x * p1 - (jd - 1.0) * p0) / jd;
        p0 = p1;
        p1 = p2;
      }
      if (n == 1) {
        p1 = x;
        p0 = 1.0;
      }
      dp = static_cast<double>(n) * (x * p1 - p0) / (x * x - 1.0);
      const double dx = p1 / dp;
      x -= dx;
      if (std::fabs(dx) < 1e-16) break;
    }
    // recompute derivative at the converged root
    double p0 = 1.0, p1 = x;
    for (std::size_t j = 2; j <= n; ++j) {
      const double jd = static_cast<double>(j);
      const double p2 = ((2.0 * jd - 1.0) * x * p1 - (jd - 1.0) * p0) / jd;
      p0 = p1;
      p1 = p2;
    }
    dp = static_cast<double>(n) * (x * p1 - p0) / (x * x - 1.0);
    const double w = 2.0 / ((1.0 - x * x) * dp * dp);
    // map [-1, 1] -> [0, 1]
    nodes[i] = 0.5 * (1.0 - x);
    nodes[n - 1 - i] = 0.5 * (1.0 + x);
    weights[i] = weights[n - 1 - i] = 0.5 * w;
  }
  if (n == 1) {
    nodes[0] = 0.5;
    weights[0] = 1.0;
  }
}

neighbour_relation selection_neighbours(double sensitivity, bool monotone) {
  std::string t = "each utility may change by at most " + fmt_param(sensitivity) + " (l_inf)";
  if (monotone) t += ", all in the same direction (monotone, e.g. counting queries)";
  return {neighbour_relation::kind::linf, sensitivity, monotone, t};
}

}  // namespace detail

namespace {

void check_selection_params(const char* name, double eps, double sensitivity) {
  require_finite_pos(eps, name, "eps");
  require_finite_pos(sensitivity, name, "sensitivity");
}

std::size_t argmax_row(const double* u, const double* noise, std::size_t m) {
  std::size_t best = 0;
  double bv = u[0] + noise[0];
  for (std::size_t i = 1; i < m; ++i) {
    const double v = u[i] + noise[i];
    if (v > bv) {
      bv = v;
      best = i;
    }
  }
  return best;
}

std::vector<std::pair<std::string, std::string>> selection_params(double eps, double sens,
                                                                  bool monotone) {
  return {{"eps", detail::fmt_param(eps)},
          {"sensitivity", detail::fmt_param(sens)},
          {"monotone", monotone ? "1" : "0"}};
}

}  // namespace

std::vector<double> exponential_mechanism_probabilities(const std::vector<double>& utilities,
                                                        double lambda) {
  detail::check_answers_finite("exponential_mechanism_probabilities", utilities);
  require(std::isfinite(lambda) && lambda >= 0, "exponential_mechanism_probabilities", "lambda",
          lambda, "must be finite and >= 0");
  const double mx = *std::max_element(utilities.begin(), utilities.end());
  std::vector<double> p(utilities.size());
  double z = 0;
  for (std::size_t i = 0; i < p.size(); ++i) z += p[i] = std::exp(lambda * (utilities[i] - mx));
  for (auto& v : p) v /= z;
  return p;
}

std::vector<double> permute_and_flip_probabilities(const std::vector<double>& utilities,
                                                   double lambda) {
  detail::check_answers_finite("permute_and_flip_probabilities", utilities);
  require(std::isfinite(lambda) && lambda >= 0, "permute_and_flip_probabilities", "lambda", lambda,
          "must be finite and >= 0");
  const std::size_t m = utilities.size();
  require(m <= 4096, "permute_and_flip_probabilities", "utilities.size",
          static_cast<unsigned long>(m), "must be <= 4096");
  const double mx = *std::max_element(utilities.begin(), utilities.end());
  std::vector<double> pj(m);
  for (std::size_t i = 0; i < m; ++i) pj[i] = std::exp(lambda * (utilities[i] - mx));
  std::vector<double> x, w;
  detail::gauss_legendre_01(m / 2 + 1, x, w);
  // prod_{j != r}(1 - p_j t) = prod_all / (1 - p_r t): Gauss-Legendre nodes lie
  // strictly inside (0, 1) and p_r <= 1, so the divisor is positive. O(m) per node.
  std::vector<double> out(m, 0.0);
  for (std::size_t a = 0; a < x.size(); ++a) {
    const double t = x[a];
    double prod = 1.0;
    for (std::size_t j = 0; j < m; ++j) prod *= 1.0 - pj[j] * t;
    for (std::size_t r = 0; r < m; ++r) out[r] += w[a] * prod / (1.0 - pj[r] * t);
  }
  double total = 0;
  for (std::size_t r = 0; r < m; ++r) total += out[r] *= pj[r];
  for (auto& v : out) v /= total;  // total is 1 up to rounding
  return out;
}

// ------------------------------------------------------- exponential mech

exponential_mechanism::exponential_mechanism(double eps, double sensitivity, bool monotone)
    : eps_(eps), sensitivity_(sensitivity), monotone_(monotone) {
  check_selection_params("exponential", eps, sensitivity);
}

double exponential_mechanism::lambda() const {
  return eps_ / ((monotone_ ? 1.0 : 2.0) * sensitivity_);
}

std::vector<std::pair<std::string, std::string>> exponential_mechanism::params() const {
  return selection_params(eps_, sensitivity_, monotone_);
}

std::string exponential_mechanism::description() const {
  return std::string("outputs candidate r with probability proportional to exp(eps u_r / ") +
         (monotone_ ? "Du" : "(2 Du)") + ")";
}

std::string exponential_mechanism::reference() const {
  return "McSherry & Talwar 2007; Dwork & Roth 2014 Def. 3.4, Thm 3.10, Thm 3.11";
}

neighbour_relation exponential_mechanism::neighbours() const {
  return detail::selection_neighbours(sensitivity_, monotone_);
}

tradeoff exponential_mechanism::claim() const { return eps_delta(eps_, 0.0); }

std::string exponential_mechanism::accuracy() const {
  return std::string("Thm 3.11: P[u(M) <= OPT - (") + (monotone_ ? "" : "2 ") +
         "Du/eps)(ln(|R|/|R_OPT|) + t)] <= e^-t (exponential_mechanism_gap)";
}

std::vector<neighbour_pair> exponential_mechanism::exposing_pairs() const {
  const double s = sensitivity_;
  return {{{0, 0, 0, 0, 0}, {s, s, s, s, s}, "all utilities shift together"},
          {{0, 0}, {s, -s}, "two candidates move apart (non-monotone)"}};
}

output_shape exponential_mechanism::shape(std::size_t n) const {
  return {output_kind::categorical, 1, static_cast<std::uint64_t>(n)};
}

std::optional<std::vector<double>> exponential_mechanism::output_distribution(
    const std::vector<double>& answers) const {
  check_input(answers);
  return exponential_mechanism_probabilities(answers, lambda());
}

void exponential_mechanism::sample(const std::vector<double>& answers, rng_stream& rng,
                                   std::size_t count, std::int64_t* out) const {
  check_input(answers);
  std::vector<double> cum = exponential_mechanism_probabilities(answers, lambda());
  for (std::size_t i = 1; i < cum.size(); ++i) cum[i] += cum[i - 1];
  const double total = cum.back();
  const std::size_t last = cum.size() - 1;
  for (std::size_t s = 0; s < count; ++s) {
    const double u = rng.uniform() * total;
    const auto it = std::upper_bound(cum.begin(), cum.end(), u);
    out[s] = static_cast<std::int64_t>(std::min<std::size_t>(it - cum.begin(), last));
  }
}

// ------------------------------------------------------- report noisy max

report_noisy_max::report_noisy_max(double eps, double sensitivity, bool monotone)
    : eps_(eps), sensitivity_(sensitivity), monotone_(monotone) {
  check_selection_params("report-noisy-max", eps, sensitivity);
}

double report_noisy_max::scale() const { return (monotone_ ? 1.0 : 2.0) * sensitivity_ / eps_; }

std::vector<std::pair<std::string, std::string>> report_noisy_max::params() const {
  return selection_params(eps_, sensitivity_, monotone_);
}

std::string report_noisy_max::description() const {
  return "index of the largest u_r + Lap(b), b = " + detail::fmt_param(scale());
}

std::string report_noisy_max::reference() const {
  return "Dwork & Roth 2014 Prop. 3.9 (monotone counts, b = 1/eps); b = 2 Du/eps for general "
         "l_inf neighbours (Ding et al. CCS 2018, Alg. 5)";
}

neighbour_relation report_noisy_max::neighbours() const {
  return detail::selection_neighbours(sensitivity_, monotone_);
}

tradeoff report_noisy_max::claim() const { return eps_delta(eps_, 0.0); }

std::string report_noisy_max::accuracy() const {
  return "per-candidate noise bound: P[max_r |Lap_r| >= b ln(m/delta)] <= delta, so the "
         "reported candidate is within 2 b ln(m/delta) of OPT w.p. >= 1 - delta "
         "(laplace_accuracy_bound)";
}

std::vector<neighbour_pair> report_noisy_max::exposing_pairs() const {
  const double s = sensitivity_;
  if (monotone_) return {{{1, 1, 1, 1, 1}, {1 + s, 1, 1, 1, 1}, "one count grows"}};
  return {{{1, 1, 1, 1, 1}, {1 - s, 1 + s, 1 + s, 1 + s, 1 + s}, "DP-Sniper / StatDP row"}};
}

output_shape report_noisy_max::shape(std::size_t n) const {
  return {output_kind::categorical, 1, static_cast<std::uint64_t>(n)};
}

void report_noisy_max::sample(const std::vector<double>& answers, rng_stream& rng,
                              std::size_t count, std::int64_t* out) const {
  check_input(answers);
  const std::size_t m = answers.size();
  const std::size_t chunk = std::max<std::size_t>(1, 4096 / m);
  std::vector<double> noise(chunk * m);
  const double b = scale();
  for (std::size_t s = 0; s < count; s += chunk) {
    const std::size_t c = std::min(chunk, count - s);
    rng.fill_laplace(noise.data(), c * m, b);
    for (std::size_t j = 0; j < c; ++j) {
      out[s + j] = static_cast<std::int64_t>(argmax_row(answers.data(), noise.data() + j * m, m));
    }
  }
}

std::optional<std::vector<double>> report_noisy_max::output_distribution(
    const std::vector<double>& answers) const {
  check_input(answers);
  const std::size_t m = answers.size();
  if (m > 256) return std::nullopt;
  const double b = scale();
  // P(r) = integral of f_b(x - u_r) prod_{j != r} F_b(x - u_j) dx, kinks at every u_j.
  auto cdf = [b](double z) { return z < 0 ? 0.5 * std::exp(z / b) : 1.0 - 0.5 * std::exp(-z / b); };
  const double lo = *std::min_element(answers.begin(), answers.end()) - 60 * b;
  const double hi = *std::max_element(answers.begin(), answers.end()) + 60 * b;
  std::vector<double> p(m);
  double total = 0;
  for (std::size_t r = 0; r < m; ++r) {
    auto f = [&](double x) {
      double v = std::exp(-std::fabs(x - answers[r]) / b) / (2 * b);
      for (std::size_t j = 0; j < m && v > 0; ++j) {
        if (j != r) v *= cdf(x - answers[j]);
      }
      return v;
    };
    total += p[r] = detail::integrate_piecewise(f, answers, lo, hi);
  }
  for (auto& v : p) v /= total;
  return p;
}

// ----------------------------------------------- noisy arg-max, exp noise

noisy_argmax_exponential::noisy_argmax_exponential(double eps, double sensitivity, bool monotone)
    : eps_(eps), sensitivity_(sensitivity), monotone_(monotone) {
  check_selection_params("noisy-argmax-exp", eps, sensitivity);
}

double noisy_argmax_exponential::scale() const {
  return (monotone_ ? 1.0 : 2.0) * sensitivity_ / eps_;
}

std::vector<std::pair<std::string, std::string>> noisy_argmax_exponential::params() const {
  return selection_params(eps_, sensitivity_, monotone_);
}

std::string noisy_argmax_exponential::description() const {
  return "index of the largest u_r + Exp(scale " + detail::fmt_param(scale()) +
         "); same output law as permute-and-flip";
}

std::string noisy_argmax_exponential::reference() const {
  return "Dwork & Roth 2014 sec. 3.4 (Thm 3.13 as printed is wrong, see selection.hpp); "
         "McKenna & Sheldon 2020; Ding et al. 2021";
}

neighbour_relation noisy_argmax_exponential::neighbours() const {
  return detail::selection_neighbours(sensitivity_, monotone_);
}

tradeoff noisy_argmax_exponential::claim() const { return eps_delta(eps_, 0.0); }

std::string noisy_argmax_exponential::accuracy() const {
  return "expected utility never below the exponential mechanism's at the same eps (McKenna & "
         "Sheldon 2020, permute-and-flip)";
}

std::vector<neighbour_pair> noisy_argmax_exponential::exposing_pairs() const {
  const double s = sensitivity_;
  return {{{1, 1, 1, 1, 1}, {1 - s, 1 + s, 1 + s, 1 + s, 1 + s}, "DP-Sniper / StatDP row"}};
}

output_shape noisy_argmax_exponential::shape(std::size_t n) const {
  return {output_kind::categorical, 1, static_cast<std::uint64_t>(n)};
}

void noisy_argmax_exponential::sample(const std::vector<double>& answers, rng_stream& rng,
                                      std::size_t count, std::int64_t* out) const {
  check_input(answers);
  const std::size_t m = answers.size();
  const std::size_t chunk = std::max<std::size_t>(1, 4096 / m);
  std::vector<double> noise(chunk * m);
  const double b = scale();
  for (std::size_t s = 0; s < count; s += chunk) {
    const std::size_t c = std::min(chunk, count - s);
    rng.fill_exponential(noise.data(), c * m, b);
    for (std::size_t j = 0; j < c; ++j) {
      out[s + j] = static_cast<std::int64_t>(argmax_row(answers.data(), noise.data() + j * m, m));
    }
  }
}

std::optional<std::vector<double>> noisy_argmax_exponential::output_distribution(
    const std::vector<double>& answers) const {
  check_input(answers);
  if (answers.size() > 4096) return std::nullopt;
  return permute_and_flip_probabilities(answers, 1.0 / scale());
}

}  // namespace fdp::mech
