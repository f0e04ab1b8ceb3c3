// The table of spec kinds: every NAME a spec may have (fdp/ops/spec.hpp),
// each declared in one place, lib/src/ops/kinds/<name>.cpp: its keys (with
// their ranges, defaults, alternatives and units), its documentation line,
// how one application becomes a composition term, and the optional hooks
// the other accountants use. compose, curve, group, calibrate, ledger,
// compare, clt and audit --claim all read this table; none of them compares
// spec names.
//
// Adding a kind: write lib/src/ops/kinds/<name>.cpp defining
// `spec_kind spec_kind_<name>()` (file name = function suffix; '-' in the
// kind's name becomes '_'), plus its tests. CMake lists the files of that
// folder into a generated spec_kinds.inc that the table includes (see
// lib/CMakeLists.txt for why a kind cannot register itself).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fdp/core/tradeoff.hpp"

namespace fdp {

struct spec;            // fdp/ops/spec.hpp
struct compose_term;    // fdp/ops/compose.hpp
struct loss_cumulants;  // fdp/ops/edgeworth.hpp
class loss_law;         // fdp/ops/loss_law.hpp

/// An interval of allowed values: [lo, hi], either end open.
struct value_range {
  double lo = 0.0, hi = 1e300;
  bool lo_open = false, hi_open = false;
};
inline constexpr value_range kPositive{0.0, 1e300, true, false};      ///< (0, 1e300]
inline constexpr value_range kNonNegative{0.0, 1e300, false, false};  ///< [0, 1e300]
inline constexpr value_range kUnitInterval{0.0, 1.0, false, false};   ///< [0, 1]
inline constexpr value_range kRate{0.0, 1.0, true, false};            ///< (0, 1]

/// One key of a kind. Every kind also takes times=N (1 <= N <= 1e12), which
/// the parser handles.
struct spec_key {
  enum class type { number, integer, text, choice };
  std::string name;
  type kind = type::number;
  value_range range;  ///< numbers and integers
  /// Used when the key is absent. No default and no group: required.
  std::optional<double> default_value;
  /// Keys with the same non-empty group are alternatives (the same
  /// parameter in other units): a spec gives exactly one of them.
  std::string group;
  std::string metavar;  ///< placeholder in usage lines, e.g. "B"
  std::string doc;      ///< one line: meaning, unit, relation to its alternatives
  /// A choice key: its allowed words and the one used when it is absent.
  std::vector<std::string> choices;
  std::string default_choice;
  /// No default, yet not always required: the kind requires it with some
  /// choice only (its doc says which) and refuses it otherwise.
  bool conditional = false;
  bool required() const {
    if (conditional) return false;
    return kind == type::choice ? default_choice.empty() : !default_value && group.empty();
  }
};

spec_key required_key(std::string name, std::string metavar, value_range r, std::string doc);
spec_key optional_key(std::string name, std::string metavar, double dflt, value_range r,
                      std::string doc);
spec_key alternative_key(std::string group, std::string name, std::string metavar, value_range r,
                         std::string doc);
/// An integer key in [lo, hi] with a default.
spec_key integer_key(std::string name, std::string metavar, double dflt, double lo, double hi,
                     std::string doc);
/// An integer key in [lo, hi] without a default that the kind requires
/// with one of its choices only (spec_key::conditional).
spec_key conditional_integer_key(std::string name, std::string metavar, double lo, double hi,
                                 std::string doc);
/// A required text key (a file name).
spec_key text_key(std::string name, std::string metavar, std::string doc);
/// A key taking one of a few words, with a default (e.g. the neighbour
/// relation a subsampled mechanism is accounted under).
spec_key choice_key(std::string name, std::vector<std::string> choices, std::string dflt,
                    std::string doc);

/// The Renyi-DP curve of one application at the asked orders (Mironov 2017),
/// or why there is none.
struct rdp_curve {
  std::vector<double> rdp;  ///< one value per order (+inf where infinite)
  /// Mass at loss +inf of one application, accounted apart:
  /// f_{eps,delta} = f_{eps,0} (x) f_{0,delta} (RDP of f_{0,delta} is infinite).
  double delta = 0.0;
  std::string not_applicable;  ///< non-empty: no RDP bound, and why
};

/// KL(P||Q) and Var_P(L) of one application's loss L = log dQ/dP: the CLT
/// estimate of compare (DRS Thm 3.5; an approximation, not a bound).
struct clt_moments {
  double kl = 0.0, var = 0.0;
  std::string not_applicable;  ///< non-empty: no estimate, and why
};

/// A parameter `fdp calibrate` can solve for.
struct calibration_param {
  std::string key;  ///< "times" is the common repetition count (an integer)
  /// The smallest value meeting the target is sought (noise scales); else the largest.
  bool smallest = false;
  double lo = 1e-12, hi = 1e12;  ///< search range
  /// First step of the bracketing search (a factor): small where the start
  /// is good (Gaussian families), 2 elsewhere.
  double first_step = 2.0;
  /// A rough start from the target's GDP mu and the spec with the parameter
  /// set to 1 (`probe`: an empty spec if that does not parse); nullptr: 1.
  double (*start)(const spec& probe, double mu) = nullptr;
};

/// How the ledger (fdp/budget/ledger.hpp) records one application.
struct ledger_form {
  /// Entries with equal keys are one guarantee, composed as one group. The
  /// ledger writes the key as NAME:K=V,... (shortest round-trip numbers),
  /// or NAME:<SHA-256 of the points> when there are points.
  std::string key_name;
  std::vector<std::pair<std::string, double>> key_values;
  std::shared_ptr<const loss_law> law;
  bool identity = false;  ///< nothing to record (f = Id)
  /// G_mu: composed in closed form while every entry is Gaussian.
  bool gaussian = false;
  double mu = 0.0;
  /// Distance between the two atoms of a Laplace / f_{eps,delta} law (the
  /// ledger aligns its grid with it).
  double span = 0.0;
  /// Optimistic side: a garbling of the law whose atoms lie on a grid of
  /// step h (nullptr result: the law itself is on it).
  std::function<std::shared_ptr<const loss_law>(double h)> garble;
  /// A curve to store with the entry (replayed when its file is gone).
  std::vector<std::pair<double, double>> points;
};

struct spec_kind {
  std::string name;
  std::string doc;      ///< one line
  std::string example;  ///< a valid spec of this kind
  std::vector<spec_key> keys;

