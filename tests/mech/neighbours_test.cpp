// Neighbour distances: each relation's formula on hand-made pairs, and every
// pair the catalogue itself offers (exposing pairs, used by the audit
// benchmarks and docs) is a pair of neighbours under its own relation.
#include "fdp/mech/neighbours.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "fdp/mech/registry.hpp"

namespace fdp::mech {
namespace {

neighbour_relation rel(neighbour_relation::kind k, double bound, bool monotone = false) {
  return {k, bound, monotone, "test relation"};
}

TEST(NeighbourDistance, NormsCountSteps) {
  using k = neighbour_relation::kind;
  EXPECT_EQ(neighbour_distance(rel(k::l1, 1), {0}, {0}), 0);
  EXPECT_EQ(neighbour_distance(rel(k::l1, 1), {0}, {1}), 1);
  EXPECT_EQ(neighbour_distance(rel(k::l1, 1), {0}, {5}), 5);  // the false alarm
  EXPECT_EQ(neighbour_distance(rel(k::l1, 1), {0}, {1.5}), 2);
  EXPECT_EQ(neighbour_distance(rel(k::l1, 1), {0, 0}, {0.5, 0.5}), 1);
  EXPECT_EQ(neighbour_distance(rel(k::l1, 1), {0, 0}, {0.75, 0.5}), 2);
  EXPECT_EQ(neighbour_distance(rel(k::l1, 2), {1}, {-3}), 2);
  // l2: (0.6, 0.8) has norm 1 up to rounding, and counts as one step.
  EXPECT_EQ(neighbour_distance(rel(k::l2, 1), {0, 0}, {0.6, 0.8}), 1);
  EXPECT_EQ(neighbour_distance(rel(k::l2, 1), {0, 0}, {1, 1}), 2);
  EXPECT_EQ(neighbour_distance(rel(k::l1, 0.3), {0}, {0.1 + 0.2}), 1);
  EXPECT_EQ(neighbour_distance(rel(k::linf, 1), {0, 0, 0}, {1, -1, 1}), 1);
  EXPECT_EQ(neighbour_distance(rel(k::linf, 1), {0, 0, 0}, {1, -3, 1}), 3);
}

TEST(NeighbourDistance, MonotoneAndReplace) {
  using k = neighbour_relation::kind;
  // Monotone: all answers move one way per step, so mixed signs take two.
  EXPECT_EQ(neighbour_distance(rel(k::linf, 1, true), {0, 0}, {1, 1}), 1);
  EXPECT_EQ(neighbour_distance(rel(k::linf, 1, true), {0, 0}, {1, 0}), 1);
  EXPECT_EQ(neighbour_distance(rel(k::linf, 1, true), {0, 0}, {1, -1}), 2);
  EXPECT_EQ(neighbour_distance(rel(k::linf, 1, true), {0, 0}, {2, -1}), 3);
  EXPECT_EQ(neighbour_distance(rel(k::replace, 3), {0}, {3}), 1);
  EXPECT_EQ(neighbour_distance(rel(k::replace, 3), {2}, {2}), 0);
  EXPECT_THROW(neighbour_distance(rel(k::l1, 1), {0}, {0, 1}), std::invalid_argument);
  // Far apart: saturates instead of overflowing.
  EXPECT_GT(neighbour_distance(rel(k::l1, 1), {-1e308}, {1e308}), 1000000);
}

TEST(NeighbourDistance, CataloguePairsAreNeighbours) {
  for (const auto& info : catalogue()) {
    SCOPED_TRACE(info.name);
    const auto m = make_mechanism(info.example_spec);
    const auto r = m->neighbours();
    EXPECT_FALSE(r.text.empty());
    for (const auto& p : m->exposing_pairs()) {
      SCOPED_TRACE(p.note);
      EXPECT_LE(neighbour_distance(r, p.input0, p.input1), 1);
    }
  }
}

}  // namespace
}  // namespace fdp::mech
