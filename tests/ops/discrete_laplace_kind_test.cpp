// Tests for the spec kind discrete-laplace:t=T|eps=E[,sensitivity=D] against
// answers made apart from the kind's code:
//   * the output distributions written from the definition, P(Z = z) =
//     (1 - w)/(1 + w) w^|z| with w = e^{-1/t} on the integers, enumerated z
//     by z in long double (P = Z, Q = Z + D), and from them the n-fold
//     lattice law (the clamped outcome j = min(max(z, 0), D) carries the
//     whole likelihood ratio; its P- and Q-pmfs convolved n times apart),
//     delta(eps) (hockey stick), epsilon(delta) and beta(alpha) (Neyman-Pearson);
//   * the mechanism catalogue's exact trade-off of the same mechanism
//     (fdp/mech/registry.hpp, written apart in mech/);
//   * golden values from mpmath (tests/golden/gen_discrete_laplace.py, the
//     generator next to its data discrete_laplace.csv), n up to 1000.
// fdp compose's brackets must contain every exact value.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "../golden/golden_csv.hpp"
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

// One application, outcome by outcome: z in [-N, D + N] with w^N < e^-100
// (the rest of both tails, below 4e-44, is left out).
std::vector<outcome> one_application_z(double t, int d) {
  const real w = std::exp(-1.0L / t), c = (1 - w) / (1 + w);
  const long n = static_cast<long>(std::ceil(100.0 * t));
  std::vector<outcome> o;
  for (long z = -n; z <= d + n; ++z)
    o.push_back({c * std::pow(w, static_cast<real>(std::labs(z))),
                 c * std::pow(w, static_cast<real>(std::labs(z - d)))});
  return o;
}

// The same outcomes grouped by j = min(max(z, 0), D), on which the likelihood
// ratio Q/P = e^{(2j - D)/t} depends only: the lattice law of one application.
std::vector<outcome> one_application(double t, int d) {
  std::vector<outcome> j(static_cast<std::size_t>(d) + 1, outcome{0, 0});
  const long n = static_cast<long>(std::ceil(100.0 * t));
  const auto z = one_application_z(t, d);
  for (std::size_t i = 0; i < z.size(); ++i) {
    const long v = static_cast<long>(i) - n;
    auto& a = j[static_cast<std::size_t>(std::clamp<long>(v, 0, d))];
    a.p += z[i].p;
    a.q += z[i].q;
  }
  return j;
}

// The n-fold lattice law: J = j_1 + ... + j_n, its P- and Q-pmfs convolved apart.
std::vector<outcome> n_fold(double t, int d, int n) {
  const auto one = one_application(t, d);
  std::vector<outcome> all{{1, 1}};
  for (int i = 0; i < n; ++i) {
    std::vector<outcome> next(all.size() + one.size() - 1, outcome{0, 0});
    for (std::size_t a = 0; a < all.size(); ++a)
      for (std::size_t b = 0; b < one.size(); ++b) {
        next[a + b].p += all[a].p * one[b].p;
        next[a + b].q += all[a].q * one[b].q;
      }
    all = std::move(next);
  }
  return all;
}

std::string spec_text(double t, int d, int n) {
  return "discrete-laplace:t=" + detail::format_value(t) + ",sensitivity=" + std::to_string(d) +
         ",times=" + std::to_string(n);
}

// (the truth is itself rounded, in long double: a relative 1e-14 of slack,
// and 1e-17 absolute for a beta near 0 summed from masses near 1)
void expect_contains(const interval& b, real truth, const std::string& what) {
  test::expect_contains(b, truth, what, 1e-14L, 1e-17L);
}

struct dl_case {
  double t;
  int d;
};
// scales with 1/t a dyadic rational (the mechanism catalogue's rate, a
// multiple of 2^-52, is then the same) and a few without
const dl_case kCases[] = {{2.0, 1},  {2.0, 3}, {0.5, 2}, {4.0, 4},
                          {1.6, 10}, {32, 3},  {3.0, 5}, {0.7, 2}};

