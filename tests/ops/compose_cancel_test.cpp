// Cooperative cancellation (fdp/core/cancel.hpp): a composition under a set
// flag stops with fdp::cancelled, its helper threads included; without a
// scope, or with the flag clear, nothing changes.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "fdp/core/cancel.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp {
namespace {

// (a PLD composition, asymmetric: both sides and both orientations on threads)
std::vector<spec> dpsgd_like() {
  return {parse_spec("subsampled-gaussian:sigma=1,q=0.01,times=1000"),
          parse_spec("laplace:b=30,times=7")};
}

TEST(Cancel, ASetFlagStopsTheComposition) {
  std::atomic<bool> stop{true};
  cancel_scope scope(&stop);
  EXPECT_THROW(compose(dpsgd_like()), cancelled);
}

TEST(Cancel, AClearFlagOrNoScopeChangesNothing) {
  const interval plain = compose(dpsgd_like()).epsilon(1e-5);
  std::atomic<bool> stop{false};
  cancel_scope scope(&stop);
  const interval scoped = compose(dpsgd_like()).epsilon(1e-5);
  EXPECT_EQ(plain.lower, scoped.lower);
  EXPECT_EQ(plain.upper, scoped.upper);
}

TEST(Cancel, ScopesNestAndRestore) {
  std::atomic<bool> outer{false}, inner{true};
  cancel_scope a(&outer);
  {
    cancel_scope b(&inner);
    EXPECT_EQ(current_cancel_flag(), &inner);
    EXPECT_THROW(throw_if_cancelled("here"), cancelled);
  }
  EXPECT_EQ(current_cancel_flag(), &outer);
  EXPECT_NO_THROW(throw_if_cancelled("here"));
}

// A flag set from another thread while the composition runs (it takes about
// a second uninterrupted, 20 times the wait): it stops, through the engine's
// own threads (how soon is not asserted).
TEST(Cancel, AFlagSetFromAnotherThreadStopsAFineComposition) {
  std::atomic<bool> stop{false};
  auto run = std::async(std::launch::async, [&stop] {
    cancel_scope scope(&stop);
    compose_options o;
    o.tolerance = 1e-7;  // (many refinements: long enough to be caught running)
    return compose(dpsgd_like(), o);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stop = true;
  try {
    run.get();
    ADD_FAILURE() << "finished despite the flag";
  } catch (const cancelled& e) {
    EXPECT_NE(std::string(e.what()).find("compose: cancelled"), std::string::npos);
  }
}

}  // namespace
}  // namespace fdp
