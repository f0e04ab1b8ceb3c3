#include "fdp/ops/events.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "fdp/core/error.hpp"
#include "fdp/ops/neighbours.hpp"

namespace fdp {
namespace {

using json = nlohmann::json;

constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxEvents = 100000;
constexpr long double kMaxTimes = 1e12L;
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{64} << 20;

// The document's relation: dp_accounting's REPLACE_SPECIAL is zero-out.
using relation = neighbour_relation;

// The walk over the document: where it is, what it has found.
struct translator {
  relation rel = relation::add_remove;
  std::map<std::string, long double> times;  // spec (without times) -> count
  std::size_t events = 0;

  // A field that is missing or out of its range.
  [[noreturn]] static void refuse(const std::string& path, const std::string& why) {
    throw std::invalid_argument("event " + path + ": " + why);
  }
  // A well-formed event fdp has no sound accounting for.
  [[noreturn]] static void unsupported(const std::string& path, const std::string& why) {
    throw unsupported_event("event " + path + ": " + why);
  }

  static double number(const json& e, const std::string& path, const char* field) {
    if (!e.contains(field) || !e[field].is_number())
      refuse(path, std::string("needs a number '") + field + "'");
    const double v = e[field].get<double>();
    if (!std::isfinite(v)) refuse(path, std::string(field) + " must be finite");
    return v;
  }

  static long long nonnegative_integer(const json& e, const std::string& path, const char* field) {
    if (!e.contains(field) || !e[field].is_number_integer() || e[field].get<long long>() < 0)
      refuse(path, std::string("needs an integer '") + field + "' >= 0");
    return e[field].get<long long>();
  }

  static long double count_of(const json& e, const std::string& path) {
    return static_cast<long double>(nonnegative_integer(e, path, "count"));
  }

  // The subsampled specs' neighbours key for the document's relation.
  std::string neighbours_word() const {
    return rel == relation::add_remove ? "" : ",neighbours=" + to_string(rel);
  }

  void add(const std::string& spec_text, long double count, const std::string& path) {
    if (count <= 0) return;
    try {
      (void)parse_spec(spec_text);  // (a bad parameter is refused here, with its path)
    } catch (const std::invalid_argument& e) {
      refuse(path, e.what());
    }
    long double& n = times[spec_text];
    n += count;
    if (n > kMaxTimes)
      unsupported(path, spec_text + " composed more than 1e12 times: at most 1e12");
  }

  static std::string num(double x) { return detail::format_value(x); }

