// Internal: what the spec kinds (lib/src/ops/kinds/*.cpp) share, so that a
// kind file holds only what is its own. The families of trade-off functions
// several kinds reduce to (G_mu for gdp and gaussian) have their hooks here.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fdp/core/error.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/convert.hpp"
#include "fdp/ops/edgeworth.hpp"
#include "fdp/ops/group.hpp"
#include "fdp/ops/loss_law.hpp"
#include "fdp/ops/neighbours.hpp"
#include "fdp/ops/rdp_curves.hpp"
#include "fdp/ops/spec.hpp"
#include "fdp/ops/spec_kind.hpp"

namespace fdp::kinds {

using stored_points = std::vector<std::pair<double, double>>;

/// The term of a closed form: its law (make_law) and its GDP summary as the
/// term's cap (none for a polygon beyond the double range).
compose_term term_of_closed(const tradeoff& f);

/// sensitivity / scale must be a finite double: the message names the scale
/// (gaussian:sigma=1e-300 failed as "gaussian(mu=inf)").
void require_finite_ratio(const spec& s, const char* key, double scale, double sensitivity);

/// The relative rounding of d / scale: 0 when the division is exact, else
/// half an ulp (2^-53).
double quotient_rounding(double d, double scale);

/// The largest multiple of h/2 not above x (x itself when x is one, up to
/// rounding): the ledger's optimistic garblers move atoms down onto its grid.
double floor_half_grid(double x, double h);

/// The ledger's record of a kind given by a polygon that lives in a file
/// (curve, rdp): keyed by its points, which are stored with the entry and
/// replayed from there when present (the file may change or go); else the
/// polygon `from_file` reads.
ledger_form ledger_of_polygon(const std::string& key_name, const stored_points* stored,
                              const std::function<curve()>& from_file);

/// `times`, the repetition count, as a calibratable parameter (the largest
/// count in [1, 1e12] that meets the target).
calibration_param calibrate_times();
/// A noise scale (sigma, b, ...) as a calibratable parameter (the smallest
/// value that meets the target), with its rough start.
calibration_param calibrate_noise(const char* key, double (*start)(const spec&, double));

/// A number of the calibration probe, or `dflt` when it has none (or an
/// unusable one: the start is only a starting point).
double probe_number(const spec& probe, const char* key, double dflt);

/// The value of each order: fn(alpha).
template <class F>
std::vector<double> at_orders(const std::vector<double>& orders, F fn) {
  std::vector<double> v(orders.size());
  for (std::size_t i = 0; i < orders.size(); ++i) v[i] = fn(orders[i]);
  return v;
}

// ---- Neighbour relations and sampling schemes of the subsampled kinds.
/// The key `neighbours=add-remove|zero-out|replace-one` (default add-remove;
/// the words of fdp/ops/neighbours.hpp).
spec_key neighbours_key();
/// The key `sampling=poisson`: each record joins each batch independently
/// with probability q (the one scheme these kinds account).
spec_key poisson_sampling_key();
neighbour_relation neighbours_of(const spec& s);

// ---- G_mu: the hooks of kinds whose one application is G_mu (gdp, gaussian).
/// mu of the kind's closed form.
double gaussian_mu(const spec& s);
rdp_curve gaussian_rdp(const spec& s, const std::vector<double>& orders);
clt_moments gaussian_clt(const spec& s);
loss_cumulants gaussian_edgeworth(const spec& s);
ledger_form gaussian_ledger(const spec& s, const stored_points*);
/// The ledger's record of G_mu (identity at mu = 0).
ledger_form gaussian_ledger_of(double mu);

}  // namespace fdp::kinds
