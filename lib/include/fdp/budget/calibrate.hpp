// Calibration: the value of one spec parameter (sigma, b, q, times, ...) that
// makes the certified epsilon at delta meet a target, never overshooting it.
//
// Problem. A spec with one parameter left out, e.g.
//   "subsampled-gaussian:q=0.0042666666666666667,times=14062"  --solve sigma
// and optional further specs composed with it (fixed). Let U(x) be the
// certified upper bound on epsilon at delta of the composition with the
// parameter set to x, and L(x) the certified lower bound. The true epsilon
// e(x) satisfies L(x) <= e(x) <= U(x) and is monotone in x.
//
// Answer. `value` is a point where U(value) <= target was evaluated, so the
// returned parameter MEETS THE TARGET by a certified bound (it never
// overshoots). `lo`/`hi` is the final root bracket of U(x) - target (value is
// the feasible end). `certified_optimum_bound` is the nearest evaluated point
// known to be infeasible (L(x) > target there, so the true optimum lies
// strictly between it and value); `certified_gap` = |value / bound - 1| is a
// certified bound on how far value is from the best parameter that meets the
// target. The calibration aims for certified_gap <= gap_target (0.1% by default)
// by refining the composition's bracket near the answer; it reports what it
// achieved and does not throw when the gap cannot be closed.
//
// Parameters and directions (spec keys; see spec.hpp):
//   decreasing privacy loss as the value grows, solve for the SMALLEST value:
//     sigma (gaussian, subsampled-gaussian), b (laplace, subsampled-laplace);
//   increasing, solve for the LARGEST value:
//     q (subsampled-*; in (0, 1]), times (any spec; an integer),
//     mu (gdp), eps (epsdelta), sensitivity (gaussian, laplace, subsampled-*).
//
// Method. Geometric search for a bracket from a start value (a GDP/CLT
// estimate where one exists), then Boost.Math toms748 on log U(x) - log target
// in log x (integer bisection for times), each evaluation a certified
// composition (compose.hpp). Non-monotone numerical noise in U cannot make the
// answer unsound: only evaluated points with U <= target are returned.
// Complexity: typically 6-12 compositions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {

struct calibration_options {
  /// Relative width of the final root bracket in x.
  double x_tolerance = 1e-4;
  /// Target relative width of the epsilon brackets in the search phase and
  /// near the answer (the engine's tolerance).
  double search_tolerance = 3e-3;
  double final_tolerance = 5e-4;
  /// Certified gap the calibration tries to reach (0.1%).
  double gap_target = 1e-3;
  int max_evaluations = 80;
  /// When set, receives one line per evaluated point (parameter value,
  /// tolerance, epsilon bracket): a diagnostic of the search, never part of
  /// an answer. (fdp sets it under FDP_TRACE_CALIBRATE=1.)
  std::function<void(const std::string&)> trace;
};

struct calibration_result {
  std::string param;
  double value = 0.0;         ///< meets the target: U(value) <= target
  double lo = 0.0, hi = 0.0;  ///< final bracket of the root of U - target
  interval epsilon;           ///< certified epsilon bracket at value
  double certified_optimum_bound =
      0.0;                     ///< infeasible (L > target) point nearest value; 0 or inf if none
  double certified_gap = 0.0;  ///< |value / certified_optimum_bound - 1| (inf if unknown)
  bool smallest = true;        ///< true: the smallest feasible value was sought (sigma, b)
  bool at_limit = false;       ///< the answer is the end of the parameter's range (e.g. q = 1)
  int iterations = 0;          ///< root-finder iterations
  int evaluations = 0;         ///< certified compositions evaluated
  double seconds = 0.0;
  /// The composition at `value` (the family's specs_at): what the answer
  /// is about, e.g. for stating its neighbour relation and sampling.
  std::vector<spec> specs;
};

/// Calibrates `param` of `spec_text` (which must leave it out) so that the
/// certified epsilon at `delta` of spec (x) others is at most `target_eps`.
/// Throws std::invalid_argument for an unknown parameter, a spec that already
/// sets it, a target that no value can meet (with the reason), or bad eps/delta.
calibration_result calibrate(const std::string& spec_text, const std::string& param,
                             double target_eps, double delta,
                             const std::vector<std::string>& others = {},
                             const calibration_options& opt = {});

/// A one-parameter family of compositions: calibrate_family() finds the
/// parameter value whose certified epsilon meets the target, with the same
/// search and the same promise as calibrate() (which builds one of these
/// from a spec text). For several specs tied to one parameter (one sigma
/// over several DP-SGD phases), or a parameter that moves several keys
/// (a batch size sets both q and the step count).
struct calibration_family {
  std::string param;  ///< its name in answers and messages
  /// The composition at the parameter value x.
  std::function<std::vector<spec>(double)> specs_at;
  /// The privacy loss falls as x grows: the smallest feasible x is sought
  /// (sigma); else the largest (q, times). Integer parameters: largest only.
  bool smallest = true;
  bool integer = false;          ///< x is an integer >= 1 (the search starts at 1)
  double lo = 1e-12, hi = 1e12;  ///< search range
  double start = 1.0;            ///< a rough start (a GDP / CLT estimate; never trusted)
  double first_step = 2.0;       ///< first factor of the bracketing search
  /// The composition where the parameter contributes nothing (x -> inf for
  /// sigma): if it misses the target already, no value can meet it. Empty:
  /// not checked.
  std::vector<spec> limit;
};

calibration_result calibrate_family(const calibration_family& family, double target_eps,
                                    double delta, const calibration_options& opt = {});

/// The parameters calibrate() accepts for a spec name, e.g. {"sigma", "q",
/// "sensitivity", "times"} for subsampled-gaussian.
std::vector<std::string> calibratable_params(const std::string& spec_name);

}  // namespace fdp