// One application is exactly Neyman-Pearson's polygon of the definition, at
// 201 alphas, and so is the catalogue's exact trade-off; compose's bracket
// of one application contains it; the law's atoms are P and Q grouped by j.
TEST(DiscreteLaplaceKind, OneApplicationIsTheExactTradeoff) {
  for (const auto& c : kCases) {
    const spec s = parse_spec(spec_text(c.t, c.d, 1));
    const tradeoff f = single_tradeoff(s).value();
    EXPECT_EQ(std::holds_alternative<eps_delta>(f.get()), c.d == 1) << s.text;
    const auto os = one_application_z(c.t, c.d);
    const std::string mech = "discrete-laplace:eps=" + detail::format_value(c.d / c.t) +
                             ",sensitivity=" + std::to_string(c.d);
    const auto exact = mech::make_mechanism(mech)->exact_tradeoff();
    ASSERT_TRUE(exact.has_value()) << mech;
    // the catalogue samples with a rate rounded down to a multiple of 2^-52:
    // its vertices move by up to D times that, relative
    const double x = 1.0 / c.t, x_mech = std::floor(std::ldexp(x, 52)) * 0x1p-52;
    const double mech_tol = 2e-15 + 4.0 * c.d * c.d * (x - x_mech);
    const composition one = compose({s});
    double worst = 0, worst_mech = 0;
    for (int i = 0; i <= 200; ++i) {
      const double a = i / 200.0;
      const real truth = exact::beta(os, a);
      worst = std::max(worst, std::fabs(beta(f, a) - static_cast<double>(truth)));
      worst_mech = std::max(worst_mech, std::fabs(beta(*exact, a) - static_cast<double>(truth)));
      EXPECT_NEAR(beta(f, a), static_cast<double>(truth), 1e-15) << s.text << " at " << a;
      EXPECT_NEAR(beta(*exact, a), static_cast<double>(truth), mech_tol) << mech << " at " << a;
      expect_contains(one.beta(a), truth, s.text + " composed once, beta at " + std::to_string(a));
    }
    std::cout << "[discrete-laplace] " << s.text << ": |kind - definition| <= " << worst
              << ", |catalogue - definition| <= " << worst_mech << "\n";
    const compose_term term = make_term(s);
    const auto lattice = one_application(c.t, c.d);
    const auto atoms = term.law->atoms();
    ASSERT_EQ(atoms.size(), lattice.size()) << s.text;
    for (std::size_t j = 0; j < atoms.size(); ++j) {
      EXPECT_NEAR(atoms[j].loss, static_cast<double>(std::log(lattice[j].q / lattice[j].p)), 1e-14)
          << s.text << " atom " << j;
      EXPECT_NEAR(atoms[j].p / static_cast<double>(lattice[j].p), 1.0, 4e-15) << s.text << " " << j;
      EXPECT_NEAR(atoms[j].q / static_cast<double>(lattice[j].q), 1.0, 4e-15) << s.text << " " << j;
    }
    EXPECT_TRUE(term.law->symmetric());
    EXPECT_EQ(term.law->p_neg_inf(), 0.0);
    EXPECT_EQ(term.law->q_pos_inf(), 0.0);
  }
}

