#include "fdp/audit/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "fdp/audit/binomial.hpp"
#include "fdp/core/normal.hpp"
#include "audit/margins.hpp"

namespace fdp::audit {
namespace {

struct bounds {
  double pU, qL;
};

bounds cp_pair(double kP, double nP, double kQ, double nQ, double g) {
  return {cp_upper(std::min(kP, nP), nP, g), cp_lower(std::min(kQ, nQ), nQ, g)};
}

/// Log-margin of a claim over a test and its mirror; > 0 iff violated.
double margin_of(double pU, double qL, const tradeoff& f) {
  return detail::branches(pU, qL, 0.0, f).margin;
}

/// Smallest total per-side sample count N (with the same split fractions)
/// at which frequencies (p, q) would certify a violation of f at level g;
/// nullopt if none up to 1e15.
std::optional<double> needed(double p, double q, double fracP, double fracQ, double g,
                             const tradeoff& f) {
  auto ok = [&](double N) {
    const double nP = std::max(1.0, std::floor(N * fracP)),
                 nQ = std::max(1.0, std::floor(N * fracQ));
    const bounds b = cp_pair(p * nP, nP, q * nQ, nQ, g);
    return margin_of(b.pU, b.qL, f) > 0;
  };
  double lo = 1, hi = 2;
  while (!ok(hi)) {
    lo = hi;
    hi *= 2;
    if (hi > 1e15) return std::nullopt;
  }
  for (int it = 0; it < 60 && hi - lo > std::max(1.0, 1e-3 * lo); ++it) {
    const double mid = std::floor(0.5 * (lo + hi));
    if (ok(mid))
      hi = mid;
    else
      lo = mid;
  }
  return std::ceil(hi);
}

struct pt {
  double x, y;
};

/// Lower convex hull of pts plus (0, 1) and (1, 0), as a polyline.
std::vector<pt> hull(std::vector<pt> v) {
  v.push_back({0.0, 1.0});
  v.push_back({1.0, 0.0});
  std::sort(v.begin(), v.end(),
            [](const pt& a, const pt& b) { return a.x != b.x ? a.x < b.x : a.y < b.y; });
  std::vector<pt> h;
  for (const auto& p : v) {
    if (!h.empty() && h.back().x == p.x) continue;  // keep the lowest at this x
    while (h.size() >= 2) {
      const pt& a = h[h.size() - 2];
      const pt& b = h.back();
      if ((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) <= 0)
        h.pop_back();
      else
        break;
    }
    h.push_back(p);
  }
  return h;
}

double eval_poly(const std::vector<pt>& h, double x) {
  if (x <= h.front().x) return h.front().y;
  for (std::size_t i = 1; i < h.size(); ++i) {
    if (x <= h[i].x) {
      const double t = (x - h[i - 1].x) / (h[i].x - h[i - 1].x);
      return h[i - 1].y + t * (h[i].y - h[i - 1].y);
    }
  }
  return h.back().y;
}

/// A violation of f certified by the bounds of a test or by those of its
/// mirror (the complement event, other ordering), on the 1 - beta scale.
bool certifies_violation(const bounds& b, const tradeoff& f) {
  return detail::violates(b.pU, b.qL, f) || detail::violates(1.0 - b.qL, 1.0 - b.pU, f);
}

/// The side whose outputs give alpha (P) in a test of this ordering.
int alpha_side(const test& t) { return t.ordering == 0 ? 0 : 1; }

/// Outputs of side s, selection and evaluation splits together.
double side_total(const audit_result& r, int s) {
  return static_cast<double>(r.selection[s] + r.evaluation[s]);
}

/// A test's statistics and which of its two points (the test's own, its
/// mirror's) certifies a violation.
struct evaluated_test {
  test_result x;
  bool direct = false, mirror = false;
};

/// Counts and point estimates of test i; false when a side has no
/// evaluation output.
bool count_test(const test& t, std::size_t i, const eval_counts& counts, test_result& x) {
  const int sp = alpha_side(t);
  x.index = i;
  x.nP = counts.n[sp];
  x.nQ = counts.n[1 - sp];
  if (x.nP == 0 || x.nQ == 0) return false;
  x.kP = counts.count(sp, t);
  x.kQ = counts.count(1 - sp, t);
  x.alpha_hat = static_cast<double>(x.kP) / static_cast<double>(x.nP);
  x.beta_hat = 1.0 - static_cast<double>(x.kQ) / static_cast<double>(x.nQ);
  return true;
}

/// The Clopper-Pearson bounds of the test at its level; lower ends only for
/// band (curve) tests, else the point estimates.
bounds bound_test(const test& t, test_result& x) {
  const double kP = static_cast<double>(x.kP), nP = static_cast<double>(x.nP);
  const double kQ = static_cast<double>(x.kQ), nQ = static_cast<double>(x.nQ);
  const bounds b = cp_pair(kP, nP, kQ, nQ, t.gamma);
  x.alpha_upper = b.pU;
  x.beta_upper = 1.0 - b.qL;
  if (t.band) {
    x.alpha_lower = cp_lower(kP, nP, t.gamma);
    x.beta_lower = 1.0 - cp_upper(kQ, nQ, t.gamma);
  } else {
    x.alpha_lower = x.alpha_hat;
    x.beta_lower = x.beta_hat;
  }
  return b;
}

/// What the bounds certify: epsilon, mu, the claim margin and a violation.
void certify(const bounds& b, double delta, const tradeoff& f, evaluated_test& e) {
  test_result& x = e.x;
  const auto br = detail::branches(b.pU, b.qL, delta, f);
  x.epsilon = br.eps;
  x.mu = br.mu;
  x.claim_beta = beta(f, std::min(1.0, b.pU));
  x.margin = br.margin;
  // The certified comparisons themselves, on the 1 - beta scale.
  e.direct = detail::violates(b.pU, b.qL, f);
  e.mirror = detail::violates(1.0 - b.qL, 1.0 - b.pU, f);
  x.violation = e.direct || e.mirror;
  x.mirror = br.mirror_margin;
}

std::optional<evaluated_test> evaluate_test(const test& t, std::size_t i, const eval_counts& counts,
                                            const tradeoff& f, double delta) {
  evaluated_test e;
  if (!count_test(t, i, counts, e.x)) return std::nullopt;
  const bounds b = bound_test(t, e.x);
  certify(b, delta, f, e);
  return e;
}

/// The witness: the violating point (a test or its mirror) with the
/// largest gap f(alpha_U) - beta_U, the most visible one on a plot.
struct witness_search {
  double best_gap = -detail::kInf;
  std::optional<witness> best;

