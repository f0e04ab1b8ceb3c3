// Spec kind "balls-in-bins": one EPOCH of DP-SGD with balls-in-bins batches
// (each record in exactly one uniformly chosen step of t), Gaussian noise
// sigma times the clipping bound, sensitivity d. times=E composes E epochs
// (independent allocations). The epoch is tightly dominated by N(0, I_t)
// against (1/t) sum_i N(d e_i / sigma, I_t) (Chua et al., AISTATS 2025) under
// add-remove and zero-out neighbours; fdp brackets that pair between two exact
// lattice pairs (balls_in_bins_laws, docs/formulas.md 9.6): the term's upper
// side is the refinement, its lower side the garbling. Under replace-one the
// upper side credits no amplification, G_{2d/sigma} (the record's two
// gradients in the same step), and the lower side is the zero-out pair of the
// record's own bound d (replacing it by a record with zero gradient). Where
// the lattice cannot serve (sigma below ~0.7, or few steps with small sigma)
// the bracket is looser but still certified: no amplification above, the
// maximum of the epoch's outputs below.
#include <cmath>
#include <string>
#include <utility>

#include "fdp/core/families.hpp"
#include "ops/kind_support.hpp"

namespace fdp {
namespace {

// An integer key without a default (required).
spec_key required_integer_key(std::string name, std::string metavar, double lo, double hi,
                              std::string doc) {
  spec_key k = integer_key(std::move(name), std::move(metavar), lo, lo, hi, std::move(doc));
  k.default_value.reset();
  return k;
}

struct params {
  double sigma = 0.0, d = 1.0;
  std::int64_t steps = 1;
  neighbour_relation rel = neighbour_relation::add_remove;
};

params params_of(const spec& s) {
  params p;
  p.sigma = s.number("sigma");
  p.d = s.number("sensitivity");
  p.steps = static_cast<std::int64_t>(s.number("steps"));
  p.rel = kinds::neighbours_of(s);
  return p;
}

// The lattice laws, or where the lattice cannot serve (small sigma, few
// steps) the looser valid ones: no amplification above (G_{d/sigma}), the
// maximum of the epoch's outputs below (a garbling). Replace-one: G_{2d/sigma}
// above (the record's two gradients in its one step).
law_bracket laws_of(const params& p) {
  const bool ro = p.rel == neighbour_relation::replace_one;
  law_bracket b = balls_in_bins_laws(p.sigma / p.d, p.steps, !ro, true);
  if (ro || !b.upper)
    b.upper = std::shared_ptr<const loss_law>(make_law(gaussian((ro ? 2.0 : 1.0) * p.d / p.sigma)));
  if (!b.lower)
    b.lower = std::shared_ptr<const loss_law>(
        max_shift_law(p.sigma / p.d, static_cast<double>(p.steps), 1.0));
  return b;
}

compose_term term(const spec& s) {
  const params p = params_of(s);
  const law_bracket b = laws_of(p);
  compose_term t;
  t.law = b.upper;
  t.law_opt = b.lower;
  // (one epoch touches the record in one step: at least G_{d/sigma}, or
  // G_{2d/sigma} under replace-one)
  t.gdp_cap = (p.rel == neighbour_relation::replace_one ? 2.0 : 1.0) * p.d / p.sigma;
  return t;
}

// The ledger's record: the upper law, and the lower one as its optimistic
// side (a garbling of the true pair, as the ledger's `garble` must be).
ledger_form ledger(const spec& s, const kinds::stored_points*) {
  const params p = params_of(s);
  const law_bracket b = laws_of(p);
  ledger_form f;
  f.key_name = "balls-in-bins-" + to_string(p.rel);
  f.key_values = {{"s", p.sigma / p.d}, {"steps", static_cast<double>(p.steps)}};
  f.law = b.upper;
  const std::shared_ptr<const loss_law> lower = b.lower;
  f.garble = [lower](double) { return lower; };
  return f;
}

double start_sigma(const spec& probe, double mu) {
  const double d = kinds::probe_number(probe, "sensitivity", 1.0);
  return d * std::sqrt(static_cast<double>(probe.times)) / mu;
}

std::vector<calibration_param> calibration() {
  return {kinds::calibrate_noise("sigma", start_sigma), kinds::calibrate_times()};
}

}  // namespace

spec_kind spec_kind_balls_in_bins() {
  spec_kind k;
  k.name = "balls-in-bins";
  k.doc =
      "one epoch of DP-SGD with balls-in-bins batches (each record in one uniformly chosen step "
      "of t); times = epochs";
  k.example = "balls-in-bins:sigma=2,steps=100,times=10";
  k.keys = {
      required_key("sigma", "SIGMA", kPositive, "noise multiplier (std of the noise / clip norm)"),
      required_integer_key("steps", "T", 1, 100000000,
                           "steps (batches) per epoch; each record is in exactly one of them"),
      optional_key("sensitivity", "D", 1.0, kPositive,
                   "a record's gradient bound in units of the clip norm (default 1)"),
      kinds::neighbours_key()};
  k.term = term;
  k.calibration = calibration();
  k.ledger = ledger;
  return k;
}

}  // namespace fdp
