#include "fdp/ops/pld_grid.hpp"

#include <fftw3.h>

#include <unsupported/Eigen/FFT>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <cstdio>
#include <cstdlib>

#include "fdp/core/error.hpp"
#include "fftw_planner.hpp"
#include "pld_internal.hpp"

namespace fdp::detail {
std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

fftw_r2c_plans::~fftw_r2c_plans() {
  std::lock_guard<std::mutex> lk(fftw_planner_mutex());
  if (fwd) fftw_destroy_plan(fwd);
  if (bwd) fftw_destroy_plan(bwd);
}

std::shared_ptr<const fftw_r2c_plans> fftw_plans_for(std::int64_t n) {
  // never destroyed: plans still cached at exit are freed with the process
  static auto* cache = new std::map<std::int64_t, std::shared_ptr<const fftw_r2c_plans>>();
  std::map<std::int64_t, std::shared_ptr<const fftw_r2c_plans>> evicted;  // released after unlocking
  std::shared_ptr<fftw_r2c_plans> p;
  {
    std::lock_guard<std::mutex> lk(fftw_planner_mutex());
    auto it = cache->find(n);
    if (it != cache->end()) return it->second;
    double* in = fftw_alloc_real(static_cast<std::size_t>(n));
    fftw_complex* out = fftw_alloc_complex(static_cast<std::size_t>(n / 2 + 1));
    p = std::make_shared<fftw_r2c_plans>();
    p->fwd = fftw_plan_dft_r2c_1d(static_cast<int>(n), in, out, FFTW_ESTIMATE);
    p->bwd = fftw_plan_dft_c2r_1d(static_cast<int>(n), out, in, FFTW_ESTIMATE);
    fftw_free(in);
    fftw_free(out);
    if (cache->size() >= 64) evicted.swap(*cache);  // a bound on the plans kept
    (*cache)[n] = p;
  }
  return p;
}
}  // namespace fdp::detail

namespace fdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = std::numeric_limits<double>::epsilon() / 2;  // unit roundoff
// Relative accuracy assumed for a law's interval masses (the laws are
// tested to ~1e-15; this leaves a margin).
constexpr double kMassRel = 64 * kU;
// Largest FFT length fdp will allocate (2^26 doubles ~ 0.5 GiB per buffer).
constexpr std::int64_t kMaxGrid = std::int64_t(1) << 26;


// ------------------------------------------------------------------ pessimistic
// Compensated (Neumaier) sum of v plus `extra`.
double total_mass(const std::vector<double>& v, double extra) {
  double s = extra, c = 0.0;
  for (double x : v) {
    const double t = s + x;
    c += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
    s = t;
  }
  return s + c;
}

// The pessimistic completion. P and Q are probability measures, so the
// grid must hold all of each (up to the error bounds it carries). A law
// whose interval masses miss part of the line (a subsampled Laplace law
// once lost 0.13% of P between its bottom atom and the first cell: its
// inverse loss is flat there) would make a grid below the truth; the
// missing P-mass is put at loss -inf and the missing Q-mass at +inf
// instead, where any outcomes are dominated (the pair (P - lost_P,
// Q - lost_Q) plus a perfectly distinguishing remainder is a refinement of
// the true pair). Within the grid's own error bounds nothing changes.
void complete_masses(grid_pmf& r) {
  const double tp = total_mass(r.p, r.p_neg_inf), tq = total_mass(r.q, r.q_pos_inf);
  const double ep = total_mass(r.err_p, r.p_neg_inf_err) + 8 * kU * static_cast<double>(r.p.size() + 1);
  const double eq = total_mass(r.err_q, r.q_pos_inf_err) + 8 * kU * static_cast<double>(r.q.size() + 1);
  if (1.0 - tp > ep) {
    r.p_neg_inf_err += ep + kU * r.p_neg_inf;
    r.p_neg_inf += 1.0 - tp;
  }
  if (1.0 - tq > eq) {
    r.q_pos_inf_err += eq + kU * r.q_pos_inf;
    r.q_pos_inf += 1.0 - tq;
  }
}

