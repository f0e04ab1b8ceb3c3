// Truncated Poisson sampling (Ganesh 2025, "Tight privacy accounting for
// truncated Poisson sampling"; dp_accounting's TruncatedSubsampledGaussianDpEvent):
// each of the dataset's N records joins the batch independently with
// probability q, and when more than B joined, a uniformly random B of them
// are kept (the rest are dropped; padding a short batch with zero-gradient
// examples changes nothing). DP-SGD libraries do this to bound memory.
//
// The dominating pair used here, derived for fdp (the record x differs; K is
// the number of the OTHER N - 1 records that joined, K ~ Binomial(N - 1, q),
// the same law under both datasets):
//  * K < B: nothing is cut; x is in the batch with probability q, exactly as
//    under Poisson sampling: the Poisson pair of the relation, rate q.
//  * K >= B: the batch is a uniform B-subset T of the K others, or, when x
//    joined and was kept (probability q B / (K + 1) given K), T with a
//    uniform member t swapped for x. Given (T, t) the step is the Poisson
//    pair at rate q B/(K+1) whose shift is u_x - u_t (norm <= 2S, S the
//    per-record bound); T is a uniform B-subset whatever K is, so hiding K
//    mixes the rates linearly into r = E[q B / (K + 1) | K >= B]
//    = B P(Binomial(N, q) >= B + 1) / (N P(Binomial(N - 1, q) >= B)).
// Revealing whether the batch was cut (probability p = P(K >= B), independent
// of x) only helps a test, so the step is at least as private as the
// revealed mixture (revealed_mixture_law) of
//   weight 1 - p: the relation's Poisson pair, rate q, shift S;
//   weight p:     add-remove: the add/remove pair, rate r, shift 2S (x
//                 against the t it displaced);
//                 zero-out, replace-one: the shifts u_x - u_t and u_x' - u_t
//                 (or -u_t) both have norm <= 2S: the replace-one pair with
//                 bound 2S (mirror images +-2S; Lebeda et al. 2025 Prop. 13).
// N counts the records of the larger dataset (add-remove) or of either
// (replace): the others are N - 1 in every case. The bound is not monotone
// in N (a red-team check found the N + 1 bound up to 4x the N one at small
// deltas), so a dataset of N records under add-remove, whose neighbours
// have N - 1 and N + 1, needs both N and N + 1 accounted and the worse
// taken (fdp dpsgd does; a spec states the larger dataset of its pair). dp_accounting uses the same
// split with the replace-one pair for the cut branch under every relation.
#pragma once

#include <cstdint>
#include <memory>

#include "fdp/ops/loss_law.hpp"
#include "fdp/ops/neighbours.hpp"

namespace fdp {

struct truncation_split {
  double p_cut = 0.0;     ///< P(K >= B): the batch is cut (whatever x does)
  double rate_cut = 0.0;  ///< r: x's chance to be in a cut batch
};

/// p and r above. q in (0, 1], 1 <= max_batch, 1 <= dataset_size; p = 0
/// (and r = 0) when max_batch >= dataset_size (no batch is ever cut).
truncation_split truncated_poisson_split(double q, std::int64_t max_batch,
                                         std::int64_t dataset_size);

/// The dominating law of one step: noise sigma, per-record bound d, the
/// relation's pairs mixed as above (the plain Poisson law when p = 0).
std::shared_ptr<const loss_law> truncated_poisson_gaussian_law(double sigma, double d, double q,
                                                               std::int64_t max_batch,
                                                               std::int64_t dataset_size,
                                                               neighbour_relation rel);

/// The Poisson-subsampled Gaussian's law under a relation (add-remove and
/// zero-out: the add/remove pair; replace-one: the mirrored pair with bound d).
std::shared_ptr<const loss_law> poisson_gaussian_law(double sigma, double d, double q,
                                                     neighbour_relation rel);

}  // namespace fdp
