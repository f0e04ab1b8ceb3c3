#include "ops/pld/pld_grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "fdp/core/error.hpp"

#include "ops/pld/numbers.hpp"
#include "ops/pld/pessimistic.hpp"
#include "ops/pld/sums.hpp"

namespace fdp {
namespace {

using detail::kInf;
using detail::kMassRel;
using detail::kMaxGrid;

// ------------------------------------------------------------------ optimistic
class sweeper {
  struct satom {
    double loss, p, q, snap;  // snap: |e^{true loss - grid loss} - 1| if snapped
  };

 public:
  sweeper(const loss_law& law, double h, double off, double lo, double hi, double coarse = 0.0,
          bool cap_end = true)
      : law_(law), atomic_(law.atomic()), h_(h), off_(off), true_atoms_(law.atoms()) {
    if (coarse > 0 && true_atoms_.empty()) set_strides(coarse, cap_end);
    for (const auto& a : true_atoms_) atoms_.push_back({a.loss, a.p, a.q, 0.0});
    klo_ = static_cast<std::int64_t>(std::floor((std::max(lo, law.lo()) - off) / h + 1e-9));
    khi_ = static_cast<std::int64_t>(std::floor((std::min(hi, law.hi()) - off) / h + 1e-9));
    if (khi_ < klo_) khi_ = klo_;
    // Atoms within rounding of a grid point are placed on it exactly; the
    // ratio mismatch this causes is counted in the defect. "Within rounding"
    // must cover the tolerance of every on-grid test below (on_grid,
    // atom_at: tol_at): an atom those call "at l" but left a hair above l
    // was counted twice, once on the target and once inside (l, c) (a
    // staged composition whose two grid steps were commensurate made
    // 7e-4 of mass out of nothing).
    for (auto& a : atoms_) {
      const double x = (a.loss - off) / h;
      const double k = std::round(x);
      const double l = L(static_cast<std::int64_t>(k));
      if (std::fabs(x - k) <= 1e-9 || std::fabs(a.loss - l) <= 4 * tol_at(a.loss)) {
        a.snap = std::fabs(std::expm1(a.loss - l));
        a.loss = l;
      }
    }
    // (snapping moves atoms by at most ~1e-9 h; keep the list sorted anyway)
    const auto below = [](const satom& u, const satom& v) { return u.loss < v.loss; };
    if (!std::is_sorted(atoms_.begin(), atoms_.end(), below))
      std::stable_sort(atoms_.begin(), atoms_.end(), below);
    r_.h = h;
    r_.offset = off;
    r_.k0 = klo_;
    r_.p.assign(static_cast<std::size_t>(khi_ - klo_ + 1), 0.0);
    r_.q.assign(r_.p.size(), 0.0);
    r_.err_p.assign(r_.p.size(), 0.0);
    r_.err_q.assign(r_.p.size(), 0.0);
  }