// n-fold compositions (n = 1, 2, 5, 20): every bracket of compose contains
// the enumerated truth, and the epsilon brackets are narrow. (D = 1 is
// f_{1/t,0}: exact in closed form, KOV; and by the engine with method pld.)
TEST(DiscreteLaplaceKind, CompositionsContainTheEnumeratedTruth) {
  for (const auto& c : kCases) {
    for (int n : {1, 2, 5, 20}) {
      const std::string text = spec_text(c.t, c.d, n);
      const auto os = n_fold(c.t, c.d, n);
      std::vector<compose_method> methods{compose_method::automatic};
      if (c.d == 1) methods.push_back(compose_method::pld);
      for (compose_method m : methods) {
        compose_options o;
        o.method = m;
        const composition comp = compose({parse_spec(text)}, o);
        const std::string what = text + (m == compose_method::pld ? " pld" : " auto");
        EXPECT_EQ(comp.is_exact(), m == compose_method::automatic && c.d == 1) << what;
        for (double e : {0.0, 0.25, 1.0, 2.5, 6.0})
          expect_contains(comp.delta(e), exact::delta(os, e),
                          what + " delta at " + std::to_string(e));
        for (double d : {1e-2, 1e-3, 1e-5, 1e-9}) {
          const interval b = comp.epsilon(d);
          expect_contains(b, exact::epsilon(os, d), what + " epsilon at " + std::to_string(d));
          // (the grid is refined for the bracket at delta_hint = 1e-5)
          if (d >= 1e-5)
            EXPECT_LE(b.upper - b.lower, (comp.is_exact() ? 1e-12
                                          : d == 1e-5     ? 5e-3
                                                          : 3e-2) *
                                             b.upper)
                << what << " epsilon at " << d;
        }
        for (double a : {1e-4, 0.01, 0.1, 0.3, 0.5, 0.9}) {
          const interval b = comp.beta(a);
          expect_contains(b, exact::beta(os, a), what + " beta at " + std::to_string(a));
          // Closed forms: a few ulps of the polygon's vertices. PLD: the
          // grid is refined for the epsilon bracket only (as for
          // randomized-response; beta at 0.3 of t=0.7,sensitivity=2,times=2
          // is [0.0048, 0.0057])
          if (comp.is_exact())
            EXPECT_LE(b.upper - b.lower, 1e-11) << what << " beta at " << a;
          else
            EXPECT_LE(b.upper - b.lower, 0.2 * b.upper + 1e-3) << what << " beta at " << a;
        }
      }
    }
  }
}

// eps = D / t is the same mechanism: the same law, the same answers.
TEST(DiscreteLaplaceKind, EpsIsAnAliasOfT) {
  for (const auto& [t_form, eps_form] : std::vector<std::pair<std::string, std::string>>{
           {"discrete-laplace:t=2,times=7", "discrete-laplace:eps=0.5,times=7"},
           {"discrete-laplace:t=2,sensitivity=3,times=7",
            "discrete-laplace:eps=1.5,sensitivity=3,times=7"},
           {"discrete-laplace:t=0.25,sensitivity=8", "discrete-laplace:eps=32,sensitivity=8"}}) {
    const auto a = make_term(parse_spec(t_form)).law->atoms();
    const auto b = make_term(parse_spec(eps_form)).law->atoms();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t j = 0; j < a.size(); ++j) {
      EXPECT_EQ(a[j].loss, b[j].loss) << t_form;
      EXPECT_EQ(a[j].p, b[j].p) << t_form;
      EXPECT_EQ(a[j].q, b[j].q) << t_form;
    }
    const composition ca = compose({parse_spec(t_form)}), cb = compose({parse_spec(eps_form)});
    for (double d : {1e-3, 1e-6}) {
      EXPECT_EQ(ca.epsilon(d).lower, cb.epsilon(d).lower) << t_form;
      EXPECT_EQ(ca.epsilon(d).upper, cb.epsilon(d).upper) << t_form;
    }
  }
}

// Golden values from mpmath (n up to 1000): each inside compose's bracket
// (an epsilon at delta from a composition tuned at that delta, as fdp
// compose --delta does; delta and beta from one tuned at the default 1e-5).
TEST(DiscreteLaplaceKind, GoldenCompositions) {
  const auto table = test::load_golden("discrete_laplace.csv");
  const std::size_t cs = table.column("spec"), cq = table.column("query"), ca = table.column("arg"),
                    cv = table.column("value");
  for (const auto& row : table.rows) {
    std::string text = row[cs];
    std::replace(text.begin(), text.end(), ';', ',');
    const double arg = test::to_double(row[ca]);
    compose_options o;
    if (row[cq] == "eps") o.delta_hint = arg;
    const auto t0 = std::chrono::steady_clock::now();
    const composition comp = compose({parse_spec(text)}, o);
    std::cout << "[discrete-laplace] " << text << " (" << comp.method() << ", "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
              << " s): ";
    const real truth = std::strtold(row[cv].c_str(), nullptr);
    interval b;
    if (row[cq] == "delta")
      b = comp.delta(arg);
    else if (row[cq] == "eps")
      b = comp.epsilon(arg);
    else
      b = comp.beta(arg);
    expect_contains(b, truth, text + " " + row[cq] + " at " + row[ca]);
    std::cout << row[cq] << "(" << row[ca] << ") = " << row[cv] << " in [" << b.lower << ", "
              << b.upper << "], width " << (b.upper - b.lower) / b.upper << " relative\n";
    if (row[cq] == "eps") EXPECT_LE(b.upper - b.lower, 5e-3 * b.upper) << text;
  }
}

