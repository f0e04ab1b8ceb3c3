// Certified polygons around a group power 1 - (1 - f)^{o k} (DRS Thm 2.14),
// and directed evaluations of them (internal to group.cpp).
//
// The power is taken on the map T = 1 - f (concave, non-decreasing, T(x) >= x)
// by repeated squaring, as group.cpp's polygon power does, but every vertex
// carries bounds instead of one rounded value (group_bounds.cpp):
//  - a lower chain: values below T^j at the breakpoints, by directed
//    interpolation; chords of points below a concave function lie below it,
//    so the polygon through them is below T^j everywhere, whatever the
//    rounding of the breakpoints' positions;
//  - an upper chain: at each breakpoint a cone, a value above T^j and slope
//    bounds (at least every slope of T^j to the right, at most every slope to
//    the left), so that the cone lies above T^j everywhere. A composition's
//    slopes are products of slopes (chain rule), so cones compose.
// Every arithmetic step is rounded outward (directed.hpp), and values next to
// 1 are carried as 1 - value. The result: a polygon at or below the power
// (from the cones, with a vertex where two neighbouring cones cross) and one
// at or above it (from the lower chain), both exactly, not up to rounding.
#pragma once

#include <cstdint>
#include <vector>

#include "fdp/core/curve.hpp"
#include "fdp/core/families.hpp"

namespace fdp::detail {

/// lower <= 1 - (1 - f)^{o k} <= upper pointwise, each polygon read as the
/// piecewise-linear function through its vertices (not necessarily convex),
/// with each vertex's beta and 1 - beta both valid bounds.
struct group_polygons {
  curve lower, upper;
};

/// How the input polygon is read.
enum class group_input {
  as_given,     ///< the polygon through f's vertices, either of beta and 1 - beta (an
                ///< enclosure of both); for a bound of a numeric composition, f is that bound
  symmetrized,  ///< f_sym = min{f, f^-1}** (the guarantee of both orders of the
                ///< neighbours), built exactly from the vertices (beta as given)
};

/// Throws fdp::evaluation_error beyond 2e7 breakpoints (k too large).
group_polygons group_bounds(const curve& f, std::int64_t k, group_input input);
/// f_{eps,delta} from its lines (its kink is not a double); delta_rel: the
/// relative rounding of a computed delta (a composition's total delta).
group_polygons group_bounds(const eps_delta& f, std::int64_t k, double delta_rel = 0.0);
/// A polygon at or below and one at or above the polygon f stands for, when
/// its vertices carry rounding (a composition's k-fold polygon): interior
/// vertices off by at most vertex_rel min(x, 1 - x) + 2 ulps in alpha,
/// (vertex_rel + 2 ulps) y in beta and as much relative to 1 - y in the
/// stored 1 - beta (the k-fold polygon sums both from their small ends), the
/// ends alpha = 0, 1 exact (fdp/core/curve.hpp, beta_bracket, reads the
/// beta side alone). f must be convex.
group_polygons rounded_polygon_bounds(const curve& f, double vertex_rel);
/// Bounds from two polygons, one at or below a trade-off function and one at
/// or above it (a numeric composition's): the power of each.
group_polygons group_bounds(const curve& below, const curve& above, std::int64_t k);

/// A polygon from below / above, evaluated with outward rounding: each
/// result is a bound on the polygon's own value (and so on the truth it
/// bounds). beta at alpha; delta(eps) = sup_a 1 - f(a) - e^eps a; the GDP
/// summary sup_a Phi^{-1}(1 - a) - Phi^{-1}(f(a)) (+inf if f(0) < 1 or f
/// reaches 0 before 1).
double beta_below(const curve& lower, double alpha);
double beta_above(const curve& upper, double alpha);
double delta_below(const curve& upper, double eps);
double delta_above(const curve& lower, double eps);
double mu_below(const curve& upper);
double mu_above(const curve& lower);

/// A polygon at or above every trade-off function f with
/// f(a) <= max_j (1 - d_j - s_j a) on [0, 1] (d_j in [0, 1], s_j >= 0 finite),
/// exactly: the lines' envelope is found with exact orientation tests, its
/// vertex values are rounded up, and 1 - beta is taken from the d_j, so
/// small deltas keep their relative precision (no 1 - (1 - d)).
curve polygon_above_lines(const std::vector<double>& d, const std::vector<double>& s);

/// e^eps * a >= 0 rounded down / up (also where e^eps overflows).
double exp_times_dn(double eps, double a);
double exp_times_up(double eps, double a);

}  // namespace fdp::detail
