// Composition (tensor product) of guarantees, with certified brackets.
//
// compose(specs) returns a `composition`: either an exact closed form
// (G_mu (x) G_nu = G_sqrt(mu^2+nu^2); k-fold f_{eps,delta} as an exact
// binomial polygon, Kairouz-Oh-Viswanath) or the numeric PLD engine
// (lib/src/ops/pld/; docs/architecture.md). Every answer is an interval
// [lower, upper] that contains the true value; a closed form's is as wide
// as its rounding (closed_form_bounds.hpp).
//
// Neighbour relation. Symmetric terms give a symmetric composition. For
// asymmetric terms (Poisson subsampling under add/remove neighbours) every
// term is composed in the same orientation (the dataset with the extra record
// is Q in every step — the neighbouring pair is fixed for the whole run), and
// the reported guarantee is min{F, F^{-1}}** for the composed F: both orders
// of the pair are covered, delta(eps) = max(delta_F, delta_{F^{-1}}).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fdp/core/interval.hpp"
#include "fdp/core/tradeoff.hpp"
#include "fdp/ops/loss_law.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {

enum class compose_method { automatic, exact, pld };

struct compose_options {
  compose_method method = compose_method::automatic;
  /// Target relative width of the epsilon bracket at delta_hint (the grid is
  /// refined until it is met or max_refinements is reached).
  double tolerance = 3e-3;
  /// delta at which the grid is tuned to meet the tolerance, in [0, 1)
  /// (0: the default 1e-5; an epsilon at delta = 0 depends on the loss
  /// support, not on the grid).
  double delta_hint = 1e-5;
  /// Epsilons at which delta(eps) is asked for: refinement also continues
  /// until each such delta bracket is within the tolerance relative to its
  /// upper end (delta brackets are steeper than epsilon ones: at delta ~
  /// 1e-7 one 0.1% wide in epsilon is 3% wide in delta). Tune delta_hint
  /// to the smallest of those deltas (compose_for_queries does both).
  std::vector<double> delta_at_eps;
  /// Mass allowed outside the FFT window (bounded and accounted for);
  /// 0 chooses min(1e-16, 1e-3 * tolerance * delta_hint) (staged
  /// composition's first stage: 1e-3 * tolerance * delta_hint / outer_times).
  double tail = 0.0;
  int max_refinements = 6;
  /// Automatic refinement stops before a grid larger than this.
  std::size_t max_auto_grid = std::size_t(1) << 22;
  /// A term repeated at least this often is composed in two stages (its
  /// ~sqrt(n)-fold first, then that result ~sqrt(n)-fold): the cost of a
  /// 10^6-fold composition stays near that of a 10^3-fold one. 0 disables.
  std::int64_t stage_min = std::int64_t(1) << 17;
  /// > 0: a hard limit on grid points (per-term discretizations and the
  /// composed window); beyond it compose throws evaluation_error. 0: the
  /// library's memory limit only. (Staged composition bounds its first stage
  /// with it.)
  std::size_t max_grid = 0;
  /// > 0: the first grid's step (0: chosen from the terms' loss spread).
  /// Staged composition sets it for its first stage.
  double initial_step = 0.0;
  /// The result will itself be composed this many times (>= 1; staged
  /// composition sets it for its first stage): accuracy budgets that are
  /// shared among the terms are shared among outer_times as many.
  std::int64_t outer_times = 1;
  /// > 0: also compose with an exponential tilt at this delta's Chernoff
  /// tilt (a staged composition's first stage takes the tilt its second
  /// stage will use, so that the k-fold is accurate where the n-fold's
  /// answer is decided). 0: tilt at delta_hint when it is small.
  double tilt_delta = 0.0;
  /// 1: compute on the calling thread only; otherwise the pessimistic and
  /// optimistic sides of large grids are computed on two threads.
  int threads = 0;
  /// Memory ceiling of one composition, in bytes (0: only the engine's hard
  /// limit of 2^26 grid points). A first grid that would pass it is made
  /// coarser until it fits (as certified, only wider); refinement stops
  /// before a grid that would pass it, keeping the best bracket so far
  /// (composition::grid_limited() tells).
  std::size_t max_memory = kDefaultMaxMemory;
  static constexpr std::size_t kDefaultMaxMemory = std::size_t(2) << 30;  ///< 2 GiB
  /// When set, receives one line per grid pass (step, points, bracket at
  /// delta_hint), per side (wall and CPU time) and per composed window: a
  /// diagnostic of the refinement, never part of an answer. (fdp sets it
  /// under FDP_TRACE_REFINE=1.)
  std::function<void(const std::string&)> trace;
};

