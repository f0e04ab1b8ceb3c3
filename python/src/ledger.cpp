// fdp.Ledger: the privacy ledger of fdp/budget/ledger.hpp over the same file
// as `fdp ledger` (same format, same lock, same rules). Every call reads the
// file afresh, as each CLI invocation does, so Python and the CLI can take
// turns on one ledger; writes hold the file's lock from the read to the
// save. The Python layer (python/fdp/_ledger.py) reads the key file.
#include <pybind11/stl.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "bindings.hpp"
#include "fdp/budget/ledger.hpp"

namespace fdp::python {
namespace {

namespace py = pybind11;

py::dict status_of(const accountant& a) {
  interval plan, s;
  {
    py::gil_scoped_release release;
    plan = a.plan_spent();
    s = a.rule_epsilon(plan);
  }
  const filter_level f = a.filter();
  py::dict d;
  d["mode"] = ledger_mode_name(a.mode());
  d["integrity"] = ledger_integrity_name(a.integrity());
  d["budget_epsilon"] = a.budget_epsilon();
  d["delta"] = a.budget_delta();
  d["spent"] = py::make_tuple(s.lower, s.upper);
  d["remaining"] = std::max(0.0, a.budget_epsilon() - s.upper);
  d["plan"] = py::make_tuple(plan.lower, plan.upper);
  d["filter_epsilon"] = f.epsilon;
  d["filter_kind"] = filter_name(f.kind);
  d["entries"] = a.entries().size();
  d["applications"] = a.applications();
  d["exact"] = a.exact();
  return d;
}

// A signed ledger is not written without its key (as `fdp ledger add`): the
// new file would carry a plain checksum and lose its tamper evidence.
accountant load_for(const std::string& path, const std::string& key, bool writing) {
  accountant led = accountant::load(path, key);
  if (writing && led.integrity() == ledger_integrity::hmac_unverified) {
    throw std::invalid_argument("ledger file '" + path +
                                "' is signed (HMAC-SHA256): give its key_file to change it");
  }
  return led;
}

py::dict create(const std::string& path, double budget_eps, double delta, const std::string& mode,
                const std::string& key, bool force) {
  if (mode != "plan" && mode != "adaptive")
    throw std::invalid_argument("mode = '" + mode + "' must be 'plan' or 'adaptive'");
  accountant_options o;
  o.mode = mode == "plan" ? ledger_mode::plan : ledger_mode::adaptive;
  accountant led(budget_eps, delta, o);
  {
    py::gil_scoped_release release;
    const ledger_lock lock(path);  // (two creates of one file: the second sees the first's)
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && !force)
      throw std::invalid_argument("ledger file '" + path +
                                  "' already exists (force=True replaces it)");
    led.save(path, key);
  }
  return status_of(led);
}

// All or nothing, as `fdp ledger add`: every spec read first, the file
// rewritten only if every one fits; budget_exceeded (fdp.BudgetExceeded)
// otherwise.
py::dict add(const std::string& path, const std::vector<std::string>& specs,
             const std::string& label, const std::string& key) {
  if (specs.empty()) throw std::invalid_argument("specs: at least one spec is required");
  std::optional<accountant> led;
  {
    py::gil_scoped_release release;
    const ledger_lock lock(path);
    led.emplace(load_for(path, key, true));
    for (const auto& s : specs) led->validate(s);
    for (const auto& s : specs) led->add(s, label);
    led->save(path, key);
  }
  return status_of(*led);
}

py::dict check(const std::string& path, const std::vector<std::string>& specs,
               const std::string& key) {
  if (specs.empty()) throw std::invalid_argument("specs: at least one spec is required");
  std::optional<accountant> led;
  interval after;
  {
    py::gil_scoped_release release;
    led.emplace(load_for(path, key, false));
    after = led->rule_epsilon_with(specs);
  }
  py::dict d = status_of(*led);
  d["affordable"] = after.upper <= led->budget_epsilon();
  d["after"] = py::make_tuple(after.lower, after.upper);
  return d;
}

py::dict status(const std::string& path, const std::string& key) {
  std::optional<accountant> led;
  {
    py::gil_scoped_release release;
    led.emplace(load_for(path, key, false));
  }
  return status_of(*led);
}

py::list entries(const std::string& path, const std::string& key) {
  std::optional<accountant> led;
  {
    py::gil_scoped_release release;
    led.emplace(load_for(path, key, false));
  }
  py::list out;
  for (const auto& e : led->entries()) out.append(py::make_tuple(e.spec, e.label, e.time));
  return out;
}

}  // namespace

void bind_ledger(py::module_& m) {
  py::register_exception<budget_exceeded>(m, "BudgetExceeded", PyExc_Exception);
  m.def("ledger_create", &create, py::arg("path"), py::arg("budget_eps"), py::arg("delta"),
        py::arg("mode"), py::arg("key"), py::arg("force"));
  m.def("ledger_add", &add, py::arg("path"), py::arg("specs"), py::arg("label"), py::arg("key"));
  m.def("ledger_check", &check, py::arg("path"), py::arg("specs"), py::arg("key"));
  m.def("ledger_status", &status, py::arg("path"), py::arg("key"));
  m.def("ledger_entries", &entries, py::arg("path"), py::arg("key"));
}

}  // namespace fdp::python
