// The fdp command line: argument parsing, command registry and output
// helpers shared by the subcommands. Subcommands live one per file
// (cmd_<name>.cpp) and register themselves with FDP_REGISTER_COMMAND.
// The CLI is thin: it parses, calls the library, prints.
//
// Contract (docs/cli.md): exit 0 success, 2 bad usage or input (one
// line on stderr, or one JSON error object on stdout with --json), 3 a
// certified audit violation, 4 a ledger refusal, 1 anything else.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "json_output.hpp"

namespace fdp::cli {

/// Bad usage: exit code 2 with the message on stderr (or as JSON).
struct usage_error : std::runtime_error {
  /// parameter: the option at fault, without "--" ("" when none is).
  explicit usage_error(const std::string& message, std::string parameter = "")
      : std::runtime_error(message), parameter(std::move(parameter)) {}
  std::string parameter;
};

struct option_def {
  std::string name;  ///< without the leading "--"
  bool takes_value = true;
  bool repeatable = false;
  const char* help = "";  ///< one line (a literal: the registry is built
                          ///< before main and should not copy text)
};

class args {
 public:
  args(const std::string& command, const std::vector<std::string>& argv,
       const std::vector<option_def>& defs);
  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  bool flag(const std::string& name) const { return has(name); }
  /// All values of a repeatable option, in order.
  std::vector<std::string> all(const std::string& name) const;
  /// The single value of an option (error if absent).
  std::string value(const std::string& name) const;
  std::string value_or(const std::string& name, const std::string& dflt) const;
  /// A number in [lo, hi] (open ends by flags); error names the option.
  double number(const std::string& name, double lo, double hi, bool lo_open = false,
                bool hi_open = false) const;
  double number_or(const std::string& name, double dflt, double lo, double hi, bool lo_open = false,
                   bool hi_open = false) const;
  std::vector<double> numbers(const std::string& name, double lo, double hi, bool lo_open = false,
                              bool hi_open = false) const;
  long long integer_or(const std::string& name, long long dflt, long long lo, long long hi) const;
  const std::string& command() const { return command_; }

 private:
  std::string command_;
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>> values_;
};

struct command {
  std::string name;
  const char* summary;  ///< one line for `fdp --help` (a literal)
  const char* help;     ///< full text for `fdp NAME --help` (usage, options, example)
  std::vector<option_def> options;
  std::function<int(const args&)> run;
  /// Its positional words (or --claim) are specs: --help ends with the
  /// spec kinds of the table.
  bool takes_specs = false;
};

std::map<std::string, command>& registry();

struct registrar {
  explicit registrar(command c);
};

/// Checks a number parsed from the command line against [lo, hi].
double check_range(const std::string& what, double v, double lo, double hi, bool lo_open,
                   bool hi_open);

/// The whole CLI: `fdp ARGS...` with argv[0] the program name. Returns the
/// exit code (0, 1, 2 or 3, see above); never calls exit().
int run(int argc, char** argv);

/// The fdp process's allocation policy (big_blocks.cpp): from this call on,
/// C++ allocations of 4 KiB and more come from a pool on transparent huge
/// pages. main() calls it first thing; a no-op in sanitizer builds.
void enable_big_blocks();

/// The spec kinds of the table (fdp/ops/spec_kind.hpp), one usage line and
/// its documentation each, for --help.
std::string spec_kinds_text();

/// Formats a double for human-readable output (up to 10 significant digits).
std::string fmt(double x, int digits = 10);
/// The ends of a bracket for human-readable output: at most `digits`
/// significant digits, rounded down (fmt_down) or up (fmt_up), so that the
/// printed bracket still contains the computed one (a lower end rounded to
/// nearest can print above the truth). --json prints the exact doubles.
std::string fmt_down(double x, int digits = 10);
std::string fmt_up(double x, int digits = 10);

}  // namespace fdp::cli

#define FDP_CLI_CONCAT2(a, b) a##b
#define FDP_CLI_CONCAT(a, b) FDP_CLI_CONCAT2(a, b)
#define FDP_REGISTER_COMMAND(...) \
  static ::fdp::cli::registrar FDP_CLI_CONCAT(fdp_cli_registrar_, __LINE__)(__VA_ARGS__)