/// One term of a composition: a law (numeric face), optionally its closed
/// form, and a repetition count.
struct compose_term {
  std::shared_ptr<const loss_law> law;
  /// The law the optimistic side discretizes, when it differs from `law`
  /// (a staged composition: `law` lies below the term's trade-off function,
  /// law_opt above it). Empty: `law` for both sides.
  std::shared_ptr<const loss_law> law_opt;
  std::optional<tradeoff> closed;
  std::int64_t times = 1;
  std::string text;
  /// A mu with f >= G_mu for one application (inf: none known). Set by
  /// make_term (a subsampled Gaussian is above G_{sensitivity/sigma}; a
  /// closed form's own GDP summary); the composition's mu is then at most
  /// sqrt(sum times mu^2), since G_a (x) G_b = G_sqrt(a^2 + b^2).
  double gdp_cap = std::numeric_limits<double>::infinity();
  /// The relative rounding of the closed form's parameter as computed from
  /// the spec (a Gaussian's mu = sensitivity / sigma: half an ulp unless the
  /// division is exact; a given mu: 0).
  double closed_rel = 0.0;
  /// A certified lower bound on delta(eps) of this term composed n times on
  /// its own, from a statistic of its outputs (fdp/ops/max_statistic.hpp for
  /// the Poisson-subsampled Gaussian), or empty. A composition of this one
  /// term takes the larger of it and the grids' lower end where it helps at
  /// the tuning delta (compose_terms).
  std::function<double(double eps, std::int64_t n)> delta_floor;
};

/// Builds the term of a spec (validating its parameters).
compose_term make_term(const spec& s);

namespace detail {
struct compose_access;     // the engine's access to a composition's grids (compose.cpp)
struct composition_grids;  // the composed grids behind a numeric result (internal)
struct closed_form;        // a closed form with its rounding (closed_form_bounds.hpp)
}  // namespace detail

class composition {
 public:
  /// "exact" or "pld".
  std::string method() const { return exact_ ? "exact" : "pld"; }
  bool is_exact() const { return exact_.has_value(); }
  const std::optional<tradeoff>& exact() const { return exact_; }
  /// The relative rounding of the exact result's parameter (a composed mu,
  /// a total delta, a polygon's vertices: see closed_form_bounds.hpp); 0
  /// when it is the user's own double. Group privacy brackets from it.
  double exact_rel() const { return exact_rel_; }
  bool symmetric() const;

  /// delta(eps) for any real eps, bracketed.
  interval delta(double eps) const;
  /// The smallest eps >= 0 with delta(eps) <= delta, bracketed; +inf if none.
  interval epsilon(double delta) const;
  /// f(alpha), bracketed.
  interval beta(double alpha) const;
  /// f at every alpha, the same brackets as beta(alpha) one at a time;
  /// several times faster for increasing alphas (a sweep, not a search each).
  std::vector<interval> beta(const std::vector<double>& alphas) const;
  /// The same into caller-owned arrays (n alphas; lower[i], upper[i] the
  /// bracket of f(alphas[i])): for bindings that answer into their own
  /// buffers. Throws std::invalid_argument (nothing written) for an alpha
  /// outside [0, 1].
  void beta(const double* alphas, std::size_t n, double* lower, double* upper) const;
  /// The GDP summary: the smallest mu with f >= G_mu, bracketed (upper may
  /// be +inf when no finite mu exists).
  interval mu() const;
  /// sqrt(sum times gdp_cap^2) over the terms (compose_terms sets it).
  double gdp_cap() const { return gdp_cap_; }

  /// A trade-off polygon at or below the true f: the upper envelope of the
  /// lines 1 - delta_upper(eps) - e^eps a over the grid's eps values (each
  /// line is a valid lower bound on f). Exact polygon for closed forms that
  /// are polygons; for G_mu / Laplace a tangent polygon with `points` slopes.
  curve lower_curve(int points = 400) const;
  /// A trade-off polygon at or above the true f: the convex hull of upper
  /// bounds at `points` alphas (chords of a convex f lie above it).
  curve upper_curve(int points = 400) const;

  /// The forward orientation T(P, Q) alone (no symmetrization with the
  /// inverse): a polygon at or below it (tangent lines at the pessimistic
  /// grid's eps values) and one at or above it (the optimistic grid's
  /// profile). Used by staged composition; throws evaluation_error if the
  /// upper polygon cannot be represented (losses beyond 700). With
  /// stride > 1 the lower polygon takes the tangent lines of every
  /// stride-th grid eps only (and the last): still at or below the truth,
  /// lower by O((stride h)^2), stride times cheaper.
  curve forward_lower_curve(std::size_t stride = 1) const;
  curve forward_upper_curve() const;

