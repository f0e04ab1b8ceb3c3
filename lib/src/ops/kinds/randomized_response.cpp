// Spec kind "randomized-response": k-ary randomized response, which reports
// the true category with probability p = e^eps / (e^eps + k - 1) and each
// other one with q = 1 / (e^eps + k - 1) (Warner 1965; Kairouz, Oh &
// Viswanath 2016, "Extremal mechanisms for local differential privacy").
//
// On neighbouring inputs 0 and 1 the outputs are P = (p, q, q, ..., q) and
// Q = (q, p, q, ..., q). By Neyman-Pearson the best tests reject on the
// largest likelihood ratios Q/P first: output 1 (ratio e^eps: alpha q, beta
// 1 - p), then the k - 2 outputs of ratio 1 (alpha (k-1) q = 1 - p, beta q),
// then output 0 (ratio e^-eps). So
//   T(P, Q) = the polygon through (0, 1), (q, 1 - p), (1 - p, q), (1, 0),
// symmetric (T(Q, P) is the same by the exchange of outputs 0 and 1); for
// k = 2 its two middle vertices meet and it is f_{eps,0} (Kairouz, Oh &
// Viswanath 2015). The loss L = log dQ/dP has three atoms: -eps (P-mass p,
// Q-mass q), 0 ((k-2) q each) and eps (q, p).
#include <cmath>

#include "ops/kind_support.hpp"

namespace fdp {
namespace {

struct rr {
  double eps, k, p, q;
};

// p and q from w = e^-eps, which does not overflow (e^eps does above 709).
rr params(const spec& s) {
  const double eps = s.number("eps"), k = s.number("k");
  const double w = std::exp(-eps), z = 1.0 + (k - 1.0) * w;
  return {eps, k, 1.0 / z, w / z};
}

tradeoff closed(const spec& s) {
  const rr r = params(s);
  if (r.k == 2) return tradeoff(eps_delta(r.eps, 0.0));  // (composes in closed form, KOV)
  const double one_minus_p = (r.k - 1.0) * r.q;          // (exact where 1 - p would cancel)
  return tradeoff(
      curve::from_points({{0.0, 1.0}, {r.q, one_minus_p}, {one_minus_p, r.q}, {1.0, 0.0}}));
}

compose_term term(const spec& s) {
  const rr r = params(s);
  compose_term t = kinds::term_of_closed(closed(s));
  t.law = discrete_law(
      {{-r.eps, r.p, r.q}, {0.0, (r.k - 2.0) * r.q, (r.k - 2.0) * r.q}, {r.eps, r.q, r.p}}, 0.0,
      0.0, true,
      "randomized-response(eps=" + detail::format_value(r.eps) +
          ", k=" + detail::format_value(r.k) + ")");
  return t;
}

// |L| <= eps: eps-DP (Dwork & Roth Def. 2.4 with delta = 0).
std::optional<std::pair<double, double>> classic(const spec& s) {
  return std::make_pair(params(s).eps, 0.0);
}

// From the atoms: E_P L = -eps (p - q), E_P L^2 = eps^2 (p + q).
clt_moments clt(const spec& s) {
  const rr r = params(s);
  const double kl = r.eps * (r.p - r.q);
  return {kl, std::max(0.0, r.eps * r.eps * (r.p + r.q) - kl * kl), {}};
}

// Under P: mean -kl, variance as above, third central moment from the atoms;
// under Q, L has the law of -L under P (the pair is symmetric).
loss_cumulants edgeworth(const spec& s) {
  const rr r = params(s);
  const double m = -r.eps * (r.p - r.q);
  const double e1 = -r.eps - m, e2 = -m, e3 = r.eps - m;
  const double var = r.p * e1 * e1 + (r.k - 2.0) * r.q * e2 * e2 + r.q * e3 * e3;
  const double k3 = r.p * e1 * e1 * e1 + (r.k - 2.0) * r.q * e2 * e2 * e2 + r.q * e3 * e3 * e3;
  loss_cumulants c;
  c.mean_p = m;
  c.var_p = var;
  c.k3_p = k3;
  c.mean_q = -m;
  c.var_q = var;
  c.k3_q = -k3;
  return c;
}

calibration_param calibrate_eps() {
  calibration_param c;
  c.key = "eps";
  c.hi = 700.0;
  return c;
}

}  // namespace

spec_kind spec_kind_randomized_response() {
  spec_kind k;
  k.name = "randomized-response";
  k.doc = "k-ary randomized response: the truth w.p. e^eps/(e^eps + k - 1)";
  k.example = "randomized-response:eps=1,k=4";
  k.keys = {required_key("eps", "E", {0.0, 700.0, false, false}, "privacy parameter eps"),
            integer_key("k", "K", 2, 2, 2147483648.0, "number of categories")};
  k.closed = closed;
  k.term = term;
  k.classic = classic;
  k.clt = clt;
  k.edgeworth = edgeworth;
  k.calibration = {calibrate_eps(), kinds::calibrate_times()};
  return k;
}

}  // namespace fdp
