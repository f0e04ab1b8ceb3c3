// DP-SGD accounting: the certified epsilon bracket of T noisy gradient steps,
// the GDP summary, and the central-limit estimate of Bu, Dong, Long & Su
// side by side. The sampling scheme and the neighbour relation are explicit;
// combinations without a sound dominating pair are refused with the reason.
//
// Model. Each step clips per-example gradients to norm C, sums the sampled
// batch and adds N(0, sigma^2 C^2 I). `sensitivity` is the largest change of
// the clipped sum between neighbouring datasets in units of C: 1 under
// add/remove (one gradient appears or not), 2 under replace-one (one
// gradient of norm <= C replaced by another). The per-step Gaussian is G_{D/sigma}.
//
// What is certified (route):
//  * poisson + add-remove: each record joins each batch independently with
//    probability q. Dominating pair per step (N(0, s^2), (1-q) N(0, s^2) + q N(D, s^2))
//    and its reverse (Koskela, Jalko & Honkela 2020; Zhu, Dong & Wang 2022);
//    the engine composes T steps in one orientation and reports both orders
//    (compose.hpp). Brackets [lower, upper] contain the true epsilon of the pair.
//  * without-replacement + replace-one: a batch of exactly B = p n records is
//    drawn uniformly at each step. DRS Thm 4.2 (Sample_m, replace-one
//    neighbours, as we read it; see subsample.hpp) gives per-step C_p(G_{D/sigma}),
//    composed T times (DRS Thm 3.2, adaptive composition). fdp brackets
//    C_p(G)^{(x)T}: the lower polygon of C_p(G) composed gives the certified
//    upper bound, the upper polygon the lower end. The lower end brackets the
//    guarantee C_p(G)^{(x)T}, not the mechanism's true epsilon (which can be smaller).
// Refused:
//  * poisson + replace-one: the pair ((1-q) N(0) + q N(-1), (1-q) N(0) + q N(1))
//    is believed but, as far as we could check, not established as a
//    dominating pair for composition (Lebeda, Regehr, Kamath & Steinke 2024,
//    "Avoiding pitfalls for privacy accounting of subsampled mechanisms under
//    composition", discuss the substitution relation); fdp does not certify it.
//  * without-replacement + add-remove: the batch size is fixed but the dataset
//    size changes between neighbours; no pair is implemented.
//  * shuffle (a random permutation cut into consecutive batches, each record
//    used once per epoch): the Poisson analysis does not apply, and shuffled
//    batches can leak more than Poisson accounting says (Chua, Ghazi, Kamath,
//    Kumar, Manurangsi, Sinha & Zhang 2024, "How private are DP-SGD
//    implementations?"); no certified route is implemented.
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

#include "fdp/ops/compose.hpp"

namespace fdp {

enum class sampling_scheme { poisson, without_replacement, shuffle };
enum class neighbour_relation { add_remove, replace_one };

/// Parses "poisson" | "without-replacement" | "shuffle"; throws std::invalid_argument.
sampling_scheme parse_sampling(const std::string& s);
/// Parses "add-remove" | "replace-one"; throws std::invalid_argument.
neighbour_relation parse_neighbours(const std::string& s);
std::string to_string(sampling_scheme s);
std::string to_string(neighbour_relation n);

/// "" if the combination is certified, otherwise the reason it is refused.
std::string dpsgd_refusal(sampling_scheme s, neighbour_relation n);

struct dpsgd_config {
  double q = 0.0;          ///< sampling rate (Poisson) or batch fraction B/n, in (0, 1]
  double sigma = 0.0;      ///< noise multiplier, > 0
  std::int64_t steps = 0;  ///< T >= 1
  double delta = 1e-5;     ///< in (0, 1)
  sampling_scheme sampling = sampling_scheme::poisson;
  neighbour_relation neighbours = neighbour_relation::add_remove;
  /// Sensitivity of the clipped sum in units of C; 0 = the relation's default (1 or 2).
  double sensitivity = 0.0;
  /// Target relative width of the epsilon bracket.
  double tolerance = 3e-3;
  /// Compute the GDP summary (a few more passes over the composed PLD).
  bool gdp_summary = true;
};

struct dpsgd_report {
  std::string route;         ///< what was certified and how
  double sensitivity = 1.0;  ///< the D used
  interval epsilon;          ///< certified bracket at delta
  interval mu;               ///< GDP summary bracket (smallest mu with f >= G_mu)
  bool has_mu = false;
  double clt_mu = 0.0;       ///< CLT estimate: NOT a bound
  double clt_epsilon = 0.0;  ///< gdp_eps(clt_mu, delta): NOT a bound
  std::string clt_formula;
  double seconds = 0.0;
};

/// Validates the configuration (naming the bad field) and accounts for it.
/// Refused combinations throw std::invalid_argument with the reason.
dpsgd_report account_dpsgd(const dpsgd_config& c);

/// T = ceil(epochs * n / batch) (the last partial epoch is counted as a step,
/// the conservative rounding). epochs > 0, 1 <= batch <= n.
std::int64_t dpsgd_steps(double epochs, std::int64_t dataset_size, std::int64_t batch_size);

/// Bu et al.'s Poisson CLT: q sqrt(T (e^{mu0^2} - 1)), mu0 = D/sigma. Not a bound.
double clt_mu_poisson(double q, double mu0, std::int64_t steps);
/// Bu et al.'s uniform (without replacement) CLT:
/// sqrt(2) p sqrt(T (e^{mu0^2} Phi(1.5 mu0) + 3 Phi(-0.5 mu0) - 2)). Not a bound.
double clt_mu_uniform(double p, double mu0, std::int64_t steps);

}  // namespace fdp