  // shift: the first group targets `shift` grid points lower than the
  // largest admissible one (a different phase of the group boundaries).
  grid_pmf run(int shift = 0) {
    bool first = true;
    // cut: everything with loss > c is consumed; rc of the atom ia at c remains.
    int ia = atoms_.empty() ? -1 : static_cast<int>(atoms_.size()) - 1;
    double c = law_.hi();
    if (ia >= 0 && atoms_[ia].loss >= c - 1e-12 * std::max(1.0, std::fabs(c))) {
      // The top atom, pending. Snapped up onto a grid point, it raises the
      // cut; snapped down, the cut stays at the law's top: the continuous
      // mass between the two is swept with the first group. (Starting at
      // the snapped atom skipped it: a subsampled Laplace with d/b = 36 and
      // q = 2.6e-4 has 0.42 of its mass within 3e-18 of the loss's lower
      // end, and its bottom-up sweep lost all of it.)
      c = std::max(c, atoms_[ia].loss);
    } else {
      ia = -1;
    }
    double rc = ia >= 0 ? 1.0 : 0.0;
    for (int guard = 0; guard < 100000000; ++guard) {
      if (c == -kInf) break;
      std::int64_t kt;
      if (c > L(khi_)) {
        kt = khi_;
      } else {
        kt = static_cast<std::int64_t>(std::floor((c - off_) / h_ + 1e-9));
        // A cut a hair below a grid point (closer than 1e-9 h, farther than
        // the on-grid tolerance) has that point above it: the target is the
        // one below. (Targeting the point above, the group found nothing in
        // (l, c) and the sweep moved up to l, counting the sliver (c, l) a
        // second time: 1.7e-12 of mass made up for laplace:b=1,sensitivity=3,
        // whose balanced cuts fall on grid points exactly.)
        if (L(kt) > c && !on_grid(c, kt)) --kt;
        if (on_grid(c, kt) && rc == 0.0) --kt;
      }
      if (kt < klo_) break;
      if (!up_.empty() || !down_.empty()) kt = std::max(klo_, kt - stride(kt, c) + 1);
      // An atom sitting on the target alone is an output of its own.
      if (ia >= 0 && rc > 0 && on_grid(c, kt)) {
        emit(kt, rc * atoms_[ia].p, rc * atoms_[ia].q, rc * atoms_[ia].q * atoms_[ia].snap);
        rc = 0.0;
        continue;
      }
      const double l = L(kt);
      const mass2 inner = cont_and_inner(l, c, ia);
      mass2 pos = inner;
      if (ia >= 0) pos.p += rc * atoms_[ia].p, pos.q += rc * atoms_[ia].q;
      if (!(pos.p > 0 || pos.q > 0)) {
        // Nothing between l and c: jump down to l or, across a gap, to the next atom.
        const int ja = atom_below(l, true);
        const double a = ja >= 0 ? atoms_[ja].loss : law_.lo();
        const mass2 gap = cont_only(a, l);
        if (!(gap.p > 0 || gap.q > 0) && ja >= 0 && atoms_[ja].loss < l) {
          c = atoms_[ja].loss;
          ia = ja;
          rc = 1.0;
        } else {
          // (the atom at l keeps what is left of it when it is the pending
          // one: an emptied top atom read as whole again was emitted twice)
          c = l;
          const int il = atom_at(l);
          rc = il < 0 ? 0.0 : (il == ia ? rc : 1.0);
          ia = il;
        }
        continue;
      }
      const bool shifted = first && shift > 0 && kt - shift >= klo_;
      if (shifted) kt -= shift;
      first = false;
      // Prefer a group that does not strand mass above an on-grid atom; fall
      // back to the first balanced one. (The mass in (l, c) just found is
      // the group's own unless the phase shift moved its target.)
      group g = build_group(kt, c, ia, rc, shifted ? nullptr : &inner);
      if (g.ok && g.strands) {
        for (int attempt = 1; attempt < 3 && kt - attempt >= klo_; ++attempt) {
          group g2 = build_group(kt - attempt, c, ia, rc);
          if (g2.ok && !g2.strands) {
            g = g2;
            break;
          }
        }
      }
      if (!g.ok) {
        // Nothing below can balance this last group: its likelihood ratio is
        // above e^{l_k}. It is kept at l_k with its masses; the ratio mismatch
        // (a downward loss shift: optimistic for T(P,Q), and bounded for
        // T(Q,P) through the error vectors) is recorded by emit().
        r_.leftover += g.acc.p - g.on_target.p;
        emit(g.k, g.acc.p, g.acc.q, g.snap);
        finish_drop(-kInf, -1, 0.0);
        return r_;
      }
      emit(g.k, g.acc.p, g.acc.q, g.snap);
      c = g.c;
      ia = g.ia;
      rc = g.rc;
    }
    finish_drop(c, ia, rc);
    return r_;
  }

 private:
  // (per-atom snapping errors live in atoms_[i].snap)

  struct group {
    bool ok = false;       // balanced at e^{l_k}
    bool strands = false;  // leaves gridless mass just above an on-grid atom / the bottom
    std::int64_t k = 0;
    mass2 acc;
    mass2 on_target;  // the part of acc that is an atom exactly on the target
    double snap = 0;  // Q-mass times snapping error of the atoms in the group
    double c = 0;
    int ia = -1;
    double rc = 0;
  };

