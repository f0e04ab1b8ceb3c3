#include "fdp/audit/one_run.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

#include "fdp/audit/one_run_fdp.hpp"
#include "fdp/core/error.hpp"
#include "fdp/core/largest_holding.hpp"

namespace fdp::audit {
namespace {

/// q = e^eps / (1 + e^eps), without overflow for large eps.
double rr_accuracy(double eps) { return 1.0 / (1.0 + std::exp(-eps)); }

/// P[Binomial(r, q) >= v] = I_q(v, r - v + 1) for 1 <= v <= r.
double upper_tail(std::int64_t r, std::int64_t v, double q) {
  if (v <= 0) return 1.0;
  if (v > r) return 0.0;
  if (q >= 1.0) return 1.0;
  return boost::math::ibeta(static_cast<double>(v), static_cast<double>(r - v + 1), q);
}

/// max_{1 <= i <= v} P[v - i <= B < v] / i: the delta term's factor. The
/// masses P[B = w] for w = v-1, v-2, ... come from the ratio
/// P[B = w-1] / P[B = w] = w (1 - q) / ((r - w + 1) q), starting from Boost's pmf.
double delta_factor(std::int64_t r, std::int64_t v, double q) {
  if (v <= 0) return 0.0;
  if (q >= 1.0) return 0.0;  // all mass at r >= v
  const boost::math::binomial_distribution<double> b(static_cast<double>(r), q);
  double pmf = boost::math::pdf(b, static_cast<double>(v - 1));
  double sum = 0.0, best = 0.0;
  for (std::int64_t i = 1; i <= v; ++i) {
    const std::int64_t w = v - i;  // the mass added at step i
    sum += pmf;
    best = std::max(best, sum / static_cast<double>(i));
    if (w > 0) pmf *= static_cast<double>(w) * (1.0 - q) / (static_cast<double>(r - w + 1) * q);
  }
  return best;
}

void check_counts(std::int64_t m, std::int64_t r, std::int64_t v) {
  if (!(0 <= v && v <= r && r <= m)) {
    throw std::invalid_argument("one_run_p_value(m=" + std::to_string(m) +
                                ", r=" + std::to_string(r) + ", v=" + std::to_string(v) +
                                "): needs 0 <= v <= r <= m");
  }
}

}  // namespace

double one_run_p_value(std::int64_t m, std::int64_t r, std::int64_t v, double eps, double delta) {
  check_counts(m, r, v);
  detail::require(eps >= 0 && !std::isnan(eps), "one_run_p_value", "eps", eps, "must be >= 0");
  detail::require(delta >= 0 && delta <= 1, "one_run_p_value", "delta", delta, "must be in [0, 1]");
  const double q = rr_accuracy(eps);
  double p = upper_tail(r, v, q);
  if (delta > 0) p += 2.0 * static_cast<double>(m) * delta * delta_factor(r, v, q);
  return std::min(1.0, p);
}

double one_run_epsilon_lower(std::int64_t m, std::int64_t r, std::int64_t v, double delta,
                             double confidence) {
  detail::require(confidence > 0 && confidence < 1, "audit", "confidence", confidence,
                  "must be in (0, 1)");
  const double g = 1.0 - confidence;
  auto rejected = [&](double eps) { return one_run_p_value(m, r, v, eps, delta) <= g; };
  // (the p-value tends to >= P[B >= v] -> 1 as eps grows (v <= r); the
  // eps returned is one checked rejected)
  return largest_holding(rejected, 1e4);
}

namespace {

void check_one_run_table(const score_table& t) {
  if (t.has_run) {
    for (const auto& row : t.rows) {
      if (row.run != t.rows[0].run) {
        throw std::invalid_argument(t.path + ": rows from runs '" + t.rows[0].run + "' and '" +
                                    row.run + "'; a one-run audit reads one run");
      }
    }
  }
  if (t.has_canary) {
    std::set<std::string> ids;
    for (const auto& row : t.rows) {
      if (!ids.insert(row.canary).second) {
        throw std::invalid_argument(t.path + ": canary '" + row.canary +
                                    "' is listed twice; one row per canary");
      }
    }
  }
  const auto in =
      std::count_if(t.rows.begin(), t.rows.end(), [](const score_row& x) { return x.in; });
  if (in == 0 || in == static_cast<std::ptrdiff_t>(t.rows.size())) {
    throw std::invalid_argument(t.path + ": every canary has in = " + (in ? "1" : "0") +
                                "; canaries are included with probability 1/2, so both "
                                "classes must occur");
  }
}

}  // namespace

one_run_result audit_one_run(const score_table& t, std::int64_t guesses, double delta,
                             double confidence) {
  detail::require(confidence > 0 && confidence < 1, "audit", "confidence", confidence,
                  "must be in (0, 1)");
  detail::require(delta >= 0 && delta < 1, "audit", "delta", delta, "must be in [0, 1)");
  check_one_run_table(t);
  const auto m = static_cast<std::int64_t>(t.rows.size());
  if (guesses < 1 || guesses > m) {
    throw std::invalid_argument("audit(guesses=" + std::to_string(guesses) + "): must be in [1, " +
                                std::to_string(m) + "] (the file has " + std::to_string(m) +
                                " canaries)");
  }
  std::vector<std::size_t> order(t.rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return t.rows[a].score > t.rows[b].score; });
  one_run_result r;
  r.canaries = m;
  r.guesses = guesses;
  r.guessed_in = (guesses + 1) / 2;
  r.delta = delta;
  r.confidence = confidence;
  const auto top = static_cast<std::size_t>(r.guessed_in);
  const auto bottom = static_cast<std::size_t>(guesses - r.guessed_in);
  for (std::size_t i = 0; i < top; ++i) r.correct += t.rows[order[i]].in ? 1 : 0;
  for (std::size_t i = 0; i < bottom; ++i)
    r.correct += t.rows[order[order.size() - 1 - i]].in ? 0 : 1;
  for (const auto& row : t.rows) r.included += row.in ? 1 : 0;
  r.epsilon_lower = one_run_epsilon_lower(m, guesses, r.correct, delta, confidence);
  r.p_value_at_zero = one_run_p_value(m, guesses, r.correct, 0.0, delta);
  r.mu_lower = one_run_gdp_mu_lower(m, guesses, r.correct, 1.0 - confidence);
  return r;
}

}  // namespace fdp::audit