  double grid_step() const { return h_; }
  std::size_t grid_size() const;
  int refinements() const { return refinements_; }
  /// How the memory ceiling (compose_options::max_memory) shaped the grid.
  enum class grid_limit {
    none,
    refinement_stopped,  ///< a finer grid would have passed it: the bracket is the best so far
    coarsened,           ///< even the first grid would have: a coarser one was used
    chernoff_only,  ///< no composed window fits: upper ends are Chernoff bounds, lower ends trivial
  };
  grid_limit grid_limited() const { return grid_limit_; }
  /// grid_limited() as a name: "none", "refinement_stopped", "coarsened" or
  /// "chernoff_only" (the CLI's JSON and the Python package print it).
  const char* grid_limit_name() const;

 private:
  friend composition compose_terms(const std::vector<compose_term>&, const compose_options&);
  friend struct detail::compose_access;
  double delta_up(double eps) const;
  double delta_lo(double eps) const;
  // beta(alpha) of a numeric composition: the envelopes of the grids' lines,
  // built on the first query and shared by copies (compose.cpp).
  struct beta_envelopes;
  const beta_envelopes& envelopes() const;
  std::shared_ptr<beta_envelopes> envelopes_;
  std::optional<tradeoff> exact_;
  double exact_rel_ = 0.0;  // the closed form's parameter rounding (closed_form_bounds.hpp)
  detail::closed_form exact_form() const;
  // The engine's composed grids (and an exact result's lattice law), shared
  // by copies: immutable once compose returns. Kept opaque so that this
  // header does not pull in the engine (ops/pld/pld_grid.hpp, internal).
  std::shared_ptr<detail::composition_grids> grids_;
  const detail::composition_grids& grids() const;
  detail::composition_grids& grids_for_build();
  double h_ = 0.0;
  int refinements_ = 0;
  grid_limit grid_limit_ = grid_limit::none;
  // Some term's privacy loss is unbounded: delta(eps) > 0 for every eps,
  // even where the grid's bounds underflow to 0.
  bool unbounded_ = false;
  double gdp_cap_ = std::numeric_limits<double>::infinity();
  // A certified lower bound on delta(eps) beside the grids' (compose_term::
  // delta_floor of a one-term composition), or empty.
  std::function<double(double)> delta_floor_;
  interval mu_of_grids() const;
  friend composition compose_terms(const std::vector<compose_term>& terms,
                                   const compose_options& opt);
};

composition compose_terms(const std::vector<compose_term>& terms, const compose_options& opt = {});
composition compose(const std::vector<spec>& specs, const compose_options& opt = {});

/// The exact k-fold composition of f_{eps,delta} (delta per term): the
/// binomial polygon of randomized response scaled by (1 - delta)^k
/// (Kairouz, Oh & Viswanath 2015, Thm 3.3; docs/formulas.md). k <= 10^7.
curve kfold_eps_delta(double eps, double delta, std::int64_t k);
/// The same with `delta` the TOTAL mass at +inf (1 - (1-delta_1)...(1-delta_k)).
curve kfold_total_delta(double eps, double delta, std::int64_t k);

/// The upper envelope max(0, max_j (c_j - s_j a)) on [0, 1] of lines with
/// intercepts c_j and slopes -s_j (s_j > 0), as an exact polygon.
curve envelope_of_lines(std::vector<double> c, std::vector<double> s);
/// The same with the lines given by d_j = 1 - c_j (y = 1 - d_j - s_j a): the
/// polygon's 1 - beta near a = 0 keeps the relative precision of small d_j
/// (prefer it whenever the d_j, deltas, are at hand).
curve envelope_of_lines_delta(std::vector<double> d, std::vector<double> s);
/// f with its value at a = 0 lowered to 1 - omb0 when it is above (omb0 in
/// [0, 1]), then its lower convex hull, taken on 1 - beta as
/// envelope_of_lines_delta does: below f everywhere, so a lower bound on a
/// trade-off function stays one, and a tiny 1 - f(0) is kept exactly.
curve capped_at_zero(const curve& f, double omb0);

/// The trade-off function of a privacy profile given at finitely many
/// points: the weakest f that is (eps_i, delta_i)-DP for every pair,
///   f(a) = max_i max{0, 1 - delta_i - e^{eps_i} a, e^{-eps_i}(1 - delta_i - a)}
/// (DRS Prop. 2.12; drop the second branch with symmetric = false, for a
/// guarantee that holds for one order of the pair only). eps_i any real,
/// delta_i in [0, 1]. Exact polygon.
curve tradeoff_from_profile(const std::vector<std::pair<double, double>>& eps_delta_pairs,
                            bool symmetric = true);

/// The smallest eps >= 0 with delta(eps) <= target for a non-increasing
/// delta function; `upper_side` selects the bracket end (true: the end where
/// delta <= target; false: the end where delta > target).
double solve_eps(const std::function<double(double)>& delta, double target, bool upper_side);

}  // namespace fdp
