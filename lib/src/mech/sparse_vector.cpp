#include "fdp/mech/sparse_vector.hpp"

#include <algorithm>
#include <cmath>

#include "fdp/core/error.hpp"
#include "fdp/mech/accuracy.hpp"
#include "mech/quadrature.hpp"

namespace fdp::mech {

using fdp::detail::require;
using fdp::detail::require_finite_pos;

namespace detail {

namespace {
std::size_t svt_words(const svt_config& cfg, std::size_t k) {
  return 1 + (cfg.query_scale > 0 ? k : 0) +
         (cfg.resample && cfg.cutoff > 1 ? static_cast<std::size_t>(cfg.cutoff - 1) : 0);
}

// Runs one output from `w` (standard Laplace variates); calls on_query(i, code, value).
template <class F>
void svt_run(const svt_config& cfg, const double* a, std::size_t k, const double* w, F&& on_query) {
  double noisy_t = cfg.threshold + cfg.threshold_scale * w[0];
  const double* nu = w + 1;
  const double* redraw = w + 1 + (cfg.query_scale > 0 ? k : 0);
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < k; ++i) {
    if (cfg.cutoff > 0 && count >= cfg.cutoff) {
      on_query(i, -1, 0.0);
      continue;
    }
    const double v = cfg.query_scale > 0 ? a[i] + cfg.query_scale * nu[i] : a[i];
    if (v >= noisy_t) {
      on_query(i, 1, v);
      ++count;
      if (cfg.resample && count < cfg.cutoff) {
        noisy_t = cfg.threshold + cfg.threshold_scale * redraw[count - 1];
      }
    } else {
      on_query(i, 0, 0.0);
    }
  }
}
}  // namespace

void svt_sample_mask(const svt_config& cfg, const std::vector<double>& answers, rng_stream& rng,
                     std::size_t count, std::int64_t* out) {
  const std::size_t k = answers.size();
  const std::size_t words = svt_words(cfg, k);
  const std::size_t chunk = std::max<std::size_t>(1, 4096 / words);
  std::vector<double> w(chunk * words);
  for (std::size_t s = 0; s < count; s += chunk) {
    const std::size_t c = std::min(chunk, count - s);
    rng.fill_laplace(w.data(), c * words, 1.0);
    for (std::size_t j = 0; j < c; ++j) {
      std::int64_t mask = 0;
      svt_run(cfg, answers.data(), k, w.data() + j * words, [&](std::size_t i, int code, double) {
        if (code == 1) mask |= std::int64_t{1} << i;
      });
      out[s + j] = mask;
    }
  }
}

void svt_sample_values(const svt_config& cfg, const std::vector<double>& answers, rng_stream& rng,
                       std::size_t count, double* out) {
  const std::size_t k = answers.size();
  const std::size_t words = svt_words(cfg, k);
  const std::size_t chunk = std::max<std::size_t>(1, 4096 / words);
  std::vector<double> w(chunk * words);
  for (std::size_t s = 0; s < count; s += chunk) {
    const std::size_t c = std::min(chunk, count - s);
    rng.fill_laplace(w.data(), c * words, 1.0);
    for (std::size_t j = 0; j < c; ++j) {
      double* o = out + (s + j) * 2 * k;
      svt_run(cfg, answers.data(), k, w.data() + j * words, [&](std::size_t i, int code, double v) {
        o[i] = code;
        o[k + i] = code == 1 ? v : 0.0;
      });
    }
  }
}

std::string svt_token(std::int64_t mask, std::size_t k, std::uint64_t cutoff) {
  std::string t(k, 'F');
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < k; ++i) {
    if (cutoff > 0 && count >= cutoff) {
      t[i] = '-';
    } else if ((mask >> i) & 1) {
      t[i] = 'T';
      ++count;
    }
  }
  return t;
}

