// The one JSON contract of every command's --json output (docs/json.md,
// docs/schema/fdp-output.schema.json): the envelope, brackets, queries,
// timing and errors are written here and nowhere else, so that every
// command's output has the same shapes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fdp/budget/calibrate.hpp"

namespace fdp::cli {

using json = nlohmann::ordered_json;

/// The version of the output schema; a change of any shape bumps it.
constexpr int kJsonSchemaVersion = 1;

/// {"fdp": {"version": <project version>, "schema": 1, "command": name}}:
/// every output object starts from it.
json envelope(const std::string& command);

/// A double as JSON: finite numbers as numbers, non-finite as null.
json num(double x);

/// A bracket {"lower": .., "upper": ..}; a non-finite end is null (an
/// unbounded side: an audit's upper end, an epsilon with no finite value).
json bracket(double lower, double upper);

/// A query with the value it was asked at: {at_key: at, value_key: value},
/// e.g. {"delta": 1e-5, "epsilon": {"lower": .., "upper": ..}}.
json query(const char* at_key, double at, const char* value_key, json value);

/// {"seconds": s}: the wall-clock time of the computation.
json timing(double seconds);

/// A calibration's answer (calibrate, dpsgd --eps): {"parameter", "value",
/// "direction", "bracket", "at_limit", "optimum_bound", "certified_gap"}.
json solve_json(const calibration_result& r);

/// Prints a JSON value on stdout with a trailing newline.
void print_json(const json& j);

/// An error or refusal as JSON: the envelope and {"error": {"code",
/// "parameter" (an option name without "--", or null), "message"}}.
json error_json(const std::string& command, int code, const std::string& parameter,
                const std::string& message);

/// Reports an error or a refusal and returns its exit code: with --json
/// the error object on stdout, else "fdp COMMAND: message" on stderr.
int report_error(const std::string& command, bool as_json, int code, const std::string& parameter,
                 const std::string& message);

}  // namespace fdp::cli
