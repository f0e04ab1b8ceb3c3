// DP-SGD accounting: the certified epsilon bracket of T noisy gradient steps,
// the GDP summary, and the central-limit estimate of Bu, Dong, Long & Su
// side by side. The sampling scheme and the neighbour relation are explicit;
// combinations without a sound dominating pair are refused with the reason.
//
// Model. Each step clips per-example gradients to norm C, sums the sampled
// batch and adds N(0, sigma^2 C^2 I). `sensitivity` is the largest change of
// the clipped sum between neighbouring datasets in units of C: 1 under
// add/remove and zero-out (one gradient appears or not; or is replaced by a
// zero one), 2 under replace-one (one gradient of norm <= C replaced by
// another). The per-step Gaussian is G_{D/sigma}.
//
// What is certified (route):
//  * poisson + add-remove: each record joins each batch independently with
//    probability q. Dominating pair per step (N(0, s^2), (1-q) N(0, s^2) + q N(D, s^2))
//    and its reverse (Koskela, Jalko & Honkela 2020; Zhu, Dong & Wang 2022);
//    the engine composes T steps in one orientation and reports both orders
//    (compose.hpp). Brackets [lower, upper] contain the true epsilon of the pair.
//  * poisson + zero-out: the same pair (a zero gradient moves the sum as a
//    removed one does).
//  * poisson + replace-one: the mirrored pair ((1-q) N(0) + q N(-D/2),
//    (1-q) N(0) + q N(D/2)), one order (subsampled-gaussian's
//    neighbours=replace-one; Lebeda, Regehr, Kamath & Steinke 2025 Prop. 13;
//    formulas.md 9.3).
//  * truncated-poisson (any relation): Poisson batches cut at random to at
//    most max_batch_size records (Ganesh 2025; dp_accounting's
//    TruncatedSubsampledGaussianDpEvent): the revealed mixture of the
//    uncut Poisson pair and the cut batch's pair, whose derivation and
//    dominance are in fdp/ops/truncated_poisson.hpp (subsampled-gaussian's
//    sampling=truncated-poisson). Not solvable (account for given values).
//  * without-replacement + add-remove or zero-out: a batch of exactly B = q n
//    records is drawn uniformly at each step; the record is swapped for one
//    of the batch, so the step is the Poisson pair with twice the shift
//    (subsampled-gaussian's sampling=without-replacement, whose kind file
//    has the derivation): under add-remove 9.2's pair with shift 2D, met by
//    the input whose other gradients oppose the record's (the bracket
//    contains the true epsilon); under zero-out the mirrored pair with bound
//    2D (an upper bound).
//  * without-replacement + replace-one: DRS Thm 4.2 (Sample_m, replace-one
//    neighbours, as we read it; see subsample.hpp) gives per-step C_p(G_{D/sigma}),
//    composed T times (DRS Thm 3.2, adaptive composition). fdp brackets
//    C_p(G)^{(x)T}: the lower polygon of C_p(G) composed gives the certified
//    upper bound. The lower end is the epsilon of one input: the other
//    records all equal to the replacement (gradients -u, the record +u, its
//    replacement -u), where every batch without the record sums to the same
//    vector and with it moves by D: the add/remove pair with shift D at rate
//    p. So the bracket is on the run's true epsilon, and may be wide (S3b-like
//    q = 0.01, sigma 0.8, 10^4 steps: [100.16, 124.49]).
// One step per epoch (shuffle, balls-in-bins): a certified lower bound, and
// an upper bound crediting no amplification where it applies
// (no_amplification_mu in dpsgd.cpp: the record in at most one step of each
// epoch touched, G_{D/sigma} per epoch; balls-in-bins under every relation,
// shuffling under zero-out and replace-one; not shuffling under add-remove,
// where removing a record moves every later record's batch):
//  * shuffle (a random permutation cut into consecutive batches, each record
//    used once per epoch): no amplification theorem fdp can apply is proven
//    for it, and shuffled batches can leak more than Poisson accounting says
//    (Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang 2024, "How
//    private are DP-SGD implementations?"). fdp certifies a LOWER bound: on
//    the instance where one record's gradient has the largest norm and every
//    other gradient is 0 (one of the inputs the accounting must cover), an
//    epoch's outputs (every step's noisy sum, released as the accounting
//    assumes; a linear loss realizes the constant gradient) are
//    N(0, sigma^2)^b against the same with one uniformly placed step
//    shifted; the maximum over the epoch's steps is a test an adversary can
//    run (max_shift_law), and post-processing only hides leakage, so the
//    epsilon of E epochs of that statistic, composed, is at most the run's.
//    Each epoch is modelled with b = ceil(1/q) steps and the record in one of
//    them with probability min(1, floor(1/q) q). That is at least as private
//    as either loader: a loader with fewer steps gives a max from which the
//    model's follows by taking the max with fresh noise (post-processing),
//    and a smaller chance rho only mixes P into Q (T(P, (1-rho) P + rho Q) =
//    (1-rho) Id + rho T(P, Q) falls as rho grows). Only whole epochs
//    (floor(T / b)) count.
//  * balls-in-bins (each record assigned to one uniformly chosen step of the
//    epoch, independently: batch sizes vary; Chua, Ghazi, Harrison, Leeman,
//    Kamath, Kumar, Manurangsi, Sinha & Zhang 2025, "Balls-and-bins sampling
//    for DP-SGD"): each epoch by its tightly dominating pair, between two
//    exact lattice pairs (balls_in_bins_laws, fdp/ops/loss_law.hpp): both
//    ends certified and tight.
//  * random-allocation (each record in exactly k of the run's T steps,
//    chosen uniformly; Feldman & Shenfeld 2025): above, their reduction to k
//    balls-in-bins epochs of floor(T/k) or ceil(T/k) steps; below, tests on the input
//    whose outputs are the dominating pair (fdp/ops/random_allocation.hpp).
//
// CLT estimate (NOT a bound). Poisson: mu_clt = q sqrt(T (e^{mu0^2} - 1)) with
// mu0 = D/sigma (Bu, Dong, Long & Su 2020, "Deep learning with Gaussian
// differential privacy", Harvard Data Science Review; DRS Cor. 5.4 for D = 1).
// Without replacement: mu_clt = sqrt(2) p sqrt(T (e^{mu0^2} Phi(1.5 mu0) + 3 Phi(-0.5 mu0) - 2))
// (the same paper's uniform-sampling formula, the CLT limit of C_p(G_{mu0})^{(x)T}).
// epsilon_clt = gdp_eps(mu_clt, delta). On DP-SGD it under-states epsilon
// (accounting.md S3a/S3b); fdp never presents it as a bound.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fdp/budget/calibrate.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/neighbours.hpp"