// The accountants' hooks of the kind against the enumerated outcomes.
TEST(DiscreteLaplaceKind, HooksMatchTheOutputDistributions) {
  for (const auto& c : kCases) {
    const spec s = parse_spec(spec_text(c.t, c.d, 1));
    const auto os = one_application_z(c.t, c.d);
    real m1 = 0, m2 = 0, m3 = 0;
    for (const auto& o : os) m1 += o.p * std::log(o.q / o.p);
    for (const auto& o : os) {
      const real e = std::log(o.q / o.p) - m1;
      m2 += o.p * e * e;
      m3 += o.p * e * e * e;
    }
    const clt_moments cm = s.kind().clt(s);
    EXPECT_NEAR(cm.kl / static_cast<double>(-m1), 1.0, 1e-13) << s.text;
    EXPECT_NEAR(cm.var / static_cast<double>(m2), 1.0, 1e-13) << s.text;
    const loss_cumulants lc = s.kind().edgeworth(s);
    EXPECT_NEAR(lc.mean_p / static_cast<double>(m1), 1.0, 1e-13) << s.text;
    EXPECT_NEAR(lc.var_p / static_cast<double>(m2), 1.0, 1e-13) << s.text;
    EXPECT_NEAR(lc.k3_p, static_cast<double>(m3), 1e-13 * std::pow(static_cast<double>(m2), 1.5))
        << s.text;
    EXPECT_EQ(lc.mean_q, -lc.mean_p);
    EXPECT_EQ(lc.var_q, lc.var_p);
    EXPECT_EQ(lc.k3_q, -lc.k3_p);
    // (D/t, 0)-DP: the classic theorems' pair
    EXPECT_DOUBLE_EQ(s.kind().classic(s)->first, c.d / c.t);
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
          << s.text << " order " << orders[i];
    }
  }
}

// Small 1/t (t = 1e6: the mechanism is nearly Id, KL ~ D^2 / (2 t^2)): the
// moments keep their relative precision (no cancellation against D/t).
TEST(DiscreteLaplaceKind, MomentsOfANearlyIdentityMechanism) {
  const spec s = parse_spec("discrete-laplace:t=1e6,sensitivity=3");
  // the exact moments of j = clamp(Z, 0, 3) summed in long double over z,
  // the tails as geometric sums (w^N/(1 - w) at N = 4e7 is below 1e-17 of the sum)
  const real w = std::exp(-1e-6L), c = (1 - w) / (1 + w);
  const real p0 = 1 / (1 + w), p3 = w * w * w / (1 + w), p1 = c * w, p2 = c * w * w;
  const real mean = p1 + 2 * p2 + 3 * p3;
  const real var = p0 * mean * mean + p1 * (1 - mean) * (1 - mean) + p2 * (2 - mean) * (2 - mean) +
                   p3 * (3 - mean) * (3 - mean);
  const real x = 1e-6L, kl = (3 - 2 * mean) * x, var_l = 4 * x * x * var;
  const clt_moments cm = s.kind().clt(s);
  // (3 - 2 mean ~ 1e-6 cancels 6 of long double's 19 digits: the truth to 1e-12)
  EXPECT_NEAR(cm.kl / static_cast<double>(kl), 1.0, 1e-11);
  EXPECT_NEAR(cm.var / static_cast<double>(var_l), 1.0, 1e-12);
}

