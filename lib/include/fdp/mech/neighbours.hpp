// How far apart two answer vectors are under a mechanism's neighbour
// relation: the fewest neighbour steps that lead from one to the other.
// The auditor needs it twice: a pair that is not neighbours (distance > 1)
// cannot show a violation of a per-neighbour claim (an audit of Laplace on
// inputs 0 and 5 "found" epsilon >= 3.7 against eps = 1), and a group audit
// on inputs at distance k tests the k-fold group guarantee instead
// (Dong, Roth & Su 2019, Thm 2.14).
#pragma once

#include <cstdint>
#include <vector>

#include "fdp/mech/mechanism.hpp"

namespace fdp::mech {

/// The smallest k >= 0 such that a chain of k + 1 answer vectors, each a
/// neighbour of the next, leads from a to b (0 when a == b).
///  - l1, l2, linf with bound B: ceil(||a - b|| / B); the straight segment
///    split into k equal steps is such a chain, and by the triangle
///    inequality no shorter one exists;
///  - linf monotone: every step moves all answers one way, so the upward
///    and downward moves are separate steps: ceil(max_i (b_i - a_i)^+ / B)
///    + ceil(max_i (a_i - b_i)^+ / B);
///  - replace: 1 if the vectors differ, else 0.
/// A distance within 1e-9 relative of an integer counts as that integer
/// (inputs such as 0.1 + 0.2 vs 0.3 should not fail on rounding).
/// Throws std::invalid_argument if the lengths differ.
std::int64_t neighbour_distance(const neighbour_relation& r, const std::vector<double>& a,
                                const std::vector<double>& b);

}  // namespace fdp::mech
