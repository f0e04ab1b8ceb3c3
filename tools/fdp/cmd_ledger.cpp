// fdp ledger: a privacy budget ledger in a JSON file.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>

#include "cli.hpp"
#include "fdp/budget/ledger.hpp"
#include "fdp/core/bounded_reader.hpp"

namespace fdp::cli {
namespace {

// 'add' refused (over budget) and 'check' answering "NOT affordable": not a
// success (0), not bad input (2): a script can tell the three apart.
constexpr int kExitRefused = 4;

// The key of --key FILE: the file's bytes, at least 16 of them (a short key
// is guessable), at most 4 KiB (read by the bounded reader).
std::string read_key(const args& a) {
  if (!a.has("key")) return "";
  const std::string path = a.value("key");
  std::string k;
  try {
    k = read_bounded_file(path, "key file", 4096);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what(), "key");
  }
  if (k.size() < 16) {
    throw usage_error("key file '" + path + "' holds " + std::to_string(k.size()) +
                          " bytes; a key needs at least 16 (e.g. head -c 32 /dev/urandom > KEY)",
                      "key");
  }
  return k;
}

std::string integrity_text(const accountant& a) {
  switch (a.integrity()) {
    case ledger_integrity::hmac_verified:
      return "HMAC-SHA256 verified with the key";
    case ledger_integrity::hmac_unverified:
      return "UNVERIFIED: the file has an HMAC tag but no --key was given to check it";
    case ledger_integrity::checksum:
      return "checksum only (detects accidents, not deliberate edits; use --key to sign)";
    case ledger_integrity::none:
      break;
  }
  return "new";
}

json filter_json(const filter_level& f) {
  return {{"epsilon", num(f.epsilon)},
          {"kind", filter_name(f.kind)},
          {"order", f.kind == filter_kind::rdp ? num(f.order) : json(nullptr)}};
}

json status_json(const accountant& a, const std::string& file, const std::string& sub) {
  const interval plan = a.plan_spent(), s = a.rule_epsilon(plan);
  const double d = a.budget_delta();
  json out = envelope("ledger");
  out["subcommand"] = sub;
  out["file"] = file;
  out["mode"] = ledger_mode_name(a.mode());
  out["integrity"] = ledger_integrity_name(a.integrity());
  out["budget"] = {{"delta", d}, {"epsilon", a.budget_epsilon()}};
  out["spent"] = query("delta", d, "epsilon", bracket(s.lower, s.upper));
  out["remaining"] = query("delta", d, "epsilon", num(std::max(0.0, a.budget_epsilon() - s.upper)));
  out["plan"] = query("delta", d, "epsilon", bracket(plan.lower, plan.upper));
  out["filter"] = filter_json(a.filter());
  out["entries"] = a.entries().size();
  out["applications"] = a.applications();
  out["groups"] = a.groups();
  out["exact"] = a.exact();
  out["grid_step"] = a.grid_step();
  return out;
}

void print_status(const accountant& a, const std::string& file) {
  const interval plan = a.plan_spent(), s = a.rule_epsilon(plan);
  const filter_level f = a.filter();
  std::cout << "ledger " << file << ": budget (epsilon " << fmt(a.budget_epsilon()) << ", delta "
            << fmt(a.budget_delta()) << "), mode " << ledger_mode_name(a.mode()) << "\n";
  std::cout << "  integrity: " << integrity_text(a) << "\n";
  if (a.loaded_version() == 1) {
    std::cout << "  format: version 1 (legacy: read as a plan ledger, the rule that admitted its "
                 "entries; the next add rewrites it as version 2)\n";
  }
  std::cout << "  adaptive filter epsilon: " << fmt_up(f.epsilon) << "   (" << filter_name(f.kind)
            << (f.kind == filter_kind::rdp ? " at order " + fmt(f.order) : std::string())
            << "; valid when each mechanism is chosen after seeing earlier outputs)\n";
  std::cout << "  plan composition:        [" << fmt_down(plan.lower) << ", " << fmt_up(plan.upper)
            << "]" << (a.exact() ? "   (exact: every entry is Gaussian;" : "   (certified bracket;")
            << " valid for a sequence fixed in advance)\n";
  // (compose's tolerance is the tighter of 0.003 and the ledger's; the
  // engine answers for stored curves and may be wider: said, not hidden)
  const double width = (plan.upper - plan.lower) / std::max(plan.upper, 1e-300);
  if (std::isfinite(plan.upper) && width > a.tolerance()) {
    std::cout << "  note: the plan bracket is " << fmt(100 * width)
              << "% wide, wider than the tolerance " << fmt(100 * a.tolerance()) << "%\n";
  }
  std::cout << "  remaining epsilon: >= " << fmt_down(std::max(0.0, a.budget_epsilon() - s.upper))
            << "   (budget minus the " << ledger_mode_name(a.mode()) << " rule's certified "
            << "epsilon)\n";
  std::cout << "  entries: " << a.entries().size() << " (" << a.applications()
            << " mechanism applications, " << a.groups() << " distinct guarantees)\n";
}

// Temporary files of a killed writer, removed by the lock: said on stderr
// (a note, not an error: the ledger itself was never half written).
void report_cleanup(const ledger_lock& lock, const std::string& file) {
  if (lock.removed_temporaries() > 0) {
    std::cerr << "fdp ledger: note: removed " << lock.removed_temporaries() << " temporary file(s) "
              << file << ".tmp.* left by an interrupted save\n";
  }
}

bool file_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

void only(const args& a, const std::string& sub, const std::vector<std::string>& allowed) {
  for (const char* o :
       {"budget-eps", "delta", "grid-step", "tolerance", "force", "json", "mode", "key", "label"}) {
    if (a.has(o) && std::find(allowed.begin(), allowed.end(), o) == allowed.end()) {
      throw usage_error(std::string("option --") + o + " does not apply to 'fdp ledger " + sub +
                        "'");
    }
  }
}

int ledger_init(const args& a) {
  only(a, "init",
       {"budget-eps", "delta", "grid-step", "tolerance", "force", "json", "mode", "key"});
  const auto& pos = a.positional();
  if (pos.size() != 2) throw usage_error("usage: fdp ledger init --budget-eps E --delta D FILE");
  const std::string file = pos[1];
  const ledger_lock lock(file);  // (two inits of one file: the second sees the first's)
  report_cleanup(lock, file);
  if (file_exists(file) && !a.flag("force")) {
    throw usage_error("ledger file '" + file + "' already exists (use --force to replace it)");
  }
  const std::string key = read_key(a);
  accountant_options o;
  const std::string mode = a.value_or("mode", "adaptive");
  if (mode != "plan" && mode != "adaptive")
    throw usage_error("--mode must be plan or adaptive, not '" + mode + "'", "mode");
  o.mode = mode == "plan" ? ledger_mode::plan : ledger_mode::adaptive;
  o.grid_step = a.number_or("grid-step", 0.0, 1e-6, 0.1);
  o.tolerance = a.number_or("tolerance", o.tolerance, 0, 1, true, true);
  accountant led(a.number("budget-eps", 0, 1e300, true), a.number("delta", 0, 1, false, true), o);
  led.save(file, key);
  if (a.flag("json"))
    print_json(status_json(led, file, "init"));
  else
    std::cout << "created ledger " << file << " with budget (epsilon " << fmt(led.budget_epsilon())
              << ", delta " << fmt(led.budget_delta()) << "), mode " << mode
              << (key.empty() ? ", checksum only (no --key: detects accidents, not edits)"
                              : ", signed with HMAC-SHA256")
              << "\n";
  return 0;
}

// Loads FILE under its lock's protection (the caller holds it when it
// writes). A signed ledger cannot be written without its key: the new file
// would carry a plain checksum and lose its tamper evidence.
accountant load_for(const std::string& file, const std::string& key, bool writing) {
  accountant led = accountant::load(file, key);
  if (writing && led.integrity() == ledger_integrity::hmac_unverified) {
    throw usage_error(
        "ledger file '" + file + "' is signed (HMAC-SHA256): give its --key FILE to change it",
        "key");
  }
  return led;
}

int ledger_add(const args& a) {
  only(a, "add", {"json", "key", "label"});
  const auto& pos = a.positional();
  if (pos.size() < 3) throw usage_error("usage: fdp ledger add FILE SPEC... [--label TEXT]");
  const std::string file = pos[1];
  const std::string key = read_key(a);
  const std::string label = a.value_or("label", "");
  // Held from the read to the write: concurrent adds serialize, each
  // counting the entries of those before it against the budget.
  const ledger_lock lock(file);
  report_cleanup(lock, file);
  accountant led = load_for(file, key, true);
  // every spec read first (a bad one is named even after one over budget);
  // all or nothing: the file changes only if every spec fits
  for (std::size_t i = 2; i < pos.size(); ++i) led.validate(pos[i]);
  try {
    for (std::size_t i = 2; i < pos.size(); ++i) led.add(pos[i], label);
  } catch (const budget_exceeded& e) {
    return report_error(a.command(), a.flag("json"), kExitRefused, "", e.what());
  }
  led.save(file, key);
  if (a.flag("json")) {
    print_json(status_json(led, file, "add"));
  } else {
    std::cout << "recorded " << pos.size() - 2 << " spec(s)\n";
    print_status(led, file);
  }
  return 0;
}

int ledger_check(const args& a) {
  only(a, "check", {"json", "key"});
  const auto& pos = a.positional();
  if (pos.size() < 3) throw usage_error("usage: fdp ledger check FILE SPEC...");
  const std::string file = pos[1];
  const accountant led = load_for(file, read_key(a), false);
  const interval after = led.rule_epsilon_with({pos.begin() + 2, pos.end()});
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
              << " at delta " << fmt(led.budget_delta()) << ", " << ledger_mode_name(led.mode())
              << " rule); nothing recorded\n";
  }
  return ok ? 0 : kExitRefused;
}

