// Event files (fdp/ops/events.hpp): dp_accounting-shaped JSON documents
// become the specs they describe; what fdp cannot account soundly is
// refused naming the event's path.
#include "fdp/ops/events.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "fdp/ops/compose.hpp"

namespace fdp {
namespace {

std::vector<std::string> texts(const std::vector<spec>& specs) {
  std::vector<std::string> out;
  for (const auto& s : specs) out.push_back(s.text);
  return out;
}

TEST(Events, NestedEventsBecomeTheirSpecs) {
  const std::string doc = R"({"neighbouring_relation": "ADD_OR_REMOVE_ONE", "event":
    {"type": "ComposedDpEvent", "events": [
      {"type": "SelfComposedDpEvent", "count": 100, "event":
        {"type": "PoissonSampledDpEvent", "sampling_probability": 0.01,
         "event": {"type": "GaussianDpEvent", "noise_multiplier": 1.5}}},
      {"type": "SelfComposedDpEvent", "count": 3, "event":
        {"type": "ComposedDpEvent", "events": [
          {"type": "LaplaceDpEvent", "noise_multiplier": 2},
          {"type": "NoOpDpEvent"},
          {"type": "ZCDpEvent", "rho": 0.5, "xi": 0}]}},
      {"type": "LaplaceDpEvent", "noise_multiplier": 2},
      {"type": "EpsilonDeltaDpEvent", "epsilon": 0.5, "delta": 1e-6}]}})";
  // (equal leaves merged: 3 + 1 Laplace; counts multiplied through SelfComposed)
  const std::vector<std::string> want = {"epsdelta:eps=0.5,delta=1e-06", "laplace:b=2,times=4",
                                         "subsampled-gaussian:sigma=1.5,q=0.01,times=100",
                                         "zcdp:rho=0.5,times=3"};
  EXPECT_EQ(texts(specs_from_events(doc, "doc")), want);
  // the same composition as the hand-written specs
  std::vector<spec> hand;
  for (const auto& t : want) hand.push_back(parse_spec(t));
  const interval a = compose(specs_from_events(doc, "doc")).epsilon(1e-5);
  const interval b = compose(hand).epsilon(1e-5);
  EXPECT_EQ(a.lower, b.lower);
  EXPECT_EQ(a.upper, b.upper);
}

TEST(Events, OtherRelationsMixturesAndNonPrivateEvents) {
  const auto rr = specs_from_events(
      R"({"neighbouring_relation": "REPLACE_ONE", "event": {"type": "RandomizedResponseDpEvent",
          "noise_parameter": 0.5, "num_buckets": 2}})",
      "rr");
  // p = 0.5, k = 2: e^eps = 1 + 2 (0.5)/0.5 = 3, rounded up
  ASSERT_EQ(rr.size(), 1u);
  EXPECT_NEAR(rr[0].number("eps"), std::log(3.0), 1e-12);
  EXPECT_GE(rr[0].number("eps"), std::log(3.0));
  const auto mix = specs_from_events(
      R"({"type": "MixtureOfGaussiansDpEvent", "standard_deviation": 2,
          "sensitivities": [0, 1], "sampling_probs": [0.9, 0.1]})",
      "mix");
  EXPECT_EQ(texts(mix),
            std::vector<std::string>{"mixture-gaussian:sigma=2,sensitivities=0;1,weights=0.9;0.1"});
  // truncated Poisson: the subsampled Gaussian's truncated-poisson sampling,
  // under the document's relation; an empty sample is no event
  const auto trunc = specs_from_events(
      R"({"neighbouring_relation": "REPLACE_ONE", "event": {"type": "ComposedDpEvent", "events": [
          {"type": "TruncatedSubsampledGaussianDpEvent", "dataset_size": 1000,
           "sampling_probability": 0.05, "truncated_batch_size": 60, "noise_multiplier": 1.0},
          {"type": "TruncatedSubsampledGaussianDpEvent", "dataset_size": 1000,
           "sampling_probability": 0.05, "truncated_batch_size": 0, "noise_multiplier": 1.0}]}})",
      "trunc");
  EXPECT_EQ(texts(trunc), std::vector<std::string>{
                              "subsampled-gaussian:sigma=1,q=0.05,sampling=truncated-poisson,"
                              "max-batch=60,dataset-size=1000,neighbours=replace-one"});
  // fixed-size batches: the subsampled Gaussian's without-replacement sampling
  const auto wor = specs_from_events(
      R"({"type": "SampledWithoutReplacementDpEvent", "source_dataset_size": 1000,
          "sample_size": 10, "event": {"type": "GaussianDpEvent", "noise_multiplier": 2}})",
      "wor");
  EXPECT_EQ(texts(wor), std::vector<std::string>{
                            "subsampled-gaussian:sigma=2,q=0.01,sampling=without-replacement"});
  // DLap(a), P(x) ~ e^{-a|x|}: t = 1/a rounded down, so eps = D a or a hair more
  const auto dl = specs_from_events(
      R"({"type": "DiscreteLaplaceDpEvent", "noise_parameter": 0.5, "sensitivity": 2})", "dl");
  ASSERT_EQ(dl.size(), 1u);
  EXPECT_LT(dl[0].number("t"), 2.0);
  EXPECT_GT(dl[0].number("t"), 2.0 * (1 - 1e-15));
  const interval e0 = compose(dl).epsilon(0.0);
  EXPECT_GE(e0.upper, 1.0);
  EXPECT_LE(e0.lower, 1.0 + 1e-12);
  EXPECT_EQ(texts(specs_from_events(R"({"type": "DiscreteGaussianDpEvent", "sigma": 3,
      "sensitivity": 2, "dimension": 1})",
                                    "dg")),
            std::vector<std::string>{"discrete-gaussian:sigma=3,sensitivity=2"});
  const auto np = specs_from_events(R"({"type": "NonPrivateDpEvent"})", "np");
  EXPECT_TRUE(std::isinf(compose(np).epsilon(1e-5).lower));
  EXPECT_EQ(texts(specs_from_events(R"({"type": "NoOpDpEvent"})", "noop")),
            std::vector<std::string>{"id"});
}

