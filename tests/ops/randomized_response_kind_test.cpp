// Tests for the spec kind randomized-response:eps=E[,k=K] against an
// independent exact answer: the output distributions of k-ary randomized
// response on two neighbouring inputs, written from its definition (the true
// category w.p. e^eps / (e^eps + k - 1), each other one w.p. 1 / (e^eps + k - 1)),
// their n-fold products enumerated outcome by outcome in long double, and
// from them delta(eps) (the hockey-stick divergence), epsilon(delta) and
// beta(alpha) (Neyman-Pearson). fdp compose's brackets, closed form and PLD,
// must contain every exact value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "exact_outcomes.hpp"
#include "kind_test_support.hpp"
#include "fdp/budget/classic.hpp"
#include "fdp/budget/ledger.hpp"
#include "fdp/core/error.hpp"
#include "fdp/mech/registry.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/edgeworth.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {
namespace {

using exact::outcome;
using exact::real;

// One application: the reported category on true category 0 (P) and 1 (Q).
std::vector<outcome> one_application(double eps, int k) {
  const real e = std::exp(static_cast<real>(eps)), z = e + (k - 1);
  std::vector<outcome> o(static_cast<std::size_t>(k), outcome{1 / z, 1 / z});
  o[0].p = e / z;
  o[1].q = e / z;
  return o;
}

// All k^n output tuples of the n-fold composition.
std::vector<outcome> n_fold(double eps, int k, int n) {
  const auto one = one_application(eps, k);
  std::vector<outcome> all{{1, 1}};
  for (int i = 0; i < n; ++i) {
    std::vector<outcome> next;
    for (const auto& a : all)
      for (const auto& b : one) next.push_back({a.p * b.p, a.q * b.q});
    all = std::move(next);
  }
  return all;
}

std::string spec_text(double eps, int k, int n) {
  return "randomized-response:eps=" + detail::format_value(eps) + ",k=" + std::to_string(k) +
         ",times=" + std::to_string(n);
}

// (the truth is itself rounded, in long double: a relative 1e-14 of slack)
void expect_contains(const interval& b, real truth, const std::string& what) {
  test::expect_contains(b, truth, what, 1e-14L, 1e-300L);
}

struct rr_case {
  double eps;
  int k, n;
};
const rr_case kCases[] = {{1.0, 2, 5}, {0.5, 3, 4}, {1.2, 4, 3}, {0.3, 5, 3},
                          {2.0, 3, 6}, {0.7, 6, 4}, {0.05, 3, 5}};

// One application is exactly the polygon of the definition, and its law's atoms are P and Q.
TEST(RandomizedResponseKind, OneApplicationIsTheExactPolygon) {
  for (const auto& c : kCases) {
    const spec s = parse_spec(spec_text(c.eps, c.k, 1));
    const tradeoff f = single_tradeoff(s).value();
    EXPECT_EQ(std::holds_alternative<eps_delta>(f.get()), c.k == 2);
    const auto os = one_application(c.eps, c.k);
    for (double a = 0; a <= 1.0; a += 1.0 / 64) {
      EXPECT_NEAR(beta(f, a), static_cast<double>(exact::beta(os, a)), 1e-15)
          << s.text << " at " << a;
    }
    const compose_term t = make_term(s);
    double p = 0, q = 0;
    for (const auto& at : t.law->atoms()) {
      p += at.p;
      q += at.q;
      EXPECT_NEAR(at.loss, std::log(at.q / at.p), 1e-14) << s.text;
    }
    EXPECT_NEAR(p, 1.0, 1e-15);
    EXPECT_NEAR(q, 1.0, 1e-15);
    EXPECT_TRUE(t.law->symmetric());
  }
}

// The closed form of k-ary randomized response's trade-off function, written
// out: the Neyman-Pearson polygon's three edges of slopes -e^eps, -1 and
// -e^-eps (Kairouz, Oh & Viswanath 2016, Sec. 2; for k = 2 the middle edge
// passes through the corner of the other two and f is f_{eps,0}, Dong, Roth
// & Su 2022, Sec. 2.2):
//   f(alpha) = max{0, 1 - e^eps alpha, k / (e^eps + k - 1) - alpha, e^-eps (1 - alpha)}.
// The kind's closed form (and one composed application) is it; so is the
// mechanism catalogue's exact trade-off of the same mechanism, written apart
// in mech/ (fdp/mech/registry.hpp).
TEST(RandomizedResponseKind, IsTheClosedFormTradeoff) {
  for (const auto& c : kCases) {
    const real e = std::exp(static_cast<real>(c.eps));
    const auto f_closed = [&](real a) {
      return std::max({real(0), 1 - e * a, c.k / (e + c.k - 1) - a, (1 - a) / e});
    };
    const spec s = parse_spec(spec_text(c.eps, c.k, 1));
    const tradeoff f = single_tradeoff(s).value();
    const composition one = compose({s});
    const std::string mech =
        "randomized-response:eps=" + detail::format_value(c.eps) + ",k=" + std::to_string(c.k);
    const auto exact = mech::make_mechanism(mech)->exact_tradeoff();
    ASSERT_TRUE(exact.has_value()) << mech;
    for (int i = 0; i <= 200; ++i) {
      const double a = i / 200.0;
      const double truth = static_cast<double>(f_closed(a));
      EXPECT_NEAR(beta(f, a), truth, 4e-16) << s.text << " at " << a;
      EXPECT_NEAR(beta(*exact, a), truth, 4e-16) << mech << " at " << a;
      expect_contains(one.beta(a), f_closed(a),
                      s.text + " composed once, beta at " + std::to_string(a));
    }
  }
}

// k-fold compositions: every bracket of compose, closed form (auto: exact for
// k = 2, KOV) and PLD, contains the enumerated truth, and is narrow.
TEST(RandomizedResponseKind, CompositionsContainTheEnumeratedTruth) {
  for (const auto& c : kCases) {
    const std::string text = spec_text(c.eps, c.k, c.n);
    const auto os = n_fold(c.eps, c.k, c.n);
    for (compose_method m : {compose_method::automatic, compose_method::pld}) {
      compose_options o;
      o.method = m;
      const composition comp = compose({parse_spec(text)}, o);
      const std::string what = text + (m == compose_method::pld ? " pld" : " auto");
      EXPECT_EQ(comp.is_exact(), m == compose_method::automatic && c.k == 2) << what;
      for (double e : {0.0, 0.25, 1.0, 2.5})
        expect_contains(comp.delta(e), exact::delta(os, e),
                        what + " delta at " + std::to_string(e));
      for (double d : {1e-2, 1e-3, 1e-5}) {
        const interval b = comp.epsilon(d);
        expect_contains(b, exact::epsilon(os, d), what + " epsilon at " + std::to_string(d));
        EXPECT_LE(b.upper - b.lower, (comp.is_exact() ? 1e-12 : 2e-2) * b.upper)
            << what << " epsilon at " << d;
      }
      for (double a : {1e-4, 0.01, 0.1, 0.3, 0.5, 0.9}) {
        const interval b = comp.beta(a);
        expect_contains(b, exact::beta(os, a), what + " beta at " + std::to_string(a));
        // Closed forms: a few ulps of the polygon's vertices. PLD: the grid is
        // refined for the epsilon bracket only, which for these lattice laws
        // is exact at once (beta at 0.3 of eps=1.2,k=4,times=3 is 8% wide).
        if (comp.is_exact())
          EXPECT_LE(b.upper - b.lower, 1e-11) << what << " beta at " << a;
        else
          EXPECT_LE(b.upper - b.lower, 0.1 * b.upper + 1e-4) << what << " beta at " << a;
      }
    }
  }
}

// The accountants' hooks of the kind against the same enumeration.
TEST(RandomizedResponseKind, HooksMatchTheOutputDistributions) {
  for (const auto& c : kCases) {
    const spec s = parse_spec(spec_text(c.eps, c.k, 1));
    const auto os = one_application(c.eps, c.k);
    real kl = 0, m1 = 0, m2 = 0, m3 = 0;
    for (const auto& o : os) {
      const real l = std::log(o.q / o.p);
      kl -= o.p * l;
      m1 += o.p * l;
      m2 += o.p * l * l;
    }
    for (const auto& o : os) m3 += o.p * std::pow(std::log(o.q / o.p) - m1, 3);
    const clt_moments cm = s.kind().clt(s);
    EXPECT_NEAR(cm.kl, static_cast<double>(kl), 1e-15);
    EXPECT_NEAR(cm.var, static_cast<double>(m2 - m1 * m1), 1e-14);
    const loss_cumulants lc = s.kind().edgeworth(s);
    EXPECT_NEAR(lc.mean_p, static_cast<double>(m1), 1e-15);
    EXPECT_NEAR(lc.var_p, static_cast<double>(m2 - m1 * m1), 1e-14);
    EXPECT_NEAR(lc.k3_p, static_cast<double>(m3), 1e-14);
    EXPECT_EQ(lc.mean_q, -lc.mean_p);
    // eps-DP: the classic theorems' pair
    EXPECT_EQ(s.kind().classic(s)->first, c.eps);
    EXPECT_EQ(s.kind().classic(s)->second, 0.0);
    // RDP (the default hook: sums over the law's atoms) is the Renyi divergence
    const std::vector<double> orders{1.5, 2, 8, 32};
    const rdp_curve r = spec_rdp(s, orders);
    ASSERT_TRUE(r.not_applicable.empty());
    for (std::size_t i = 0; i < orders.size(); ++i) {
      real sum = 0;
      for (const auto& o : os)
        sum += std::pow(o.q, static_cast<real>(orders[i])) *
               std::pow(o.p, 1 - static_cast<real>(orders[i]));
      EXPECT_NEAR(r.rdp[i], static_cast<double>(std::log(sum) / (orders[i] - 1)), 1e-12)
          << orders[i];
    }
  }
}

// The ledger (its default record: the kind's keys and law) and compare's
// classic composition take the kind too.
TEST(RandomizedResponseKind, LedgerAndClassicAccounting) {
  const auto os = n_fold(0.5, 3, 6);
  accountant_options plan;  // (the tight composition's groups are checked)
  plan.mode = ledger_mode::plan;
  accountant a(20.0, 1e-5, plan);
  a.add("randomized-response:eps=0.5,k=3,times=2");
  a.add("randomized-response:eps=0.5,k=3,times=4");
  EXPECT_EQ(a.groups(), 1u);
  expect_contains(a.spent(1e-3), exact::epsilon(os, 1e-3), "ledger spent at 1e-3");
  const classic_report r =
      classic_account({parse_spec("randomized-response:eps=0.5,k=3,times=6")}, 1e-5);
  ASSERT_TRUE(r.applicable);
  EXPECT_DOUBLE_EQ(r.naive_eps, 3.0);
  EXPECT_EQ(r.naive_delta, 0.0);
}

TEST(RandomizedResponseKind, BadParametersAreRefused) {
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"randomized-response", "missing required key 'eps'"},
           {"randomized-response:eps=1,k=1", "k: '1' must be an integer in [2, 2147483648]"},
           {"randomized-response:eps=1,k=2.5", "k: '2.5' must be an integer"},
           {"randomized-response:eps=-1", "eps = -1 must be in [0, 700]"},
           {"randomized-response:eps=1,q=2",
            "unknown key 'q' for randomized-response (allowed: eps, k, times)"}}) {
    try {
      (void)parse_spec(text);
      ADD_FAILURE() << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace fdp
