// Incremental certified composition for a ledger: mechanisms arrive one at a
// time and every query must be fast, so nothing is recomposed from scratch.
//
// Method. Every distinct law ("group") is discretized ONCE on a fixed grid
// l_k = offset + k h with the engine's two certified discretizations
// (lib/src/ops/pld/: pessimistic connect-the-dots and optimistic garbling,
// each with per-atom error bounds), and its discrete Fourier transform of size N is
// cached. The ledger keeps, for each of four channels (pessimistic /
// optimistic x orientation T(P,Q) / T(Q,P)), the running product
//   Z = prod_g S_g^{n_g}
// of the groups' transforms: one more application of group g is one
// pointwise multiplication (O(N)), a block of n applications a complex power
// by squaring. A query inverts Z once per channel (O(N log N)) and reads
// delta(eps) from suffix sums. Everything else the certificate needs is a sum
// over groups weighted by n_g, kept incrementally: the composed offset and
// support, the masses at +inf, Chernoff log-MGFs at fixed tilts, the tilted
// sums of the discretization error bounds, and the FFT error budget.
//
// Certificate (the engine's own: the running sums below feed the same
// composed_pld that compose() reads its bounds from; what is particular to
// a product built by repeated multiplication is its FFT error budget):
//  * window: the composed loss is read on [klo, khi] chosen by Chernoff
//    bounds at tail 1e-16; mass outside it is bounded (and aliased mass
//    inside it too) by the same bounds;
//  * rounding: with S_g the exact and S^_g the computed transforms,
//    |S_g| <= 1 and |S^_g - S_g|_2 <= gamma sqrt(N) |x_g|_2 (gamma = 10 u log2 N,
//    Higham, Accuracy and Stability of Numerical Algorithms, Thm 24.2, with a
//    safety factor), a product of factors of modulus <= 1 moves by at most the
//    sum of the factors' moves, and each multiplication adds a relative 3u:
//      |z^ - z|_2 <= gamma (sum_g n_g |x_g|_2 + |z^|_2) + 3 u M |z^|_2 + u,
//    M = sum_g (n_g + 1) (a rounding error made early in a power by squaring
//    is raised to the later powers, so z^n costs n multiplications' worth,
//    not log n); a sum of c entries moves by at most sqrt(c) times that;
//  * discretization: each atom's error bound, propagated through the
//    composition by tilted sums exactly as composed_pld does.
// The pessimistic channels give certified upper bounds on delta(eps) (hence
// on epsilon(delta)), the optimistic ones certified lower bounds. The result
// is the guarantee of the composition in ONE orientation for all terms with
// both orders reported (min{F, F^{-1}}**), as compose.hpp.
//
// Grid. h is fixed at construction; the FFT size N grows (a re-plan that
// recomputes the cached transforms) when the Chernoff window outgrows it.
// Not thread-safe (queries fill caches): one engine per thread. A copy shares
// its groups' cached transforms with the original (copy-on-write channels, not
// caches), so an engine and its copies (accountant copies too) belong to one
// thread at a time; build an engine afresh for another thread. FFTW plans are
// made under the library's single planner mutex (shared with compose()), so
// separate engines and compose() may run in different threads.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fdp/ops/compose.hpp"
#include "fdp/ops/loss_law.hpp"

namespace fdp {

class composed_pld;  // the certificate of one composed orientation (internal: ops/pld/)

namespace detail {
struct ipld_group;
}

class incremental_pld {
 public:
  /// h: grid step (> 0); window: the loss range the composition is expected
  /// to span (sizes the first FFT; it grows on demand); cut: each law is
  /// discretized where its tails beyond the cut points hold at most `cut` of
  /// either measure (that mass is kept soundly, at the grid's ends and the
  /// infinite atoms, so n applications move delta by at most about n * cut:
  /// choose it far below the deltas that will be asked; in (0, 1e-9]).
  incremental_pld(double h, double window = 8.0, double cut = 1e-22);

