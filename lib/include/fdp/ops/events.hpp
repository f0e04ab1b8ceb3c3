// Nested event files: a JSON document of events with the names and fields
// of Google's dp_accounting DpEvent classes, turned into fdp specs, so that
// a pipeline that already builds dp_accounting events can hand them to fdp
// unchanged (docs/cli.md, "Event files").
//
// Document: an event, or {"neighbouring_relation": R, "event": EVENT} with
// R one of ADD_OR_REMOVE_ONE (the default, as dp_accounting's PLD
// accountant), REPLACE_ONE, REPLACE_SPECIAL. An event is an object whose
// "type" is a class name:
//   ComposedDpEvent {events: [...]}, SelfComposedDpEvent {event, count},
//   PoissonSampledDpEvent {sampling_probability, event: Gaussian | Laplace},
//   GaussianDpEvent {noise_multiplier}, LaplaceDpEvent {noise_multiplier},
//   EpsilonDeltaDpEvent {epsilon, delta},
//   RandomizedResponseDpEvent {noise_parameter, num_buckets},
//   DiscreteLaplaceDpEvent {noise_parameter, sensitivity},
//   DiscreteGaussianDpEvent {sigma, sensitivity, dimension (1 only)},
//   ZCDpEvent {rho, xi (0 only)},
//   MixtureOfGaussiansDpEvent {standard_deviation, sensitivities, sampling_probs},
//   NoOpDpEvent {}, NonPrivateDpEvent {}.
// What fdp cannot account soundly (a sampled event other than Gaussian or
// Laplace, Poisson sampling under other than add/remove neighbours, sampling
// without replacement, xi > 0, ...) is refused naming the event's path
// ("events[2].event.event"). Limits: nesting depth 64, 10^5 events, a total
// count per spec of 10^12.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fdp/ops/spec.hpp"

namespace fdp {

/// An event fdp has no sound accounting for: its type, or its type under the
/// document's neighbouring relation. A caller error like any other (the CLI
/// exits 2), told apart from a bad field so that the Python accountant can
/// raise dp_accounting's UnsupportedEventError for it and ValueError for the rest.
class unsupported_event : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// One spec (without times=) and how many times the document composes it.
struct event_term {
  std::string spec;
  std::int64_t times = 0;
};

/// The terms of an event document, equal specs merged, counts multiplied
/// through SelfComposed (empty when every event is a no-op). Throws
/// unsupported_event or std::invalid_argument (a bad field), naming the path.
/// This is the one translation of events into specs: the CLI's event files
/// and the Python module's dp_accounting accountant both use it.
std::vector<event_term> event_terms(const std::string& json_text, const std::string& where);

/// The specs of an event document (equal leaves merged, counts multiplied
/// through SelfComposed). A NonPrivateDpEvent gives epsdelta:eps=0,delta=1
/// (no privacy). Throws std::invalid_argument naming the path and field.
std::vector<spec> specs_from_events(const std::string& json_text, const std::string& where);

/// The same for a file (at most 64 MiB).
std::vector<spec> read_events_file(const std::string& path);

}  // namespace fdp