namespace fdp {

enum class sampling_scheme {
  poisson,
  without_replacement,
  shuffle,
  balls_in_bins,
  truncated_poisson,
  random_allocation
};

/// Parses "poisson" | "truncated-poisson" | "without-replacement" (alias
/// "fixed-size") | "shuffle" | "balls-in-bins" | "random-allocation"; throws
/// std::invalid_argument.
sampling_scheme parse_sampling(const std::string& s);
std::string to_string(sampling_scheme s);
// (neighbour_relation, parse_neighbours, to_string: fdp/ops/neighbours.hpp)

/// A stretch of training with one sampling rate and one noise multiplier.
struct dpsgd_phase {
  double q = 0.0;
  double sigma = 0.0;
  std::int64_t steps = 0;
};

struct dpsgd_config {
  double q = 0.0;          ///< sampling rate (Poisson) or batch fraction B/n, in (0, 1]
  double sigma = 0.0;      ///< noise multiplier, > 0
  std::int64_t steps = 0;  ///< T >= 1
  /// Phases run after the first one (q, sigma, steps above), for runs whose
  /// batch size or noise changes; all are composed (same sampling scheme,
  /// neighbour relation and sensitivity).
  std::vector<dpsgd_phase> later_phases;
  double delta = 1e-5;  ///< in (0, 1)
  sampling_scheme sampling = sampling_scheme::poisson;
  neighbour_relation neighbours = neighbour_relation::add_remove;
  /// Truncated Poisson only: a batch of more than max_batch_size records is
  /// cut to that many at random; dataset_size is the number of records N
  /// (fdp/ops/truncated_poisson.hpp). Both >= 1 then, and 0 otherwise.
  std::int64_t max_batch_size = 0, dataset_size = 0;
  /// Balls-in-bins and shuffling: the loader's steps (bins) per epoch when
  /// known, t with floor(1/q) <= t <= ceil(1/q) for every phase's q
  /// (std::invalid_argument otherwise);
  /// 0: unknown, both are covered (fewer steps on the upper side, more on
  /// the lower). Other samplers do not read it.
  std::int64_t steps_per_epoch = 0;
  /// Random allocation only: each record is used in exactly `uses` of the
  /// run's steps, chosen uniformly (the whole run is one round, one phase);
  /// 0: q x steps, which must then be an integer; else q x steps must be
  /// near it (allocation_uses).
  std::int64_t uses = 0;
  /// Sensitivity of the clipped sum in units of C; 0 = the relation's default (1 or 2).
  double sensitivity = 0.0;
  /// Target relative width of the epsilon bracket.
  double tolerance = 3e-3;
  /// Further deltas to report epsilon at (report.more_epsilons, in order).
  std::vector<double> more_deltas;
  /// The whole-curve GDP summary (smallest mu with f >= G_mu on all of
  /// [0, 1]). For DP-SGD it is set by the alpha -> 0 tail, where the run
  /// behaves like the unsampled Gaussian (up to sqrt(T)/sigma): true but of
  /// little use, hence off by default; see mu_above.
  bool gdp_summary = false;
  /// > 0: the smallest mu with f >= G_mu on tests whose type I and type II
  /// errors are both >= mu_above (fdp/ops/gdp_window.hpp), certified.
  double mu_above = 0.0;
};

struct dpsgd_report {
  std::string route;                    ///< what was certified and how
  double sensitivity = 1.0;             ///< the D used
  interval epsilon;                     ///< certified bracket at delta
  std::vector<interval> more_epsilons;  ///< at config.more_deltas
  interval mu;                          ///< GDP summary bracket (smallest mu with f >= G_mu)
  bool has_mu = false;
  interval mu_window;        ///< at config.mu_above (when > 0)
  double clt_mu = 0.0;       ///< CLT estimate: NOT a bound (NaN: none)
  double clt_epsilon = 0.0;  ///< gdp_eps(clt_mu, delta): NOT a bound
  std::string clt_formula;
  /// false: epsilon.upper is +inf and epsilon.lower is a certified lower
  /// bound only (shuffled batches: no proven upper bound)
  bool upper_certified = true;
  /// Shuffled batches: what Poisson accounting of the same q, sigma and
  /// steps says (another sampler, shown for contrast; NOT this run's bound).
  std::vector<interval> poisson_epsilons;
  double seconds = 0.0;
};

/// Every phase of the run in order: the first (q, sigma, steps), then the later ones.
std::vector<dpsgd_phase> dpsgd_phases(const dpsgd_config& c);

/// The spec of one Poisson phase ("subsampled-gaussian:sigma=..,q=..,sensitivity=..,times=..").
std::string dpsgd_phase_spec(const dpsgd_phase& p, double sensitivity,
                             neighbour_relation n = neighbour_relation::add_remove);
/// The run a subsampled-gaussian spec describes (its inverse: q, sigma,
/// steps = times, the spec's neighbours, and sensitivity = the spec's
/// record bound, twice it under replace-one); sampling Poisson (or truncated
/// Poisson with its cap and dataset size), other fields default. std::invalid_argument for another
/// kind or a group= spec.
dpsgd_config dpsgd_config_of(const spec& s);
/// The sensitivity used: config.sensitivity, else 1 (add-remove) or 2 (replace-one).
double dpsgd_sensitivity(const dpsgd_config& c);

/// Random allocation: each record's number of steps, config.uses or else
/// q x steps when that is an integer (to 1e-9 relative); std::invalid_argument
/// naming `uses` otherwise, when it is outside [1, steps], or when q x steps
/// is further from it than 1/2 + uses x |q ceil(1/q) - 1| (or floor's: a
/// loader of epochs of ceil(1/q) or floor(1/q) steps; q is otherwise not
/// the run's rate).
std::int64_t allocation_uses(const dpsgd_config& c);

/// Validates the configuration (naming the bad field) and accounts for it.
/// Refused combinations throw std::invalid_argument with the reason.
dpsgd_report account_dpsgd(const dpsgd_config& c);

/// How many steps an epoch over n examples in batches of b takes:
///  ceil  - ceil(n/b): a loader that keeps the last partial batch (PyTorch's
///          DataLoader without drop_last, Opacus); the default, and the
///          largest of the common counts;
///  floor - floor(n/b): drop_last = True;
///  total - no per-epoch rounding: T = ceil(E n / b) over the whole run
///          (TF-Privacy's compute_dp_sgd_privacy and Bu et al. count so);
///          it can be fewer than a real loader runs (30 epochs of 50000 in
///          batches of 512: 2930 against ceil's 2940).
enum class epoch_steps_rule { ceil, floor, total };
epoch_steps_rule parse_epoch_steps_rule(const std::string& s);
std::string to_string(epoch_steps_rule r);

/// T for `epochs` epochs (fractional epochs round the step count up):
/// ceil(epochs * steps_per_epoch), steps_per_epoch by the rule (total:
/// ceil(epochs n / b)). epochs > 0, 1 <= batch <= n.
std::int64_t dpsgd_steps(double epochs, std::int64_t dataset_size, std::int64_t batch_size,
                         epoch_steps_rule rule = epoch_steps_rule::ceil);
/// T = ceil(epochs * steps_per_epoch) for an exact per-epoch count.
std::int64_t dpsgd_steps_exact(double epochs, std::int64_t steps_per_epoch);

/// What DP-SGD accounting can solve for, given a target epsilon at delta:
///   sigma      - the smallest noise multiplier (tied across every phase
///                whose sigma is 0 in the config);
///   steps      - the largest step count (one phase);
///   epochs     - the largest whole number of epochs (one phase; needs the
///                dataset size, batch size and step rule);
///   batch-size - the largest batch size at the given epochs (one phase).
/// The answer always meets the target by its certified upper bound
/// (calibrate.hpp); Poisson sampling only (the fixed-size route composes
/// polygons, not specs).
struct dpsgd_solve {
  std::string param = "sigma";
  double target_epsilon = 0.0;
  double epochs = 0.0;  ///< for epochs (the start) and batch-size (fixed)
  std::int64_t dataset_size = 0, batch_size = 0;
  epoch_steps_rule rule = epoch_steps_rule::ceil;
};

struct dpsgd_solution {
  calibration_result calibration;  ///< the solved value, its bracket and certified gap
  dpsgd_config config;             ///< the run at the solved value
  dpsgd_report report;             ///< accounted at the solved value
};

/// Solves `what` for `c` (whose solved field is ignored) and accounts for
/// the answer. Throws std::invalid_argument naming the problem (a parameter
/// no value in range meets: the message gives the closest certified point).
dpsgd_solution solve_dpsgd(const dpsgd_config& c, const dpsgd_solve& what);

/// Bu et al.'s Poisson CLT: q sqrt(T (e^{mu0^2} - 1)), mu0 = D/sigma. Not a bound.
double clt_mu_poisson(double q, double mu0, std::int64_t steps);
/// Bu et al.'s uniform (without replacement) CLT:
/// sqrt(2) p sqrt(T (e^{mu0^2} Phi(1.5 mu0) + 3 Phi(-0.5 mu0) - 2)). Not a bound.
double clt_mu_uniform(double p, double mu0, std::int64_t steps);

}  // namespace fdp