  // The group with target grid index kt starting at cut (c, ia, rc): all the
  // remaining mass in (l, c) plus just enough mass below l to make the
  // likelihood ratio exactly e^l.
  // `inner`, when given, is cont_and_inner(L(kt), c, ia) already evaluated.
  group build_group(std::int64_t kt, double c, int ia, double rc,
                    const mass2* inner = nullptr) const {
    group g;
    g.k = kt;
    const double l = L(kt), el = std::exp(l);
    mass2 pos = inner ? *inner : cont_and_inner(l, c, ia);
    double snap = 0.0;
    if (ia >= 0 && atoms_[ia].loss > l) {
      pos.p += rc * atoms_[ia].p, pos.q += rc * atoms_[ia].q;
      snap += rc * atoms_[ia].q * atoms_[ia].snap;
    }
    for (auto it = first_atom_above(l); it != atoms_.end() && it->loss < c; ++it)
      if (it - atoms_.begin() != ia) snap += it->q * it->snap;
    // atoms in (l, c) strictly below the cut atom are in cont_and_inner already
    double need = std::max(0.0, pos.q - el * pos.p);
    g.acc = pos;
    const int il = atom_at(l);
    if (il >= 0) {
      const double fr = (il == ia) ? rc : 1.0;
      g.on_target = {fr * atoms_[il].p, fr * atoms_[il].q};
      snap += fr * atoms_[il].q * atoms_[il].snap;
      g.acc.p += g.on_target.p;
      g.acc.q += g.on_target.q;
    }
    double cur = l;
    int ja = atom_below(l, false);
    for (;;) {
      const double a = ja >= 0 ? atoms_[ja].loss : law_.lo();
      const mass2 mc = cont_only(a, cur);
      const double nc = el * mc.p - mc.q;
      if (nc >= need && (mc.p > 0 || mc.q > 0)) {
        mass2 m;
        const double x =
            solve(a, cur, l, el, need, std::isfinite(c) ? std::max(c - l, h_) : h_, &m);
        g.acc.p += m.p;
        g.acc.q += m.q;
        g.snap = snap;
        g.c = x;
        // The continuous part excludes atoms: an atom sitting exactly at the
        // new cut is still entirely pending, unless it is the target's own
        // atom, already in the group. (A group that balances without mass
        // from below, need = 0, ends its cut at l itself: an atom snapped up
        // onto l from just above the law's lower end, with a sliver of
        // continuous mass under it, was counted twice; the subsampled
        // Laplace at q = 1 - 1e-5 then had 1.5 of Q-mass, and a composed
        // lower bound on delta read 1 against 0.9998.)
        g.ia = atom_at(x);
        g.rc = g.ia >= 0 && g.ia != il ? 1.0 : 0.0;
        g.ok = true;
        // Does the remainder (a, x) hold mass with no grid point strictly inside?
        // (the mass test only where no grid point is: an infinite lower end
        // never strands)
        // (a = -inf: 1e-12 |a| is inf and a + inf NaN, which read as "no
        // grid point inside": each group of a law unbounded below was
        // checked and rebuilt twice more for nothing, 2/3 of the sweep's
        // mass evaluations)
        const double gnext = L(static_cast<std::int64_t>(std::floor((x - off_) / h_ - 1e-9)));
        if (std::isfinite(a) && !(gnext > a + 1e-12 * std::max(1.0, std::fabs(a)))) {
          const mass2 rem = cont_only(a, x);
          g.strands = rem.p > 0 || rem.q > 0;
        }
        return g;
      }
      need -= std::max(0.0, nc);
      g.acc.p += mc.p;
      g.acc.q += mc.q;
      if (ja < 0) {
        // Everything below is used up. Balanced up to rounding? (the defect
        // records the mismatch); otherwise the group cannot balance.
        if (need <= 1e-12 * std::max(g.acc.q, 1e-300)) {
          g.snap = snap;
          g.ok = true;
          g.c = -kInf;
          g.ia = -1;
          g.rc = 0.0;
        }
        return g;
      }
      const double jump = el * atoms_[ja].p - atoms_[ja].q;
      if (jump >= need) {
        const double th = jump > 0 ? std::clamp(need / jump, 0.0, 1.0) : 0.0;
        g.acc.p += th * atoms_[ja].p;
        g.acc.q += th * atoms_[ja].q;
        g.snap = snap + th * atoms_[ja].q * atoms_[ja].snap;
        g.c = atoms_[ja].loss;
        g.ia = ja;
        g.rc = 1.0 - th;
        g.ok = true;
        return g;
      }
      need -= jump;
      g.acc.p += atoms_[ja].p;
      g.acc.q += atoms_[ja].q;
      snap += atoms_[ja].q * atoms_[ja].snap;
      cur = atoms_[ja].loss;
      --ja;
    }
  }
  // Coarse groups in thin tails (discretize's `coarse`). Level j lets a
  // group target the grid point m_j - 1 = 2^j - 1 steps below the largest
  // admissible one, so that it spans about 2 m_j h of the law's losses
  // instead of 2h. A group is an exact garbling: replacing the law's mass
  // on its span by one atom at ratio e^{l} changes delta(eps) (of either
  // orientation) only for eps inside the span, and there by at most the
  // group's mass times expm1(span). The spans are disjoint, so the curve
  // moves by at most the largest such product, not their sum. Level j is
  // used where the whole tail beyond the group holds at most
  // coarse / expm1(2 m_j h) (P or Q): the curve moves by at most `coarse`.
  // This costs tightness, never soundness.
  static constexpr int kStrideLevels = 10;  // strides 2 .. 1024
  void set_strides(double coarse, bool cap_end) {
    for (int j = 1; j <= kStrideLevels; ++j) {
      const double tau = coarse / std::expm1(2.0 * static_cast<double>(1 << j) * h_);
      if (!std::isfinite(law_.hi())) up_.push_back(detail::loss_cut(law_, tau, true, 30));
      // (the lower tail is where the sweep ends: its last group may not
      // balance, and a two-tailed sweep then tries other phases (discretize);
      // with cap_end no group there holds more than `coarse`, so that what
      // is left unbalanced stays about that small)
      if (!std::isfinite(law_.lo()))
        down_.push_back(detail::loss_cut(law_, cap_end ? std::min(tau, coarse) : tau, false, 30));
    }
  }
  // The stride for a group whose largest admissible target is kt, with the
  // sweep's cut at c: the group spans (about) targets kt - m + 1 .. c.
  std::int64_t stride(std::int64_t kt, double c) const {
    for (int j = kStrideLevels; j >= 1; --j) {
      const std::int64_t m = std::int64_t(1) << j;
      const bool up = !up_.empty() && L(kt - m + 1) >= up_[static_cast<std::size_t>(j - 1)];
      const bool down = !down_.empty() && c <= down_[static_cast<std::size_t>(j - 1)];
      if (up || down) return m;
    }
    return 1;
  }
  double L(std::int64_t k) const { return off_ + static_cast<double>(k) * h_; }
  bool on_grid(double x, std::int64_t k) const {
    return std::fabs(x - L(k)) <= 1e-12 * std::max(1.0, std::fabs(x));
  }
  // The atom lists are sorted by loss (snapping to the grid keeps the
  // order), so every lookup below is a binary search plus the atoms in range:
  // laws with thousands of atoms (curves, staged compositions) sweep in
  // O(n log n), not O(n^2).
  static double tol_at(double x) { return 1e-12 * std::max(1.0, std::fabs(x)); }
  std::vector<satom>::const_iterator first_atom_above(double x) const {
    return std::upper_bound(atoms_.begin(), atoms_.end(), x,
                            [](double v, const satom& at) { return v < at.loss; });
  }
  int atom_at(double x) const {
    if (!std::isfinite(x)) return -1;
    const double t = tol_at(x);
    // the largest atom within the tolerance of x (as the scan from the top found)
    auto it = std::upper_bound(atoms_.begin(), atoms_.end(), x + t,
                               [](double v, const satom& at) { return v < at.loss; });
    if (it == atoms_.begin()) return -1;
    --it;
    return std::fabs(it->loss - x) <= t ? static_cast<int>(it - atoms_.begin()) : -1;
  }
  // Largest atom index with loss < x (strictly, beyond the on-grid tolerance);
  // with `inclusive`, <= x is allowed.
  int atom_below(double x, bool inclusive) const {
    const double t = tol_at(x);
    // candidates: atoms with loss <= x + t, from the top
    auto it = std::upper_bound(atoms_.begin(), atoms_.end(), x + t,
                               [](double v, const satom& at) { return v < at.loss; });
    while (it != atoms_.begin()) {
      --it;
      const double a = it->loss;
      const bool same = std::fabs(a - x) <= t;
      if (a < x && !same) return static_cast<int>(it - atoms_.begin());
      if (inclusive && same) return static_cast<int>(it - atoms_.begin());
    }
    return -1;
  }
  // Continuous part on (a, b) (no atoms): the law's mass minus its atoms at
  // their true positions. For an atomic law it is 0, exactly: the
  // subtraction would leave rounding residues (~1e-16 of the range's mass)
  // that send the root finder after mass that is not there, and it costs
  // two passes over the atoms in range (staged polygons: ~25,000 atoms).
  mass2 cont_only(double a, double b) const {
    if (atomic_ || !(b > a)) return {};
    mass2 m = law_.mass(a, b);
    auto it = std::upper_bound(true_atoms_.begin(), true_atoms_.end(), a,
                               [](double v, const loss_atom& at) { return v < at.loss; });
    for (; it != true_atoms_.end() && it->loss <= b; ++it) m.p -= it->p, m.q -= it->q;
    m.p = std::max(0.0, m.p);
    m.q = std::max(0.0, m.q);
    return m;
  }
  // Continuous part on (a, b) plus the (snapped) atoms strictly inside,
  // except the atom `pending` (the sweep's cut atom): that one is counted
  // through its remaining fraction alone. (A cut found by solve() within the
  // on-grid tolerance of an atom, an ulp above it, has the atom "inside"
  // (a, c) as well: laplace:b=0.5 on the step 1/34 counted its bottom atom
  // once in the last group and again in the mass dropped below the cut.)
  mass2 cont_and_inner(double a, double b, int pending) const {
    mass2 m = cont_only(a, b);
    for (auto it = first_atom_above(a); it != atoms_.end() && it->loss < b; ++it)
      if (it - atoms_.begin() != pending) m.p += it->p, m.q += it->q;
    return m;
  }
  // x in (a, cur) with e^l P(x,cur) - Q(x,cur) = need on the continuous part
  // (cur <= l), and that mass (x, cur) in *m_out. `dist` is the expected
  // distance below cur (the mirror of the positive part).
  //
  // g(x) = e^l P(x,cur) - Q(x,cur) - need does not increase with x (mass at
  // losses y < l adds (e^l - e^y) p > 0 as x moves down) and g(cur) = -need
  // < 0. The answer is the left end of a bracket [xl, xr] with g(xl) >= 0 >
  // g(xr) (the group balances or leans below e^l) once g(xl) is within the
  // bracket's slope times tol of zero, or the bracket is tol wide: tol =
  // 1e-10 h, so the group's ratio misses e^l by ~1e-10 of its mass (emit
  // records the miss). Where the law has a density p, g grows like
  // e^l p (l - x)^2 / 2: flat at x = l, so secants in x crawl; in
  // u = (l - x)^2 it is nearly linear. Steps: the mirror guess, then secants
  // in u through the last two points (outwards while g < 0: extrapolated,
  // 1.25 to 4 times as far below l), each moved tol/4 towards the g >= 0
  // side (so that a converging run ends there), bisection when a secant
  // leaves the bracket or the bracket has not halved in three steps. (Boost's
  // TOMS 748 in x took 8.6 mass evaluations per solve on subsampled
  // Gaussians.)
  double solve(double a, double cur, double l, double el, double need, double dist,
               mass2* m_out) const {
    auto g = [&](double x, mass2& m) {
      m = cont_only(x, cur);
      return el * m.p - m.q - need;
    };
    *m_out = {};
    if (!(need > 0)) return cur;  // (g(cur) = -need >= 0: nothing to add)
    const double tol = 1e-10 * h_;
    dist = std::max(dist, 0.25 * h_);
    double xr = cur, gr = -need;  // g < 0 side
    // the mirror guess, then outwards until g >= 0
    mass2 ml;
    double xl = std::max(a, cur - dist);
    double gl = g(xl, ml);
    double xp = xr, gp = gr;  // the previous point (for the secant)
    auto u_of = [&](double x) { return (l - x) * (l - x); };
    while (!(gl >= 0) && xl > a) {
      // extrapolate the secant in u to g = 0 (5% further), at least 1.25 and
      // at most 4 times as far below l
      const double s_old = l - xl;
      double s_new = 4.0 * s_old;
      if (gl > gp) {
        const double ul = u_of(xl), up = u_of(xp);
        const double us = ul - gl * (ul - up) / (gl - gp);
        if (us > 0) s_new = std::clamp(1.05 * std::sqrt(us), 1.25 * s_old, 4.0 * s_old);
      }
      xp = xl, gp = gl;
      xr = xl, gr = gl;
      xl = std::max(a, l - s_new);
      gl = g(xl, ml);
      if (s_new > 1e7) break;
    }
    if (!(gl >= 0)) {  // even all of (a, cur) cannot balance: take it all
      *m_out = ml;
      return xl;
    }
    double xc = xl, gc = gl;  // the latest point
    double width = xr - xl;
    int since_halved = 0;
    for (int it = 0; it < 200; ++it) {
      const double slope = (gl - gr) / (xr - xl);
      if (gl <= slope * tol || xr - xl <= tol) break;
      double x = 0.5 * (xl + xr);
      if (since_halved < 3 && gc != gp) {
        const double uc = u_of(xc), up = u_of(xp);
        const double us = uc - gc * (uc - up) / (gc - gp);
        const double xs = l - std::sqrt(std::max(0.0, us)) - 0.25 * tol;
        if (xs > xl && xs < xr) x = xs;
      }
      mass2 m;
      const double gx = g(x, m);
      xp = xc, gp = gc;
      xc = x, gc = gx;
      if (gx >= 0) {
        xl = x, gl = gx, ml = m;
      } else {
        xr = x, gr = gx;
      }
      if (xr - xl <= 0.5 * width) {
        width = xr - xl;
        since_halved = 0;
      } else {
        ++since_halved;
      }
    }
    *m_out = ml;
    return xl;
  }
  void emit(std::int64_t k, double p, double q, double snap_err = 0.0) {
    const std::size_t i = static_cast<std::size_t>(k - klo_);
    r_.p[i] += p;
    r_.q[i] += q;
    // The group is a true garbling with masses (p, q) (to kMassRel); placed at
    // l_k its ratio misses e^{l_k} by lean = q - e^{l_k} p, plus the snapping
    // of its atoms (either way). Each orientation composes one mass vector
    // and implies the other from the grid loss: T(P,Q) takes q and implies
    // P-mass q e^{-l_k}, T(Q,P) takes p and implies Q-mass p e^{l_k}. A
    // group leaning above (lean > 0) thus gets more implied P-mass in T(P,Q)
    // than it has, and every delta of T(P,Q), composed or not, only drops
    // (the hockey-stick sum of (q - e^eps p)_+ over product atoms falls as
    // any factor's p grows): the lean costs that orientation nothing; only
    // T(Q,P) must carry it, as an error on p. Leaning below, the reverse.
    const double lean = q - std::exp(L(k)) * p;
    r_.err_q[i] += std::max(0.0, -lean) + snap_err + kMassRel * q;
    r_.err_p[i] += (std::max(0.0, lean) + snap_err) * std::exp(-L(k)) + kMassRel * p;
  }
  // Drops everything below the cut c (with the remaining fraction rc of atom ia).
  void finish_drop(double c, int ia, double rc) {
    if (c != -kInf) {
      const mass2 m = cont_and_inner(-kInf, c, ia);
      r_.dropped_p += m.p;
      r_.dropped_q += m.q;
      if (ia >= 0) r_.dropped_p += rc * atoms_[ia].p, r_.dropped_q += rc * atoms_[ia].q;
    }
    r_.p_neg_inf = law_.p_neg_inf();
    r_.q_pos_inf = law_.q_pos_inf();
  }

