#include "fdp/audit/oracle.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "fdp/audit/binomial.hpp"
#include "fdp/core/families.hpp"
#include "fdp/core/normal.hpp"
#include "fdp/mech/flawed/laplace.hpp"
#include "fdp/mech/flawed/noisy_max.hpp"
#include "fdp/mech/flawed/sparse_vector.hpp"
#include "fdp/mech/gaussian.hpp"
#include "fdp/mech/laplace.hpp"

namespace fdp::audit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double param(const mech::mechanism& m, const std::string& key) {
  for (const auto& [k, v] : m.params()) {
    // strtod, not stod: a subnormal parameter (eps = 1e-320) is a value, not an error.
    if (k == key) return std::strtod(v.c_str(), nullptr);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

/// Events (P(E), Q(E)) along the exact trade-off curve f = T(P, Q).
event_law from_tradeoff(const tradeoff& f, const std::string& what) {
  event_law law;
  law.family = "Neyman-Pearson tests of the exact trade-off " + what;
  for (int i = 0; i <= 3000; ++i) {
    const double a = std::pow(10.0, -16.0 + 16.0 * i / 3000.0);
    law.p0.push_back(a);
    law.p1.push_back(one_minus_beta(f, a));
  }
  for (int i = 1; i < 1000; ++i) {
    const double a = i / 1000.0;
    law.p0.push_back(a);
    law.p1.push_back(one_minus_beta(f, a));
  }
  return law;
}

/// Threshold events of a scalar output from its CDF and survival function.
template <class F0t, class S0t, class F1t, class S1t>
event_law from_cdf(F0t F0, S0t S0, F1t F1, S1t S1, double lo, double hi, std::vector<double> extra,
                   const std::string& what) {
  event_law law;
  law.family = "threshold tests on the exact CDF of " + what;
  std::vector<double> ts = std::move(extra);
  for (int i = 0; i <= 40000; ++i) ts.push_back(lo + (hi - lo) * i / 40000.0);
  for (double t : ts) {
    law.p0.push_back(F0(t));
    law.p1.push_back(F1(t));
    law.p0.push_back(S0(t));
    law.p1.push_back(S1(t));
  }
  return law;
}

double lap_pdf(double x, double b) { return std::exp(-std::fabs(x) / b) / (2.0 * b); }
double lap_cdf(double x, double b) {
  return x < 0 ? 0.5 * std::exp(x / b) : 1.0 - 0.5 * std::exp(-x / b);
}

/// The output law of the sparse-vector variant that releases the noisy value
/// of its single above (cutoff 1): P(above at i, value in [v, v + h)) ~
/// f_q(v - a_i) G_i(v - T) h with G_i(u) = int_{r <= u} f_T(r)
/// prod_{j<i} F_q(T + r - a_j) dr (the queries are independent given the
/// threshold noise r), on a grid of step h = scale / 50; plus "no above".
/// Returns the cell probabilities for one input.
std::vector<double> svt_value_law(const mech::detail::svt_config& cfg, const std::vector<double>& a,
                                  double lo, double h, std::size_t cells) {
  const double bT = cfg.threshold_scale, bq = cfg.query_scale, T = cfg.threshold;
  const std::size_t k = a.size();
  std::vector<double> out;
  out.reserve(k * cells + 1);
  // g_i(r) on the grid r_m = lo + (m + 1/2) h - T, cumulated.
  std::vector<double> prod(cells, 1.0);  // prod_{j<i} F_q(T + r - a_j)
  for (std::size_t i = 0; i < k; ++i) {
    double G = 0;
    for (std::size_t m = 0; m < cells; ++m) {
      const double v = lo + (static_cast<double>(m) + 0.5) * h;  // value
      const double r = v - T;                                    // largest threshold noise allowed
      // G_i(r): cumulative of f_T(r') prod(r') over r' <= r (midpoint rule on the same grid).
      G += lap_pdf(r, bT) * prod[m] * h;
      out.push_back(lap_pdf(v - a[i], bq) * (G - 0.5 * lap_pdf(r, bT) * prod[m] * h) * h);
    }
    for (std::size_t m = 0; m < cells; ++m) {
      const double r = lo + (static_cast<double>(m) + 0.5) * h - T;
      prod[m] *= lap_cdf(T + r - a[i], bq);
    }
  }
  double none = 0;
  for (std::size_t m = 0; m < cells; ++m) {
    const double r = lo + (static_cast<double>(m) + 0.5) * h - T;
    none += lap_pdf(r, bT) * prod[m] * h;
  }
  out.push_back(none);
  return out;
}

// ------------------------------------------------------ categorical outputs

/// Few outcomes: every set of them but the empty set and the whole space.
event_law every_subset_law(const std::vector<double>& a, const std::vector<double>& b) {
  event_law law;
  const std::size_t k = a.size();
  law.family = "every set of outcomes (exact output law)";
  for (std::uint64_t bits = 1; bits + 1 < (std::uint64_t{1} << k); ++bits) {
    double x = 0, y = 0;
    for (std::size_t c = 0; c < k; ++c) {
      if (bits >> c & 1) x += a[c], y += b[c];
    }
    law.p0.push_back(x);
    law.p1.push_back(y);
  }
  return law;
}

/// Many outcomes: the sets of the j outcomes of largest likelihood ratio
/// b / a (the Neyman-Pearson tests), and their complements.
event_law likelihood_ratio_prefix_law(const std::vector<double>& a, const std::vector<double>& b) {
  event_law law;
  const std::size_t k = a.size();
  law.family = "likelihood-ratio prefix sets (exact output law)";
  std::vector<std::size_t> ord(k);
  std::iota(ord.begin(), ord.end(), 0);
  std::sort(ord.begin(), ord.end(),
            [&](std::size_t x, std::size_t y) { return b[x] * a[y] > b[y] * a[x]; });
  double x = 0, y = 0;
  for (std::size_t j = 0; j + 1 < k; ++j) {
    x += a[ord[j]];
    y += b[ord[j]];
    law.p0.push_back(x);
    law.p1.push_back(y);
    law.p0.push_back(std::max(0.0, 1.0 - x));
    law.p1.push_back(std::max(0.0, 1.0 - y));
  }
  return law;
}

std::optional<event_law> categorical_event_law(const mech::mechanism& m,
                                               const std::vector<double>& in0,
                                               const std::vector<double>& in1,
                                               std::uint64_t categories) {
  // The output laws are dense vectors over the categories: beyond 2^22 of
  // them (randomized response with k = 1e9 took 24 GB before it was
  // killed) there is no oracle, and the audit stands without it.
  if (categories > (std::uint64_t{1} << 22)) return std::nullopt;
  auto d0 = m.output_distribution(in0), d1 = m.output_distribution(in1);
  if (!d0 || !d1 || d0->size() != d1->size()) return std::nullopt;
  // The outcomes possible under either input.
  std::vector<double> a, b;
  for (std::size_t i = 0; i < d0->size(); ++i) {
    if ((*d0)[i] > 0 || (*d1)[i] > 0) a.push_back((*d0)[i]), b.push_back((*d1)[i]);
  }
  if (a.size() <= 16) return every_subset_law(a, b);
  return likelihood_ratio_prefix_law(a, b);
}

// ----------------------------------- sparse vector releasing the noisy value

/// The quadrature grid of svt_value_law: cells [lo + m h, lo + (m + 1) h), m < cells.
struct svt_grid {
  double lo, h;
  std::size_t cells;
};

std::optional<svt_grid> svt_value_grid(const mech::detail::svt_config& cfg,
                                       const std::vector<double>& in0,
                                       const std::vector<double>& in1) {
  const double b = std::max(cfg.threshold_scale, cfg.query_scale);
  double amin = cfg.threshold, amax = cfg.threshold;
  for (double x : in0) amin = std::min(amin, x), amax = std::max(amax, x);
  for (double x : in1) amin = std::min(amin, x), amax = std::max(amax, x);
  // Grid step h = scale / 200, with every kink (answers, threshold) on a cell edge when
  // they are multiples of h; midpoint rule, relative error ~ (h / scale)^2 / 24.
  const double h = std::min(cfg.threshold_scale, cfg.query_scale) / 200.0;
  const double lo = h * std::floor((amin - 45 * b) / h), hi = amax + 45 * b;
  const double ncells = std::ceil((hi - lo) / h);
  if (!(ncells >= 1 && ncells <= 5e7)) return std::nullopt;  // extreme parameters: no oracle
  return svt_grid{lo, h, static_cast<std::size_t>(ncells)};
}

/// The sets of the cells of largest likelihood ratio d1 / d0 (every 16th
/// prefix, and the last), and their complements.
event_law likelihood_ratio_cell_law(const std::vector<double>& d0, const std::vector<double>& d1,
                                    double h) {
  std::vector<std::size_t> ord(d0.size());
  std::iota(ord.begin(), ord.end(), 0);
  std::sort(ord.begin(), ord.end(),
            [&](std::size_t x, std::size_t y) { return d1[x] * d0[y] > d1[y] * d0[x]; });
  event_law law;
  law.family = "likelihood-ratio sets of (position, value) cells of width " + std::to_string(h) +
               " (exact law by quadrature)";
  // Prefix sums from the front, complements as suffix sums (no 1 - x).
  const std::size_t M = ord.size();
  std::vector<double> sx(M + 1, 0.0), sy(M + 1, 0.0);
  for (std::size_t j = M; j-- > 0;) {
    sx[j] = sx[j + 1] + d0[ord[j]];
    sy[j] = sy[j + 1] + d1[ord[j]];
  }
  double x = 0, y = 0;
  for (std::size_t j = 0; j + 1 < M; ++j) {
    x += d0[ord[j]];
    y += d1[ord[j]];
    if (j % 16 != 0 && j + 2 != M) continue;
    law.p0.push_back(x);
    law.p1.push_back(y);
    law.p0.push_back(sx[j + 1]);
    law.p1.push_back(sy[j + 1]);
  }
  return law;
}

std::optional<event_law> svt_value_event_law(const mech::detail::svt_config& cfg,
                                             const std::vector<double>& in0,
                                             const std::vector<double>& in1) {
  if (cfg.cutoff != 1 || cfg.query_scale <= 0) return std::nullopt;
  const auto grid = svt_value_grid(cfg, in0, in1);
  if (!grid) return std::nullopt;
  const auto d0 = svt_value_law(cfg, in0, grid->lo, grid->h, grid->cells),
             d1 = svt_value_law(cfg, in1, grid->lo, grid->h, grid->cells);
  return likelihood_ratio_cell_law(d0, d1, grid->h);
}

// ------------------------------------------------------------ noisy max value

/// log P(max_i (a_i + noise) <= t), noise Laplace or exponential of scale s.
double max_value_log_cdf(const std::vector<double>& a, double t, double s, bool laplace_noise) {
  double acc = 0;
  for (double ai : a) {
    const double x = (t - ai) / s;
    if (laplace_noise) {
      acc += x < 0 ? x - std::log(2.0) : std::log1p(-0.5 * std::exp(-x));
    } else {
      if (x <= 0) return -kInf;
      acc += std::log(-std::expm1(-x));
    }
  }
  return acc;
}

event_law noisy_max_value_law(const mech::mechanism& m, const std::vector<double>& in0,
                              const std::vector<double>& in1, bool laplace_noise) {
  const double s = 2.0 * param(m, "sensitivity") / param(m, "eps");
  // log P(max <= t) = sum_i log F(t - a_i); P(max > t) = -expm1(that).
  auto F0 = [&](double t) { return std::exp(max_value_log_cdf(in0, t, s, laplace_noise)); };
  auto S0 = [&](double t) { return -std::expm1(max_value_log_cdf(in0, t, s, laplace_noise)); };
  auto F1 = [&](double t) { return std::exp(max_value_log_cdf(in1, t, s, laplace_noise)); };
  auto S1 = [&](double t) { return -std::expm1(max_value_log_cdf(in1, t, s, laplace_noise)); };
  const double lo = std::min(*std::min_element(in0.begin(), in0.end()),
                             *std::min_element(in1.begin(), in1.end()));
  const double hi = std::max(*std::max_element(in0.begin(), in0.end()),
                             *std::max_element(in1.begin(), in1.end()));
  std::vector<double> extra;
  for (double edge :
       {*std::max_element(in0.begin(), in0.end()), *std::max_element(in1.begin(), in1.end())}) {
    for (int i = 0; i <= 300; ++i)
      extra.push_back(edge + s * std::pow(10.0, -8.0 + 9.0 * i / 300.0));
  }
  return from_cdf(
      F0, S0, F1, S1, lo - (laplace_noise ? 60 : 0) * s, hi + 60 * s, extra,
      laplace_noise ? "the Laplace noisy max value" : "the exponential noisy max value");
}

// ------------------------------------------------------ additive noise

/// How input1 differs from input0.
struct input_shift {
  std::vector<double> diff;  ///< input1 - input0
  std::size_t moved = 0;     ///< coordinates that differ
  std::size_t at = 0;        ///< the last of them
  double l2_squared = 0;     ///< squared l2 norm of diff
};

input_shift shift_between(const std::vector<double>& in0, const std::vector<double>& in1) {
  input_shift d;
  d.diff.resize(in0.size());
  for (std::size_t i = 0; i < in0.size(); ++i) {
    d.diff[i] = in1[i] - in0[i];
    if (d.diff[i] != 0) ++d.moved, d.at = i;
    d.l2_squared += d.diff[i] * d.diff[i];
  }
  return d;
}

}  // namespace

std::optional<event_law> exact_event_law(const mech::mechanism& m, const std::vector<double>& in0,
                                         const std::vector<double>& in1) {
  if (in0.size() != in1.size()) return std::nullopt;
  const auto shape = m.shape(in0.size());
  if (shape.kind == mech::output_kind::categorical)
    return categorical_event_law(m, in0, in1, shape.categories);
  // Real outputs.
  if (auto* sv = dynamic_cast<const mech::flawed::svt_outputs_value*>(&m))
    return svt_value_event_law(sv->config(), in0, in1);
  const input_shift d = shift_between(in0, in1);
  if (auto* lap = dynamic_cast<const mech::laplace_mechanism*>(&m)) {
    if (d.moved == 1)
      return from_tradeoff(laplace{std::fabs(d.diff[d.at]) / lap->scale()},
                           "Laplace trade-off of the pair");
    if (d.moved == 0) return from_tradeoff(identity{}, "(identical inputs)");
    return std::nullopt;
  }
  if (auto* gm = dynamic_cast<const mech::gaussian_mechanism*>(&m)) {
    return from_tradeoff(gaussian{std::sqrt(d.l2_squared) / gm->sigma()}, "G_mu of the pair");
  }
  if (dynamic_cast<const mech::flawed::histogram_inverted_scale*>(&m)) {
    const double b = param(m, "eps");
    if (d.moved == 1)
      return from_tradeoff(laplace{std::fabs(d.diff[d.at]) / b}, "Laplace trade-off of the pair");
    return std::nullopt;
  }
  const bool nmv_lap = dynamic_cast<const mech::flawed::noisy_max_value_laplace*>(&m) != nullptr;
  const bool nmv_exp = dynamic_cast<const mech::flawed::noisy_max_value_exp*>(&m) != nullptr;
  if (nmv_lap || nmv_exp) return noisy_max_value_law(m, in0, in1, nmv_lap);
  return std::nullopt;
}

oracle_bound oracle(const event_law& law, double n0, double n1, double confidence, double delta) {
  const double g = (1.0 - confidence) / 2.0;
  const double z = upper_quantile(g);
  oracle_bound best;
  struct cand {
    double approx;
    std::size_t i;
    int o;
  };
  std::vector<cand> cs;
  for (std::size_t i = 0; i < law.p0.size(); ++i) {
    for (int o = 0; o < 2; ++o) {
      const double p = o == 0 ? law.p0[i] : law.p1[i], q = o == 0 ? law.p1[i] : law.p0[i];
      const double nP = o == 0 ? n0 : n1, nQ = o == 0 ? n1 : n0;
      const double pU = wilson_upper(std::min(p * nP, nP), nP, z);
      const double qL = wilson_lower(std::min(q * nQ, nQ), nQ, z);
      cs.push_back({qL > delta ? std::log((qL - delta) / pU) : -kInf, i, o});
    }
  }
  const std::size_t k = std::min<std::size_t>(200, cs.size());
  std::partial_sort(cs.begin(), cs.begin() + static_cast<std::ptrdiff_t>(k), cs.end(),
                    [](const cand& a, const cand& b) { return a.approx > b.approx; });
  for (std::size_t j = 0; j < k; ++j) {
    const auto& c = cs[j];
    const double p = c.o == 0 ? law.p0[c.i] : law.p1[c.i], q = c.o == 0 ? law.p1[c.i] : law.p0[c.i];
    const double nP = c.o == 0 ? n0 : n1, nQ = c.o == 0 ? n1 : n0;
    const double pU = cp_upper(std::min(p * nP, nP), nP, g);
    const double qL = cp_lower(std::min(q * nQ, nQ), nQ, g);
    const double e = qL > delta ? std::log((qL - delta) / pU) : -kInf;
    if (e > best.epsilon) {
      best.epsilon = e;
      best.alpha = p;
      best.one_minus_beta = q;
      best.ordering = c.o;
    }
  }
  // mu: scan with the exact bounds on a thinned set (the objective is smooth).
  std::vector<cand> ms;
  for (std::size_t i = 0; i < law.p0.size(); ++i) {
    for (int o = 0; o < 2; ++o) {
      const double p = o == 0 ? law.p0[i] : law.p1[i], q = o == 0 ? law.p1[i] : law.p0[i];
      const double nP = o == 0 ? n0 : n1, nQ = o == 0 ? n1 : n0;
      const double pU = wilson_upper(std::min(p * nP, nP), nP, z);
      const double qL = wilson_lower(std::min(q * nQ, nQ), nQ, z);
      ms.push_back({(pU < 1 && qL > 0) ? norm_quantile_c(pU) - norm_quantile_c(qL) : -kInf, i, o});
    }
  }
  const std::size_t km = std::min<std::size_t>(100, ms.size());
  std::partial_sort(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(km), ms.end(),
                    [](const cand& a, const cand& b) { return a.approx > b.approx; });
  for (std::size_t j = 0; j < km; ++j) {
    const auto& c = ms[j];
    const double p = c.o == 0 ? law.p0[c.i] : law.p1[c.i], q = c.o == 0 ? law.p1[c.i] : law.p0[c.i];
    const double nP = c.o == 0 ? n0 : n1, nQ = c.o == 0 ? n1 : n0;
    const double pU = cp_upper(std::min(p * nP, nP), nP, g);
    const double qL = cp_lower(std::min(q * nQ, nQ), nQ, g);
    if (pU < 1 && qL > 0) best.mu = std::max(best.mu, norm_quantile_c(pU) - norm_quantile_c(qL));
  }
  return best;
}

}  // namespace fdp::audit