// The relation reaches the specs: a Gaussian's sum moves by twice a record's
// bound under REPLACE_ONE (dp_accounting's convention), and Poisson-sampled
// events take the matching neighbours word.
TEST(Events, TheRelationReachesTheSpecs) {
  auto one = [](const std::string& rel, const std::string& event) {
    return texts(specs_from_events(
        R"({"neighbouring_relation": ")" + rel + R"(", "event": )" + event + "}", "doc"));
  };
  const std::string g = R"({"type": "GaussianDpEvent", "noise_multiplier": 2})";
  const std::string pg = R"({"type": "PoissonSampledDpEvent", "sampling_probability": 0.1,
      "event": {"type": "GaussianDpEvent", "noise_multiplier": 2}})";
  EXPECT_EQ(one("REPLACE_ONE", g), std::vector<std::string>{"gaussian:sigma=2,sensitivity=2"});
  EXPECT_EQ(one("REPLACE_SPECIAL", g), std::vector<std::string>{"gaussian:sigma=2"});
  EXPECT_EQ(one("REPLACE_ONE", pg),
            std::vector<std::string>{"subsampled-gaussian:sigma=2,q=0.1,neighbours=replace-one"});
  EXPECT_EQ(one("REPLACE_SPECIAL", pg),
            std::vector<std::string>{"subsampled-gaussian:sigma=2,q=0.1,neighbours=zero-out"});
}

// unsupported: refused as an event fdp cannot account (fdp::unsupported_event),
// rather than for a bad field (std::invalid_argument)
void expect_refused(const std::string& doc, const std::string& needle, bool unsupported) {
  try {
    specs_from_events(doc, "doc");
    ADD_FAILURE() << doc << ": not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << e.what() << " (expected '" << needle << "')";
    EXPECT_EQ(dynamic_cast<const unsupported_event*>(&e) != nullptr, unsupported) << e.what();
  }
}

