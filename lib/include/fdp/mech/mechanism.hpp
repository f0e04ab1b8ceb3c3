// The mechanism interface: what the auditor, the CLI and users see of every
// mechanism in the catalogue (correct or known-flawed).
//
// A mechanism takes the query answers of one dataset (a vector of doubles:
// counts, utilities, a category index, a stream of threshold queries; each
// mechanism says which) and draws outputs into a caller buffer:
//   - real outputs: `dim` doubles per output (a number when dim == 1, a
//     vector otherwise), through sample(answers, rng, count, double* out);
//   - categorical outputs: one index in [0, categories) per output, through
//     sample(answers, rng, count, std::int64_t* out); token(index) names it
//     for sample files.
// Sampling allocates nothing per sample (at most O(answers) scratch per
// call), never changes the mechanism (sample is const: one mechanism may be
// used from many threads, each with its own rng_stream), and consumes a
// fixed number of random words per output where the algorithm allows it.
//
// Privacy statements, each with the neighbour relation they assume:
//   claim()           the guarantee the mechanism's source claims, as a
//                     trade-off function (e.g. f_{eps,0} for Thm 3.6);
//   exact_tradeoff()  the tight trade-off function over the neighbour
//                     relation, where known (Laplace: T(Lap(0,b),Lap(D,b)));
//   true_epsilon(n) / true_tradeoff(n)   for known-flawed variants: what
//                     actually holds with n answers (+inf when unbounded);
//   exposing_pairs()  neighbouring inputs that show the flaw (flawed
//                     variants) or that benchmark audits (correct ones).
// Accuracy statements are free functions in fdp/mech/accuracy.hpp;
// accuracy() here names the one that applies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fdp/core/tradeoff.hpp"
#include "fdp/mech/rng.hpp"

namespace fdp::mech {

enum class output_kind { real, categorical };

struct output_shape {
  output_kind kind = output_kind::real;
  std::size_t dim = 1;           ///< real: doubles per output; categorical: 1
  std::uint64_t categories = 0;  ///< categorical: indices lie in [0, categories)
};

/// Which pairs of answer vectors are neighbours.
struct neighbour_relation {
  enum class kind {
    l1,      ///< ||a - a'||_1 <= bound (Laplace, Dwork & Roth Def. 3.1)
    l2,      ///< ||a - a'||_2 <= bound (Gaussian)
    linf,    ///< |a_i - a'_i| <= bound for every i (utilities, counts, SVT queries)
    replace  ///< the single answer (a category or integer) may change to any allowed value
  };
  kind norm = kind::l1;
  double bound = 1.0;
  /// All answers move in the same direction (a record added or removed from
  /// counting queries / monotone utilities).
  bool monotone = false;
  std::string text;  ///< one human-readable line
};

/// Two neighbouring answer vectors, with what they show.
struct neighbour_pair {
  std::vector<double> input0, input1;
  std::string note;
};

class mechanism {
 public:
  virtual ~mechanism() = default;

  /// Catalogue name, e.g. "laplace".
  virtual std::string name() const = 0;
  /// Parameters as (key, value text), in a canonical order.
  virtual std::vector<std::pair<std::string, std::string>> params() const = 0;
  /// "name:key=value,..." that make_mechanism() turns back into this mechanism.
  std::string spec() const;
  /// One line on what the mechanism does.
  virtual std::string description() const = 0;
  /// Paper / book and theorem for the algorithm and its claim.
  virtual std::string reference() const = 0;

  virtual neighbour_relation neighbours() const = 0;
  virtual tradeoff claim() const = 0;
  /// The claim as a spec word that `fdp compose` and `fdp audit --claim`
  /// accept (a kind of the spec table, fdp/ops/spec_kind.hpp), with
  /// round-trip numbers: f_{eps,delta} -> "epsdelta:eps=E[,delta=D]",
  /// G_mu -> "gdp:mu=M", the Laplace curve -> "laplace:eps=M", Id -> "id".
  /// Empty for a claim that is a curve (a spec names it by its file).
  std::string claim_spec() const;
  /// The tight trade-off function over the neighbour relation, if known.
  virtual std::optional<tradeoff> exact_tradeoff() const { return std::nullopt; }
  /// The accuracy statement that applies (see accuracy.hpp), as text.
  virtual std::string accuracy() const { return {}; }

  /// Known-flawed variants (namespace fdp::mech::flawed) return true.
  virtual bool flawed() const { return false; }
  /// What is wrong, for flawed variants.
  virtual std::string flaw() const { return {}; }
  /// The smallest eps for which the mechanism with n answers is (eps, 0)-DP
  /// under its neighbour relation, if known; +inf when no eps works.
  virtual std::optional<double> true_epsilon(std::size_t n) const { return std::nullopt; }
  /// The tight trade-off function with n answers, if known.
  virtual std::optional<tradeoff> true_tradeoff(std::size_t n) const { return std::nullopt; }
  virtual std::vector<neighbour_pair> exposing_pairs() const { return {}; }

  /// Output shape for n answers (throws std::invalid_argument if n is not allowed).
  virtual output_shape shape(std::size_t n) const = 0;
  /// Throws std::invalid_argument naming the mechanism and the offending
  /// answer if `answers` is not a valid input (empty, non-finite, a category
  /// out of range, ...).
  virtual void check_input(const std::vector<double>& answers) const;

  /// Draws `count` real outputs (count * shape(n).dim doubles, output-major).
  /// Throws std::logic_error for a categorical mechanism.
  virtual void sample(const std::vector<double>& answers, rng_stream& rng, std::size_t count,
                      double* out) const;
  /// Draws `count` categorical outputs. Throws std::logic_error for a real one.
  virtual void sample(const std::vector<double>& answers, rng_stream& rng, std::size_t count,
                      std::int64_t* out) const;
  /// The sample-file token of a categorical output (default "r<index>").
  virtual std::string token(std::int64_t index, std::size_t n) const;
  /// Exact output probabilities of a categorical mechanism for `answers`,
  /// where computable (used by tests and by the auditor's oracle bound).
  virtual std::optional<std::vector<double>> output_distribution(
      const std::vector<double>& answers) const {
    return std::nullopt;
  }
};

namespace detail {
/// Non-empty and all finite; otherwise throws "name(answers[i]=v): ...".
void check_answers_finite(const std::string& name, const std::vector<double>& answers);
/// Formats a double for specs and messages (shortest round-trip form).
std::string fmt_param(double v);
}  // namespace detail

}  // namespace fdp::mech