int ledger_status(const args& a) {
  only(a, "status", {"json", "key"});
  const auto& pos = a.positional();
  if (pos.size() != 2) throw usage_error("usage: fdp ledger status FILE");
  const accountant led = load_for(pos[1], read_key(a), false);
  if (a.flag("json"))
    print_json(status_json(led, pos[1], "status"));
  else
    print_status(led, pos[1]);
  return 0;
}

// The entries in order, with their labels and times.
int ledger_list(const args& a) {
  only(a, "list", {"json", "key"});
  const auto& pos = a.positional();
  if (pos.size() != 2) throw usage_error("usage: fdp ledger list FILE");
  const accountant led = load_for(pos[1], read_key(a), false);
  const auto& es = led.entries();
  if (a.flag("json")) {
    json out = status_json(led, pos[1], "list");
    json rows = json::array();
    for (std::size_t i = 0; i < es.size(); ++i)
      rows.push_back(
          {{"index", i + 1}, {"time", es[i].time}, {"label", es[i].label}, {"spec", es[i].spec}});
    out["records"] = rows;
    print_json(out);
    return 0;
  }
  std::cout << "ledger " << pos[1] << ": " << es.size() << " entries, mode "
            << ledger_mode_name(led.mode()) << ", integrity: " << integrity_text(led) << "\n";
  for (std::size_t i = 0; i < es.size(); ++i) {
    std::cout << "  " << i + 1 << "  " << (es[i].time.empty() ? "(no time)" : es[i].time) << "  "
              << es[i].spec << (es[i].label.empty() ? "" : "  # " + es[i].label) << "\n";
  }
  return 0;
}