TEST(Events, RefusalsNameTheEventPath) {
  expect_refused(R"({"type": "ComposedDpEvent", "events": [{"type": "GaussianDpEvent",
      "noise_multiplier": 1}, {"type": "PoissonSampledDpEvent", "sampling_probability": 0.1,
      "event": {"type": "EpsilonDeltaDpEvent", "epsilon": 1, "delta": 0}}]})",
                 "$.events[1].event: the event a PoissonSampledDpEvent samples must be", true);
  expect_refused(
      R"({"neighbouring_relation": "REPLACE_ONE", "event": {"type":
      "PoissonSampledDpEvent", "sampling_probability": 0.1, "event": {"type": "LaplaceDpEvent",
      "noise_multiplier": 1}}})",
      "event event: a Poisson-sampled LaplaceDpEvent needs ADD_OR_REMOVE_ONE or REPLACE_SPECIAL",
      true);
  expect_refused(R"({"type": "SampledWithReplacementDpEvent", "source_dataset_size": 10,
      "sample_size": 2, "event": {"type": "GaussianDpEvent", "noise_multiplier": 1}})",
                 "no certified route", true);
  expect_refused(R"({"type": "SampledWithoutReplacementDpEvent", "source_dataset_size": 10,
      "sample_size": 2, "event": {"type": "LaplaceDpEvent", "noise_multiplier": 1}})",
                 "must be a GaussianDpEvent", true);
  expect_refused(R"({"type": "SampledWithoutReplacementDpEvent", "source_dataset_size": 10,
      "sample_size": 20, "event": {"type": "GaussianDpEvent", "noise_multiplier": 1}})",
                 "sample_size must be <= source_dataset_size", false);
  expect_refused(R"({"type": "ZCDpEvent", "rho": 1, "xi": 0.1})", "xi must be 0", true);
  expect_refused(R"({"type": "DiscreteGaussianDpEvent", "sigma": 3, "sensitivity": 1})",
                 "dimension must be 1", true);
  expect_refused(R"({"neighbouring_relation": "REPLACE_ONE", "event": {"type":
      "DiscreteLaplaceDpEvent", "noise_parameter": 1, "sensitivity": 1}})",
                 "DiscreteLaplaceDpEvent needs ADD_OR_REMOVE_ONE", true);
  expect_refused(R"({"type": "DiscreteLaplaceDpEvent", "noise_parameter": 0, "sensitivity": 1})",
                 "noise_parameter 0 must be > 0", false);
  expect_refused(R"({"type": "RandomizedResponseDpEvent", "noise_parameter": 0.5,
      "num_buckets": 2})",
                 "REPLACE_ONE or REPLACE_SPECIAL neighbours, not ADD_OR_REMOVE_ONE", true);
  expect_refused(R"({"type": "MixtureOfGaussiansDpEvent", "standard_deviation": 1,
      "sensitivities": [0, 1], "sampling_probs": [1]})",
                 "same length", false);
  expect_refused(R"({"type": "TruncatedSubsampledGaussianDpEvent", "dataset_size": 10.5,
      "sampling_probability": 0.1, "truncated_batch_size": 3, "noise_multiplier": 1})",
                 "'dataset_size' >= 0", false);
  expect_refused(R"({"type": "SelfComposedDpEvent", "count": -1, "event": {"type":
      "NoOpDpEvent"}})",
                 "count", false);
  expect_refused(R"({"type": "TreeAggregationDpEvent"})",
                 "no sound accounting for 'TreeAggregationDpEvent'", true);
  expect_refused(R"({"type": "GaussianDpEvent", "noise_multiplier": -1})", "sigma", false);
  expect_refused(R"({"neighbouring_relation": "SWAP", "event": {"type": "NoOpDpEvent"}})",
                 "neighbouring_relation must be", false);
  expect_refused("{not json", "not JSON", false);
  std::string deep = R"({"type": "NoOpDpEvent"})";
  for (int i = 0; i < 70; ++i)
    deep = R"({"type": "SelfComposedDpEvent", "count": 1, "event": )" + deep + "}";
  expect_refused(deep, "nested more than 64 deep", true);
  std::string many = R"({"type": "SelfComposedDpEvent", "count": 1000000000, "event": )"
                     R"({"type": "SelfComposedDpEvent", "count": 1000000000, "event": )"
                     R"({"type": "LaplaceDpEvent", "noise_multiplier": 1}}})";
  expect_refused(many, "more than 1e12 times", true);
  EXPECT_THROW(read_events_file("/nonexistent/events.json"), std::invalid_argument);
}

// event_terms: the specs before times= is attached, each with its count (what
// the Python accountant merges across compose calls); none for no-ops.
TEST(Events, TermsCarryTheirCounts) {
  const auto t = event_terms(R"({"type": "ComposedDpEvent", "events": [
      {"type": "SelfComposedDpEvent", "count": 1000000, "event":
        {"type": "SelfComposedDpEvent", "count": 1000, "event":
          {"type": "GaussianDpEvent", "noise_multiplier": 100}}},
      {"type": "GaussianDpEvent", "noise_multiplier": 100},
      {"type": "NoOpDpEvent"}]})",
                             "doc");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].spec, "gaussian:sigma=100");
  EXPECT_EQ(t[0].times, 1000000001);
  EXPECT_TRUE(event_terms(R"({"type": "NoOpDpEvent"})", "doc").empty());
}

}  // namespace
}  // namespace fdp
