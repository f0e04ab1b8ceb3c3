// Property tests of the grid discretizations and of the FFT composition.
//
// Independent references: closed-form trade-off functions (G_mu, the Laplace
// curve, f_{eps,0}) and an exact convolution in long double.
#include "ops/pld/pld_grid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fdp/core/curve.hpp"
#include "fdp/core/error.hpp"
#include "fdp/core/families.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/loss_law.hpp"

namespace fdp {
namespace {

constexpr double kMassTol = 1e-13;   // conservation of total mass
constexpr double kRatioTol = 1e-9;   // optimistic groups: q / (e^l p) - 1
constexpr double kCurveTol = 1e-12;  // Blackwell order checked on curves

struct law_case {
  const char* name;
  std::shared_ptr<const loss_law> law;
  double h, lo, hi;
};

std::vector<law_case> cases() {
  return {
      {"G_1", make_law(tradeoff(gaussian(1.0))), 0.05, -12, 12},
      {"G_0.2", make_law(tradeoff(gaussian(0.2))), 0.004, -3, 3},
      {"Lap_0.5", make_law(tradeoff(laplace(0.5))), 0.025, -0.5, 0.5},
      {"Lap_0.1 (h=0.2/70)", make_law(tradeoff(laplace(0.1))), 0.2 / 70, -0.1, 0.1},
      {"f_1,0.01", make_law(tradeoff(eps_delta(1.0, 0.01))), 0.1, -1, 1},
      {"subsampled-gaussian q=0.01", subsampled_gaussian_law(1.0, 1.0, 0.01), 0.001, -0.02, 3},
      {"subsampled-laplace q=0.1", subsampled_laplace_law(1.0, 1.0, 0.1), 0.005, -0.1, 0.2},
  };
}

double offset_for(const loss_law& law, double h) {
  const auto at = law.atoms();
  return at.empty() ? 0.0 : at.front().loss - h * std::floor(at.front().loss / h);
}

// The trade-off curve of a discretized pmf (its own pair), exact polygon.
curve curve_of(const grid_pmf& g) {
  pld d;
  for (std::size_t i = 0; i < g.p.size(); ++i) {
    if (g.p[i] <= 0 && g.q[i] <= 0) continue;
    d.loss.push_back(g.loss(g.k0 + static_cast<std::int64_t>(i)));
    d.p.push_back(g.p[i]);
    d.q.push_back(g.q[i]);
  }
  d.p_neg_inf = g.p_neg_inf;
  d.q_pos_inf = g.q_pos_inf;
  return curve::from_pld(d);
}

double truth(const law_case& c, double a) {
  const std::string n = c.name;
  if (n == "G_1") return beta(gaussian(1.0), a);
  if (n == "G_0.2") return beta(gaussian(0.2), a);
  if (n == "Lap_0.5") return beta(laplace(0.5), a);
  if (n.rfind("Lap_0.1", 0) == 0) return beta(laplace(0.1), a);
  if (n == "f_1,0.01") return beta(eps_delta(1.0, 0.01), a);
  return std::nan("");
}

TEST(PldGrid, PessimisticConservesBothMasses) {
  for (const auto& c : cases()) {
    const grid_pmf g =
        discretize(*c.law, c.h, offset_for(*c.law, c.h), c.lo, c.hi, pld_side::pessimistic);
    double sp = g.p_neg_inf, sq = g.q_pos_inf;
    for (double v : g.p) sp += v;
    for (double v : g.q) sq += v;
    EXPECT_NEAR(sp, 1.0, kMassTol) << c.name;
    EXPECT_NEAR(sq, 1.0, kMassTol) << c.name;
    for (std::size_t i = 0; i < g.p.size(); ++i) {
      ASSERT_GE(g.p[i], 0.0) << c.name;
      if (g.p[i] > 1e-300) {
        const double l = g.loss(g.k0 + static_cast<std::int64_t>(i));
        EXPECT_NEAR(g.q[i] / (std::exp(l) * g.p[i]), 1.0, kRatioTol) << c.name << " atom " << i;
      }
    }
  }
}

// A law that misses mass between its intervals (the contract is broken:
// LossLaw.IntervalMassesPartitionBothMeasures checks fdp's own laws) still
// gets a pessimistic grid above the truth: the missing P-mass goes to loss
// -inf, the missing Q-mass to +inf (the pessimistic completion).
class leaky_law final : public loss_law {
 public:
  explicit leaky_law(std::shared_ptr<const loss_law> l) : l_(std::move(l)) {}
  // the mass of (0.1, 0.3] vanishes from every interval that holds it
  mass2 mass(double a, double b) const override {
    mass2 m = l_->mass(a, b);
    const double lo = std::max(a, 0.1), hi = std::min(b, 0.3);
    if (hi > lo) {
      const mass2 gone = l_->mass(lo, hi);
      m.p -= gone.p, m.q -= gone.q;
    }
    return m;
  }
  double lo() const override { return l_->lo(); }
  double hi() const override { return l_->hi(); }
  std::vector<loss_atom> atoms() const override { return l_->atoms(); }
  bool symmetric() const override { return l_->symmetric(); }
  double scale() const override { return l_->scale(); }
  std::string describe() const override { return "leaky " + l_->describe(); }

