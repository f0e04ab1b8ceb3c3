#include "fdp/budget/privacy_filter.hpp"

#include <cmath>

#include "fdp/budget/rdp.hpp"
#include "fdp/core/error.hpp"
#include "fdp/ops/convert.hpp"

namespace fdp {

namespace {
// The delta shares of the filters (privacy_filter.hpp): they sum to 1.
constexpr double kGdpShare = 0.5, kRdpShare = 0.25, kBasicShare = 0.25;
}  // namespace

std::string filter_name(filter_kind k) {
  switch (k) {
    case filter_kind::pure:
      return "pure-DP sum";
    case filter_kind::gdp:
      return "GDP filter";
    case filter_kind::rdp:
      return "RDP filter";
    case filter_kind::basic:
      return "basic (eps, delta) sum";
    case filter_kind::none:
      break;
  }
  return "none";
}

privacy_filter::privacy_filter(double eps, double delta) : eps_(eps), delta_(delta) {
  detail::require(std::isfinite(eps) && eps > 0, "privacy_filter", "eps", eps,
                  "must be finite and > 0");
  detail::require(delta >= 0 && delta < 1, "privacy_filter", "delta", delta, "must be in [0, 1)");
  s_.rdp.assign(orders().size(), 0.0);
}

const std::vector<double>& privacy_filter::orders() {
  // Few orders: each costs the rdp filter a share of delta (log(16) nats of
  // log(1/delta) at the chosen order); these span what a budget of epsilon
  // 0.1 to 100 picks.
  static const std::vector<double> o = {1.5, 2,  3,  4,  5,  6,  8,   10,
                                        12,  16, 20, 32, 48, 64, 128, 256};
  return o;
}

void privacy_filter::accumulate(state& s, const filter_cost& c) {
  s.pure += c.pure_eps;
  s.mu2 += c.mu2;
  s.eps += c.eps;
  s.delta_part += c.delta_part;
  if (c.rdp.size() != s.rdp.size()) s.rdp_ok = false;
  if (!s.rdp_ok) return;
  for (std::size_t i = 0; i < s.rdp.size(); ++i) s.rdp[i] += c.rdp[i];
}

void privacy_filter::add(const filter_cost& c) { accumulate(s_, c); }

filter_level privacy_filter::level() const { return level_of(s_); }

filter_level privacy_filter::level_with(const filter_cost& c) const {
  state s = s_;
  accumulate(s, c);
  return level_of(s);
}

// The smallest epsilon over the filters still applicable, each at its own
// delta share (pure: 0). A +inf sum means a filter no longer applies.
filter_level privacy_filter::level_of(const state& s) const {
  filter_level best;
  const auto take = [&](double e, filter_kind k, double order) {
    if (e < best.epsilon) best = {e, k, order};
  };
  take(s.pure, filter_kind::pure, 0.0);
  if (delta_ == 0) return best;  // a pure-DP budget: only the pure filter has delta 0
  if (std::isfinite(s.mu2))
    take(gdp_eps(std::sqrt(s.mu2), kGdpShare * delta_), filter_kind::gdp, 0);
  if (s.rdp_ok) {
    const double per_order = kRdpShare * delta_ / static_cast<double>(orders().size());
    const rdp_epsilon r = rdp_to_eps(orders(), s.rdp, per_order, rdp_conversion::improved);
    take(r.eps, filter_kind::rdp, r.order);
  }
  if (std::isfinite(s.eps) && s.delta_part <= kBasicShare * delta_)
    take(s.eps, filter_kind::basic, 0.0);
  return best;
}

}  // namespace fdp