grid_pmf discretize_pessimistic(const loss_law& law, double h, double off, double lo, double hi) {
  grid_pmf r;
  r.h = h;
  r.offset = off;
  std::int64_t klo = static_cast<std::int64_t>(std::floor((lo - off) / h + 1e-9));
  std::int64_t khi = static_cast<std::int64_t>(std::ceil((hi - off) / h - 1e-9));
  // The grid's ends reach the cuts (or the law's own ends) as computed: an
  // end atom a rounding above the top grid point was folded into +inf (a
  // curve with atoms at +-log 2 put 1e-15 there, and its epsilon at delta 0
  // read [0.693, inf]).
  {
    const double top = std::min(hi, law.hi()), bot = std::max(lo, law.lo());
    const auto Lk = [&](std::int64_t k) { return off + static_cast<double>(k) * h; };
    if (std::isfinite(top)) while (Lk(khi) < top) ++khi;
    if (std::isfinite(bot)) while (Lk(klo) > bot) --klo;
  }
  if (khi < klo) khi = klo;
  r.k0 = klo;
  const std::size_t n = static_cast<std::size_t>(khi - klo + 1);
  r.p.assign(n, 0.0);
  r.q.assign(n, 0.0);
  r.err_p.assign(n, 0.0);
  r.err_q.assign(n, 0.0);
  r.shift_p.assign(n, 0.0);
  r.shift_q.assign(n, 0.0);
  auto L = [&](std::int64_t k) { return off + static_cast<double>(k) * h; };
  // bottom: the tangent of slope -e^{l_klo} takes the Q-mass; the P excess goes to -inf
  {
    const mass2 b = law.mass(-kInf, L(klo));
    const double pp = b.q > 0 ? b.q * std::exp(-L(klo)) : 0.0;
    r.q[0] += b.q;
    r.p[0] += std::min(pp, b.p);
    r.p_neg_inf += std::max(0.0, b.p - pp);
    if (b.p > pp) r.p_neg_inf_err += kMassRel * (pp + b.p);
    r.err_q[0] += kMassRel * b.q;
    r.err_p[0] += kMassRel * (pp + b.p);
  }
  const double em1 = std::expm1(h);
  for (std::int64_t k = klo + 1; k <= khi; ++k) {
    const mass2 m = law.mass(L(k - 1), L(k));
    if (!(m.p > 0 || m.q > 0)) continue;
    const double lk = L(k), lk1 = L(k - 1);
    // P-mass sent to the upper end: u e^{l_k} + (p - u) e^{l_{k-1}} = q.
    const double numer = (m.q > 0 ? m.q * std::exp(-lk1) : 0.0) - m.p;
    double u = numer / em1;
    u = std::clamp(u, 0.0, m.p);
    const double w = m.p - u;
    const std::size_t i = static_cast<std::size_t>(k - klo);
    const double el = std::exp(lk), el1 = std::exp(lk1);
    const double qu = u * el, qw = w * el1;
    r.p[i] += u;
    r.q[i] += qu;
    r.p[i - 1] += w;
    r.q[i - 1] += qw;
    // The law's masses are accurate to kMassRel (and the numerator's own
    // rounding, a few kU of its terms): u misses the exact split u* by at
    // most du, amplified by 1/(e^h - 1). Against the exact split, the error
    // is P-mass u - u* moved from l_{k-1} to l_k (Q-mass (u - u*) e^{l_{k-1}},
    // plus (u - u*) e^{l_{k-1}} (e^h - 1) more at l_k), and the mass error
    // p - p* at l_{k-1}: the move is a shift (shift_p / shift_q), the rest
    // absolute; err_p / err_q hold both.
    const double du = (kMassRel + 4 * kU) * ((m.q > 0 ? m.q * std::exp(-lk1) : 0.0) + m.p) / em1 + 4 * kU * m.p;
    const double d = std::min(m.p, du);
    r.shift_p[i] += d;
    r.shift_q[i] += d * el1;
    r.err_p[i] += d + kMassRel * u;
    r.err_q[i] += d * el + kMassRel * qu;
    r.err_p[i - 1] += d + kMassRel * (w + m.p);
    r.err_q[i - 1] += d * el1 + kMassRel * (qw + m.p * el1);
  }
  // top: the tangent of slope -e^{l_khi} takes the P-mass; the Q excess goes to +inf
  {
    const mass2 t = law.mass(L(khi), kInf);
    const double qq = t.p > 0 ? t.p * std::exp(L(khi)) : 0.0;
    r.p[n - 1] += t.p;
    r.q[n - 1] += std::min(qq, t.q);
    r.q_pos_inf += std::max(0.0, t.q - qq);
    if (t.q > qq) r.q_pos_inf_err += kMassRel * (qq + t.q);
    r.err_p[n - 1] += kMassRel * t.p;
    r.err_q[n - 1] += kMassRel * (qq + t.q);
  }
  // (the law's own masses are exact; adding them to a fold rounds once)
  r.p_neg_inf += law.p_neg_inf();
  r.q_pos_inf += law.q_pos_inf();
  if (r.p_neg_inf_err > 0) r.p_neg_inf_err += kU * r.p_neg_inf;
  if (r.q_pos_inf_err > 0) r.q_pos_inf_err += kU * r.q_pos_inf;
  complete_masses(r);
  return r;
}

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
    if (!std::is_sorted(atoms_.begin(), atoms_.end(), below)) std::stable_sort(atoms_.begin(), atoms_.end(), below);
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
      c = atoms_[ia].loss;  // the snapped top atom
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
      const mass2 inner = cont_and_inner(l, c);
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
          c = l;
          ia = atom_at(l);
          rc = ia >= 0 ? 1.0 : 0.0;
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
  // `inner`, when given, is cont_and_inner(L(kt), c) already evaluated.
  group build_group(std::int64_t kt, double c, int ia, double rc, const mass2* inner = nullptr) const {
    group g;
    g.k = kt;
    const double l = L(kt), el = std::exp(l);
    mass2 pos = inner ? *inner : cont_and_inner(l, c);
    double snap = 0.0;
    if (ia >= 0 && atoms_[ia].loss > l) {
      pos.p += rc * atoms_[ia].p, pos.q += rc * atoms_[ia].q;
      snap += rc * atoms_[ia].q * atoms_[ia].snap;
    }
    for (auto it = first_atom_above(l); it != atoms_.end() && it->loss < c; ++it) snap += it->q * it->snap;
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
        const double x = solve(a, cur, l, el, need, std::isfinite(c) ? std::max(c - l, h_) : h_, &m);
        g.acc.p += m.p;
        g.acc.q += m.q;
        g.snap = snap;
        g.c = x;
        // The continuous part excludes atoms: an atom sitting exactly at the
        // new cut is still entirely pending.
        g.ia = atom_at(x);
        g.rc = g.ia >= 0 ? 1.0 : 0.0;
        g.ok = true;
        // Does the remainder (a, x) hold mass with no grid point strictly inside?
        // (the mass test only where no grid point is: an infinite lower end
        // never strands)
        const double gnext = L(static_cast<std::int64_t>(std::floor((x - off_) / h_ - 1e-9)));
        if (!(gnext > a + 1e-12 * std::max(1.0, std::fabs(a)))) {
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
  // Continuous part on (a, b) plus the (snapped) atoms strictly inside.
  mass2 cont_and_inner(double a, double b) const {
    mass2 m = cont_only(a, b);
    for (auto it = first_atom_above(a); it != atoms_.end() && it->loss < b; ++it) m.p += it->p, m.q += it->q;
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
  double solve(double a, double cur, double l, double el, double need, double dist, mass2* m_out) const {
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
      const mass2 m = cont_and_inner(-kInf, c);
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

// ------------------------------------------------------------------ FFT helpers
std::mutex& fftw_mutex() { return detail::fftw_planner_mutex(); }

// FFTW plans are reused across calls (planning computes twiddle factors);
// executed with the new-array interface on fftw_malloc'd (aligned) buffers.
// FFTW plans are shared with the ledger (fftw_planner.hpp).
using fft_plans = detail::fftw_r2c_plans;
std::shared_ptr<const fft_plans> plans_for(std::int64_t n) { return detail::fftw_plans_for(n); }

// FFTW executes 3-5x faster than Eigen's kissfft (bench/fft_bench.cpp) but
// each new length costs a plan: measured in process on this 2-core kind,
// ~10 ms at N = 24576 and ~27 ms at 2^18 (FFTW_ESTIMATE), more than all the
// kissfft transforms of a one-shot composition at N <= 2^17 (whole-process
// S3b: 48 -> 41 ms CPU with kissfft). So: kissfft below 2^18 unless this
// length keeps coming back (calibration, ledgers, staged first stages),
// where the plan pays for itself. When it does is a rent-or-buy question:
// at N = 24,576 a plan costs ~52 M instructions and kissfft ~3.5 M more
// than FFTW per composition, so FFTW takes over after 12 compositions of
// one length (paying at most about twice what the better choice in
// hindsight costs). After 4, as before, the 8 compositions of a staged
// first stage with a remainder (10^6 + 3 subsampled Gaussian) paid a
// plan for 4 of them: 452 -> 424 M instructions.
bool fftw_worth_it(std::int64_t n) {
  if (n < (std::int64_t(1) << 14)) return false;
  if (n >= (std::int64_t(1) << 18)) return true;
  static std::map<std::int64_t, int> uses;
  std::lock_guard<std::mutex> lk(fftw_mutex());
  if (uses.size() > 256) uses.clear();
  return ++uses[n] > 12;
}

std::int64_t good_size(std::int64_t n) {
  std::int64_t best = std::int64_t(1) << 62;
  for (std::int64_t p2 = 1; p2 < 2 * n + 2; p2 *= 2)
    for (std::int64_t m : {1, 3, 5, 9, 15})
      if (p2 * m >= n && p2 * m < best) best = p2 * m;
  return best;
}

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
      return std::equal_range(atoms_.begin(), atoms_.end(), loss_atom{x, 0.0, 0.0},
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

}  // namespace

grid_pmf discretize(const loss_law& law, double h, double offset, double lo_cut, double hi_cut,
                    pld_side side, double coarse) {
  detail::require(coarse >= 0 && std::isfinite(coarse), "discretize", "coarse", coarse, "must be finite and >= 0");
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
  if (side == pld_side::pessimistic) return discretize_pessimistic(law, h, offset, lo, hi);
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
        c += g.err_q[i] + g.err_p[i] * std::exp(std::min(700.0, g.loss(g.k0 + static_cast<std::int64_t>(i))));
      return c;
    };
    grid_pmf g = swept_up();
    if (cost(g) < cost(best)) best = std::move(g);
  }
  return best;
}

// ------------------------------------------------------------------ composition
composed_pld compose_grid(const std::vector<const grid_pmf*>& pmfs,
                          const std::vector<std::int64_t>& times, bool use_p, double tail,
                          double tilt_delta, std::int64_t max_points, bool chernoff_beyond_limit) {
  if (pmfs.empty() || pmfs.size() != times.size()) {
    throw std::invalid_argument("compose_grid(pmfs): need one count per term");
  }
  const double h = pmfs[0]->h;
  struct term {
    std::vector<double> x;
    double off;
    std::int64_t k0;
    std::int64_t n;
    std::vector<double> e;
    std::vector<double> a;  // e less its shifts, plus min(h, 1) x the shifts at their upper ends (empty: none)
    double fin, inf, inf_err, l2;
    bool full;  // no mass removed (a full probability measure: fin + inf = 1)
  };
  std::vector<term> ts;
  for (std::size_t i = 0; i < pmfs.size(); ++i) {
    const grid_pmf& g = *pmfs[i];
    if (std::fabs(g.h - h) > 1e-15 * h) throw std::invalid_argument("compose_grid(h): terms must share h");
    term t;
    t.n = times[i];
    if (!use_p) {
      t.x = g.q;
      t.off = g.offset;
      t.k0 = g.k0;
      t.inf = g.q_pos_inf;
      t.inf_err = g.q_pos_inf_err;
    } else {
      t.x.assign(g.p.rbegin(), g.p.rend());
      t.off = -g.offset;
      t.k0 = -(g.k0 + static_cast<std::int64_t>(g.p.size()) - 1);
      t.inf = g.p_neg_inf;
      t.inf_err = g.p_neg_inf_err;
    }
    double s = 0, s2 = 0;
    for (double v : t.x) s += v, s2 += v * v;
    t.fin = s;
    t.full = g.dropped_p == 0 && g.dropped_q == 0 && g.leftover == 0;
    t.l2 = std::sqrt(s2);
    // error bounds in the orientation's measure, plus input rounding
    t.e = use_p ? std::vector<double>(g.err_p.rbegin(), g.err_p.rend()) : g.err_q;
    if (t.e.size() != t.x.size()) t.e.assign(t.x.size(), 0.0);
    for (std::size_t k = 0; k < t.e.size(); ++k) t.e[k] += 8 * kU * std::fabs(t.x[k]);
    t.a = detail::shift_discounted_errors(g, use_p, t.e, h);
    ts.push_back(std::move(t));
  }
  composed_pld r;
  r.h_ = h;
  double off = 0.0;
  std::int64_t base = 0;
  double lmin = 0, lmax = 0;
  for (const auto& t : ts) {
    off += static_cast<double>(t.n) * t.off;
    base += t.n * t.k0;
    lmin += static_cast<double>(t.n) * (t.off + static_cast<double>(t.k0) * h);
    lmax += static_cast<double>(t.n) * (t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(t.x.size()) - 1) * h);
  }
  r.offset_ = off;
  // The positions' rounding: off and the support ends are sums of n_i times
  // the terms' offsets and ends (one rounding per term and product), and
  // off + K h rounds twice more.
  r.loss_err_ = 4 * kU * static_cast<double>(ts.size() + 2) * (std::fabs(lmin) + std::fabs(lmax) + std::fabs(off));
  // Mass at +inf of the product: prod T^n - prod (T - I)^n, T = a term's
  // total mass, written as prod T^n (1 - prod (1 - I/T)^n) so that a small I
  // keeps its relative precision. A full probability measure (every
  // pessimistic pmf; an optimistic one unless its garbling removed mass) has
  // T = 1 exactly: its factor is (1 - I)^n, free of the rounding of the
  // computed fin + I (which, at 1 - u, made f_{1,1e-5}^(x)1e12 read
  // m_inf = 1 - 1.1e-4 against the truth 1 - e^-1e7, and at 1 + u can push
  // m_inf above the truth by n ulps, too much for a lower bound). Only the
  // others use T = min(1, fin + I) as computed.
  {
    double lg = 0.0, lt = 0.0, one = 0.0;
    std::int64_t inf_apps = 0;
    bool all_full = true;
    for (const auto& t : ts) {
      const double nn = static_cast<double>(t.n);
      if (t.inf > 0) inf_apps += t.n, one = t.inf;
      all_full = all_full && t.full;
      if (t.full) {
        if (t.inf > 0) lg += nn * std::log1p(-std::min(1.0, t.inf));
        continue;
      }
      const double tot = std::min(1.0, t.fin + t.inf);
      lt += nn * std::log(tot);
      if (tot > 0 && t.inf > 0) lg += nn * std::log1p(-std::min(1.0, t.inf / tot));
    }
    r.m_inf_ = std::max(0.0, -std::exp(lt) * std::expm1(lg));
    // the folded masses' errors: m_inf moves by at most n_i per unit of I_i
    for (const auto& t : ts) r.m_inf_err_ += static_cast<double>(t.n) * t.inf_err;
    // One application of a full measure with mass at +inf, the others with
    // none: that mass itself, exactly when nothing was folded into it (an
    // f_{1,1e-5} at delta = 1e-5 read epsilon [1, inf] under the margin).
    if (inf_apps == 1 && all_full) {
      r.m_inf_ = one;
      if (r.m_inf_err_ == 0) r.m_inf_rel_ = 0.0;
    }
  }
  // Chernoff data: composed log-MGF (of the finite part) at the tilts
  // t = +-c 2^{j-20}, j = 1..28, and of the error vectors. Any tilt gives a
  // valid bound; the set reaches t = 256 c. c = 1 unless the composed loss's
  // standard deviation S is below 1/4: near-identity compositions (S ~ 1e-5)
  // need tilts ~ z / S to cut their tails at all (with c = 1 the window was
  // the whole support: 10^8 points for laplace:b=1e8,times=1e7).
  double var = 0.0;
  for (const auto& t : ts) {
    double m0 = 0.0, m1 = 0.0, m2 = 0.0;
    for (std::size_t k = 0; k < t.x.size(); ++k) {
      const double v = std::max(0.0, t.x[k]), kk = static_cast<double>(k);
      m0 += v, m1 += v * kk, m2 += v * kk * kk;
    }
    if (m0 > 0) var += static_cast<double>(t.n) * std::max(0.0, m2 / m0 - (m1 / m0) * (m1 / m0)) * h * h;
  }
  const double sd = std::sqrt(var);
  const double c_tilt = sd > 0 && sd < 0.25 ? 0.25 / sd : 1.0;
  std::vector<double> tilts;
  for (int j = -28; j <= 28; ++j)
    if (j != 0) tilts.push_back((j > 0 ? 1.0 : -1.0) * c_tilt * std::pow(2.0, std::abs(j) - 20.0));
  std::vector<std::vector<double>> kms(ts.size()), kes(ts.size()), kas(ts.size());
  bool shifts = false;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    detail::tilted_log_mgfs(ts[i].x, ts[i].off, h, ts[i].k0, tilts, kms[i]);
    detail::tilted_log_mgfs(ts[i].e, ts[i].off, h, ts[i].k0, tilts, kes[i]);
    if (!ts[i].a.empty()) {
      detail::tilted_log_mgfs(ts[i].a, ts[i].off, h, ts[i].k0, tilts, kas[i]);
      shifts = true;
    }
  }
  // mass-error bound at t = 0 (flat) and at each tilt t
  {
    detail::error_bound_acc acc;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      double s0 = 0.0, e0 = 0.0, a0 = 0.0;
      for (double v : ts[i].x) s0 += std::max(0.0, v);
      for (double v : ts[i].e) e0 += v;
      if (ts[i].a.empty()) a0 = e0;
      for (double v : ts[i].a) a0 += v;
      // (a term with no finite mass but some error counts too: its factor is D)
      acc.add(std::log(s0), std::log(e0), std::log(a0), static_cast<double>(ts[i].n));
    }
    r.err0_ = std::exp(acc.log_product());
    if (shifts) r.err0_ = std::min(r.err0_, std::exp(acc.log_shift()));
  }
  for (std::size_t jt = 0; jt < tilts.size(); ++jt) {
    const double t = tilts[jt];
    double k = 0.0;
    detail::error_bound_acc acc;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const double km = kms[i][jt], ke = kes[i][jt];
      k += static_cast<double>(ts[i].n) * km;
      acc.add(km, ke, kas[i].empty() ? ke : kas[i][jt], static_cast<double>(ts[i].n));
    }
    r.cher_t_.push_back(t);
    r.cher_k_.push_back(k);
    double ek = acc.log_product();
    // (the shifts' bound holds for t >= 0 only: it bounds nu{> eps - l} by a Chernoff bound)
    if (shifts && t > 0) ek = std::min(ek, acc.log_shift());
    r.err_k_.push_back(ek);
  }
  // Exponential tilt (see compose_grid in pld_grid.hpp). Tilting is exact
  // algebra: the convolution of x_i e^{theta lambda - c_i} is the
  // convolution of x_i times e^{theta Lambda - sum n_i c_i}, whatever the
  // constants c_i (chosen so that each tilted vector sums to about 1).
  double theta = 0.0, ktot = 0.0, rho_in = 0.0, nterms = 0.0;
  std::vector<double> tilt_t = r.cher_t_, tilt_k = r.cher_k_;  // for the tilted measure's tails
  if (tilt_delta > 0) {
    const double ld = std::log(tilt_delta);
    double best = kInf;
    for (std::size_t i = 0; i < r.cher_t_.size(); ++i) {
      const double t = r.cher_t_[i], k = r.cher_k_[i];
      if (t <= 0 || !std::isfinite(k)) continue;
      const double y = (k - ld) / t;
      if (y < best) best = y, theta = t;
    }
    if (theta > 0) {
      // the composed log-MGF at tilts near theta too (the fixed ones are
      // powers of 2 apart: 2 theta is too far for a useful tilted tail)
      std::vector<double> extra;
      for (int j = 1; j <= 6; ++j) {
        extra.push_back(theta * (1.0 + std::ldexp(1.0, -j)));
        extra.push_back(theta * (1.0 - std::ldexp(1.0, -j)));
      }
      std::vector<double> ke(extra.size(), 0.0), one;
      for (const auto& t : ts) {
        detail::tilted_log_mgfs(t.x, t.off, h, t.k0, extra, one);
        for (std::size_t j = 0; j < extra.size(); ++j) ke[j] += static_cast<double>(t.n) * one[j];
      }
      tilt_t.insert(tilt_t.end(), extra.begin(), extra.end());
      tilt_k.insert(tilt_k.end(), ke.begin(), ke.end());
      for (auto& t : ts) {
        const std::size_t n = t.x.size();
        const double top = t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(n) - 1) * h;
        double acc = 0.0;
        for (std::size_t k = 0; k < n; ++k)
          acc += std::max(0.0, t.x[k]) * std::exp(theta * (t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(k)) * h - top));
        const double la = acc > 0 ? std::log(acc) : 0.0;
        const double c = theta * top + la;
        double s2 = 0.0;
        for (std::size_t k = 0; k < n; ++k) {
          const double lk = t.off + static_cast<double>(t.k0 + static_cast<std::int64_t>(k)) * h;
          t.x[k] *= std::exp(theta * (lk - top) - la);
          s2 += t.x[k] * t.x[k];
        }
        t.l2 = std::sqrt(s2);
        ktot += static_cast<double>(t.n) * c;
        nterms += static_cast<double>(t.n);
        // relative rounding of each tilted mass (its exponent's argument and exp)
        const double lmax_abs = std::max(std::fabs(t.off + static_cast<double>(t.k0) * h), std::fabs(top));
        rho_in = std::max(rho_in, 4 * kU * (theta * (lmax_abs + std::fabs(top)) + std::fabs(la) + 3.0));
      }
    }
  }
  // The tilted measure m_k e^{theta lambda_k - ktot} is what the FFT holds:
  // its mass outside the window wraps around (circular convolution) and is
  // multiplied by the untilt factor where it lands, so the window must hold
  // it too, and what is left outside counts as FFT error (added to fft_l2_
  // with the tilt's rounding below).
  // Chernoff in the tilted measure at t' != theta: its mass above y is at
  // most e^{K(t') - ktot - (t' - theta) y} for t' > theta, below y for t' <
  // theta. (Without this, subsampled-gaussian:sigma=1,q=0.01,times=1000 at
  // delta 1e-8 read epsilon [3.177, 2.699]: tilted mass above the untilted
  // window, wrapped and untilted, made the optimistic delta 50x too large.)
  auto tilted_tail = [&](double y, bool above) {
    double b = 1.0;
    for (std::size_t i = 0; i < tilt_t.size(); ++i) {
      const double t = tilt_t[i], k = tilt_k[i];
      if (!std::isfinite(k) || (above ? !(t > theta) : !(t < theta))) continue;
      b = std::min(b, std::exp(std::min(0.0, k - ktot - (t - theta) * y)));
    }
    return b;
  };
  const double lt = std::log(tail);
  double y_hi = lmax, y_lo = lmin, y_hi_t = lmax, y_lo_t = lmin;
  for (std::size_t i = 0; i < r.cher_t_.size(); ++i) {
    const double t = r.cher_t_[i], k = r.cher_k_[i];
    if (!std::isfinite(k)) continue;
    const double y = (k - lt) / t;
    if (t > 0) y_hi = std::min(y_hi, y);
    else y_lo = std::max(y_lo, y);
  }
  if (theta > 0) {
    for (std::size_t i = 0; i < tilt_t.size(); ++i) {
      const double t = tilt_t[i], k = tilt_k[i];
      if (!std::isfinite(k) || t == theta) continue;
      const double y = (k - ktot - lt) / (t - theta);
      if (t > theta) y_hi_t = std::min(y_hi_t, y);
      else y_lo_t = std::max(y_lo_t, y);
    }
    // (within the grid limit: beyond it the untilted window stays, and the
    // tilted mass outside it is all error; the plain composition's bounds
    // stand beside the tilted one's)
    const double lim = static_cast<double>(max_points > 0 ? std::min(max_points, kMaxGrid) : kMaxGrid);
    const double hi_t = std::max(y_hi, std::min(y_hi_t, lmax)), lo_t = std::min(y_lo, std::max(y_lo_t, lmin));
    if ((hi_t - lo_t) / h + 4.0 <= lim / 1.5) y_hi = hi_t, y_lo = lo_t;  // (good_size rounds up by < 1.5)
  }
  if (std::getenv("FDP_TRACE")) {
    for (std::size_t i = 0; i < r.cher_t_.size(); ++i)
      std::fprintf(stderr, "t=%g K=%g y=%g\n", r.cher_t_[i], r.cher_k_[i], (r.cher_k_[i] - lt) / r.cher_t_[i]);
    std::fprintf(stderr, "y_lo=%g y_hi=%g lmin=%g lmax=%g (tilt %g: y_lo_t=%g y_hi_t=%g)\n", y_lo, y_hi, lmin, lmax, theta, y_lo_t, y_hi_t);
  }
  // Crossed bounds: the finite part's mass above y_hi and below y_lo is at
  // most `tail` each, so with y_hi < y_lo it is at most 2 tail in all (its
  // total is negligible: f_{1,1e-5}^(x)1e8 keeps (1 - 1e-5)^1e8 = e^-1000 of
  // it). Any point between them bounds both sides as well; the window shrinks
  // to one of them inside the support (y_hi <= lmax and y_lo >= lmin, so
  // [max(y_hi, lmin), min(y_lo, lmax)] is not empty); spanning [y_hi, y_lo]
  // instead asked for 1e9 points there.
  if (y_hi < y_lo) y_hi = y_lo = 0.5 * (std::max(y_hi, lmin) + std::min(y_lo, lmax));
  std::int64_t klo = static_cast<std::int64_t>(std::floor((y_lo - off) / h)) - 1;
  std::int64_t khi = static_cast<std::int64_t>(std::ceil((y_hi - off) / h)) + 1;
  klo = std::max(klo, base);
  std::int64_t top = base;
  for (const auto& t : ts) top += t.n * static_cast<std::int64_t>(t.x.size() - 1);
  khi = std::min(khi, top);
  if (khi < klo) khi = klo;
  const std::int64_t W = khi - klo + 1;
  std::int64_t need = W;
  for (const auto& t : ts) need = std::max<std::int64_t>(need, static_cast<std::int64_t>(t.x.size()));
  // (at least 64 points: kissfft's real transform needs an even length > 1)
  const std::int64_t N = good_size(std::max<std::int64_t>(need, 64));
  if ((N > kMaxGrid || (max_points > 0 && N > max_points)) && chernoff_beyond_limit) {
    // No window at all: every finite mass is a Chernoff tail (see the header).
    r.k0_ = klo;
    r.top_index_ = top;
    r.tail_hi_ = 1.0;
    r.finish();
    return r;
  }
  if (N > kMaxGrid || (max_points > 0 && N > max_points)) {
    const std::int64_t lim = max_points > 0 ? std::min(max_points, kMaxGrid) : kMaxGrid;
    throw grid_limit_error("compose: the composed grid needs " + std::to_string(N) +
                               " points, above the limit of " + std::to_string(lim) +
                               "; use a larger tolerance or fewer/larger terms",
                           static_cast<double>(N), static_cast<double>(lim));
  }
  const std::size_t nn = static_cast<std::size_t>(N), nc = nn / 2 + 1;
  // Transform library: see fftw_worth_it (FFTW runs 3-5x faster than
  // kissfft, but its plan costs ~10 ms per length and process).
  const bool use_fftw = fftw_worth_it(N);
  std::vector<double> buf(nn, 0.0);
  std::vector<std::complex<double>> X;
  std::vector<std::complex<double>> Z(nc, std::complex<double>(1.0, 0.0));
  double* in = nullptr;
  fftw_complex* out = nullptr;
  std::shared_ptr<const fft_plans> plans;
  // kissfft keeps its twiddles per length inside the object: one per thread
  // is reused by every composition on that thread.
  thread_local Eigen::FFT<double> kiss;
  thread_local std::vector<std::int64_t> kiss_lengths;
  if (!use_fftw && std::find(kiss_lengths.begin(), kiss_lengths.end(), N) == kiss_lengths.end()) {
    // (bounded memory: at most 16 lengths' twiddles are kept per thread)
    if (kiss_lengths.size() >= 16) kiss.impl().clear(), kiss_lengths.clear();
    kiss_lengths.push_back(N);
  }
  kiss.SetFlag(Eigen::FFT<double>::HalfSpectrum);
  if (use_fftw) {
    in = fftw_alloc_real(nn);
    out = fftw_alloc_complex(nc);
    plans = plans_for(N);
  }
  const double gamma = 10.0 * kU * std::log2(static_cast<double>(N));
  double pow_terms = 0.0;
  // Two bounds on the error of the powered product, the smaller is used:
  // (a) normwise (Higham, Thm 24.2): ||dX||_2 <= gamma ||X||_2, amplified at
  //     most n-fold by the powering (|X| <= 1);
  // (b) per frequency: with an elementwise forward error |dX_j| <= eps_i =
  //     gamma ||x_i||_1 (every output is built over log2 N butterfly stages
  //     from partial sums bounded by ||x||_1),
  //       |prod X^n - prod X~^n| <= prod (|X~| + eps)^n - prod |X~|^n,
  //     tiny except where |X| is near 1 (close to frequency 0).
  std::vector<double> logU(nc, 0.0), logV(nc, 0.0);
  double err_in = 0.0;
  for (const auto& t : ts) {
    double l1 = 0.0;
    for (double v : t.x) l1 += std::fabs(v);
    const double eps_i = gamma * l1;
    err_in += static_cast<double>(t.n) * t.l2;
    // logU >= sum n log(|X| + eps), logV = sum n log |X|: one log per
    // frequency, as log(a + eps) = log a + log1p(eps / a) <= log a + eps / a
    // (a larger U only widens the bound)
    auto acc_bound = [&](std::size_t j, double a) {
      const double nd = static_cast<double>(t.n);
      if (a > 0) {
        const double la = std::log(a);
        logU[j] += nd * (la + eps_i / a);
        logV[j] += nd * la;
      } else {
        logU[j] += nd * std::log(eps_i);
        logV[j] = -kInf;
      }
    };
    if (use_fftw) {
      std::fill(in, in + nn, 0.0);
      std::copy(t.x.begin(), t.x.end(), in);
      fftw_execute_dft_r2c(plans->fwd, in, out);
      // (fftw_complex is laid out as std::complex<double>)
      const auto* xo = reinterpret_cast<const std::complex<double>*>(out);
      for (std::size_t j = 0; j < nc; ++j) acc_bound(j, std::sqrt(std::norm(xo[j])));  // (|X| <= 1; hypot is 3x slower)
      detail::mul_pow_all(Z.data(), xo, nc, t.n);
    } else {
      std::fill(buf.begin(), buf.end(), 0.0);
      std::copy(t.x.begin(), t.x.end(), buf.begin());
      kiss.fwd(X, buf);
      for (std::size_t j = 0; j < nc; ++j) acc_bound(j, std::sqrt(std::norm(X[j])));
      detail::mul_pow_all(Z.data(), X.data(), nc, t.n);
    }
    pow_terms += 2.0 * std::log2(static_cast<double>(t.n) + 1.0) + 4.0;
  }
  const double* res = nullptr;
  double scale = 1.0;
  if (use_fftw) {
    for (std::size_t j = 0; j < nc; ++j) {
      out[j][0] = Z[j].real();
      out[j][1] = Z[j].imag();
    }
    fftw_execute_dft_c2r(plans->bwd, out, in);
    res = in;
    scale = 1.0 / static_cast<double>(N);
  } else {
    kiss.inv(buf, Z, nn);  // kissfft's inverse is already scaled by 1/N
    res = buf.data();
  }
  r.k0_ = klo;
  r.top_index_ = top;
  r.m_.resize(static_cast<std::size_t>(W));
  double z2 = 0.0;
  for (std::int64_t K = klo; K <= khi; ++K) {
    std::int64_t idx = (K - base) % N;
    if (idx < 0) idx += N;
    const double v = res[idx] * scale;
    z2 += v * v;
    r.m_[static_cast<std::size_t>(K - klo)] = v;  // (tilted: untilted below)
  }
  r.tilt_ = theta;
  r.tilt_k_ = ktot;
  if (use_fftw) {
    fftw_free(in);
    fftw_free(out);
  }
  const double zn = std::sqrt(z2);
  double dz2 = 0.0;
  for (std::size_t j = 0; j < nc; ++j) {
    // U - V = V expm1(logU - logV) (or U when V = 0). (Below e^-746 the
    // exponentials are 0: tested first, as glibc's underflow path is slow
    // and most frequencies of a long composition are there.)
    auto exp0 = [](double x) { return x > -746.0 ? std::exp(x) : 0.0; };
    const double v = exp0(logV[j]);
    const double b = (v > 0 ? v * std::expm1(logU[j] - logV[j]) : exp0(logU[j])) + kU * pow_terms * v;
    const double w = (j == 0 || (nn % 2 == 0 && j == nc - 1)) ? 1.0 : 2.0;
    dz2 += w * b * b;
  }
  // inverse transform: linear (1/N scaling) plus its own rounding
  const double normwise = gamma * err_in + kU * pow_terms * zn;
  const double perfreq = std::sqrt(dz2) / std::sqrt(static_cast<double>(N));
  r.fft_l2_ = std::min(normwise, perfreq) + gamma * zn + kU;
  if (theta > 0) {
    // the tilt's own rounding: relative rho_in on every input mass gives at
    // most (1 + rho_in)^n - 1 relative on the (nonnegative) composed masses;
    // the untilt factor's exponent and exp add rho_out
    const double lam = std::max(std::fabs(off + static_cast<double>(klo) * h), std::fabs(off + static_cast<double>(khi) * h));
    const double rho_out = 4 * kU * (std::fabs(ktot) + theta * lam + 3.0);
    r.fft_l2_ += (std::expm1(nterms * std::log1p(rho_in)) + rho_out) * zn;
    // the tilted measure's mass outside the window, aliased into it: an error
    // vector of 1-norm (so 2-norm) at most that mass
    const double ytop_w = off + static_cast<double>(khi) * h, ybot_w = off + static_cast<double>(klo) * h;
    r.fft_l2_ += (khi < top ? tilted_tail(ytop_w, true) : 0.0) + (klo > base ? tilted_tail(ybot_w, false) : 0.0);
    // Untilt. Far below the tilt's quantile the factor e^{ktot - theta
    // lambda} makes the FFT error of a mass exceed 1: those masses are noise,
    // set to 0, and every bound that would sum them is declared vacuous
    // (slack() = inf below tilt_cut_); sums above the cut stay clean.
    r.tilt_cut_ = 0;
    for (std::size_t i = 0; i < r.m_.size(); ++i) {
      const double lw = ktot - theta * (off + static_cast<double>(klo + static_cast<std::int64_t>(i)) * h);
      if (lw > 700.0 || r.fft_l2_ * std::exp(lw) > 1.0) {
        r.m_[i] = 0.0;
        r.tilt_cut_ = i + 1;
      } else {
        r.m_[i] *= std::exp(lw);
      }
    }
  }
  // Window tails (Chernoff): mass strictly above the window top and below its bottom.
  const double ytop = off + static_cast<double>(khi) * h, ybot = off + static_cast<double>(klo) * h;
  r.tail_hi_ = 0.0;
  r.tail_lo_ = 0.0;
  if (khi < top) {
    double b = 1.0;
    for (std::size_t i = 0; i < r.cher_t_.size(); ++i)
      if (r.cher_t_[i] > 0 && std::isfinite(r.cher_k_[i])) b = std::min(b, std::exp(r.cher_k_[i] - r.cher_t_[i] * ytop));
    r.tail_hi_ = b;
  }
  if (klo > base) {
    double b = 1.0;
    for (std::size_t i = 0; i < r.cher_t_.size(); ++i)
      if (r.cher_t_[i] < 0 && std::isfinite(r.cher_k_[i])) b = std::min(b, std::exp(r.cher_k_[i] - r.cher_t_[i] * ybot));
    r.tail_lo_ = b;
  }
  r.finish();
  return r;
}