  const loss_law& law_;
  bool atomic_;  // law_.atomic(): no continuous part
  double h_, off_;
  std::vector<satom> atoms_;           // snapped to the grid where within rounding
  std::vector<loss_atom> true_atoms_;  // as the law reports them
  std::int64_t klo_ = 0, khi_ = 0;
  std::vector<double> up_, down_;  // stride thresholds per level (set_strides)
  grid_pmf r_;
};

// The law of the swapped pair (Q, P): loss -L, masses swapped. Sweeping it
// top-down is sweeping the original bottom-up.
class reflected_law final : public loss_law {
 public:
  explicit reflected_law(const loss_law& l) : l_(l) {
    for (const auto& a : l_.atoms()) atoms_.push_back({-a.loss, a.q, a.p});
    std::reverse(atoms_.begin(), atoms_.end());
  }
  mass2 mass(double a, double b) const override {
    // (a, b] for -L is [-b, -a) for L: take (-b, -a] and fix the atoms at the ends.
    // l_.mass counts reflected atoms with a <= loss < b, (a, b] wants
    // a < loss <= b: only atoms exactly at a (out) or at b (in) differ.
    if (!(a < b)) return {};
    mass2 m = l_.mass(-b, -a);
    mass2 r{m.q, m.p};
    auto at_loss = [&](double x) {
      return std::equal_range(
          atoms_.begin(), atoms_.end(), loss_atom{x, 0.0, 0.0},
          [](const loss_atom& u, const loss_atom& v) { return u.loss < v.loss; });
    };
    for (auto [it, end] = at_loss(a); it != end; ++it) r.p -= it->p, r.q -= it->q;
    for (auto [it, end] = at_loss(b); it != end; ++it) r.p += it->p, r.q += it->q;
    r.p = std::max(0.0, r.p);
    r.q = std::max(0.0, r.q);
    return r;
  }
  double p_neg_inf() const override { return l_.q_pos_inf(); }
  double q_pos_inf() const override { return l_.p_neg_inf(); }
  double lo() const override { return -l_.hi(); }
  double hi() const override { return -l_.lo(); }
  std::vector<loss_atom> atoms() const override { return atoms_; }
  bool atomic() const override { return l_.atomic(); }
  bool symmetric() const override { return l_.symmetric(); }
  double scale() const override { return l_.scale(); }
  std::string describe() const override { return "reflected " + l_.describe(); }