std::vector<double> svt_output_law(const svt_config& cfg, const std::vector<double>& answers) {
  const std::size_t k = answers.size();
  const double ts = cfg.threshold_scale, qs = cfg.query_scale, T = cfg.threshold;
  // P(query i above | threshold noise r) = P(a_i + nu >= T + r).
  auto above = [&](std::size_t i, double r) {
    const double x = T + r - answers[i];
    if (qs <= 0) return answers[i] >= T + r ? 1.0 : 0.0;
    return x < 0 ? 1.0 - 0.5 * std::exp(x / qs) : 0.5 * std::exp(-x / qs);
  };
  auto density = [&](double r) { return std::exp(-std::fabs(r) / ts) / (2 * ts); };
  std::vector<double> breaks{0.0};
  double lo = 0, hi = 0;
  for (double a : answers) {
    breaks.push_back(a - T);
    lo = std::min(lo, a - T);
    hi = std::max(hi, a - T);
  }
  lo -= 60 * (ts + qs);
  hi += 60 * (ts + qs);
  // Integral over r of density(r) * prod over queries [from, to) of the factor
  // (above if bit set, below otherwise).
  auto run = [&](std::size_t from, std::size_t to, std::uint64_t mask) {
    auto f = [&](double r) {
      double v = density(r);
      for (std::size_t i = from; i < to && v > 0; ++i) {
        const double p = above(i, r);
        v *= ((mask >> i) & 1) ? p : 1.0 - p;
      }
      return v;
    };
    return integrate_piecewise(f, breaks, lo, hi);
  };
  std::vector<double> law(std::size_t{1} << k, 0.0);
  for (std::uint64_t mask = 0; mask < law.size(); ++mask) {
    const auto ones = static_cast<std::uint64_t>(__builtin_popcountll(mask));
    if (cfg.cutoff > 0 && ones > cfg.cutoff) continue;
    // answered queries: all, or up to and including the cutoff-th above
    std::size_t answered = k;
    if (cfg.cutoff > 0 && ones == cfg.cutoff) answered = 64 - __builtin_clzll(mask);
    if (!cfg.resample) {
      law[mask] = run(0, answered, mask);
      continue;
    }
    double p = 1.0;
    std::size_t from = 0;
    for (std::size_t i = 0; i < answered && p > 0; ++i) {
      if ((mask >> i) & 1) {
        p *= run(from, i + 1, mask);
        from = i + 1;
      }
    }
    if (from < answered && p > 0) p *= run(from, answered, mask);
    law[mask] = p;
  }
  return law;
}

}  // namespace detail

// ------------------------------------------------------------- svt_base

svt_base::svt_base(const char* name, double eps, double threshold, double sensitivity)
    : eps_(eps), sensitivity_(sensitivity) {
  require_finite_pos(eps, name, "eps");
  require(std::isfinite(threshold), name, "threshold", threshold, "must be finite");
  require_finite_pos(sensitivity, name, "sensitivity");
  cfg_.threshold = threshold;
}

neighbour_relation svt_base::neighbours() const {
  return {neighbour_relation::kind::linf, sensitivity_, false,
          "each query answer may change by at most " + detail::fmt_param(sensitivity_) +
              " (l_inf), in any direction"};
}

output_shape svt_base::shape(std::size_t n) const {
  if (n < 1 || n > 62) {
    fdp::detail::throw_domain(name().c_str(), "answers.size", static_cast<unsigned long>(n),
                              "must be in [1, 62] (one bit per query in the output index)");
  }
  return {output_kind::categorical, 1, std::uint64_t{1} << n};
}

void svt_base::sample(const std::vector<double>& answers, rng_stream& rng, std::size_t count,
                      std::int64_t* out) const {
  check_input(answers);
  detail::svt_sample_mask(cfg_, answers, rng, count, out);
}

std::optional<std::vector<double>> svt_base::output_distribution(
    const std::vector<double>& answers) const {
  check_input(answers);
  if (shape(answers.size()).kind != output_kind::categorical || answers.size() > 12) {
    return std::nullopt;
  }
  return detail::svt_output_law(cfg_, answers);
}

