#include "fdp/budget/rdp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fdp/core/error.hpp"

namespace fdp {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

std::vector<double> default_rdp_orders() {
  std::vector<double> o{1.1, 1.25, 1.5, 1.75};
  for (int a = 4; a <= 128; ++a) o.push_back(0.5 * a);  // 2, 2.5, ..., 64
  for (double a : {72.0, 80.0, 96.0, 128.0, 160.0, 192.0, 256.0, 384.0, 512.0}) o.push_back(a);
  return o;
}

rdp_epsilon rdp_to_eps(const std::vector<double>& orders, const std::vector<double>& rdp,
                       double delta, rdp_conversion c) {
  detail::require(delta > 0 && delta < 1, "rdp_to_eps", "delta", delta, "must be in (0, 1)");
  if (orders.size() != rdp.size()) {
    throw std::invalid_argument("rdp_to_eps(rdp): one value per order is required");
  }
  rdp_epsilon best{kInf, 0.0};
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double a = orders[i], r = rdp[i];
    if (!std::isfinite(r)) continue;
    double e = c == rdp_conversion::standard
                   ? r + std::log(1.0 / delta) / (a - 1)
                   : r + std::log1p(-1.0 / a) - (std::log(delta) + std::log(a)) / (a - 1);
    e = std::max(0.0, e);
    if (e < best.eps) best = {e, a};
  }
  return best;
}

rdp_report rdp_account(const std::vector<spec>& specs, double delta) {
  detail::require(delta > 0 && delta < 1, "rdp_account", "delta", delta, "must be in (0, 1)");
  rdp_report r;
  r.orders = default_rdp_orders();
  r.rdp.assign(r.orders.size(), 0.0);
  double log_keep = 0.0;
  for (const auto& s : specs) {
    const double n = static_cast<double>(s.times);
    // each kind's curve (fdp/ops/spec_kind.hpp); its mass at +inf apart
    const rdp_curve c = spec_rdp(s, r.orders);
    if (!c.not_applicable.empty()) {
      r.applicable = false;
      r.reason = c.not_applicable;
      return r;
    }
    if (c.delta >= 1)
      log_keep = -kInf;
    else if (c.delta > 0)
      log_keep += n * std::log1p(-c.delta);
    for (std::size_t i = 0; i < c.rdp.size(); ++i) r.rdp[i] += n * c.rdp[i];
  }
  r.delta_fixed = log_keep == -kInf ? 1.0 : -std::expm1(log_keep);
  if (r.delta_fixed >= delta) {
    r.applicable = false;
    r.reason = "the delta parts of the epsdelta specs (" + detail::format_value(r.delta_fixed) +
               ") already reach delta";
    return r;
  }
  const double dd = (delta - r.delta_fixed) / (1.0 - r.delta_fixed);
  r.standard = rdp_to_eps(r.orders, r.rdp, dd, rdp_conversion::standard);
  r.improved = rdp_to_eps(r.orders, r.rdp, dd, rdp_conversion::improved);
  if (!std::isfinite(r.improved.eps)) {
    r.applicable = false;
    r.reason = "the RDP curve is infinite at every order";
  }
  return r;
}

}  // namespace fdp