// The ledger (its default record: the kind's keys and law) and compare's
// classic composition take the kind too.
TEST(DiscreteLaplaceKind, LedgerAndClassicAccounting) {
  const auto os = n_fold(2.0, 3, 6);
  accountant_options plan;  // (the tight composition's groups are checked)
  plan.mode = ledger_mode::plan;
  accountant a(50.0, 1e-5, plan);
  a.add("discrete-laplace:t=2,sensitivity=3,times=2");
  a.add("discrete-laplace:t=2,sensitivity=3,times=4");
  EXPECT_EQ(a.groups(), 1u);
  expect_contains(a.spent(1e-3), exact::epsilon(os, 1e-3), "ledger spent at 1e-3");
  const classic_report r =
      classic_account({parse_spec("discrete-laplace:t=2,sensitivity=3,times=6")}, 1e-5);
  ASSERT_TRUE(r.applicable);
  EXPECT_DOUBLE_EQ(r.naive_eps, 9.0);
  EXPECT_EQ(r.naive_delta, 0.0);
}

// The whole range of the sensitivity key and the edge of the loss range.
TEST(DiscreteLaplaceKind, LargeSensitivityAndTheEdgeOfTheRange) {
  {
    const auto t0 = std::chrono::steady_clock::now();
    const spec s = parse_spec("discrete-laplace:t=500,sensitivity=10000");
    const auto os = one_application(500, 10000);
    const composition one = compose({s});
    std::cout << "[discrete-laplace] " << s.text << ": "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
              << " s (with the enumeration)\n";
    for (double a : {1e-3, 0.1, 0.5})
      expect_contains(one.beta(a), exact::beta(os, a), s.text + " beta at " + std::to_string(a));
    expect_contains(one.epsilon(1e-5), exact::epsilon(os, 1e-5), s.text + " epsilon at 1e-5");
  }
  {
    // eps = D/t = 699, at the edge: the law's smallest masses are e^-699 / (1 + w)
    const spec s = parse_spec("discrete-laplace:eps=699,sensitivity=2");
    const auto atoms = make_term(s).law->atoms();
    ASSERT_EQ(atoms.size(), 3u);
    EXPECT_NEAR(atoms.front().q / (std::exp(-699.0) / (1 + std::exp(-349.5))), 1.0, 1e-13);
    // delta(eps) = (1 - e^{eps - 699}) / (1 + e^-349.5) for 0 < eps < 699
    const auto t0 = std::chrono::steady_clock::now();
    const composition one = compose({s});
    expect_contains(one.epsilon(1e-5), 699.0L + std::log1p(-1e-5L * (1 + std::exp(-349.5L))),
                    s.text + " epsilon at 1e-5");
    std::cout << "[discrete-laplace] " << s.text << ": "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
              << " s\n";
  }
}

TEST(DiscreteLaplaceKind, BadParametersAreRefused) {
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"discrete-laplace", "discrete-laplace"},
           {"discrete-laplace:t=1,eps=1", "t"},
           {"discrete-laplace:t=0", "t = 0 must be in (0, 1e+10]"},
           {"discrete-laplace:t=2e10", "t = 2e+10 must be in (0, 1e+10]"},
           {"discrete-laplace:eps=0", "eps = 0 must be in (0, 700)"},
           {"discrete-laplace:eps=700", "eps = 700 must be in (0, 700)"},
           {"discrete-laplace:t=1,sensitivity=0",
            "sensitivity: '0' must be an integer in [1, 10000]"},
           {"discrete-laplace:t=1,sensitivity=2.5", "sensitivity: '2.5' must be an integer"},
           {"discrete-laplace:t=1,sensitivity=10001",
            "sensitivity: '10001' must be an integer in [1, 10000]"},
           {"discrete-laplace:t=1,q=2",
            "unknown key 'q' for discrete-laplace (allowed: eps, sensitivity, t, times)"}}) {
    try {
      (void)parse_spec(text);
      ADD_FAILURE() << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
  // Across keys, when the term is made: D / t beyond the engine's loss
  // range, and the eps form's 1/t = eps / D below 1e-10 (t's own range)
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"discrete-laplace:t=0.01,sensitivity=10", "sensitivity / t = 1000 must be < 700"},
           {"discrete-laplace:eps=1e-7,sensitivity=10000",
            "eps / sensitivity = 1e-11 must be >= 1e-10"}}) {
    try {
      (void)make_term(parse_spec(text));
      ADD_FAILURE() << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace fdp