  /// The exact trade-off function of one application; nullptr if the kind
  /// has none in general (numeric laws only).
  tradeoff (*closed)(const spec&) = nullptr;
  /// The composition term of one application (make_term sets times and
  /// text); nullptr: the closed form's term (make_law, its GDP summary).
  compose_term (*term)(const spec&) = nullptr;

  // Optional hooks.
  /// The spec with its repetitions folded into its parameters (times = 1),
  /// when that composes them tighter than the engine would compose the
  /// repetitions: zCDP parameters add (rho-zCDP T times is T rho-zCDP, Bun
  /// & Steinke 2016), and converting once loses less than converting each
  /// time. nullptr: repetitions are composed by the engine.
  spec (*fold_times)(const spec&) = nullptr;
  /// The relative rounding of the closed form's parameter: a quotient
  /// sensitivity / scale is rounded unless the division is exact (group's
  /// brackets widen by it); nullptr: 0 (the parameter is the user's double).
  double (*closed_rounding)(const spec&) = nullptr;
  /// RDP at the orders; nullptr: upper sums over the term's law (rdp_of_law),
  /// for bounded loss supports.
  rdp_curve (*rdp)(const spec&, const std::vector<double>& orders) = nullptr;
  /// One (eps, delta) pair per application for the classic composition
  /// theorems (Dwork & Roth Thm 3.16, 3.20); nullptr: a privacy profile
  /// (compare shares delta among such applications).
  std::optional<std::pair<double, double>> (*classic)(const spec&) = nullptr;
  /// CLT functionals for compare's estimate; nullptr: none.
  clt_moments (*clt)(const spec&) = nullptr;
  /// Loss cumulants for the Edgeworth expansion (fdp clt --edgeworth); may
  /// throw std::invalid_argument for instances it does not cover; nullptr: none.
  loss_cumulants (*edgeworth)(const spec&) = nullptr;
  /// Parameters fdp calibrate can solve for, in the order it lists them.
  std::vector<calibration_param> calibration;
  /// The ledger's record; `stored`: the points saved with an entry (curves).
  /// nullptr: key = the kind's numeric keys, law = the term's.
  ledger_form (*ledger)(const spec&,
                        const std::vector<std::pair<double, double>>* stored) = nullptr;

  const spec_key* key(const std::string& name) const;
  /// "laplace:b=B|eps=E[,sensitivity=S]"
  std::string usage() const;
};

/// The table, in the order of the files in lib/src/ops/kinds (alphabetical).
const std::vector<spec_kind>& spec_kinds();
/// nullptr for an unknown name.
const spec_kind* find_spec_kind(const std::string& name);
/// "curve, epsdelta, ..." (for messages and help).
std::string spec_kind_names();

/// The hooks with their defaults applied (see spec_kind).
double spec_closed_rounding(const spec& s);
rdp_curve spec_rdp(const spec& s, const std::vector<double>& orders);
ledger_form spec_ledger_form(const spec& s,
                             const std::vector<std::pair<double, double>>* stored = nullptr);

}  // namespace fdp