// ------------------------------------------------------------------ queries
namespace detail {
// a + b for a, b >= 0, rounded up / down: the mass at +inf plus a finite
// part far below its ulp (f_{0.012,1e-6} (x) f_{0.012,0}^80 at delta 1e-6:
// 1e-6 + 1e-22 rounds to 1e-6, and the upper end of epsilon read 0.898
// where the truth is 0.972) must not vanish in an upper bound.
double sum_up(double a, double b) {
  const double s = a + b;
  return b > 0 ? std::nextafter(s, kInf) : s;
}
double sum_down(double a, double b) {
  const double s = a + b;
  return b > 0 && s > 0 ? std::nextafter(s, 0.0) : s;
}
}  // namespace detail

composed_pld composed_pld::from_lattice(double h, double offset, std::int64_t k0,
                                        std::vector<double> m, double m_inf, double m_inf_rel) {
  composed_pld r;
  r.h_ = h;
  r.offset_ = offset;
  r.k0_ = k0;
  r.m_ = std::move(m);
  r.m_inf_ = m_inf;
  r.m_inf_rel_ = m_inf_rel;
  r.top_index_ = k0 + static_cast<std::int64_t>(r.m_.size()) - 1;
  // (offset + k h: the offset's own rounding, the product's and the sum's)
  r.loss_err_ = 4 * kU * (2 * std::fabs(offset) + std::fabs(r.hi()));
  r.finish();
  // Only rounding: each mass is relative 1e-13 off (Loader's saddle point
  // binomial), the suffix sums sm (compensated) and se (e^{-h} recurrence)
  // add 2u and 2u / (1 - e^{-h}), and delta_raw's m_inf + sm - c se (c <= 1)
  // a few u; on the masses above eps, so the error is RELATIVE to them: an
  // absolute 1e-13 of the total made 'epsdelta:eps=0.1,times=100 --delta
  // 1e-14' read [7.15, 10.0] against 7.39076. Twice the relative error of
  // sm + c se <= 2 sm.
  r.lattice_rel_ = 2.0 * (1e-13 + (2.0 / -std::expm1(-h) + 8.0) * kU);
  r.err0_ = r.lattice_rel_ * (r.m_.empty() ? 0.0 : r.sm_[0]);
  return r;
}

