// Event documents (fdp/ops/events.hpp): the one translation of
// dp_accounting-shaped events into specs, shared with the CLI's --events.
// fdp::unsupported_event becomes _fdp.UnsupportedEventError (an Exception, as
// dp_accounting's); a bad field stays a ValueError.
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "fdp/ops/events.hpp"

namespace fdp::python {

namespace py = pybind11;

void bind_events(py::module_& m) {
  py::register_exception<unsupported_event>(m, "UnsupportedEventError", PyExc_Exception);
  m.def(
      "event_terms",
      [](const std::string& json_text) {
        std::vector<std::pair<std::string, std::int64_t>> out;
        for (auto& t : event_terms(json_text, "events")) out.emplace_back(t.spec, t.times);
        return out;
      },
      py::arg("json_text"),
      "The (spec, times) terms of an event document (the CLI's --events format).");
}

}  // namespace fdp::python