int run_ledger(const args& a) {
  const auto& pos = a.positional();
  if (pos.empty())
    throw usage_error(
        "a subcommand is required: init, add, status, check or list (see 'fdp ledger --help')");
  const std::string sub = pos[0];
  if (sub == "init") return ledger_init(a);
  if (sub == "add") return ledger_add(a);
  if (sub == "check") return ledger_check(a);
  if (sub == "status") return ledger_status(a);
  if (sub == "list") return ledger_list(a);
  throw usage_error("unknown subcommand '" + sub + "' (init, add, status, check, list)");
}

FDP_REGISTER_COMMAND(command{
    "ledger",
    "a privacy budget ledger file: init, add (refuses overspending), status, check, list",
    "usage: fdp ledger init --budget-eps E --delta D FILE [--mode adaptive|plan] [--key KEYFILE]\n"
    "                       [--grid-step H] [--tolerance T] [--force]\n"
    "       fdp ledger add FILE SPEC... [--label TEXT] [--key KEYFILE] [--json]\n"
    "       fdp ledger status FILE [--key KEYFILE] [--json]\n"
    "       fdp ledger check FILE SPEC... [--key KEYFILE] [--json]\n"
    "       fdp ledger list FILE [--key KEYFILE] [--json]\n\n"
    "A ledger records mechanisms (specs, in order, each with a label and the UTC time)\n"
    "against a budget (E, D); D = 0 makes a pure-DP ledger. Its mode is fixed at init:\n"
    "  adaptive (default): each mechanism may be chosen after seeing earlier outputs. 'add'\n"
    "    admits while a privacy filter (pure-DP sum, GDP, Renyi-DP or basic (eps, delta)\n"
    "    sums, each with a fixed share of D) stays within E; status also shows the tighter\n"
    "    plan composition, which is NOT valid for adaptive choices (docs/formulas.md).\n"
    "  plan: the list of mechanisms is fixed before any output is seen; 'add' admits while\n"
    "    the certified epsilon of the tight composition at D stays within E.\n"
    "A refused 'add' records nothing and exits 4; several specs are all or nothing.\n"
    "'check' answers whether specs would fit without recording them (exit 0 if they would,\n"
    "4 if NOT affordable). Bad input exits 2. Concurrent 'add's from any number of processes\n"
    "serialize on a lock file (FILE.lock, left beside the ledger; the kernel releases the\n"
    "lock when its holder dies): none is lost, and the budget holds. Saves are atomic.\n"
    "Integrity: without --key the file carries a SHA-256 checksum, which detects accidents\n"
    "(truncation, corruption) but NOT deliberate edits: anyone can recompute it. With\n"
    "--key KEYFILE (at least 16 secret bytes) it carries an HMAC-SHA256 tag: a file edited\n"
    "without the key, or read with a wrong key, is rejected (exit 2); a signed file read\n"
    "without --key is reported UNVERIFIED and cannot be changed.\n\n"
    "examples:\n"
    "  fdp ledger init --budget-eps 3 --delta 1e-5 budget.json\n"
    "  fdp ledger add budget.json laplace:b=10 gaussian:sigma=8,times=20 --label 'weekly counts'\n"
    "  fdp ledger add budget.json gaussian:sigma=1,times=3     (refused: exit 4)\n"
    "  fdp ledger status budget.json --json\n"
    "  fdp ledger list budget.json\n",
    {{"budget-eps", true, false, "budget epsilon (init)"},
     {"delta", true, false, "budget delta (init; 0: pure DP)"},
     {"mode", true, false, "adaptive (default) or plan (init)"},
     {"key", true, false, "key file: sign with / verify HMAC-SHA256"},
     {"label", true, false, "a note stored with the entries (add)"},
     {"grid-step", true, false, "fixed loss-grid step (init; default automatic)"},
     {"tolerance", true, false, "relative bracket width (init; default 0.005)"},
     {"force", false, false, "replace an existing file (init)"},
     {"json", false, false, "JSON output"}},
    run_ledger,
    true});

}  // namespace
}  // namespace fdp::cli