 private:
  std::shared_ptr<const loss_law> l_;
};

TEST(PldGrid, MassMissingFromALawGoesToTheInfiniteAtoms) {
  const std::shared_ptr<const loss_law> good = make_law(tradeoff(laplace(1.0)));
  const leaky_law bad(good);
  const mass2 gone = good->mass(0.1, 0.3);
  const grid_pmf g = discretize(bad, 0.05, offset_for(bad, 0.05), -1, 1, pld_side::pessimistic);
  EXPECT_GE(g.p_neg_inf, gone.p * (1 - 1e-12));
  EXPECT_GE(g.q_pos_inf, gone.q * (1 - 1e-12));
  for (bool use_p : {false, true}) {
    const composed_pld c = compose_grid({&g}, {1}, use_p, 1e-30);
    for (double eps : {-1.0, 0.0, 0.3, 0.5, 0.9}) {
      const double truth = profile_delta(tradeoff(laplace(1.0)), eps);
      EXPECT_GE(c.delta_upper(eps), truth * (1 - 1e-12)) << "eps " << eps << " use_p " << use_p;
    }
  }
}

TEST(PldGrid, OptimisticIsAGarblingWithGridRatios) {
  for (const auto& c : cases()) {
    const grid_pmf g =
        discretize(*c.law, c.h, offset_for(*c.law, c.h), c.lo, c.hi, pld_side::optimistic);
    double sp = g.p_neg_inf + g.dropped_p, sq = g.q_pos_inf + g.dropped_q;
    for (double v : g.p) sp += v;
    for (double v : g.q) sq += v;
    EXPECT_NEAR(sp, 1.0, 1e-12) << c.name;
    EXPECT_NEAR(sq, 1.0, 1e-12) << c.name;
    EXPECT_LT(g.dropped_p + g.dropped_q, 1e-9) << c.name << ": the sweep should not drop real mass";
    for (std::size_t i = 0; i < g.p.size(); ++i) {
      if (g.p[i] > 1e-300 && g.q[i] > 1e-300) {
        // a ratio below e^l (too little Q for the grid loss) is an error of
        // T(P,Q), carried by err_q; a ratio above e^l one of T(Q,P), carried
        // by err_p (in P units)
        const double l = g.loss(g.k0 + static_cast<std::int64_t>(i));
        const double lean = g.q[i] - std::exp(l) * g.p[i];
        if (lean < 0) {
          EXPECT_LE(-lean, g.err_q[i] + 1e-15 * g.q[i])
              << c.name << " atom " << i << " (ratio below e^l not covered)";
        } else {
          EXPECT_LE(lean * std::exp(-l), g.err_p[i] + 1e-15 * g.p[i])
              << c.name << " atom " << i << " (ratio above e^l not covered)";
        }
      }
    }
  }
}

TEST(PldGrid, CurvesBracketTheClosedForms) {
  // pessimistic polygon <= f <= optimistic polygon, at many alphas.
  for (const auto& c : cases()) {
    if (std::isnan(truth(c, 0.5))) continue;
    const double off = offset_for(*c.law, c.h);
    const curve lo = curve_of(discretize(*c.law, c.h, off, c.lo, c.hi, pld_side::pessimistic));
    const curve hi = curve_of(discretize(*c.law, c.h, off, c.lo, c.hi, pld_side::optimistic));
    for (int i = 0; i <= 400; ++i) {
      const double a = i < 200 ? std::pow(10.0, -12.0 + 12.0 * i / 200.0) : (i - 200) / 200.0;
      const double t = truth(c, a);
      EXPECT_LE(beta(lo, a), t + kCurveTol) << c.name << " alpha=" << a;
      EXPECT_GE(beta(hi, a), t - kCurveTol) << c.name << " alpha=" << a;
    }
  }
}

TEST(PldGrid, AtomicLawsAreSweptAsAtomsOnly) {
  // A law made of atoms alone (a polygon's, as staged composition hands on)
  // has no continuous part: the optimistic sweep takes its atoms only. Its
  // result must still be a garbling with grid ratios, and both sides must
  // bracket the polygon's own trade-off function.
  EXPECT_FALSE(make_law(tradeoff(gaussian(1.0)))->atomic());
  EXPECT_FALSE(make_law(tradeoff(laplace(0.5)))->atomic());  // two atoms and a density
  EXPECT_FALSE(subsampled_gaussian_law(1.0, 1.0, 0.01)->atomic());
  EXPECT_TRUE(make_law(tradeoff(eps_delta(1.0, 0.01)))->atomic());
  // the tangent polygon of G_1 with 3,000 vertices: ~3,000 atoms a few per grid step
  std::vector<curve::point> pts;
  for (int i = 0; i <= 3000; ++i) {
    const double a = std::pow(10.0, -14.0 + 14.0 * i / 3000.0);
    pts.push_back({a, beta(gaussian(1.0), a)});
  }
  pts.push_back({0.0, 1.0});
  const curve poly = curve::from_points(pts);
  const pld d = to_pld(poly);
  std::vector<loss_atom> at;
  for (std::size_t i = 0; i < d.loss.size(); ++i) at.push_back({d.loss[i], d.p[i], d.q[i]});
  const auto law = discrete_law(at, d.p_neg_inf, d.q_pos_inf, false, "G_1 polygon");
  ASSERT_TRUE(law->atomic());
  ASSERT_GT(at.size(), 1000u);
  const double h = 0.01, off = 0.0;
  const grid_pmf lo_g = discretize(*law, h, off, law->lo(), law->hi(), pld_side::pessimistic);
  const grid_pmf hi_g = discretize(*law, h, off, law->lo(), law->hi(), pld_side::optimistic);
  double sp = hi_g.p_neg_inf + hi_g.dropped_p, sq = hi_g.q_pos_inf + hi_g.dropped_q;
  for (double v : hi_g.p) sp += v;
  for (double v : hi_g.q) sq += v;
  EXPECT_NEAR(sp, 1.0, 1e-12);
  EXPECT_NEAR(sq, 1.0, 1e-12);
  for (std::size_t i = 0; i < hi_g.p.size(); ++i) {
    if (hi_g.p[i] > 1e-300 && hi_g.q[i] > 1e-300) {
      const double l = hi_g.loss(hi_g.k0 + static_cast<std::int64_t>(i));
      const double lean = hi_g.q[i] - std::exp(l) * hi_g.p[i];
      if (lean < 0)
        EXPECT_LE(-lean, hi_g.err_q[i] + 1e-15 * hi_g.q[i]) << "atom " << i;
      else
        EXPECT_LE(lean * std::exp(-l), hi_g.err_p[i] + 1e-15 * hi_g.p[i]) << "atom " << i;
    }
  }
  const curve lo = curve_of(lo_g), hi = curve_of(hi_g);
  for (int i = 0; i <= 400; ++i) {
    const double a = i < 200 ? std::pow(10.0, -12.0 + 12.0 * i / 200.0) : (i - 200) / 200.0;
    const double t = beta(poly, a);
    EXPECT_LE(beta(lo, a), t + kCurveTol) << "alpha=" << a;
    EXPECT_GE(beta(hi, a), t - kCurveTol) << "alpha=" << a;
  }
}

TEST(PldGrid, AtomsAHairOffTheGridAreCountedOnce) {
  // A discrete law (a lattice version of G_mu's loss law) whose atoms sit on
  // a fine lattice h1; the grid step is 2.5 h1, so every fifth atom lands
  // within rounding of a grid point: 8e-13 above or below, farther than
  // 1e-9 steps (5e-13) but inside the on-grid tolerance (1e-12). Such an atom was
  // counted both on its target and inside the group above it (regression:
  // a staged composition with commensurate steps created mass and its
  // optimistic bound crossed the truth). The optimistic result must conserve
  // both masses and stay at or above the law's own trade-off curve.
  const double h1 = 2e-4, h = 2.5 * h1, mu = 0.1;
  // atoms on the lattice k h1 (offset +-8e-13, alternating), P-masses of the
  // Gaussian loss law N(-mu^2/2, mu^2), Q = e^loss P; what the lattice misses
  // of either total goes to the infinite atoms
  std::vector<loss_atom> at;
  double sp = 0, sq = 0;
  for (int k = -3000; k <= 3000; ++k) {
    const double l = k * h1 + (k % 2 == 0 ? 8e-13 : -8e-13);
    const double z = (l + 0.5 * mu * mu) / mu;
    const double p = std::exp(-0.5 * z * z);
    at.push_back({l, p, p * std::exp(l)});
    sp += p, sq += p * std::exp(l);
  }
  const double scale = 1.0 / std::max(sp, sq);
  for (auto& a : at) a.p *= scale, a.q *= scale;
  const double pn = 1.0 - sp * scale, qp = 1.0 - sq * scale;
  const auto law = discrete_law(at, pn, qp, false, "hair-off lattice");
  pld dl;
  for (const auto& a : at) dl.loss.push_back(a.loss), dl.p.push_back(a.p), dl.q.push_back(a.q);
  dl.p_neg_inf = pn;
  dl.q_pos_inf = qp;
  const curve truth_curve = curve::from_pld(dl);
  const grid_pmf r = discretize(*law, h, 0.0, -10, 10, pld_side::optimistic);
  double mp = r.p_neg_inf + r.dropped_p, mq = r.q_pos_inf + r.dropped_q;
  for (double v : r.p) mp += v;
  for (double v : r.q) mq += v;
  EXPECT_NEAR(mp, 1.0, 1e-12);
  EXPECT_NEAR(mq, 1.0, 1e-12);
  const curve opt = curve_of(r);
  for (int i = 0; i <= 1000; ++i) {
    const double a = i / 1000.0;
    EXPECT_GE(beta(opt, a), beta(truth_curve, a) - 1e-12) << "alpha=" << a;
  }
}

TEST(PldGrid, CutsAHairBelowAGridPointAreSweptOnce) {
  // The Laplace loss law's optimistic groups balance exactly at grid points
  // when the grid divides its support (2 mu / h an integer): the root finder
  // then leaves a cut a hair below a grid point (closer than 1e-9 steps,
  // farther than the on-grid tolerance). The sweep targeted that point,
  // found nothing between it and the cut, moved up to it and counted the
  // sliver twice (regression: 1.7e-12 of mass made up for mu = 3, h = 0.15,
  // and the composed delta's lower end crossed the truth). Both masses must
  // add up to 1 to rounding, for every such grid.
  for (double mu : {0.5, 1.0, 3.0}) {
    for (int cells : {10, 23, 40, 64}) {
      const double h = 2 * mu / cells;
      const auto law = make_law(tradeoff(laplace(mu)));
      for (double off : {0.0, 0.5 * h, mu - std::round(mu / h) * h}) {
        const grid_pmf r = discretize(*law, h, off, -mu, mu, pld_side::optimistic, 6e-9);
        double mp = r.p_neg_inf + r.dropped_p, mq = r.q_pos_inf + r.dropped_q;
        for (double v : r.p) mp += v;
        for (double v : r.q) mq += v;
        EXPECT_NEAR(mp, 1.0, 2e-14) << "mu=" << mu << " h=" << h << " offset=" << off;
        EXPECT_NEAR(mq, 1.0, 2e-14) << "mu=" << mu << " h=" << h << " offset=" << off;
      }
    }
  }
}

// Sum of an optimistic grid's masses with what it dropped and its infinite
// atoms: the sweep only moves mass, so both sums are the law's totals.
// (mass the sweep failed to place is booked as dropped: it must be none)
std::pair<double, double> swept_totals(const grid_pmf& r) {
  EXPECT_EQ(r.lost_p, 0.0);
  EXPECT_EQ(r.lost_q, 0.0);
  double mp = r.p_neg_inf + r.dropped_p - r.lost_p, mq = r.q_pos_inf + r.dropped_q - r.lost_q;
  for (double v : r.p) mp += v;
  for (double v : r.q) mq += v;
  return {mp, mq};
}

TEST(PldGrid, CutsWithinRoundingOfAnAtomCountItOnce) {
  // When the grid divides a Laplace support (2 mu / h an integer), the last
  // group's root lands within the on-grid tolerance of the bottom atom, an
  // ulp above it: the atom was counted in that group and again in the mass
  // dropped below the cut (mu = 2, h = 1/34: P-mass 1.5). A group that
  // balances with no mass from below ends its cut on its own target atom,
  // which was then swept a second time (subsampled Laplace with q = 1 - 1e-5,
  // swept bottom-up: Q-mass 1.5, and a composed lower end of delta read 1
  // where the truth is 0.9998). Every step that divides the support, and
  // many that do not, must conserve both masses.
  std::vector<std::pair<std::string, std::shared_ptr<const loss_law>>> laws;
  for (double mu : {0.5, 1.0, 2.0, 3.0, 5.83})
    laws.emplace_back("laplace mu=" + std::to_string(mu), make_law(tradeoff(laplace(mu))));
  laws.emplace_back(
      "subsampled-laplace q=1-1.05e-5",
      subsampled_laplace_law(0.066415441953601453, 0.38699824345734563, 0.99998949471281839));
  laws.emplace_back("subsampled-laplace q=0.5", subsampled_laplace_law(0.1, 0.3, 0.5));
  for (const auto& [name, law] : laws) {
    const double width = law->hi() - law->lo();
    for (int cells = 2; cells <= 200; ++cells) {
      for (double h : {width / cells, width / (cells + 0.37)}) {
        for (double off : {0.0, offset_for(*law, h)}) {
          grid_pmf r;
          ASSERT_NO_THROW(r = discretize(*law, h, off, law->lo(), law->hi(), pld_side::optimistic))
              << name << " h=" << h << " offset=" << off;
          const auto [mp, mq] = swept_totals(r);
          EXPECT_NEAR(mp, 1.0, 1e-13) << name << " h=" << h << " offset=" << off;
          EXPECT_NEAR(mq, 1.0, 1e-13) << name << " h=" << h << " offset=" << off;
        }
      }
    }
  }
}

TEST(PldGrid, MassBetweenAnEndAtomAndItsGridPointIsSwept) {
  // A subsampled Laplace with d/b ~ 36 and q = 2.6e-4 has its loss flat at
  // its lower end: 0.42 of P lies within 3e-18 of log(1 - q + q e^{-d/b}),
  // between the bottom atom and the grid point it is snapped to. Swept
  // bottom-up (the phase chosen when the top is cut low), the sweep began
  // at the snapped atom and never visited that sliver: the grid held 0.58 of
  // each mass. Every step and cut must conserve both.
  const double b = 0.015337511862274403, q = 0.0002563185150683628, h = 0.032865996501579196;
  int grids = 0;
  for (double t = 30.0; t < 40.0; t += 0.0537) {
    const auto law = subsampled_laplace_law(b, t * b, q);
    const double off = offset_for(*law, h);
    for (double top : {1.0, 0.2, 0.05}) {
      grid_pmf r;
      ASSERT_NO_THROW(
          r = discretize(*law, h, off, law->lo(), top * law->hi(), pld_side::optimistic, 1e-9))
          << "d/b=" << t << " top=" << top;
      const auto [mp, mq] = swept_totals(r);
      EXPECT_NEAR(mp, 1.0, 1e-13) << "d/b=" << t << " top=" << top;
      EXPECT_NEAR(mq, 1.0, 1e-13) << "d/b=" << t << " top=" << top;
      ++grids;
    }
  }
  EXPECT_GT(grids, 500);
}

TEST(PldGrid, StepsBelowTheOnGridToleranceStayCertified) {
  // randomized-response:eps=1e-12,k=3 asks for a step of 8e-14, far below
  // the sweep's on-grid tolerance (1e-12): its atoms at -eps, 0, eps are
  // all "on" several grid points, and the sweep placed 2/3 of the mass. The
  // rest is booked as dropped (a smaller garbling: every delta only drops),
  // so the grid never holds more than the law and the answer stays a bound.
  const double e = 1e-12, ee = std::exp(e);
  const double p = ee / (ee + 2), q = 1 / (ee + 2);
  const auto law = discrete_law({{-e, p, q}, {0.0, q, q}, {e, q, p}}, 0, 0, true, "rr k=3");
  const grid_pmf r = discretize(*law, 8e-14, 4e-14, -e, e, pld_side::optimistic);
  double mp = r.p_neg_inf + r.dropped_p, mq = r.q_pos_inf + r.dropped_q;
  for (double v : r.p) mp += v;
  for (double v : r.q) mq += v;
  EXPECT_NEAR(mp, 1.0, 1e-12);
  EXPECT_NEAR(mq, 1.0, 1e-12);
  EXPECT_LE(r.lost_p, 0.34);
}

TEST(PldGrid, SecondOrderAccuracy) {
  // Halving h shrinks the gap between the two polygons about four-fold.
  auto law = make_law(tradeoff(gaussian(1.0)));
  auto gap = [&](double h) {
    const curve lo = curve_of(discretize(*law, h, 0, -12, 12, pld_side::pessimistic));
    const curve hi = curve_of(discretize(*law, h, 0, -12, 12, pld_side::optimistic));
    double g = 0;
    for (int i = 1; i < 100; ++i) g = std::max(g, beta(hi, i / 100.0) - beta(lo, i / 100.0));
    return g;
  };
  const double g1 = gap(0.1), g2 = gap(0.05);
  std::printf("[pld] sup gap h=0.1: %.3g, h=0.05: %.3g, ratio %.2f\n", g1, g2, g1 / g2);
  EXPECT_GT(g1 / g2, 3.0);
}

// Exact n-fold convolution of a small pmf in long double.
std::vector<long double> convolve_power(const std::vector<double>& x, int n) {
  std::vector<long double> r{1.0L};
  for (int k = 0; k < n; ++k) {
    std::vector<long double> t(r.size() + x.size() - 1, 0.0L);
    for (std::size_t i = 0; i < r.size(); ++i)
      for (std::size_t j = 0; j < x.size(); ++j) t[i + j] += r[i] * static_cast<long double>(x[j]);
    r.swap(t);
  }
  return r;
}

// delta(eps) = sum_k m_k (1 - e^{eps - l_k})_+ of masses m_k at l_k = l0 + k h.
long double exact_delta(const std::vector<long double>& m, double l0, double h, double eps) {
  long double d = 0.0L;
  for (std::size_t k = 0; k < m.size(); ++k) {
    const double l = l0 + static_cast<double>(k) * h;
    if (l > eps) d += m[k] * (1.0L - std::exp(static_cast<long double>(eps - l)));
  }
  return d;
}

TEST(PldGrid, FftCompositionWithinItsErrorBound) {
  std::mt19937_64 rng(20261123);
  std::printf("[pld] seed 20261123\n");
  std::uniform_real_distribution<double> U(0, 1);
  for (int rep = 0; rep < 20; ++rep) {
    grid_pmf g;
    g.h = 0.05;
    g.offset = 0.0;
    const int len = 5 + static_cast<int>(U(rng) * 30);
    g.k0 = -len / 2;
    double s = 0;
    for (int i = 0; i < len; ++i) {
      const double v = U(rng) < 0.2 ? 0.0 : std::pow(U(rng), 6.0);
      g.q.push_back(v);
      s += v;
    }
    for (auto& v : g.q) v /= s;
    for (int i = 0; i < len; ++i) g.p.push_back(g.q[i] * std::exp(-g.loss(g.k0 + i)));
    g.err_p.assign(len, 0.0);
    g.err_q.assign(len, 0.0);
    const int n = 2 + static_cast<int>(U(rng) * 40);
    const composed_pld c = compose_grid({&g}, {n}, false, 1e-30);
    const auto exact = convolve_power(g.q, n);
    // delta(eps) from the exact convolution vs the bracket of the composition
    for (double eps : {-1.0, 0.0, 0.3, 1.0, 2.5}) {
      const long double d = exact_delta(exact, n * g.loss(g.k0), g.h, eps);
      EXPECT_LE(c.delta_lower(eps), static_cast<double>(d) * (1 + 1e-12) + 1e-300)
          << "rep " << rep << " eps " << eps;
      EXPECT_GE(c.delta_upper(eps), static_cast<double>(d) * (1 - 1e-12))
          << "rep " << rep << " eps " << eps;
      EXPECT_NEAR(c.delta_raw(eps), static_cast<double>(d), 1e-12) << "rep " << rep;
    }
  }
}

// The shift channel (grid_pmf::shift_q): the computed masses are the truth
// with mass moved between neighbours by at most shift_q (err_q holds it at
// both atoms). The bracket of the composed computed masses must contain the
// exact composition of the truth, and be much narrower than with the moves
// booked as absolute errors only.
TEST(PldGrid, ShiftedMassesBracketTheTruthAndCostHTimesLess) {
  std::mt19937_64 rng(20261124);
  std::printf("[pld] seed 20261124\n");
  std::uniform_real_distribution<double> U(0, 1);
  int narrower = 0, total = 0;
  for (int rep = 0; rep < 40; ++rep) {
    // T(P,Q) composes Q (shift_q); T(Q,P) composes P reflected (shift_p)
    const bool use_p = rep % 2 == 1;
    const int len = 8 + static_cast<int>(U(rng) * 25);
    grid_pmf g;
    g.h = 0.02 + 0.1 * U(rng);
    g.k0 = -len / 2;
    std::vector<double> truth;
    double s = 0;
    for (int i = 0; i < len; ++i) {
      const double v = 0.05 + U(rng);
      truth.push_back(v);
      s += v;
    }
    for (auto& v : truth) v /= s;
    std::vector<double> m = truth, err(len, 0.0), shift(len, 0.0);
    // moves of up to 1e-5 of the smaller neighbour, all upwards in half of
    // the cases, random in the others
    const bool up = rep % 4 < 2;
    for (int i = 1; i < len; ++i) {
      const double cap = 1e-5 * std::min(truth[i - 1], truth[i]);
      const double d = (up ? 1.0 : 2.0 * U(rng) - 1.0) * cap;
      m[i - 1] -= d;
      m[i] += d;
      shift[i] = cap;
      err[i - 1] += cap;
      err[i] += cap;
    }
    std::vector<double> other(len), zero(len, 0.0);
    for (int i = 0; i < len; ++i) other[i] = m[i] * std::exp((use_p ? 1 : -1) * g.loss(g.k0 + i));
    g.p = use_p ? m : other;
    g.q = use_p ? other : m;
    g.err_p = use_p ? err : zero;
    g.err_q = use_p ? zero : err;
    g.shift_p = use_p ? shift : zero;
    g.shift_q = use_p ? zero : shift;
    const int n = 2 + static_cast<int>(U(rng) * 30);
    const composed_pld c = compose_grid({&g}, {n}, use_p, 1e-30);
    grid_pmf g_abs = g;  // the same errors, all booked as absolute
    g_abs.shift_q.clear();
    g_abs.shift_p.clear();
    const composed_pld c_abs = compose_grid({&g_abs}, {n}, use_p, 1e-30);
    // the composed measure's losses: l_k (Q), or -l_k in reverse order (P)
    if (use_p) std::reverse(truth.begin(), truth.end());
    const double l0 = use_p ? -g.loss(g.k0 + len - 1) : g.loss(g.k0);
    const auto exact = convolve_power(truth, n);
    for (double eps : {-0.5, 0.0, 0.2, 0.7, 1.5}) {
      const long double d = exact_delta(exact, n * l0, g.h, eps);
      EXPECT_LE(c.delta_lower(eps), static_cast<double>(d) * (1 + 1e-12) + 1e-300)
          << "rep " << rep << " eps " << eps;
      EXPECT_GE(c.delta_upper(eps), static_cast<double>(d) * (1 - 1e-12))
          << "rep " << rep << " eps " << eps;
      const double w = c.delta_upper(eps) - c.delta_lower(eps),
                   w_abs = c_abs.delta_upper(eps) - c_abs.delta_lower(eps);
      EXPECT_LE(w, w_abs * (1 + 1e-12)) << "rep " << rep << " eps " << eps;
      narrower += w < 0.25 * w_abs;
      ++total;
    }
  }
  // (the moves cost about h / 2 of what absolute errors cost: h <= 0.12)
  EXPECT_GE(narrower, 0.9 * total) << "of " << total << " brackets";
}

TEST(PldGrid, BadInput) {
  auto law = make_law(tradeoff(gaussian(1.0)));
  EXPECT_THROW(discretize(*law, 0.0, 0, -1, 1, pld_side::pessimistic), std::invalid_argument);
  EXPECT_THROW(discretize(*law, -1.0, 0, -1, 1, pld_side::optimistic), std::invalid_argument);
  EXPECT_THROW(discretize(*law, 1e-12, 0, -1e6, 1e6, pld_side::optimistic), evaluation_error);
  EXPECT_THROW(compose_grid({}, {}, false, 1e-16), std::invalid_argument);
  for (double c : {-1e-12, std::nan(""), std::numeric_limits<double>::infinity()}) {
    try {
      discretize(*law, 0.1, 0, -1, 1, pld_side::optimistic, c);
      ADD_FAILURE() << "coarse=" << c << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("coarse"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace fdp

// tradeoff_from_profile lives in compose.hpp; tested here against f_{eps,delta}.
#include "fdp/ops/compose.hpp"
namespace fdp {
namespace {
TEST(Profile, TradeoffFromProfileIsFepsDelta) {
  // One pair gives exactly f_{eps,delta}.
  const curve f = tradeoff_from_profile({{1.0, 0.1}});
  for (int i = 0; i <= 100; ++i) {
    const double a = i / 100.0;
    EXPECT_NEAR(beta(f, a), beta(eps_delta(1.0, 0.1), a), 1e-15) << a;
  }
  // The profile of G_1 at many eps gives a polygon below G_1 touching it.
  std::vector<std::pair<double, double>> prof;
  for (int i = 0; i <= 200; ++i) {
    const double e = -5.0 + 15.0 * i / 200.0;
    prof.push_back({e, profile_delta(gaussian(1.0), e)});
  }
  const curve g = tradeoff_from_profile(prof, false);
  double gap = 0.0;
  for (int i = 1; i < 100; ++i) {
    const double a = i / 100.0;
    EXPECT_LE(beta(g, a), beta(gaussian(1.0), a) + 1e-12);
    gap = std::max(gap, beta(gaussian(1.0), a) - beta(g, a));
  }
  EXPECT_LT(gap, 2e-3);
  EXPECT_THROW(tradeoff_from_profile({}), std::invalid_argument);
  EXPECT_THROW(tradeoff_from_profile({{1.0, 1.5}}), std::invalid_argument);
  EXPECT_THROW(tradeoff_from_profile({{std::nan(""), 0.1}}), std::invalid_argument);
}
}  // namespace
}  // namespace fdp
