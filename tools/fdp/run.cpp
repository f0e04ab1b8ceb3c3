// The fdp command line as a function: fdp::cli::run(argc, argv) is what
// main() calls, and what the in-process CLI fuzz target (fuzz/fuzz_cli.cpp)
// calls. See docs/cli.md and `fdp --help`.
#include <algorithm>
#include <cctype>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fdp/core/error.hpp"

namespace {

void print_main_help() {
  std::cout
      << "fdp - f-differential privacy: trade-off functions, certified composition, audits\n\n"
         "usage: fdp COMMAND [ARGS...]   (fdp help COMMAND, or fdp COMMAND --help, for details\n"
         "                                and examples)\n\n"
         "commands:\n";
  for (const auto& [name, c] : fdp::cli::registry()) {
    std::string pad(name.size() < 12 ? 12 - name.size() : 1, ' ');
    std::cout << "  " << name << pad << c.summary << "\n";
  }
  std::cout << "\n"
            << fdp::cli::spec_kinds_text()
            << "\n"
               "exit codes: 0 ok, 2 bad usage or input, 3 audit certified a violation,\n"
               "            4 ledger refused (over budget), 1 other\n\n"
               "example:\n"
               "  fdp compose subsampled-gaussian:sigma=1.1,q=0.004267,times=14063 --delta 1e-5\n";
}

// The option a message is about when it starts with one ("--delta = 2 must
// be in [0, 1]", "--q: expected a number"), for the JSON error's
// "parameter"; "" otherwise.
std::string leading_option(const std::string& message) {
  if (message.compare(0, 2, "--") != 0) return "";
  std::size_t end = 2;
  while (end < message.size() &&
         (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '-'))
    ++end;
  return message.substr(2, end - 2);
}

// A library message may name its module ("audit: ...", "calibrate: ...");
// after "fdp audit: " that prefix is said twice.
std::string without_own_prefix(const std::string& message, const std::string& command) {
  const std::string prefix = command + ": ";
  return message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size()) : message;
}

bool has_json_option(const fdp::cli::command& cmd) {
  for (const auto& o : cmd.options)
    if (o.name == "json") return true;
  return false;
}

// Runs the command, turning every exception into its exit code and one
// message (one line on stderr, or one JSON error object with --json).
int run_command(const fdp::cli::command& cmd, const std::vector<std::string>& cargs, bool as_json) {
  using fdp::cli::report_error;
  const std::string& name = cmd.name;
  try {
    fdp::cli::args parsed(name, cargs, cmd.options);
    return cmd.run(parsed);
  } catch (const fdp::cli::usage_error& e) {
    const std::string m = without_own_prefix(e.what(), name);
    return report_error(name, as_json, 2, e.parameter.empty() ? leading_option(m) : e.parameter, m);
  } catch (const std::invalid_argument& e) {
    const std::string m = without_own_prefix(e.what(), name);
    return report_error(name, as_json, 2, leading_option(m), m);
  } catch (const std::bad_alloc&) {
    return report_error(name, as_json, 1, "", "out of memory");
  } catch (const std::exception& e) {
    return report_error(name, as_json, 1, "", "error: " + without_own_prefix(e.what(), name));
  }
}

void print_command_help(const fdp::cli::command& cmd) {
  std::cout << cmd.help;
  if (cmd.takes_specs) std::cout << "\n" << fdp::cli::spec_kinds_text();
}

// `fdp help [COMMAND]`: the main help, or a command's (as COMMAND --help).
int run_help(const std::vector<std::string>& rest) {
  if (rest.size() < 2) {
    print_main_help();
    return 0;
  }
  const auto& reg = fdp::cli::registry();
  const auto it = reg.find(rest[1]);
  if (it == reg.end()) {
    std::cerr << "fdp help: unknown command '" << rest[1] << "' (see 'fdp --help')\n";
    return 2;
  }
  print_command_help(it->second);
  return 0;
}

}  // namespace

namespace fdp::cli {

int run(int argc, char** argv) {
  std::vector<std::string> rest(argv + 1, argv + argc);
  if (rest.empty() || rest[0] == "--help" || rest[0] == "-h") {
    print_main_help();
    return rest.empty() ? 2 : 0;
  }
  if (rest[0] == "help") return run_help(rest);
  if (rest[0] == "--version") {
    std::cout << "fdp " FDP_VERSION "\n";
    return 0;
  }
  const std::string name = rest[0];
  std::vector<std::string> cargs(rest.begin() + 1, rest.end());
  auto& reg = fdp::cli::registry();
  auto it = reg.find(name);
  // Errors are JSON when --json is asked for and the command has it (fdp
  // sample has not: there --json is an unknown option, said in text).
  const bool as_json = std::find(cargs.begin(), cargs.end(), "--json") != cargs.end() &&
                       (it == reg.end() || has_json_option(it->second));
  if (it == reg.end()) {
    if (as_json) return report_error(name, true, 2, "", "unknown command (see 'fdp --help')");
    std::cerr << "fdp: unknown command '" << name << "' (see 'fdp --help')\n";
    return 2;
  }
  const auto& cmd = it->second;
  for (const auto& a : cargs) {
    if (a == "--help" || a == "-h") {
      print_command_help(cmd);
      return 0;
    }
  }
  return run_command(cmd, cargs, as_json);
}

}  // namespace fdp::cli
