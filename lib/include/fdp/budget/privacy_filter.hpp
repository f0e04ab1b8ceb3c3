// A privacy filter: the budget check of an `adaptive` ledger, valid when
// each mechanism AND its parameters are chosen after seeing the outputs of
// the earlier ones (fully adaptive composition).
//
// Why not the ledger's tight PLD composition. Composing the realized
// trade-off curves and stopping when the composed epsilon crosses the budget
// is exact for a sequence fixed in advance, but it does not bound the privacy
// of an interaction whose choice of mechanisms depends on earlier outputs
// (Honkela, Koskela, Tran & Raisa 2026, "f-Differential Privacy Filters:
// Validity and Approximate Solutions", arXiv 2602.06756). Such an interaction
// needs a filter: a stopping rule on the privacy parameters, chosen up front,
// with its own theorem. This one runs four, each with a fixed share of the
// budget's delta:
//
//   pure  (delta share 0): every entry eps_i-DP (bounded loss). Stopping
//         while sum eps_i <= E is E-DP (basic composition holds as a filter:
//         Rogers, Roth, Ullman & Vadhan 2016, "Privacy odometers and filters").
//   gdp   (share 1/2): every entry exactly G_mu_i (gaussian / gdp specs).
//         Stopping while sum mu_i^2 <= mu^2 is mu-GDP (Smith & Thakurta 2022,
//         "Fully adaptive composition for Gaussian differential privacy");
//         epsilon = the exact epsilon of G_mu at the share's delta.
//   rdp   (share 1/4, split evenly over the fixed orders below): every entry
//         with a finite Renyi curve. At each order a, stopping while
//         sum r_i(a) <= B is (a, B)-RDP (Feldman & Zrnic 2021, "Individual
//         privacy accounting via a Renyi filter"); converted to epsilon at
//         the order's delta by Canonne, Kamath & Steinke 2020, Prop. 12.
//   basic (share 1/4): every entry with a stated (eps_i, delta_i). Stopping
//         while sum eps_i <= E and sum delta_i <= the share is
//         (E, share)-DP (Rogers et al. 2016, basic composition filter).
//
// The rule: admit an entry iff AFTER it at least one filter is still within
// the budget (its epsilon at its delta share <= E). Why a union of filters
// is valid (our argument; shares summing to at most delta): a filter's
// state only grows, so "filter c still in" is decided before each round
// from the parameters chosen so far. Write delta(E) = E_P[(1 - e^{E-L})_+]
// for the privacy loss L of the whole interaction. At the end some filter c
// is still in; on that event the interaction is the one c alone would have
// stopped, so E_P[(1 - e^{E-L})_+ ; c in] <= that stopped interaction's
// delta(E) <= c's share. Summing over c bounds delta(E) by the sum of the
// shares (the integrand is >= 0, so overlapping events only over-count).
// The same holds for each order of the rdp filter (each is a filter of its
// own). The guarantee is the budget (E, delta) for the whole interaction,
// however long it runs; the "certified epsilon" printed is the smallest
// filter level, a measure of how much is left, not an odometer.
//
// The shares and orders are fixed here, before any entry, as validity
// requires; changing them changes what old adaptive ledgers mean.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace fdp {

/// What the filters need of one entry, its repetitions included. +inf (or
/// an empty rdp) where a filter does not apply to it.
struct filter_cost {
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  double pure_eps = kInf;                ///< every loss within [-pure_eps, pure_eps]
  double mu2 = kInf;                     ///< exactly G_mu with mu^2 = mu2
  std::vector<double> rdp;               ///< at privacy_filter::orders(); empty: none
  double eps = kInf, delta_part = kInf;  ///< a stated (eps, delta) guarantee
};

enum class filter_kind { none, pure, gdp, rdp, basic };
/// "pure-DP sum", "GDP filter", "RDP filter", "basic (eps, delta) sum", "none"
std::string filter_name(filter_kind k);

struct filter_level {
  double epsilon = filter_cost::kInf;  ///< smallest epsilon over the filters still applicable
  filter_kind kind = filter_kind::none;
  double order = 0.0;  ///< the RDP order when kind == rdp
};

class privacy_filter {
 public:
  /// The budget (eps > 0, delta in [0, 1)); delta 0 leaves only the pure filter.
  privacy_filter(double eps, double delta);

  /// The fixed orders of the rdp filter.
  static const std::vector<double>& orders();

  void add(const filter_cost& c);
  /// The level now, and with `c` added (nothing recorded).
  filter_level level() const;
  filter_level level_with(const filter_cost& c) const;
  /// Would the filter admit `c`: some filter's epsilon stays <= the budget's.
  bool admits(const filter_cost& c) const { return level_with(c).epsilon <= eps_; }
  /// The sum of the entries' pure epsilons (+inf once one has none): also
  /// the exact composed epsilon at delta 0 of pure-DP entries.
  double pure_sum() const { return s_.pure; }

 private:
  struct state {
    double pure = 0.0, mu2 = 0.0, eps = 0.0, delta_part = 0.0;
    std::vector<double> rdp;  // empty once an entry has none
    bool rdp_ok = true;
  };
  static void accumulate(state& s, const filter_cost& c);
  filter_level level_of(const state& s) const;

  double eps_, delta_;
  state s_;
};

}  // namespace fdp