  /// Optional: for grid step h, a GARBLING of the law (a pair whose
  /// trade-off function is >= the law's, e.g. a Laplace law with a smaller mu)
  /// whose atoms sit on the grid. The optimistic channels then discretize it
  /// instead of the law: still a certified lower bound, and one that converges
  /// as h -> 0 where the garbling of an off-grid atom would not (a two-atom
  /// law whose atoms are not h apart loses O(1) in its optimistic garbling).
  using garbler = std::function<std::shared_ptr<const loss_law>(double h)>;

  /// n more applications of `law`. Laws with equal keys must be equal; the
  /// first call with a key discretizes the law (the expensive step).
  void add(const std::string& key, const std::shared_ptr<const loss_law>& law, std::int64_t n = 1,
           const garbler& garble = nullptr);

  /// Many groups at once (e.g. replaying a saved ledger): one re-plan at the end.
  struct batch_item {
    std::string key;
    std::shared_ptr<const loss_law> law;
    std::int64_t n;
    garbler garble = nullptr;
  };
  void add_batch(const std::vector<batch_item>& items);

  /// Discretizes `law` (the expensive step of a first add with this key)
  /// without recording an application; a later add(key, ...) is then cheap.
  void prepare(const std::string& key, const std::shared_ptr<const loss_law>& law,
               const garbler& garble = nullptr);
  bool prepared(const std::string& key) const;
  /// Tracks both orders T(P,Q) and T(Q,P) from now on (done automatically at
  /// the first asymmetric law, with a rebuild of the products; cheap while empty).
  void use_both_orders();
  bool both_orders() const { return reverse_; }
  /// The loss range (in loss units) the current composition's window and the
  /// groups' supports need; the FFT covers fft_size() * h().
  double needed_window() const;

  /// Certified delta(eps) bracket (max over both orders).
  interval delta(double eps) const;
  /// Certified epsilon bracket at delta (+inf when delta cannot be reached).
  interval epsilon(double delta) const;

  double h() const { return h_; }
  std::int64_t fft_size() const { return N_; }
  std::size_t groups() const { return groups_.size(); }
  std::int64_t applications() const { return applications_; }
  int replans() const { return replans_; }

 private:
  struct channel;
  struct view;
  void replan(std::int64_t N, bool keep = true);
  std::size_t register_group(const std::string& key, const std::shared_ptr<const loss_law>& law,
                             const garbler& garble, bool& fresh);
  std::size_t insert_group(std::shared_ptr<detail::ipld_group> g);
  void count(std::size_t gi, std::int64_t n);
  void incorporate(std::size_t gi, std::int64_t n, bool fresh_power, bool keep = true);
  void enable_reverse();
  const composed_pld& get_view(int c) const;
  double delta_up(double eps) const;
  double delta_lo(double eps) const;
  std::int64_t needed_size() const;

  double h_;
  double cut_ = 1e-22;
  std::int64_t N_ = 0;
  bool reverse_ = false;  // T(Q,P) channels active (an asymmetric law was added)
  std::vector<std::shared_ptr<detail::ipld_group>> groups_;
  std::map<std::string, std::size_t> index_;
  std::vector<std::int64_t> counts_;
  std::vector<std::shared_ptr<channel>> ch_;  // 4 channels; copied on write
  std::int64_t applications_ = 0;
  int replans_ = 0;
  // Query caches: never shared between copies (a copy starts empty), and
  // keyed by a process-wide version number that every mutation renews.
  struct view_cache {
    std::vector<std::shared_ptr<view>> v;
    view_cache() = default;
    view_cache(const view_cache&) {}
    view_cache(view_cache&&) noexcept = default;
    view_cache& operator=(const view_cache&) {
      v.clear();
      return *this;
    }
    view_cache& operator=(view_cache&&) noexcept = default;
  };
  mutable view_cache views_;
  std::uint64_t version_ = 0;
  void touch();
};

}  // namespace fdp
