// A piecewise-linear trade-off function, and its privacy-loss distribution.
//
// A curve is the convex, non-increasing polygon through vertices
// (alpha_0 = 0, beta_0) ... (alpha_n = 1, 0) with beta <= 1 - alpha. It stores
// 1 - beta beside beta so that tail quantities (delta(eps) for large eps,
// 1 - f(a) for tiny a) keep full relative precision.
//
// The same object is a discrete privacy-loss distribution (docs/architecture.md): the
// segment from vertex i to i+1 is an atom of P-mass alpha_{i+1} - alpha_i and
// Q-mass beta_i - beta_{i+1} at loss log(Q-mass / P-mass); 1 - beta_0 is the
// Q-mass at loss +inf and 1 - alpha_k (after the last vertex with beta > 0) the
// P-mass at loss -inf. to_pld / from_pld convert exactly (up to rounding).
#pragma once

#include <string>
#include <vector>

#include "fdp/core/interval.hpp"

namespace fdp {

/// A discrete privacy-loss distribution of L = log(dQ/dP): atoms at finite
/// losses (sorted ascending) with their P- and Q-masses, plus the P-mass at
/// -inf (where Q = 0) and the Q-mass at +inf (where P = 0).
struct pld {
  std::vector<double> loss, p, q;
  double p_neg_inf = 0.0;
  double q_pos_inf = 0.0;
};

class curve {
 public:
  struct point {
    double alpha, beta;
  };
  enum class hull_policy {
    strict,    ///< points above the convex hull by more than 1e-9 are an error
    convexify  ///< take the convex hull silently
  };

  /// Builds the trade-off function through `points` (any order). (0, 1) is
  /// added if no point has alpha = 0 and (1, 0) if none has alpha = 1; the
  /// lower convex hull is taken. Throws std::invalid_argument naming the
  /// offending point if a point is outside [0,1]^2 or NaN, above 1 - alpha
  /// (by more than 1e-12), if beta increases with alpha, or (strict policy) if
  /// the points are not convex.
  static curve from_points(std::vector<point> points, hull_policy policy = hull_policy::strict);

  /// Exact conversion from a discrete PLD (masses need not be normalised
  /// exactly; they are used as given).
  static curve from_pld(const pld& d);

  /// Builds from already-valid vertices with their 1 - beta values (internal
  /// use by exact constructions; validated for order and range).
  static curve from_vertices(std::vector<double> alpha, std::vector<double> beta,
                             std::vector<double> one_minus_beta);

  const std::vector<double>& alpha() const { return alpha_; }
  const std::vector<double>& beta() const { return beta_; }
  const std::vector<double>& one_minus_beta() const { return omb_; }
  std::size_t size() const { return alpha_.size(); }

 private:
  std::vector<double> alpha_, beta_, omb_;
};

double beta(const curve& f, double a);
double one_minus_beta(const curve& f, double a);
/// beta(f, a) as a certified bracket when the vertices themselves carry
/// rounding: interior vertices off by at most vertex_rel * min(x, 1 - x)
/// (+ 2 ulps) in alpha and vertex_rel * y (+ 2 ulps) in beta; the ends at
/// alpha = 0 and 1 are exact. Interpolated from the nearer vertex, so a
/// small beta near alpha = 1 keeps its relative precision.
interval beta_bracket(const curve& f, double a, double vertex_rel);
double beta_inverse(const curve& f, double y);
double slope(const curve& f, double a);
/// delta(eps) = max_i (1 - beta_i - e^eps alpha_i), clipped at 0; exact.
double profile_delta(const curve& f, double eps);
/// The curve of T(Q, P): the graph reflected in the diagonal.
curve inverse(const curve& f);
/// True if f == f^{-1} to within tol at every vertex of both.
/// (tol: the largest |f(a) - f^{-1}(a)| at the vertices of either that still
/// counts as equal; 0 asks for exact symmetry, as a loss law's orientation
/// shortcut needs)
bool is_symmetric(const curve& f, double tol = 1e-12);
/// max{a, b} of two trade-off polygons (the maximum of convex functions is
/// convex): exact, through the union of their vertices and their crossings
/// (at a crossing the smaller of the two computed values is kept).
curve pointwise_max(const curve& a, const curve& b);
/// Symmetrization f^S = max{f, f^{-1}} (DRS Prop. 2.4): a trade-off function
/// when f is; exact for curves (the max of two convex polygons).
curve symmetrize_max(const curve& f);
/// min{f, f^{-1}}** (the convex hull used by subsampling, DRS Sec. 4).
curve symmetrize_hull(const curve& f);
/// Exact PLD of the curve (see the header comment).
pld to_pld(const curve& f);

}  // namespace fdp