void composed_pld::finish() {
  tail_env_.build(cher_t_, cher_k_);
  err_env_.build(cher_t_, err_k_);
  const std::size_t n = m_.size();
  sm_.assign(n + 1, 0.0);
  se_.assign(n + 1, 0.0);
  // se_[j] = sum_{i>=j} m_i e^{-(lambda_i - lambda_j)} (relative to lambda_j: no overflow)
  const double eh = std::exp(-h_);
  double c = 0.0;
  for (std::size_t j = n; j-- > 0;) {
    const double y = m_[j] - c;
    const double t = sm_[j + 1] + y;
    c = (t - sm_[j + 1]) - y;
    sm_[j] = t;
    se_[j] = m_[j] + eh * se_[j + 1];
  }
}

std::size_t composed_pld::first_above(double eps) const {
  // first j with lambda_j > eps
  const double x = (eps - offset_) / h_ - static_cast<double>(k0_);
  if (x < 0) return 0;
  if (x >= static_cast<double>(m_.size())) return m_.size();
  std::size_t j = static_cast<std::size_t>(std::floor(x));
  while (j < m_.size() && offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_ <= eps) ++j;
  return j;
}

double composed_pld::delta_raw(double eps) const { return m_inf_ + fin_raw(eps); }

double composed_pld::fin_raw(double eps) const {
  const std::size_t j = first_above(eps);
  if (j >= m_.size()) return 0.0;
  const double lj = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_;
  return sm_[j] - std::exp(eps - lj) * se_[j];
}

