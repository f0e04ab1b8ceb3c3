#include "fdp/budget/classic.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "fdp/core/error.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct pair_or_profile {
  bool fixed = true;
  double eps = 0.0, delta = 0.0;
};

// The kind's fixed pair (fdp/ops/spec_kind.hpp), else a privacy profile.
pair_or_profile per_application(const spec& s) {
  const spec_kind& k = s.kind();
  if (!k.classic) return {false, 0.0, 0.0};
  const auto [eps, delta] = *k.classic(s);
  return {true, eps, delta};
}

// Certified epsilon of one application of s at delta (upper end), cached by text.
class one_shot {
 public:
  double eps(const spec& s, double delta) {
    const auto key = std::make_pair(s.text, delta);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    spec one = s;
    one.times = 1;
    compose_options o;
    o.delta_hint = delta;
    const double e = compose({one}, o).epsilon(delta).upper;
    cache_[key] = e;
    return e;
  }

 private:
  std::map<std::pair<std::string, double>, double> cache_;
};

// A number for a sentence: 6 significant digits ("5e-07", not the
// 5.000000000000001e-07 that delta / 2 happens to be in binary).
std::string short_number(double x) { return detail::format_computed(x, 6); }

}  // namespace

classic_report classic_account(const std::vector<spec>& specs, double delta) {
  detail::require(delta > 0 && delta < 1, "classic_account", "delta", delta, "must be in (0, 1)");
  classic_report r;
  double fixed_delta = 0.0, k_profile = 0.0;
  for (const auto& s : specs) {
    const auto p = per_application(s);
    if (p.fixed)
      fixed_delta += static_cast<double>(s.times) * p.delta;
    else
      k_profile += static_cast<double>(s.times);
  }
  const double free = delta - fixed_delta;
  if (free < 0 || (free == 0 && k_profile > 0)) {
    r.applicable = false;
    r.reason =
        "the fixed delta_i already sum to " + detail::format_value(fixed_delta) + " >= delta";
    return r;
  }
  one_shot cache;
  // sums of eps_i, eps_i^2, eps_i (e^eps_i - 1) and delta_i with the profile
  // applications at delta_i = share / k_profile
  auto sums = [&](double share, double& s1, double& s2, double& s3, double& sd) {
    s1 = s2 = s3 = sd = 0.0;
    for (const auto& sp : specs) {
      const auto p = per_application(sp);
      const double n = static_cast<double>(sp.times);
      double e = p.eps, d = p.delta;
      if (!p.fixed) {
        d = share / k_profile;
        e = cache.eps(sp, d);
      }
      s1 += n * e;
      s2 += n * e * e;
      s3 += n * e * std::expm1(e);
      sd += n * d;
    }
  };
  double s1, s2, s3, sd;
  sums(free, s1, s2, s3, sd);
  r.naive_eps = s1;
  r.naive_delta = sd;
  // advanced: delta' = phi * free, the rest to the profile applications
  r.advanced_eps = kInf;
  const std::vector<double> phis =
      k_profile > 0 ? std::vector<double>{0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}
                    : std::vector<double>{1.0};
  for (double phi : phis) {
    const double dp = phi * free;
    if (!(dp > 0)) continue;
    sums((1.0 - phi) * free, s1, s2, s3, sd);
    const double e = std::sqrt(2.0 * std::log(1.0 / dp) * s2) + s3;
    if (e < r.advanced_eps) {
      r.advanced_eps = e;
      r.advanced_delta = dp + sd;
      r.advanced_delta_prime = dp;
    }
  }
  if (!std::isfinite(r.advanced_eps)) {
    r.advanced_eps = kInf;
    r.advanced_delta = delta;
  }
  r.allocation = k_profile > 0
                     ? "delta left after the fixed delta_i is shared equally by the " +
                           detail::format_value(static_cast<long long>(k_profile)) +
                           " applications with a privacy profile (naive); advanced: delta' = " +
                           short_number(r.advanced_delta_prime) + ", the rest shared"
                     : "fixed (eps_i, delta_i) per application; advanced: delta' = the delta left";
  return r;
}

clt_estimate clt_estimate_of(const std::vector<spec>& specs, double delta) {
  detail::require(delta > 0 && delta < 1, "clt_estimate_of", "delta", delta, "must be in (0, 1)");
  clt_estimate r;
  double kl = 0.0, var = 0.0;
  for (const auto& s : specs) {
    const double n = static_cast<double>(s.times);
    const spec_kind& kind = s.kind();
    if (!kind.clt) {
      r.applicable = false;
      r.reason = "no CLT functionals for '" + s.text + "' in this table";
      return r;
    }
    const clt_moments m = kind.clt(s);
    if (!m.not_applicable.empty()) {
      r.applicable = false;
      r.reason = m.not_applicable;
      return r;
    }
    const double k = m.kl, v = m.var;
    kl += n * k;
    var += n * v;
  }
  r.mu = var > 0 ? 2.0 * kl / std::sqrt(var) : 0.0;
  r.epsilon = gdp_eps(r.mu, delta);
  return r;
}

}  // namespace fdp
