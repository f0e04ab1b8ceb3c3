// fdp ledger: a privacy budget ledger in a JSON file.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>

#include "cli.hpp"
#include "fdp/budget/ledger.hpp"

namespace fdp::cli {
namespace {

// 'add' refused (over budget) and 'check' answering "NOT affordable": not a
// success (0), not bad input (2): a script can tell the three apart.
constexpr int kExitRefused = 4;

// The spent epsilon is a query at the budget's delta; "remaining" is the
// budget minus its certified upper end (a lower bound on what is left).
json status_json(const accountant& a, const std::string& file, const std::string& sub) {
  const interval s = a.spent();
  const double d = a.budget_delta();
  json out = envelope("ledger");
  out["subcommand"] = sub;
  out["file"] = file;
  out["budget"] = {{"delta", d}, {"epsilon", a.budget_epsilon()}};
  out["spent"] = query("delta", d, "epsilon", bracket(s.lower, s.upper));
  out["remaining"] = query("delta", d, "epsilon", num(std::max(0.0, a.budget_epsilon() - s.upper)));
  out["entries"] = a.entries().size();
  out["applications"] = a.applications();
  out["groups"] = a.groups();
  out["exact"] = a.exact();
  out["grid_step"] = a.grid_step();
  return out;
}

void print_status(const accountant& a, const std::string& file) {
  const interval s = a.spent();
  std::cout << "ledger " << file << ": budget (epsilon " << fmt(a.budget_epsilon()) << ", delta "
            << fmt(a.budget_delta()) << ")\n";
  std::cout << "  spent epsilon:     [" << fmt_down(s.lower) << ", " << fmt_up(s.upper) << "]"
            << (a.exact() ? "   (exact: every entry is Gaussian)" : "   (certified bracket)")
            << "\n";
  std::cout << "  remaining epsilon: >= " << fmt_down(std::max(0.0, a.budget_epsilon() - s.upper))
            << "   (budget minus the certified upper bound)\n";
  std::cout << "  entries: " << a.entries().size() << " (" << a.applications()
            << " mechanism applications, " << a.groups() << " distinct guarantees)\n";
}

bool file_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

void only(const args& a, const std::string& sub, const std::vector<std::string>& allowed) {
  for (const char* o : {"budget-eps", "delta", "grid-step", "tolerance", "force", "json"}) {
    if (a.has(o) && std::find(allowed.begin(), allowed.end(), o) == allowed.end()) {
      throw usage_error(std::string("option --") + o + " does not apply to 'fdp ledger " + sub +
                        "'");
    }
  }
}

int ledger_init(const args& a) {
  only(a, "init", {"budget-eps", "delta", "grid-step", "tolerance", "force", "json"});
  const auto& pos = a.positional();
  if (pos.size() != 2) throw usage_error("usage: fdp ledger init --budget-eps E --delta D FILE");
  const std::string file = pos[1];
  const ledger_lock lock(file);  // (two inits of one file: the second sees the first's)
  if (file_exists(file) && !a.flag("force")) {
    throw usage_error("ledger file '" + file + "' already exists (use --force to replace it)");
  }
  accountant_options o;
  o.grid_step = a.number_or("grid-step", 0.0, 1e-6, 0.1);
  o.tolerance = a.number_or("tolerance", o.tolerance, 0, 1, true, true);
  accountant led(a.number("budget-eps", 0, 1e300, true), a.number("delta", 0, 1, true, true), o);
  led.save(file);
  if (a.flag("json"))
    print_json(status_json(led, file, "init"));
  else
    std::cout << "created ledger " << file << " with budget (epsilon " << fmt(led.budget_epsilon())
              << ", delta " << fmt(led.budget_delta()) << ")\n";
  return 0;
}

int ledger_add(const args& a) {
  only(a, "add", {"json"});
  const auto& pos = a.positional();
  if (pos.size() < 3) throw usage_error("usage: fdp ledger add FILE SPEC...");
  const std::string file = pos[1];
  // Held from the read to the write: concurrent adds serialize, each
  // counting the entries of those before it against the budget.
  const ledger_lock lock(file);
  accountant led = accountant::load(file);
  // every spec read first (a bad one is named even after one over budget);
  // all or nothing: the file changes only if every spec fits
  for (std::size_t i = 2; i < pos.size(); ++i) led.validate(pos[i]);
  try {
    for (std::size_t i = 2; i < pos.size(); ++i) led.add(pos[i]);
  } catch (const budget_exceeded& e) {
    return report_error(a.command(), a.flag("json"), kExitRefused, "", e.what());
  }
  led.save(file);
  if (a.flag("json")) {
    print_json(status_json(led, file, "add"));
  } else {
    std::cout << "recorded " << pos.size() - 2 << " spec(s)\n";
    print_status(led, file);
  }
  return 0;
}

// The certified epsilon of the ledger with `specs` added; nothing recorded.
interval epsilon_after(const accountant& led, const std::vector<std::string>& specs) {
  accountant trial = led;
  // (every spec is read first: a bad one is named even after an infinite one)
  for (const auto& s : specs) led.validate(s);
  // Mass at infinite loss above the budget's delta: no finite epsilon
  // (certified without composing, which could need a grid beyond the limit).
  for (const auto& s : specs) {
    if (trial.no_finite_epsilon(s, led.budget_delta())) {
      const double inf = std::numeric_limits<double>::infinity();
      return {inf, inf};
    }
    trial.add_unchecked(s);
  }
  return trial.spent();
}

int ledger_check(const args& a) {
  only(a, "check", {"json"});
  const auto& pos = a.positional();
  if (pos.size() < 3) throw usage_error("usage: fdp ledger check FILE SPEC...");
  const std::string file = pos[1];
  const accountant led = accountant::load(file);
  const interval after = epsilon_after(led, {pos.begin() + 2, pos.end()});
  const bool ok = after.upper <= led.budget_epsilon();
  if (a.flag("json")) {
    json out = status_json(led, file, "check");
    out["affordable"] = ok;
    out["after"] = query("delta", led.budget_delta(), "epsilon", bracket(after.lower, after.upper));
    print_json(out);
  } else {
    std::cout << (ok ? "affordable" : "NOT affordable")
              << ": with these spec(s) the certified epsilon would be [" << fmt_down(after.lower)
              << ", " << fmt_up(after.upper) << "] (budget " << fmt(led.budget_epsilon())
              << " at delta " << fmt(led.budget_delta()) << "); nothing recorded\n";
  }
  return ok ? 0 : kExitRefused;
}

int ledger_status(const args& a) {
  only(a, "status", {"json"});
  const auto& pos = a.positional();
  if (pos.size() != 2) throw usage_error("usage: fdp ledger status FILE");
  const accountant led = accountant::load(pos[1]);
  if (a.flag("json"))
    print_json(status_json(led, pos[1], "status"));
  else
    print_status(led, pos[1]);
  return 0;
}

int run_ledger(const args& a) {
  const auto& pos = a.positional();
  if (pos.empty())
    throw usage_error(
        "a subcommand is required: init, add, status or check (see 'fdp ledger --help')");
  const std::string sub = pos[0];
  if (sub == "init") return ledger_init(a);
  if (sub == "add") return ledger_add(a);
  if (sub == "check") return ledger_check(a);
  if (sub == "status") return ledger_status(a);
  throw usage_error("unknown subcommand '" + sub + "' (init, add, status, check)");
}

FDP_REGISTER_COMMAND(command{
    "ledger",
    "a privacy budget ledger file: init, add (refuses overspending), status, check",
    "usage: fdp ledger init --budget-eps E --delta D FILE [--grid-step H] [--tolerance T] "
    "[--force]\n"
    "       fdp ledger add FILE SPEC... [--json]\n"
    "       fdp ledger status FILE [--json]\n"
    "       fdp ledger check FILE SPEC... [--json]\n\n"
    "A ledger records mechanisms (specs, in order) against a budget (E, D). 'add' composes\n"
    "them with what is recorded and REFUSES (exit 4, nothing recorded, the message gives\n"
    "the spent and requested budgets) when the certified epsilon at D would exceed E; with\n"
    "several specs it is all or nothing. 'check' answers whether specs would fit without\n"
    "recording them (exit 0 if they would, 4 if not). 'status' prints the certified spent\n"
    "bracket. Concurrent 'add's from any number of processes serialize on a lock file\n"
    "(FILE.lock, left beside the ledger): none is lost, and the budget holds.\n"
    "The file is JSON with a SHA-256 checksum over its content: a truncated or hand-edited\n"
    "file is reported and not used. Saves are atomic (temporary file + fsync + rename).\n"
    "The guarantee is for the recorded sequence; see lib/include/fdp/budget/ledger.hpp on\n"
    "choosing mechanisms adaptively.\n\n"
    "examples:\n"
    "  fdp ledger init --budget-eps 3 --delta 1e-5 budget.json\n"
    "  fdp ledger add budget.json laplace:b=10 gaussian:sigma=8,times=20\n"
    "  fdp ledger add budget.json gaussian:sigma=1,times=3     (refused: exit 4)\n"
    "  fdp ledger status budget.json --json\n",
    {{"budget-eps", true, false, "budget epsilon (init)"},
     {"delta", true, false, "budget delta (init)"},
     {"grid-step", true, false, "fixed loss-grid step (init; default automatic)"},
     {"tolerance", true, false, "relative bracket width (init; default 0.005)"},
     {"force", false, false, "replace an existing file (init)"},
     {"json", false, false, "JSON output"}},
    run_ledger,
    true});

}  // namespace
}  // namespace fdp::cli