// The lower envelope of the lines k_i - t_i eps (t_i > 0, k_i finite): as eps
// grows, lines of larger t take over. Any line is a valid Chernoff bound, so
// a query that picks a neighbour of the best line at a breakpoint (rounding)
// is still a bound, only by a rounding error less tight.
void composed_pld::line_min::build(const std::vector<double>& ts, const std::vector<double>& ks) {
  t.clear(), k.clear(), x.clear();
  std::vector<std::pair<double, double>> l;
  for (std::size_t i = 0; i < ts.size() && i < ks.size(); ++i)
    if (ts[i] > 0 && std::isfinite(ks[i])) l.emplace_back(ts[i], ks[i]);
  std::sort(l.begin(), l.end());
  auto cross = [](double t1, double k1, double t2, double k2) { return (k2 - k1) / (t2 - t1); };
  for (const auto& [ti, ki] : l) {
    if (!t.empty() && ti == t.back()) {  // same slope: keep the lower line
      if (ki >= k.back()) continue;
      t.pop_back(), k.pop_back();
      if (!x.empty()) x.pop_back();
    }
    while (t.size() >= 2 && cross(t[t.size() - 2], k[k.size() - 2], ti, ki) <= x.back()) {
      t.pop_back(), k.pop_back(), x.pop_back();
    }
    if (!t.empty()) x.push_back(cross(t.back(), k.back(), ti, ki));
    t.push_back(ti);
    k.push_back(ki);
  }
}