std::string svt_base::token(std::int64_t index, std::size_t n) const {
  return detail::svt_token(index, n, cfg_.cutoff);
}

// ---------------------------------------------------------- sparse_vector

sparse_vector::sparse_vector(double eps, double threshold, std::uint64_t c, double delta,
                             double sensitivity)
    : svt_base("sparse", eps, threshold, sensitivity), c_(c), delta_(delta) {
  require(c >= 1 && c <= 62, "sparse", "c", static_cast<unsigned long long>(c),
          "must be an integer in [1, 62]");
  require(delta >= 0 && delta < 1, "sparse", "delta", delta, "must be in [0, 1)");
  const double cd = static_cast<double>(c);
  const double sigma = delta == 0 ? 2.0 * cd * sensitivity / eps
                                  : std::sqrt(32.0 * cd * -std::log(delta)) * sensitivity / eps;
  require(std::isfinite(sigma) && sigma > 0, "sparse", "eps", eps,
          "gives a noise scale outside (0, inf)");
  cfg_.threshold_scale = sigma;
  cfg_.query_scale = 2.0 * sigma;
  cfg_.cutoff = c;
  cfg_.resample = true;
}

sparse_vector sparse_vector::above_threshold(double eps, double threshold, double sensitivity) {
  sparse_vector s(eps, threshold, 1, 0.0, sensitivity);
  s.above_threshold_ = true;
  return s;
}

double sparse_vector::eps_prime() const { return sparse_eps_prime(eps_, delta_, c_); }

std::vector<std::pair<std::string, std::string>> sparse_vector::params() const {
  using detail::fmt_param;
  if (above_threshold_) {
    return {{"eps", fmt_param(eps_)},
            {"threshold", fmt_param(cfg_.threshold)},
            {"sensitivity", fmt_param(sensitivity_)}};
  }
  return {{"eps", fmt_param(eps_)},
          {"threshold", fmt_param(cfg_.threshold)},
          {"c", std::to_string(c_)},
          {"delta", fmt_param(delta_)},
          {"sensitivity", fmt_param(sensitivity_)}};
}

std::string sparse_vector::description() const {
  return "threshold T + Lap(" + detail::fmt_param(cfg_.threshold_scale) + "), queries + Lap(" +
         detail::fmt_param(cfg_.query_scale) + "), threshold redrawn after each T, halts after " +
         std::to_string(c_) + " T";
}

std::string sparse_vector::reference() const {
  return above_threshold_ ? "Dwork & Roth 2014 Alg. 1 (AboveThreshold), Thms 3.23-3.24"
                          : "Dwork & Roth 2014 Alg. 2 (Sparse), Thms 3.25-3.26";
}

tradeoff sparse_vector::claim() const { return eps_delta(eps_, delta_); }

std::string sparse_vector::accuracy() const {
  if (above_threshold_) {
    return "Thm 3.24: (alpha, beta)-accurate with alpha = 8 (ln k + ln(2/beta)) / eps when no "
           "query but the last is >= T - alpha (above_threshold_alpha)";
  }
  return "Thm 3.26: (alpha, beta)-accurate with alpha = 8c(ln k + ln(2c/beta))/eps (delta = 0) "
         "or (ln k + ln(2c/beta)) sqrt(512 c ln(1/delta))/eps when at most c queries are "
         ">= T - alpha (sparse_alpha)";
}

std::vector<neighbour_pair> sparse_vector::exposing_pairs() const {
  const double s = sensitivity_;
  std::vector<double> a(10, 0.0), b(10, 0.0);
  for (int i = 0; i < 5; ++i) {
    a[5 + i] = s;
    b[i] = s;
  }
  return {{a, b, "DP-Sniper / StatDP SVT row ([0]*5+[1]*5 vs [1]*5+[0]*5, T = 0.5)"}};
}

}  // namespace fdp::mech