  /// `index`: the test's place in audit_result::tests.
  void consider(const evaluated_test& e, std::size_t index, const tradeoff& f) {
    if (e.direct) consider_point(e.x.alpha_upper, e.x.beta_upper, false, index, f);
    if (e.mirror) consider_point(e.x.beta_upper, e.x.alpha_upper, true, index, f);
  }

  void consider_point(double a, double b, bool mirror, std::size_t index, const tradeoff& f) {
    const double cb = beta(f, std::min(1.0, a));
    if (cb - b > best_gap) {
      best_gap = cb - b;
      witness w;
      w.test = index;
      w.mirror = mirror;
      w.alpha = a;
      w.beta = b;
      w.claim_beta = cb;
      best = w;
    }
  }
};

struct conclusion {
  std::string verdict, reason;
  std::optional<double> samples_needed;
};

/// The claim test: the one chosen for the claim (else the best margin).
const test_result* claim_test(const plan& p, const audit_result& r) {
  const test_result* ct = nullptr;
  for (const auto& x : r.tests) {
    if (p.tests[x.index].role.find("claim") != std::string::npos) ct = &x;
  }
  if (!ct) {
    for (const auto& x : r.tests) {
      if (!ct || x.margin > ct->margin) ct = &x;
    }
  }
  return ct;
}

/// No certified violation, but a claim test: inconclusive when it violates
/// the claim by the uncorrected bounds or when no outcome of its size could
/// certify a violation, else consistent.
conclusion judge_claim_test(const plan& p, const audit_result& r, const test_result& ct,
                            const tradeoff& f) {
  const double g = 1.0 - p.confidence;
  const double gamma = p.tests[ct.index].gamma;
  const int sp = alpha_side(p.tests[ct.index]);
  const double fracP = static_cast<double>(ct.nP) / side_total(r, sp);
  const double fracQ = static_cast<double>(ct.nQ) / side_total(r, 1 - sp);
  const double nP = static_cast<double>(ct.nP), nQ = static_cast<double>(ct.nQ);
  const bounds naive =
      cp_pair(static_cast<double>(ct.kP), nP, static_cast<double>(ct.kQ), nQ, g / 2);
  if (certifies_violation(naive, f)) {
    return {"inconclusive",
            "the claim test violates the claim without the multiple-testing correction, "
            "not at the stated confidence",
            needed(ct.alpha_hat, 1.0 - ct.beta_hat, fracP, fracQ, gamma, f)};
  }
  // Could any outcome of this size certify a violation?
  const bounds ext = cp_pair(0, nP, nQ, nQ, gamma);
  if (!certifies_violation(ext, f)) {
    return {"inconclusive", "too few samples: no outcome could certify a violation of the claim",
            needed(0.0, 1.0, fracP, fracQ, gamma, f)};
  }
  return {"consistent", "no evidence against the claim at this sample size", std::nullopt};
}

/// No test could be chosen or evaluated.
conclusion judge_without_tests(const plan& p, const audit_result& r, const tradeoff& f) {
  const double g = 1.0 - p.confidence;
  const double share = 0.9;
  const double gp = share * g / 8;
  const double N0 = side_total(r, 0);
  const double frac =
      (N0 > 0 && r.evaluation[0] > 0) ? static_cast<double>(r.evaluation[0]) / N0 : 0.9;
  if (r.selection[0] >= 10 && r.selection[1] >= 10 && r.evaluation[0] > 0 && r.evaluation[1] > 0) {
    // Enough outputs, yet no event separates them: the selection outputs of
    // both sides are all alike. Consistent if some outcome of this size
    // could have certified a violation, else too few samples.
    const double e0 = static_cast<double>(r.evaluation[0]),
                 e1 = static_cast<double>(r.evaluation[1]);
    const bounds ext = cp_pair(0, e0, e1, e1, gp);
    if (certifies_violation(ext, f)) {
      return {"consistent",
              "no test separates the two sides (their selection outputs are all alike)",
              std::nullopt};
    }
    return {"inconclusive",
            "too few samples: the selection outputs of both sides are all alike and no outcome "
            "of this size could certify a violation of the claim",
            needed(0.0, 1.0, frac, frac, gp, f)};
  }
  return {"inconclusive", "too few samples to choose and evaluate a test",
          needed(0.0, 1.0, frac, frac, gp, f)};
}

/// A claim no outcome can reject: a violation needs f(alpha_U) > beta_U >= 0
/// at some alpha_U > 0, and a trade-off function that is 0 at the smallest
/// positive alpha is 0 on all of (0, 1] (non-increasing), e.g. f_{eps,1}.
bool vacuous(const tradeoff& f) { return beta(f, std::numeric_limits<double>::min()) <= 0.0; }

/// No evaluated test has anything to learn from: on both sides its event
/// held for none or for all of the evaluation outputs (typical of outputs
/// that never repeat: a token seen once in the selection split never comes
/// back). Then every bound is as weak as the sample count allows and
/// epsilon >= 0 says nothing about the mechanism. False when no test was
/// evaluated (judge_without_tests words that case).
bool nothing_learned(const audit_result& r) {
  if (r.tests.empty()) return false;
  for (const auto& x : r.tests) {
    const bool none = x.kP == 0 && x.kQ == 0;
    const bool all = x.kP == x.nP && x.kQ == x.nQ;
    if (!none && !all) return false;
  }
  return true;
}

audit_result result_header(const plan& p, const eval_counts& counts, double delta) {
  audit_result r;
  r.confidence = p.confidence;
  r.delta = delta;
  for (int s = 0; s < 2; ++s) {
    r.selection[s] = p.selection[s];
    r.evaluation[s] = counts.n[s];
  }
  r.error_budget = p.total_error();
  return r;
}

}  // namespace

audit_result evaluate(const plan& p, const eval_counts& counts, const tradeoff& f, double delta) {
  audit_result r = result_header(p, counts, delta);
  witness_search ws;
  for (std::size_t i = 0; i < p.tests.size(); ++i) {
    const auto e = evaluate_test(p.tests[i], i, counts, f, delta);
    if (!e) continue;
    r.epsilon_lower = std::max(r.epsilon_lower, e->x.epsilon);
    r.mu_lower = std::max(r.mu_lower, e->x.mu);
    ws.consider(*e, r.tests.size(), f);
    r.tests.push_back(e->x);
  }
  r.w = ws.best;
  r.nothing_learned = nothing_learned(r);
  conclusion c;
  if (vacuous(f)) {
    c = {"vacuous",
         "the claim is vacuous: its trade-off curve is 0 for every alpha > 0 (e.g. delta = 1), "
         "so no outcome of any sample size could reject it",
         std::nullopt};
  } else if (r.w) {
    c = {"violation", "a test certifies beta < f(alpha) at the stated confidence", std::nullopt};
  } else if (const test_result* ct = claim_test(p, r)) {
    c = judge_claim_test(p, r, *ct, f);
  } else {
    c = judge_without_tests(p, r, f);
  }
  if (r.nothing_learned && c.verdict == "consistent") {
    c.reason =
        "no test had anything to learn from: each test's event held for none or all of the "
        "evaluation outputs on both sides (outputs that never repeat?), so the bounds below "
        "say nothing about the mechanism";
  }
  r.verdict = std::move(c.verdict);
  r.reason = std::move(c.reason);
  r.samples_needed = c.samples_needed;
  return r;
}

std::vector<curve_point> empirical_curve(const audit_result& r) {
  std::vector<pt> up, est, lo;
  for (const auto& x : r.tests) {
    up.push_back({x.alpha_upper, x.beta_upper});
    up.push_back({x.beta_upper, x.alpha_upper});
    est.push_back({x.alpha_hat, x.beta_hat});
    est.push_back({x.beta_hat, x.alpha_hat});
    lo.push_back({x.alpha_lower, x.beta_lower});
    lo.push_back({x.beta_lower, x.alpha_lower});
  }
  const auto hu = hull(up), he = hull(est), hl = hull(lo);
  std::vector<double> grid;
  for (int i = 0; i <= 100; ++i) grid.push_back(i / 100.0);
  for (int i = 0; i <= 80; ++i) grid.push_back(std::pow(10.0, -8.0 + 8.0 * i / 80.0));
  for (const auto* h : {&hu, &he, &hl}) {
    for (const auto& v : *h) grid.push_back(v.x);
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  std::vector<curve_point> out;
  for (double a : grid) {
    if (a < 0 || a > 1) continue;
    const double u = eval_poly(hu, a), e = eval_poly(he, a);
    const double l = std::min(eval_poly(hl, a), e);
    out.push_back({a, l, std::max(u, e), e});
  }
  return out;
}

}  // namespace fdp::audit