double composed_pld::line_min::at(double eps) const {
  if (t.empty()) return kInf;
  // line j is the lowest on [x_{j-1}, x_j)
  const std::size_t j = static_cast<std::size_t>(std::upper_bound(x.begin(), x.end(), eps) - x.begin());
  return k[j] - t[j] * eps;
}

// (min_i e^{a_i} = e^{min_i a_i}: exp is monotone, also in floating point,
// so one exp of the envelope's minimum instead of one per tilt)
double composed_pld::tail_bound_above(double eps) const {
  return std::min(tail_hi_, std::exp(tail_env_.at(eps)));
}

double composed_pld::mass_error_above(double eps) const {
  if (lattice_rel_ > 0) return std::min(err0_, lattice_rel_ * sm_[first_above(eps)]);
  return std::min(err0_, std::exp(err_env_.at(eps)));
}

double composed_pld::slack(std::size_t j) const {
  // sum_{i >= j} |FFT error of m_i| <= fft_l2 * sqrt(sum_{i >= j} w_i^2)
  // (Cauchy-Schwarz), w_i = 1 untilted, e^{tilt_k - tilt lambda_i} tilted
  const double cnt = static_cast<double>(m_.size() - std::min(j, m_.size()));
  if (tilt_ == 0 || cnt == 0) return fft_l2_ * std::sqrt(cnt);
  if (j < tilt_cut_) return kInf;
  const double lj = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_;
  const double lw = tilt_k_ - tilt_ * lj;
  if (lw > 700.0) return kInf;
  // sum_{i=0}^{cnt-1} e^{-2 tilt h i} = expm1(-2 tilt h cnt) / expm1(-2 tilt h)
  const double g = std::expm1(-2.0 * tilt_ * h_ * cnt) / std::expm1(-2.0 * tilt_ * h_);
  return fft_l2_ * std::exp(lw) * std::sqrt(g);
}