  void walk(const json& e, long double count, const std::string& path, int depth);
  void leaf(const std::string& type, const json& e, long double count, const std::string& path);
  void poisson(const json& e, long double count, const std::string& path);
  void mixture(const json& e, long double count, const std::string& path);
  void truncated_poisson(const json& e, long double count, const std::string& path);
  void without_replacement(const json& e, long double count, const std::string& path);
  void randomized_response(const json& e, long double count, const std::string& path);
  void discrete_laplace(const json& e, long double count, const std::string& path);
  void discrete_gaussian(const json& e, long double count, const std::string& path);
  void refuse_replace_one(const std::string& type, const std::string& path) const {
    if (rel == relation::replace_one)
      unsupported(path, type +
                            " needs ADD_OR_REMOVE_ONE or REPLACE_SPECIAL neighbours, not "
                            "REPLACE_ONE");
  }
};

void translator::walk(const json& e, long double count, const std::string& path, int depth) {
  if (depth > kMaxDepth) unsupported(path, "nested more than 64 deep: at most 64");
  if (++events > kMaxEvents) unsupported(path, "more than 100000 events in the document");
  if (!e.is_object() || !e.contains("type") || !e["type"].is_string())
    refuse(path, "must be an object with a string 'type' (a DpEvent class name)");
  const std::string type = e["type"];
  if (type == "ComposedDpEvent") {
    if (!e.contains("events") || !e["events"].is_array()) refuse(path, "needs an array 'events'");
    for (std::size_t i = 0; i < e["events"].size(); ++i)
      walk(e["events"][i], count, path + ".events[" + std::to_string(i) + "]", depth + 1);
  } else if (type == "SelfComposedDpEvent") {
    if (!e.contains("event")) refuse(path, "needs an 'event'");
    walk(e["event"], count * count_of(e, path), path + ".event", depth + 1);
  } else {
    leaf(type, e, count, path);
  }
}

void translator::leaf(const std::string& type, const json& e, long double count,
                      const std::string& path) {
  if (type == "NoOpDpEvent") return;
  if (type == "NonPrivateDpEvent") return add("epsdelta:eps=0,delta=1", count, path);
  if (type == "GaussianDpEvent") {
    const double s = number(e, path, "noise_multiplier");
    if (s == 0) return add("epsdelta:eps=0,delta=1", count, path);
    // (replace-one: the sum moves by up to twice a record's bound, as in
    // dp_accounting, whose GaussianDpEvent has sensitivity 1 per record)
    return add("gaussian:sigma=" + num(s) + (rel == relation::replace_one ? ",sensitivity=2" : ""),
               count, path);
  }
  if (type == "LaplaceDpEvent") {
    refuse_replace_one(type, path);
    const double b = number(e, path, "noise_multiplier");
    if (b == 0) return add("epsdelta:eps=0,delta=1", count, path);
    return add("laplace:b=" + num(b), count, path);
  }
  if (type == "EpsilonDeltaDpEvent") {
    return add("epsdelta:eps=" + num(number(e, path, "epsilon")) +
                   ",delta=" + num(number(e, path, "delta")),
               count, path);
  }
  if (type == "ZCDpEvent") {
    if (e.contains("xi") && (!e["xi"].is_number() || e["xi"].get<double>() != 0))
      unsupported(path, "xi > 0 (approximate zCDP) has no sound conversion in fdp; xi must be 0");
    return add("zcdp:rho=" + num(number(e, path, "rho")), count, path);
  }
  if (type == "DiscreteLaplaceDpEvent") return discrete_laplace(e, count, path);
  if (type == "DiscreteGaussianDpEvent") return discrete_gaussian(e, count, path);
  if (type == "RandomizedResponseDpEvent") return randomized_response(e, count, path);
  if (type == "PoissonSampledDpEvent") return poisson(e, count, path);
  if (type == "MixtureOfGaussiansDpEvent") return mixture(e, count, path);
  if (type == "TruncatedSubsampledGaussianDpEvent") return truncated_poisson(e, count, path);
  if (type == "SampledWithoutReplacementDpEvent") return without_replacement(e, count, path);
  if (type == "SampledWithReplacementDpEvent")
    unsupported(path, type + ": no certified route in fdp (Poisson and fixed-size sampling are)");
  unsupported(path, "fdp has no sound accounting for '" + type + "'");
}

void translator::randomized_response(const json& e, long double count, const std::string& path) {
  if (rel == relation::add_remove)
    unsupported(path,
                "RandomizedResponseDpEvent needs REPLACE_ONE or REPLACE_SPECIAL neighbours, "
                "not ADD_OR_REMOVE_ONE");
  const double p = number(e, path, "noise_parameter");
  if (!(p >= 0 && p <= 1)) refuse(path, "noise_parameter " + num(p) + " must be in [0, 1]");
  if (!e.contains("num_buckets") || !e["num_buckets"].is_number_integer() ||
      e["num_buckets"].get<long long>() < 1)
    refuse(path, "needs an integer 'num_buckets' >= 1");
  const long long k = e["num_buckets"].get<long long>();
  if (k == 1) return;  // one bucket reveals nothing
  if (p == 0) return add("epsdelta:eps=0,delta=1", count, path);
  // e^eps = 1 + k (1 - p) / p, rounded up (a larger eps is weaker, still valid)
  const double eps = std::log1p(static_cast<double>(k) * (1 - p) / p) * (1 + 1e-14) + 1e-300;
  add("randomized-response:eps=" + num(eps) + ",k=" + std::to_string(k), count, path);
}

// DLap(a): P(x) ~ e^{-a|x|} (dp_accounting's noise_parameter a), i.e. fdp's
// discrete-laplace with t = 1/a, rounded down (less noise: a weaker, still
// valid guarantee).
void translator::discrete_laplace(const json& e, long double count, const std::string& path) {
  refuse_replace_one("DiscreteLaplaceDpEvent", path);
  const double a = number(e, path, "noise_parameter");
  if (!(a > 0)) refuse(path, "noise_parameter " + num(a) + " must be > 0");
  const double d = number(e, path, "sensitivity");
  add("discrete-laplace:t=" + num(std::nextafter(1.0 / a, 0.0)) + ",sensitivity=" + num(d), count,
      path);
}

// The univariate discrete Gaussian only: dp_accounting's dimension None
// (unknown) or > 1 is the multivariate one, whose privacy fdp does not certify.
void translator::discrete_gaussian(const json& e, long double count, const std::string& path) {
  refuse_replace_one("DiscreteGaussianDpEvent", path);
  if (!e.contains("dimension") || !e["dimension"].is_number_integer() ||
      e["dimension"].get<long long>() != 1)
    unsupported(path,
                "DiscreteGaussianDpEvent: fdp certifies dimension 1 only (the univariate "
                "discrete Gaussian); dimension must be 1");
  const double s = number(e, path, "sigma");
  const double d = e.contains("sensitivity") ? number(e, path, "sensitivity") : 1.0;
  add("discrete-gaussian:sigma=" + num(s) + ",sensitivity=" + num(d), count, path);
}

void translator::poisson(const json& e, long double count, const std::string& path) {
  const double q = number(e, path, "sampling_probability");
  if (!(q >= 0 && q <= 1)) refuse(path, "sampling_probability " + num(q) + " must be in [0, 1]");
  if (!e.contains("event") || !e["event"].is_object() || !e["event"].contains("type"))
    refuse(path, "needs an 'event'");
  const json& inner = e["event"];
  const std::string type = inner["type"].is_string() ? inner["type"].get<std::string>() : "";
  if (type != "GaussianDpEvent" && type != "LaplaceDpEvent")
    unsupported(path + ".event",
                "the event a PoissonSampledDpEvent samples must be a "
                "GaussianDpEvent or LaplaceDpEvent, not '" +
                    type + "'");
  if (type == "LaplaceDpEvent" && rel == relation::replace_one)
    unsupported(path,
                "a Poisson-sampled LaplaceDpEvent needs ADD_OR_REMOVE_ONE or "
                "REPLACE_SPECIAL neighbours, not REPLACE_ONE");
  if (q == 0) return;
  const double s = number(inner, path + ".event", "noise_multiplier");
  if (s == 0) return add("epsdelta:eps=0,delta=1", count, path);
  add(std::string(type == "GaussianDpEvent" ? "subsampled-gaussian:sigma="
                                            : "subsampled-laplace:b=") +
          num(s) + ",q=" + num(q) + neighbours_word(),
      count, path);
}

// Poisson sampling cut to a largest batch (fdp/ops/truncated_poisson.hpp);
// as in dp_accounting, a zero rate, batch or dataset is no event and zero
// noise is not private.
void translator::truncated_poisson(const json& e, long double count, const std::string& path) {
  const long long n = nonnegative_integer(e, path, "dataset_size"),
                  b = nonnegative_integer(e, path, "truncated_batch_size");
  const double q = number(e, path, "sampling_probability");
  if (!(q >= 0 && q <= 1)) refuse(path, "sampling_probability " + num(q) + " must be in [0, 1]");
  const double s = number(e, path, "noise_multiplier");
  if (q == 0 || n == 0 || b == 0) return;
  if (s == 0) return add("epsdelta:eps=0,delta=1", count, path);
  add("subsampled-gaussian:sigma=" + num(s) + ",q=" + num(q) +
          ",sampling=truncated-poisson,max-batch=" + std::to_string(b) +
          ",dataset-size=" + std::to_string(n) + neighbours_word(),
      count, path);
}

// A fixed-size batch of sample_size of source_dataset_size records per step
// (subsampled-gaussian's sampling=without-replacement: the Poisson pair of
// twice the bound, at rate sample_size / source_dataset_size).
void translator::without_replacement(const json& e, long double count, const std::string& path) {
  const long long n = nonnegative_integer(e, path, "source_dataset_size"),
                  m = nonnegative_integer(e, path, "sample_size");
  if (m > n) refuse(path, "sample_size must be <= source_dataset_size");
  if (!e.contains("event") || !e["event"].is_object() || !e["event"].contains("type"))
    refuse(path, "needs an 'event'");
  const json& inner = e["event"];
  if (!inner["type"].is_string() || inner["type"].get<std::string>() != "GaussianDpEvent")
    unsupported(path + ".event",
                "the event a SampledWithoutReplacementDpEvent samples must be a "
                "GaussianDpEvent");
  if (m == 0) return;
  const double s = number(inner, path + ".event", "noise_multiplier");
  if (s == 0) return add("epsdelta:eps=0,delta=1", count, path);
  add("subsampled-gaussian:sigma=" + num(s) +
          ",q=" + num(static_cast<double>(m) / static_cast<double>(n)) +
          ",sampling=without-replacement" + neighbours_word(),
      count, path);
}

void translator::mixture(const json& e, long double count, const std::string& path) {
  refuse_replace_one("MixtureOfGaussiansDpEvent", path);
  const double s = number(e, path, "standard_deviation");
  auto list = [&](const char* field) {
    if (!e.contains(field) || !e[field].is_array() || e[field].empty())
      refuse(path, std::string("needs a non-empty array '") + field + "'");
    std::string out;
    for (const json& x : e[field]) {
      if (!x.is_number()) refuse(path, std::string(field) + " must hold numbers");
      out += (out.empty() ? "" : ";") + num(x.get<double>());
    }
    return out;
  };
  if (e["sensitivities"].size() != e["sampling_probs"].size())
    refuse(path, "sensitivities and sampling_probs must have the same length");
  add("mixture-gaussian:sigma=" + num(s) + ",sensitivities=" + list("sensitivities") +
          ",weights=" + list("sampling_probs"),
      count, path);
}

relation relation_of(const json& doc) {
  if (!doc.contains("neighbouring_relation")) return relation::add_remove;
  const json& r = doc["neighbouring_relation"];
  const std::string s = r.is_string() ? r.get<std::string>() : "";
  if (s == "ADD_OR_REMOVE_ONE") return relation::add_remove;
  if (s == "REPLACE_ONE") return relation::replace_one;
  if (s == "REPLACE_SPECIAL") return relation::zero_out;
  throw std::invalid_argument(
      "neighbouring_relation must be ADD_OR_REMOVE_ONE, REPLACE_ONE or REPLACE_SPECIAL");
}

}  // namespace

std::vector<event_term> event_terms(const std::string& json_text, const std::string& where) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(where + ": not JSON (" + std::string(e.what()) + ")");
  }
  translator t;
  try {
    const bool wrapped = doc.is_object() && doc.contains("event") && !doc.contains("type");
    if (wrapped) t.rel = relation_of(doc);
    t.walk(wrapped ? doc["event"] : doc, 1, wrapped ? "event" : "$", 0);
  } catch (const unsupported_event& e) {
    throw unsupported_event(where + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
  std::vector<event_term> out;
  for (const auto& [text, n] : t.times) out.push_back({text, static_cast<std::int64_t>(n)});
  return out;
}

std::vector<spec> specs_from_events(const std::string& json_text, const std::string& where) {
  std::vector<spec> out;
  for (const auto& [text, n] : event_terms(json_text, where)) {
    const std::string times = std::to_string(n);
    out.push_back(parse_spec(n == 1 ? text
                                    : text + (text.find(':') == std::string::npos ? ":" : ",") +
                                          "times=" + times));
  }
  if (out.empty()) out.push_back(parse_spec("id"));  // (only no-op events: perfect privacy)
  return out;
}

std::vector<spec> read_events_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("events file '" + path + "' cannot be opened");
  std::ostringstream text;
  char buf[1 << 16];
  std::uintmax_t total = 0;
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    total += static_cast<std::uintmax_t>(in.gcount());
    if (total > kMaxFileBytes)
      throw std::invalid_argument("events file '" + path + "': larger than 64 MiB");
    text.write(buf, in.gcount());
  }
  return specs_from_events(text.str(), "events file '" + path + "'");
}

}  // namespace fdp