 private:
  const loss_law& l_;
  std::vector<loss_atom> atoms_;
};

// The optimistic sweep is a garbling: it moves mass, never makes any, so
// the grid's masses plus what was dropped and the infinite atoms add up to
// the law's totals. Mass made is unsound (a sweep that counted an atom
// twice gave the law at q = 1 - 1e-5 1.5 of Q-mass and a lower bound on
// delta above the truth): such a grid is refused loudly rather than
// certified. Mass the sweep failed to place is sound to leave out (removing
// outcomes lowers every delta of either orientation, composed or not) but
// loosens the bound: it is booked as dropped, and reported in lost_p /
// lost_q (tests hold it at 0; it arises when the step is far below the
// sweep's on-grid tolerance of 1e-12, e.g. randomized-response:eps=1e-12,
// whose grid step is 8e-14). The allowance covers the rounding of the mass
// evaluations (each a few ulp of the mass in range, ~1e-13 when
// subtracting atoms) and of the sums.
void account_for_mass(const loss_law& law, grid_pmf& g) {
  const mass2 total = law.mass(-kInf, kInf);
  double sp = g.dropped_p + g.p_neg_inf, sq = g.dropped_q + g.q_pos_inf;
  for (std::size_t i = 0; i < g.p.size(); ++i) sp += g.p[i], sq += g.q[i];
  const double n = static_cast<double>(g.p.size());
  const double allow = 1e-9 + 8.0 * n * detail::kU;
  const double tp = total.p + law.p_neg_inf(), tq = total.q + law.q_pos_inf();
  if (sp - tp > allow * std::max(1.0, tp) || sq - tq > allow * std::max(1.0, tq)) {
    throw std::logic_error("discretize: the optimistic grid of " + law.describe() + " (h " +
                           detail::format_value(g.h) + ", offset " +
                           detail::format_value(g.offset) + ") holds P-mass " +
                           detail::format_value(sp) + " and Q-mass " + detail::format_value(sq) +
                           " where the law has " + detail::format_value(tp) + " and " +
                           detail::format_value(tq) + " (an internal error; please report it)");
  }
  if (tp - sp > allow * std::max(1.0, tp)) g.lost_p = tp - sp, g.dropped_p += g.lost_p;
  if (tq - sq > allow * std::max(1.0, tq)) g.lost_q = tq - sq, g.dropped_q += g.lost_q;
}

grid_pmf discretize_optimistic(const loss_law& law, double h, double offset, double lo, double hi,
                               double coarse);

}  // namespace

grid_pmf discretize(const loss_law& law, double h, double offset, double lo_cut, double hi_cut,
                    pld_side side, double coarse) {
  detail::require(coarse >= 0 && std::isfinite(coarse), "discretize", "coarse", coarse,
                  "must be finite and >= 0");
  detail::require_finite_pos(h, "discretize", "h");
  // Losses beyond +-700 would overflow e^l; mass there is handled as a tail
  // (soundly: +inf / -inf atoms for the pessimistic side, merged or dropped
  // for the optimistic side).
  const double lo = std::max({law.lo(), lo_cut, -700.0}), hi = std::min({law.hi(), hi_cut, 700.0});
  if (!(std::isfinite(lo) && std::isfinite(hi))) {
    detail::throw_domain("discretize", "lo_cut", lo_cut, "the grid range must be finite");
  }
  const double span = (hi - lo) / h;
  if (span > static_cast<double>(kMaxGrid)) {
    throw grid_limit_error("discretize: a grid of " + detail::format_value(span) +
                               " points exceeds the limit of " + std::to_string(kMaxGrid) +
                               "; use a larger tolerance",
                           span, static_cast<double>(kMaxGrid));
  }
  if (side == pld_side::pessimistic) return detail::discretize_pessimistic(law, h, offset, lo, hi);
  grid_pmf g = discretize_optimistic(law, h, offset, lo, hi, coarse);
  account_for_mass(law, g);
  return g;
}

namespace {
grid_pmf discretize_optimistic(const loss_law& law, double h, double offset, double lo, double hi,
                               double coarse) {
  // The sweep drops what it cannot balance at its far end. Sweep towards the
  // grid-aligned lowest atom when there are atoms; otherwise towards an
  // infinite tail (a finite end without an atom, like log(1-q) for Poisson
  // subsampling, is an accumulation point that must be swept first).
  const bool bottom_up = law.atoms().empty() && std::isfinite(law.lo()) && !std::isfinite(law.hi());
  // The sweep of the reflected law (losses negated, P and Q swapped) runs
  // bottom-up on the original: its unbalanced remainder is at the top.
  auto swept_up = [&] {
    const reflected_law rl(law);
    const grid_pmf g = sweeper(rl, h, -offset, -hi, -lo, coarse, false).run();
    grid_pmf r;
    r.h = h;
    r.offset = offset;
    const std::size_t n = g.p.size();
    r.k0 = -(g.k0 + static_cast<std::int64_t>(n) - 1);
    r.p.assign(g.q.rbegin(), g.q.rend());
    r.q.assign(g.p.rbegin(), g.p.rend());
    r.p_neg_inf = g.q_pos_inf;
    r.q_pos_inf = g.p_neg_inf;
    r.p_neg_inf_err = g.q_pos_inf_err;
    r.q_pos_inf_err = g.p_neg_inf_err;
    r.dropped_p = g.dropped_q;
    r.dropped_q = g.dropped_p;
    r.leftover = g.leftover;  // (its Q-mass here)
    r.err_p.assign(g.err_q.rbegin(), g.err_q.rend());
    r.err_q.assign(g.err_p.rbegin(), g.err_p.rend());
    return r;
  };
  if (bottom_up) return swept_up();
  // Try a few phases of the group boundaries; keep the one that leaves the
  // least mass unbalanced at the end (dropped or kept with a mismatch).
  grid_pmf best = sweeper(law, h, offset, lo, hi, coarse).run(0);
  auto bad = [](const grid_pmf& g) { return g.dropped_p + g.dropped_q + g.leftover; };
  // (with coarse tail groups, the last one may leave about `coarse`
  // unbalanced: as much as the coarse grouping itself may cost)
  const double ok_bad = std::max(1e-12, 4 * coarse);
  for (int shift = 1; shift <= 3 && bad(best) > ok_bad; ++shift) {
    grid_pmf g = sweeper(law, h, offset, lo, hi, coarse).run(shift);
    if (bad(g) < bad(best)) best = std::move(g);
  }
  // A law with atoms at both ends of a finite support (subsampled Laplace:
  // a heavy atom at the bottom, continuous mass just above it that nothing
  // below can balance) may leave much less at its other end. The remainder
  // at the bottom leans above its grid point and costs T(Q,P) only (see
  // emit), so a symmetric law, whose T(P,Q) is all that is composed, keeps
  // it; otherwise the smaller total error of the two sweeps wins.
  if (bad(best) > ok_bad && !law.symmetric() && !law.atoms().empty() && std::isfinite(law.lo()) &&
      std::isfinite(law.hi())) {
    auto cost = [](const grid_pmf& g) {
      double c = g.dropped_p + g.dropped_q;
      for (std::size_t i = 0; i < g.p.size(); ++i)
        c += g.err_q[i] +
             g.err_p[i] * std::exp(std::min(700.0, g.loss(g.k0 + static_cast<std::int64_t>(i))));
      return c;
    };
    grid_pmf g = swept_up();
    if (cost(g) < cost(best)) best = std::move(g);
  }
  return best;
}
}  // namespace

}  // namespace fdp