// The loss positions lambda_k = offset + k h are computed: each is within
// loss_err_ of the exact sum of the terms' grid losses it stands for, and
// delta's integrand (1 - e^{eps - lambda})_+ grows with lambda, so the
// bounds are taken at eps moved by loss_err_ the safe way (near the top of a
// lattice, where delta ~ m_top (1 - e^{eps - lambda_top}), an absolute 1e-12
// on lambda_top was 2e-9 of delta: 'epsdelta:eps=2.3062081603902174,
// times=2646 --eps 6102.2266980102904' read a lower end above the truth).
double composed_pld::delta_upper(double eps_in) const {
  const double eps = eps_in - loss_err_;
  // Beyond the composed support only the mass at +inf remains (with its
  // rounding margins; a tolerance for ties at the top).
  const double top = offset_ + static_cast<double>(top_index_) * h_;
  if (eps >= top + 1e-9 * std::max(1.0, std::fabs(top))) return std::min(1.0, m_inf_upper());
  const std::size_t j = first_above(eps);
  double fin = std::max(0.0, fin_raw(eps)) + slack(j) + tail_bound_above(eps) + mass_error_above(eps);
  if (j == 0) fin += tail_lo_;
  // Below the top of the support some mass lies above eps, so the truth is
  // positive however far below the double range: an upper end of 0 would
  // exclude it ('epsdelta:eps=0.0038144,times=17743 --eps 66.14627328' read
  // [0, 0]; the truth is 10^-4854.6)
  fin = std::max(fin, std::numeric_limits<double>::denorm_min());
  return std::min(1.0, detail::sum_up(m_inf_upper(), fin));
}

double composed_pld::delta_lower(double eps_in) const {
  const double eps = eps_in + loss_err_;
  const std::size_t j = first_above(eps);
  const double fin = fin_raw(eps) - slack(j) - tail_lo_ - tail_hi_ - mass_error_above(eps);
  return std::min(1.0, detail::sum_down(m_inf_lower(), std::max(0.0, fin)));  // (a delta is at most 1)
}

// The polygon of the computed (raw) masses: the test rejecting losses >= lambda_j
// has type I error PA_j = sum_{k>=j} m_k e^{-lambda_k} and type II error
// 1 - m_inf - sum_{k>=j} m_k; f_raw(a) = sup_eps (1 - delta_raw(eps) - e^eps a)
// is this polygon (convex duality), found by binary search on PA.
double composed_pld::beta_raw(double a) const {
  const std::size_t n = m_.size();
  // PA is non-increasing in j; find the last j with PA_j >= a.
  auto pa = [&](std::size_t j) {
    if (j >= n) return 0.0;
    const double lj = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_;
    return std::max(0.0, se_[j]) * std::exp(std::min(700.0, -lj));
  };
  auto qa = [&](std::size_t j) { return j >= n ? 0.0 : sm_[j]; };
  if (a >= pa(0)) return std::max(0.0, 1.0 - m_inf_ - qa(0));  // all finite losses rejected
  std::size_t lo = 0, hi = n;                                   // pa(lo) > a >= pa(hi)
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (pa(mid) > a) lo = mid;
    else hi = mid;
  }
  const double a0 = pa(hi), a1 = pa(lo);  // a0 <= a < a1
  const double b0 = 1.0 - m_inf_ - qa(hi), b1 = 1.0 - m_inf_ - qa(lo);
  const double t = a1 > a0 ? (a - a0) / (a1 - a0) : 0.0;
  return b0 + t * (b1 - b0);
}

double composed_pld::tangent_loss(double a) const {
  const std::size_t n = m_.size();
  auto pa = [&](std::size_t j) {
    if (j >= n) return 0.0;
    const double lj = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_;
    return std::max(0.0, se_[j]) * std::exp(std::min(700.0, -lj));
  };
  std::size_t lo = 0, hi = n;
  if (a >= pa(0)) return lo_loss();
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (pa(mid) > a) lo = mid;
    else hi = mid;
  }
  return offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(lo)) * h_;
}

double composed_pld::max_slack() const {
  return slack(0) + tail_lo_ + tail_hi_ + err0_;
}

// (beta_raw / tangent_loss above are used only to pick candidate eps values
// where any choice is valid: P-masses derived from Q-masses near the bottom
// of the window can sit below the FFT noise floor, so a binary search on them
// may land on the wrong vertex. The bounds below scan every grid point.)
double composed_pld::beta_from_upper_delta(double a) const {
  // Any eps gives 1 - delta(eps) - e^eps a <= f(a): take the best grid point.
  double best = 0.0;
  for (std::size_t j = 0; j < m_.size(); ++j) {
    const double eps = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j)) * h_;
    const double v = 1.0 - delta_upper(eps) - (a > 0 ? std::exp(eps + std::log(a)) : 0.0);
    best = std::max(best, v);
  }
  return std::min(best, 1.0 - a);
}

void composed_pld::upper_lines(std::vector<double>& eps_out, std::vector<double>& c_out) const {
  // On each interval between grid losses, delta_lower is (before clipping at
  // 0) an affine function of e^eps with constant slack, so 1 - delta - e^eps a
  // peaks at an end point; clipping only lowers delta_lower's negative part,
  // which the cap at 1 - a covers. delta_lower(eps) >= m_inf + fin(eps) with
  // fin affine in e^eps on each interval once the (eps-decreasing)
  // mass-error term is frozen at its value at the interval's left end
  // (dropping the clip at 0 only raises the bound).
  const std::size_t n = m_.size();
  for (std::size_t j = 0; j <= n; ++j) {
    const double eleft = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(j) - 1) * h_;
    const double sl = slack(j) + tail_lo_ + tail_hi_ + (j == 0 ? err0_ : mass_error_above(eleft));
    const double base0 = (j < n ? sm_[j] : 0.0) - sl;
    // interval (lambda_{j-1}, lambda_j]: delta_raw = m_inf + sm_j - e^{eps - lambda_j} se_j
    for (int side = 0; side < 2; ++side) {
      const std::int64_t kk = k0_ + static_cast<std::int64_t>(j) - (side == 0 ? 1 : 0);
      double eps = offset_ + static_cast<double>(kk) * h_;
      if (j == 0 && side == 0) eps = -745.0;  // the open end: e^eps a -> 0
      if (j == n && side == 1) continue;
      const double lj = offset_ + static_cast<double>(k0_ + static_cast<std::int64_t>(std::min(j, n - 1))) * h_;
      // (delta_lower's eps + loss_err_; the line keeps its slope e^eps)
      const double fin = (j < n) ? base0 - std::exp(eps + loss_err_ - lj) * se_[j] : base0;
      eps_out.push_back(eps);
      c_out.push_back(1.0 - (m_inf_lower() + fin));
    }
  }
}

double composed_pld::beta_from_lower_delta(double a) const {
  std::vector<double> eps, c;
  upper_lines(eps, c);
  double best = -kInf;
  for (std::size_t k = 0; k < eps.size(); ++k)
    best = std::max(best, c[k] - (a > 0 ? std::exp(eps[k] + std::log(a)) : 0.0));
  return std::clamp(best, 0.0, 1.0 - a);
}

