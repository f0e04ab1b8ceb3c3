// The adaptive ledger's privacy filter (fdp/budget/privacy_filter.hpp): which
// filter answers for which entries, a replayed adaptive interaction that the
// plan rule admits over budget and the filter does not, pure-DP ledgers, and
// the ledger file's tamper evidence (HMAC-SHA256), labels and legacy files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "budget/digest.hpp"
#include "fdp/budget/ledger.hpp"
#include "fdp/budget/privacy_filter.hpp"
#include "fdp/budget/rdp.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/spec.hpp"
#include "fdp/ops/spec_kind.hpp"

namespace fdp {
namespace {

accountant_options mode(ledger_mode m) {
  accountant_options o;
  o.mode = m;
  return o;
}

TEST(PrivacyFilter, PureEntriesSumTheirEpsilons) {
  accountant a(1.0, 1e-5);  // adaptive by default
  EXPECT_EQ(a.mode(), ledger_mode::adaptive);
  a.add("laplace:b=4");       // 0.25-DP
  a.add("epsdelta:eps=0.5");  // 0.5-DP
  EXPECT_EQ(a.filter().kind, filter_kind::pure);
  EXPECT_DOUBLE_EQ(a.filter().epsilon, 0.75);
  EXPECT_TRUE(a.can_afford("laplace:b=4"));     // 1.0: on the budget
  EXPECT_FALSE(a.can_afford("laplace:b=3.9"));  // 1.006
  EXPECT_THROW(a.add("laplace:b=3.9"), budget_exceeded);
  EXPECT_EQ(a.entries().size(), 2u);
}

TEST(PrivacyFilter, GaussianEntriesUseTheGdpFilterAtHalfTheDelta) {
  accountant a(5.0, 1e-5);
  a.add("gaussian:sigma=4,times=3");
  a.add("gdp:mu=0.5");
  const filter_level f = a.filter();
  EXPECT_EQ(f.kind, filter_kind::gdp);
  const double mu = std::sqrt(3.0 / 16 + 0.25);
  EXPECT_NEAR(f.epsilon, gdp_eps(mu, 0.5e-5), 1e-12);
  // the plan composition is G_mu at the whole delta: tighter, as it may be
  EXPECT_LT(a.spent().upper, f.epsilon);
}

TEST(PrivacyFilter, SubsampledGaussiansUseTheRdpFilterNotGdp) {
  // a subsampled Gaussian's curve is not G_mu: the GDP filter does not apply
  accountant a(5.0, 1e-5);
  a.add("subsampled-gaussian:sigma=1,q=0.01,times=100");
  const filter_level f = a.filter();
  EXPECT_EQ(f.kind, filter_kind::rdp);
  // the RDP filter at its delta share, one order at a time
  const auto& orders = privacy_filter::orders();
  std::vector<double> r = spec_rdp(parse_spec("subsampled-gaussian:sigma=1,q=0.01"), orders).rdp;
  for (double& x : r) x *= 100;
  const rdp_epsilon e =
      rdp_to_eps(orders, r, 0.25e-5 / static_cast<double>(orders.size()), rdp_conversion::improved);
  EXPECT_NEAR(f.epsilon, e.eps, 1e-9 * e.eps);
  EXPECT_GE(f.epsilon, a.spent().lower);  // never below what a fixed sequence spends
}

TEST(PrivacyFilter, ALaterEntryCanEndAFilterAndAnotherTakesOver) {
  accountant a(5.0, 1e-5);
  a.add("gaussian:sigma=4");
  EXPECT_EQ(a.filter().kind, filter_kind::gdp);
  const double before = a.filter().epsilon;
  a.add("subsampled-laplace:b=2,q=0.01");  // not G_mu, not pure of a stated eps: RDP
  EXPECT_EQ(a.filter().kind, filter_kind::rdp);
  EXPECT_GT(a.filter().epsilon, before);
  // a kind no filter covers is refused, and nothing is recorded
  EXPECT_THROW(a.add("mixture-gaussian:sigma=5,sensitivities=0;1,weights=0.5;0.5"),
               budget_exceeded);
  EXPECT_EQ(a.entries().size(), 2u);
}

TEST(PrivacyFilter, PlanSpentOfALoadedLedgerIsTheComposeBracket) {
  accountant a(50.0, 1e-5, mode(ledger_mode::plan));
  std::vector<spec> specs;
  for (int i = 0; i < 5; ++i) {
    const std::string s =
        "subsampled-gaussian:sigma=" + std::to_string(1.0 + 0.1 * i) + ",q=0.01,times=100";
    a.add(s);
    specs.push_back(parse_spec(s));
  }
  const accountant b = accountant::from_json(a.to_json());
  compose_options o;
  o.delta_hint = 1e-5;
  const interval c = compose(specs, o).epsilon(1e-5), p = b.plan_spent();
  EXPECT_EQ(p.lower, c.lower);
  EXPECT_EQ(p.upper, c.upper);
  EXPECT_LE(p.lower, a.spent().upper);  // both contain the truth
  EXPECT_GE(p.upper, a.spent().lower);
}

TEST(PrivacyFilter, EpsDeltaEntriesUseTheBasicSumWithinItsDeltaShare) {
  accountant a(2.0, 1e-4);
  a.add("epsdelta:eps=0.5,delta=1e-5");
  EXPECT_EQ(a.filter().kind, filter_kind::basic);
  EXPECT_DOUBLE_EQ(a.filter().epsilon, 0.5);
  a.add("epsdelta:eps=0.5,delta=1e-5");
  // a third would bring the deltas to 3e-5 > 1e-4 / 4
  EXPECT_THROW(a.add("epsdelta:eps=0.5,delta=1e-5"), budget_exceeded);
  EXPECT_EQ(a.entries().size(), 2u);
}

// Exact hockey-stick divergence sup_S P(S) - e^eps Q(S) of a finite law.
double hockey(const std::vector<std::pair<double, double>>& pq, double eps) {
  double d = 0;
  for (const auto& [p, q] : pq) d += std::max(0.0, p - std::exp(eps) * q);
  return d;
}

// The outcomes (P-mass, Q-mass) of the canonical mechanism of f_{e,d}.
std::vector<std::pair<double, double>> f_mechanism(double e, double d) {
  const double hi = (1 - d) * std::exp(e) / (1 + std::exp(e)), lo = (1 - d) / (1 + std::exp(e));
  return {{d, 0.0}, {0.0, d}, {hi, lo}, {lo, hi}};
}

// The worse orientation of the joint law of M1's outcome and, after it, the
// mechanism chosen for it (nullptr: none ran).
double interaction_delta(const std::vector<std::pair<double, double>>& m1,
                         const std::vector<const std::vector<std::pair<double, double>>*>& next,
                         double eps) {
  std::vector<std::pair<double, double>> j, swapped;
  for (std::size_t i = 0; i < m1.size(); ++i) {
    const std::vector<std::pair<double, double>> none = {{1.0, 1.0}};
    for (const auto& [p, q] : next[i] ? *next[i] : none) {
      j.emplace_back(m1[i].first * p, m1[i].second * q);
      swapped.emplace_back(m1[i].second * q, m1[i].first * p);
    }
  }
  return std::max(hockey(j, eps), hockey(swapped, eps));
}

// The validity gap of the plan rule, replayed (a construction in the spirit
// of Honkela, Koskela, Tran & Raisa 2026; derived here): a budget (1, 0.01);
// first randomized response RR(0.5) = f_{0.5,0}; then, if its answer is the
// one likelier under x, RR(0.52), else f_{0,0.0085}. Each realized sequence
// is within the budget, so the plan rule admits the second entry either way,
// but the interaction as a whole has delta(1) = 0.0109 > 0.01: a branch's
// delta(1) is P1(b) delta_2(1 - L1(b)) summed over the answers b, and the
// analyst picks for each answer the mechanism with the larger term. The
// adaptive filter refuses what would break the budget.
TEST(PrivacyFilter, PlanRuleAdmitsAnAdaptiveInteractionOverBudgetThatTheFilterRefuses) {
  const double E = 1.0, D = 0.01;
  const auto m1 = f_mechanism(0.5, 0.0);
  const std::vector<std::pair<double, double>> rr1(m1.begin() + 2, m1.end());
  const auto rr2 = f_mechanism(0.52, 0.0), f0 = f_mechanism(0.0, 0.0085);
  const char* branch[2] = {"epsdelta:eps=0.52", "epsdelta:eps=0,delta=0.0085"};
  const double truth = interaction_delta(rr1, {&rr2, &f0}, E);
  ASSERT_GT(truth, 1.05 * D);  // the interaction is over budget
  std::vector<const std::vector<std::pair<double, double>>*> allowed(2, nullptr);
  bool adaptive_refused_some = false;
  for (int b = 0; b < 2; ++b) {
    SCOPED_TRACE(branch[b]);
    accountant plan(E, D, mode(ledger_mode::plan)), adaptive(E, D);
    plan.add("epsdelta:eps=0.5");
    adaptive.add("epsdelta:eps=0.5");
    EXPECT_NO_THROW(plan.add(branch[b]));  // the plan rule admits each branch
    EXPECT_LE(plan.spent().upper, E);
    try {
      adaptive.add(branch[b]);
      allowed[b] = b == 0 ? &rr2 : &f0;
    } catch (const budget_exceeded&) {
      adaptive_refused_some = true;
    }
    EXPECT_LE(adaptive.filter().epsilon, E);
  }
  EXPECT_TRUE(adaptive_refused_some);
  // what the adaptive ledger let run stays within the budget
  EXPECT_LE(interaction_delta(rr1, allowed, E), D);
}

TEST(PrivacyFilter, PureDpLedgers) {
  for (ledger_mode m : {ledger_mode::plan, ledger_mode::adaptive}) {
    accountant a(1.0, 0.0, mode(m));
    a.add("laplace:b=2,times=2");
    EXPECT_DOUBLE_EQ(a.spent().upper, 1.0);  // exact: the largest losses add up
    EXPECT_THROW(a.add("laplace:b=1000"), budget_exceeded);
    accountant g(5.0, 0.0, mode(m));
    EXPECT_THROW(g.add("gaussian:sigma=100"), budget_exceeded);  // no finite epsilon at delta 0
    EXPECT_THROW(g.add("epsdelta:eps=0.1,delta=1e-9"), budget_exceeded);
    EXPECT_EQ(g.entries().size(), 0u);
    const accountant back = accountant::from_json(a.to_json());
    EXPECT_EQ(back.budget_delta(), 0.0);
    EXPECT_EQ(back.mode(), m);
  }
}

TEST(PrivacyFilter, BudgetsAndLabelsAreChecked) {
  EXPECT_THROW(accountant(NAN, 1e-5), std::invalid_argument);
  EXPECT_THROW(accountant(-1.0, 1e-5), std::invalid_argument);
  EXPECT_THROW(accountant(1.0, NAN), std::invalid_argument);
  EXPECT_THROW(accountant(1.0, -1e-5), std::invalid_argument);
  accountant a(1.0, 1e-5);
  for (const std::string& bad :
       std::vector<std::string>{"a\nb", std::string("a\0b", 3), "\x1b[31mred", "x\x7f"}) {
    try {
      a.add("laplace:b=10", bad);
      ADD_FAILURE() << "accepted a label with a control character";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("label"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(a.add("laplace:b=10", std::string(201, 'x')), std::invalid_argument);
  EXPECT_EQ(a.entries().size(), 0u);
  a.add("laplace:b=10", "weekly counts, é");
  const accountant b = accountant::from_json(a.to_json());
  ASSERT_EQ(b.entries().size(), 1u);
  EXPECT_EQ(b.entries()[0].label, "weekly counts, é");
  EXPECT_EQ(b.entries()[0].time.size(), 20u);  // 2026-11-27T04:03:13Z
  EXPECT_EQ(b.entries()[0].time.back(), 'Z');
}

std::string what_of(const std::string& text, const std::string& key) {
  try {
    accountant::from_json(text, "ledger", key);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(PrivacyFilter, HmacTagsMakeEditsEvident) {
  const std::string key = "0123456789abcdef-secret", other = "0123456789abcdef-wrong!";
  accountant a(1.0, 1e-5);
  a.add("laplace:b=10");
  const std::string signed_doc = a.to_json(key), plain = a.to_json();
  EXPECT_NE(signed_doc.find("\"hmac-sha256:"), std::string::npos);
  EXPECT_EQ(accountant::from_json(signed_doc, "ledger", key).integrity(),
            ledger_integrity::hmac_verified);
  EXPECT_EQ(accountant::from_json(signed_doc).integrity(), ledger_integrity::hmac_unverified);
  EXPECT_EQ(accountant::from_json(plain).integrity(), ledger_integrity::checksum);
  EXPECT_NE(what_of(signed_doc, other).find("HMAC mismatch"), std::string::npos);
  // the five-line attack: raise the budget and recompute the checksum
  std::string edited = signed_doc;
  edited.replace(edited.find("\"epsilon\": 1"), 12, "\"epsilon\": 5");
  EXPECT_NE(what_of(edited, key).find("HMAC mismatch"), std::string::npos);
  const std::string body = edited.substr(0, edited.find(",\n  \"checksum\""));
  const std::string forged =
      body + ",\n  \"checksum\": \"sha256:" + detail::sha256_hex(body) + "\"\n}\n";
  EXPECT_EQ(accountant::from_json(forged).budget_epsilon(), 5.0);  // a checksum cannot tell
  EXPECT_NE(what_of(forged, key).find("not signed"), std::string::npos);
  // a known HMAC-SHA256 value (RFC 4231, test case 2)
  EXPECT_EQ(detail::hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(detail::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(PrivacyFilter, VersionOneFilesAreReadAsPlanLedgers) {
  const std::string body =
      "{\n  \"format\": \"fdp-ledger\",\n  \"version\": 1,\n  \"budget\": {\"epsilon\": 2, "
      "\"delta\": 1e-05},\n  \"grid\": {\"step\": 0.001, \"auto\": true, \"tolerance\": 0.005},\n"
      "  \"entries\": [\n    {\"spec\": \"laplace:b=10\"}\n  ]";
  const std::string v1 =
      body + ",\n  \"checksum\": \"sha256:" + detail::sha256_hex(body) + "\"\n}\n";
  const accountant a = accountant::from_json(v1);
  EXPECT_EQ(a.loaded_version(), 1);
  EXPECT_EQ(a.mode(), ledger_mode::plan);
  EXPECT_EQ(a.integrity(), ledger_integrity::checksum);
  ASSERT_EQ(a.entries().size(), 1u);
  EXPECT_EQ(a.entries()[0].label, "");
  // written back as version 2, still a plan ledger
  const std::string v2 = a.to_json();
  EXPECT_NE(v2.find("\"version\": 2"), std::string::npos);
  EXPECT_EQ(accountant::from_json(v2).mode(), ledger_mode::plan);
  std::string tampered = v1;
  tampered.replace(tampered.find("\"epsilon\": 2"), 12, "\"epsilon\": 9");
  EXPECT_NE(what_of(tampered, "").find("checksum mismatch"), std::string::npos);
}

}  // namespace
}  // namespace fdp
