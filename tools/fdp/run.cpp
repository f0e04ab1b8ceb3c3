// The fdp command line as a function: fdp::cli::run(argc, argv) is what
// main() calls, and what the in-process CLI fuzz target (fuzz/fuzz_cli.cpp)
// calls. See docs/cli.md and `fdp --help`.
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
         "usage: fdp COMMAND [ARGS...]   (fdp COMMAND --help for details and examples)\n\n"
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

}  // namespace

namespace fdp::cli {

int run(int argc, char** argv) {
  std::vector<std::string> rest(argv + 1, argv + argc);
  if (rest.empty() || rest[0] == "--help" || rest[0] == "-h" || rest[0] == "help") {
    print_main_help();
    return rest.empty() ? 2 : 0;
  }
  if (rest[0] == "--version") {
    std::cout << "fdp 0.1.0\n";
    return 0;
  }
  const std::string name = rest[0];
  auto& reg = fdp::cli::registry();
  auto it = reg.find(name);
  if (it == reg.end()) {
    std::cerr << "fdp: unknown command '" << name << "' (see 'fdp --help')\n";
    return 2;
  }
  const auto& cmd = it->second;
  std::vector<std::string> cargs(rest.begin() + 1, rest.end());
  for (const auto& a : cargs) {
    if (a == "--help" || a == "-h") {
      std::cout << cmd.help;
      if (cmd.takes_specs) std::cout << "\n" << fdp::cli::spec_kinds_text();
      return 0;
    }
  }
  try {
    fdp::cli::args parsed(name, cargs, cmd.options);
    return cmd.run(parsed);
  } catch (const fdp::cli::usage_error& e) {
    std::cerr << "fdp " << name << ": " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "fdp " << name << ": " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "fdp " << name << ": out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "fdp " << name << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace fdp::cli
