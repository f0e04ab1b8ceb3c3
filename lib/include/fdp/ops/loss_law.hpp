// The privacy-loss law of a pair (P, Q): the numeric face of a trade-off
// function that the composition engine discretizes.
//
// L = log(dQ/dP). A law reports, for any loss interval (a, b], the P-mass and
// the Q-mass of the outcomes whose loss lies there, accurately in both tails
// (each implementation works from whichever tail is small). Outcomes with
// Q = 0 (loss -inf) carry P-mass p_neg_inf(); outcomes with P = 0 (loss +inf)
// carry Q-mass q_pos_inf(). Point masses inside the finite part are listed by
// atoms() so that discretizations can treat them exactly.
//
// T(P, Q) is the trade-off function the law represents; for asymmetric laws
// (subsampling under add/remove neighbours) the inverse T(Q, P) is carried by
// the same law (its loss is -L with the roles of the masses swapped), so the
// engine needs one law per term.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fdp/core/tradeoff.hpp"

namespace fdp {

struct mass2 {
  double p = 0.0;
  double q = 0.0;
};

struct loss_atom {
  double loss, p, q;
};

/// The relative accuracy of the masses of a law with consistent_masses():
/// Phi differences lose at most 2 bits of norm_cdf's 1e-14.
inline constexpr double kIntervalRel = 5e-14;

class loss_law {
 public:
  virtual ~loss_law() = default;
  /// P- and Q-mass of finite losses in (a, b]; a < b, either may be +-inf.
  virtual mass2 mass(double a, double b) const = 0;
  virtual double p_neg_inf() const { return 0.0; }
  virtual double q_pos_inf() const { return 0.0; }
  /// Every finite loss lies in [lo(), hi()] (either may be infinite).
  virtual double lo() const = 0;
  virtual double hi() const = 0;
  /// Point masses in the finite part, sorted by loss.
  virtual std::vector<loss_atom> atoms() const { return {}; }
  /// True if the finite part is atoms() alone (no continuous part).
  virtual bool atomic() const { return false; }
  /// True if T(P, Q) = T(Q, P).
  virtual bool symmetric() const = 0;
  /// The standard deviation of L under Q (finite part), for grid sizing.
  virtual double scale() const = 0;
  /// True if mass(a, b) gives the P- and the Q-mass of one and the same set
  /// of outcomes (the interval its ends map to, partitions for consecutive
  /// intervals), each within kIntervalRel relative: then every error of the
  /// discretized masses is relative to them, which a long composition needs
  /// (pld_grid.hpp). False (the default): the engine's absolute bounds only.
  virtual bool consistent_masses() const { return false; }
  /// For a law with consistent_masses(): the relative accuracy of each
  /// mass mass() returns (kIntervalRel for one normal interval; a law that
  /// adds several weighted intervals declares that sum's rounding too).
  virtual double mass_rel() const { return kIntervalRel; }
  /// For a law with consistent_masses(): a bound on |L(x) - l| at the
  /// outcome boundary x that mass() uses for a loss l in [lo, hi] (the
  /// rounding of inverting the loss). Negative: no bound given.
  virtual double boundary_error(double lo, double hi) const {
    (void)lo, (void)hi;
    return -1.0;
  }
  virtual std::string describe() const = 0;
};

/// The law of a closed-form trade-off object: G_mu (Gaussian losses), the
/// Laplace trade-off (two atoms and a continuous part), and the discrete laws
/// of f_{eps,delta}, Id and curves.
std::unique_ptr<loss_law> make_law(const tradeoff& f);

/// Poisson-subsampled Gaussian mechanism with noise sigma, sensitivity d and
/// sampling rate q under add/remove neighbours: P = N(0, sigma^2) (the record
/// absent), Q = (1 - q) N(0, sigma^2) + q N(d, sigma^2) (present). The law
/// carries both orders; the engine reports the worse of the two.
/// Reference: Koskela, Jalko & Honkela (AISTATS 2020); Zhu, Dong & Wang (ICML 2022).
std::unique_ptr<loss_law> subsampled_gaussian_law(double sigma, double d, double q);

/// Poisson-subsampled Laplace mechanism: P = Lap(0, b), Q = (1-q) Lap(0,b) + q Lap(d, b).
std::unique_ptr<loss_law> subsampled_laplace_law(double b, double d, double q);

/// A Gaussian against a mixture of shifted Gaussians: P = N(0, sigma^2),
/// Q = sum_i w_i N(c_i, sigma^2), shifts c_i >= 0 (at least one > 0) and
/// weights w_i > 0 summing to 1 (to 1e-12; they are renormalized). Serves
/// mixtures of sensitivities and user-level DP-SGD (a user's K examples in
/// a Poisson batch: Binomial(K, q) of them, shifts j = 0..K). The loss
/// L(x) = log sum_i w_i e^{c_i (2x - c_i) / (2 sigma^2)} increases in x. The
/// law carries both orders (asymmetric unless Q is one shifted Gaussian).
std::unique_ptr<loss_law> gaussian_mixture_law(double sigma, std::vector<double> shifts,
                                               std::vector<double> weights);

/// Two mixtures: P = sum_j v_j N(b_j, sigma^2) with shifts b_j <= 0, Q =
/// sum_i w_i N(c_i, sigma^2) with c_i >= 0 (one > 0); weights as above. The
/// loss increases in x (each Q term grows, each P term shrinks). Serves the
/// Poisson-subsampled Gaussian under replace-one neighbours: P = (1-q) N(0)
/// + q N(-d), Q = (1-q) N(0) + q N(d) (symmetric: mirror images).
std::unique_ptr<loss_law> gaussian_mixture_pair_law(double sigma, std::vector<double> p_shifts,
                                                    std::vector<double> p_weights,
                                                    std::vector<double> q_shifts,
                                                    std::vector<double> q_weights);

/// The maximum of b coordinates Y_j = Z_j + s_j, Z_j iid N(0, sigma^2): P
/// with no shift, Q with (probability rho) one coordinate shifted by 1. A
/// one-dimensional test statistic of an epoch of shuffled DP-SGD steps in
/// which one record's gradient (norm 1, all others 0) lands in one step:
/// composing its law lower-bounds the epsilon of the shuffled mechanism
/// (post-processing can only hide leakage). Asymmetric.
std::unique_ptr<loss_law> max_shift_law(double sigma, double b, double rho);

/// A term's two sides: `upper` lies below the term's trade-off function (the
/// engine's pessimistic side composes it), `lower` above it (optimistic).
struct law_bracket {
  std::shared_ptr<const loss_law> upper, lower;
};

/// One epoch of balls-in-bins batches: t steps, each record in exactly one
/// uniformly chosen step, Gaussian noise sigma in units of the record's
/// shift. The epoch is tightly dominated by P = N(0, I_t) against Q = (1/t)
/// sum_i N(e_i / sigma, I_t) (Chua et al., AISTATS 2025; add-remove and
/// zero-out neighbours). That pair has no closed form; the two laws are
/// exactly known pairs on a lattice, one less private (a refinement) and one
/// more private (a garbling), so their compositions bracket the truth
/// (balls_in_bins_law.cpp). Both null when the lattice cannot serve: its
/// step would pass sd(Y)/2 (sigma below ~0.7: the heavy tail to reach) or
/// the epoch's sum would pass 2^22 points; the upper one null also when it
/// would put more than 1e-10 of P at loss -inf (few steps, small sigma).
/// Callers fall back to looser valid laws. t = 1: the Gaussian pair.
/// `relaxed_cap_tail` > 0: where the lattice would be too coarse at the
/// usual cap (the shifted step's tail beyond it 1e-13), it may leave out
/// 1e-12, 1e-11, ... up to that much (at most 1e-7), the first that fits
/// (sigma ~0.5-0.7): that tail goes to loss +inf on the upper side (a
/// delta floor of that much per epoch) and is removed on the lower side;
/// for callers that also cap the upper end by another bound.
/// `upper` / `lower` false: that side is not built (left null). rho < 1:
/// the record is in the epoch's steps only with probability rho (else in
/// none of them): the pair (P, (1 - rho) P + rho Q), e.g. the full batches
/// of a shuffled epoch whose last batch is partial.
law_bracket balls_in_bins_laws(double sigma, std::int64_t steps, bool upper = true,
                               bool lower = true, double rho = 1.0, double relaxed_cap_tail = 0.0);

/// One branch of a revealed mixture: a law and its probability.
struct weighted_law {
  double weight = 0.0;
  std::shared_ptr<const loss_law> law;
};

/// The pair that draws branch i with probability w_i (the same under P and
/// Q) and outputs the branch's index with its sample: its loss law is the
/// w-mixture of the branch laws. Sound for a mechanism that is a
/// post-processing of (branch, output), e.g. truncated Poisson sampling
/// (subsampled-gaussian's sampling=truncated-poisson). Weights in (0, 1]
/// summing to 1 (to 1e-12; renormalized); every branch in the same
/// orientation (its P the same dataset's output).
std::unique_ptr<loss_law> revealed_mixture_law(std::vector<weighted_law> branches);

/// A law given by finitely many atoms (any losses) plus infinite masses.
std::unique_ptr<loss_law> discrete_law(std::vector<loss_atom> atoms, double p_neg_inf,
                                       double q_pos_inf, bool symmetric, std::string name);

}  // namespace fdp