// ------------------------------------------------------------------ shared helpers
namespace detail {

void mul_pow_all(std::complex<double>* Z, const std::complex<double>* X, std::size_t m, std::int64_t n) {
  // split into real and imaginary parts (structure of arrays), per block
  constexpr std::size_t kBlock = 1024;
  double zr[kBlock], zi[kBlock], rr[kBlock], ri[kBlock];
  for (std::size_t b0 = 0; b0 < m; b0 += kBlock) {
    const std::size_t len = std::min(kBlock, m - b0);
    for (std::size_t j = 0; j < len; ++j) {
      zr[j] = X[b0 + j].real();
      zi[j] = X[b0 + j].imag();
      rr[j] = 1.0;
      ri[j] = 0.0;
    }
    for (std::int64_t k = n; k > 0;) {
      if (k & 1) {
        for (std::size_t j = 0; j < len; ++j) {
          const double a = rr[j] * zr[j] - ri[j] * zi[j];
          const double c = rr[j] * zi[j] + ri[j] * zr[j];
          rr[j] = a;
          ri[j] = c;
        }
      }
      k >>= 1;
      if (k) {
        for (std::size_t j = 0; j < len; ++j) {
          const double a = zr[j] * zr[j] - zi[j] * zi[j];
          const double c = zr[j] * zi[j] + zi[j] * zr[j];
          zr[j] = a;
          zi[j] = c;
        }
      }
    }
    for (std::size_t j = 0; j < len; ++j) {
      const double zre = Z[b0 + j].real(), zim = Z[b0 + j].imag();
      Z[b0 + j] = std::complex<double>(zre * rr[j] - zim * ri[j], zre * ri[j] + zim * rr[j]);
    }
  }
}

void tilted_log_mgfs(const std::vector<double>& v, double off, double h, std::int64_t k0,
                     const std::vector<double>& ts, std::vector<double>& out) {
  out.assign(ts.size(), -kInf);
  const std::size_t n = v.size();
  if (n == 0) return;
  // One pass per sign over v for all tilts of that sign: the tilts' Horner
  // chains are independent, so the inner loop over them vectorizes (one
  // chain at a time is bound by the latency of its multiply-add). Each
  // chain does exactly the arithmetic of a pass of its own.
  constexpr std::size_t kBlock = 32;
  for (int sign : {1, -1}) {
    std::size_t idx[kBlock];
    double sc[kBlock], acc[kBlock];
    std::size_t m = 0;
    auto flush = [&] {
      if (m == 0) return;
      for (std::size_t j = 0; j < m; ++j) acc[j] = 0.0;
      if (sign > 0) {
        for (std::size_t i = 0; i < n; ++i) {
          const double x = std::max(0.0, v[i]);
          for (std::size_t j = 0; j < m; ++j) acc[j] = acc[j] * sc[j] + x;
        }
      } else {
        for (std::size_t i = n; i-- > 0;) {
          const double x = std::max(0.0, v[i]);
          for (std::size_t j = 0; j < m; ++j) acc[j] = acc[j] * sc[j] + x;
        }
      }
      const double top = off + static_cast<double>(k0 + static_cast<std::int64_t>(n) - 1) * h;
      const double bot = off + static_cast<double>(k0) * h;
      for (std::size_t j = 0; j < m; ++j) {
        const double t = ts[idx[j]];
        out[idx[j]] = acc[j] > 0 ? t * (sign > 0 ? top : bot) + std::log(acc[j]) + 1e-9 : -kInf;
      }
      m = 0;
    };
    for (std::size_t j = 0; j < ts.size(); ++j) {
      if ((ts[j] > 0) != (sign > 0)) continue;
      idx[m] = j;
      sc[m] = std::exp(-std::fabs(ts[j]) * h);
      if (++m == kBlock) flush();
    }
    flush();
  }
}

namespace {
// log(1 + e^x) without overflow
double log1p_exp(double x) { return x > 30.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
// For a term with masses M = e^lm and errors D = e^le: r = log(1 + D/M), kept
// apart from log(M + D) = lm + r (which rounds at the scale of lm: r ~ 1e-16
// would vanish in lm + r - lm).
struct mass_err_logs {
  double r, lmd;
};
mass_err_logs logs_of(double lm, double le) {
  if (le == -kInf) return {0.0, lm};
  if (lm == -kInf) return {kInf, le};
  const double r = log1p_exp(le - lm);
  return {r, lm + r};
}
}  // namespace

error_bound_acc::error_bound_acc() : ls(-kInf) {}

void error_bound_acc::add(double lm, double le, double la, double n) {
  const mass_err_logs g = logs_of(lm, le);
  // log(((M + D)^n - M^n) / D) = n log(M + D) - log D + log(1 - (M / (M + D))^n),
  // and log(n M^{n-1}) where D = 0
  double lf;
  if (le == -kInf) {
    lf = n == 1.0 ? 0.0 : std::log(n) + (n - 1.0) * lm;
  } else {
    lf = n * g.lmd - le + std::log(-std::expm1(-n * g.r));
  }
  // the terms so far: times M^n (an empty sum stays empty)
  if (ls != -kInf) ls += n * lm;
  if (la != -kInf) {
    const double v = lmd + lf + la;
    if (ls == -kInf || v > ls) ls = v + (ls == -kInf ? 0.0 : log1p_exp(ls - v));
    else if (v != -kInf) ls = ls + log1p_exp(v - ls);
  }
  lmd += n * g.lmd;
  r += n * g.r;
}

// prod (M + D)^n (1 - prod (M / (M + D))^n): no cancellation for small D
double error_bound_acc::log_product() const { return lmd + std::log(-std::expm1(-r)); }

std::vector<double> shift_discounted_errors(const grid_pmf& g, bool use_p, const std::vector<double>& e, double h) {
  // Shifts (grid_pmf::shift_p / shift_q) in this orientation's index: the
  // move between atoms k - 1 and k sits at k, its upper end (reflecting
  // maps the move between original atoms i - 1 and i to n - i - 1, n - i).
  const std::vector<double>& sh = use_p ? g.shift_p : g.shift_q;
  const std::size_t n = e.size();
  bool any_shift = false;
  for (double v : sh) any_shift = any_shift || v > 0;
  if (!any_shift || sh.size() != n) return {};
  std::vector<double> up(n + 1, 0.0);
  for (std::size_t i = 1; i < n; ++i) up[use_p ? n - i : i] = sh[i];
  const double hc = std::min(h, 1.0);
  std::vector<double> a(n);
  for (std::size_t k = 0; k < n; ++k) {
    // (the subtraction's rounding is covered by 4 kU of e)
    const double mono = std::max(0.0, e[k] - up[k] - up[k + 1]) + 4 * kU * e[k];
    a[k] = mono + hc * up[k];
  }
  return a;
}

double loss_cut(const loss_law& law, double tau, bool upper, int bisections) {
  const double edge = upper ? law.hi() : law.lo();
  const double s = std::max(law.scale(), 1e-300);
  double in = upper ? std::max(0.0, law.lo()) : std::min(0.0, law.hi());
  if (!std::isfinite(in)) in = 0.0;
  // A finite end is the cut, unless it lies more than 10^4 scales away
  // (Poisson subsampling of a near-identity mechanism: log(1 - q) = -2.3
  // with a loss spread of 1e-8 would need 10^9 grid points); then the cut
  // is searched as for an infinite tail, and stops at the end.
  if (std::isfinite(edge) && !(std::fabs(edge - in) > 1e4 * s)) return edge;
  auto tail = [&](double l) {
    const mass2 m = upper ? law.mass(l, kInf) : law.mass(-kInf, l);
    return std::max(m.p, m.q);
  };
  auto clamp_end = [&](double l) { return std::isfinite(edge) ? (upper ? std::min(l, edge) : std::max(l, edge)) : l; };
  double step = s;
  double out = clamp_end(in + (upper ? step : -step));
  while (tail(out) > tau && out != edge) {
    in = out;
    step *= 2;
    out = clamp_end(in + (upper ? step : -step));
    if (step > 1e8) break;
  }
  for (int i = 0; i < bisections; ++i) {
    const double mid = 0.5 * (in + out);
    if (tail(mid) > tau) in = mid;
    else out = mid;
  }
  return out;
}

}  // namespace detail

}  // namespace fdp
