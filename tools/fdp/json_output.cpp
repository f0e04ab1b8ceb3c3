#include "json_output.hpp"

#include <cmath>
#include <iostream>

#ifndef FDP_VERSION
#error "FDP_VERSION (the project version) is defined by tools/CMakeLists.txt"
#endif

namespace fdp::cli {

json envelope(const std::string& command) {
  json j;
  j["fdp"] = {{"version", FDP_VERSION}, {"schema", kJsonSchemaVersion}, {"command", command}};
  return j;
}

json num(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json bracket(double lower, double upper) {
  json j;
  j["lower"] = num(lower);
  j["upper"] = num(upper);
  return j;
}

json query(const char* at_key, double at, const char* value_key, json value) {
  json j;
  j[at_key] = num(at);
  j[value_key] = std::move(value);
  return j;
}

json timing(double seconds) { return {{"seconds", seconds}}; }

json solve_json(const calibration_result& r) {
  return {{"parameter", r.param},
          {"value", num(r.value)},
          {"direction", r.smallest ? "smallest" : "largest"},
          {"bracket", bracket(r.lo, r.hi)},
          {"at_limit", r.at_limit},
          {"optimum_bound", num(r.certified_optimum_bound)},
          {"certified_gap", num(r.certified_gap)}};
}

void print_json(const json& j) { std::cout << j.dump(1) << "\n"; }

json error_json(const std::string& command, int code, const std::string& parameter,
                const std::string& message) {
  json j = envelope(command);
  j["error"] = {{"code", code},
                {"parameter", parameter.empty() ? json(nullptr) : json(parameter)},
                {"message", message}};
  return j;
}

int report_error(const std::string& command, bool as_json, int code, const std::string& parameter,
                 const std::string& message) {
  if (as_json) {
    std::cout.flush();
    print_json(error_json(command, code, parameter, message));
  } else {
    std::cerr << "fdp " << command << ": " << message << "\n";
  }
  return code;
}

}  // namespace fdp::cli
