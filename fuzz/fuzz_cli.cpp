// libFuzzer target: CLI argument vectors (tools/fdp, fdp::cli::run in
// process, exactly what main() runs).
// Input: the arguments after "fdp", one per line ('\n'-separated).
// Invariant: run() returns one of the documented exit codes 0, 1, 2, 3
// (docs/cli.md) and nothing escapes it.
//
// The harness keeps each input cheap and confined, and skips inputs that
// would leave that box (they test the machine, not the parsers):
//  - every run starts in a fresh scratch directory holding a curve CSV
//    (curve.csv), two sample files (s0.txt, s1.txt) and a ledger
//    (led.json), so commands that read or write files see the same state;
//  - arguments containing '/' are skipped (no file outside the scratch
//    directory is read or written);
//  - any number in an argument of magnitude above 1e4 is skipped (a valid
//    --samples 1e12 or times=1e12 is legitimately a long computation; the
//    range checks of large numbers are covered by fuzz_spec);
//  - at most 24 arguments.
// stdout goes to /dev/null and std::cerr to a null buffer.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <streambuf>
#include <string>
#include <vector>

#include "../tools/fdp/cli.hpp"
#include "fdp/budget/ledger.hpp"
#include "fuzz_util.hpp"

namespace {

std::string g_ledger;  // a valid ledger document, made once

/// A stream buffer that discards everything.
struct null_buf : std::streambuf {
  int overflow(int c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

void put(const std::string& name, const std::string& text) {
  fdp::fuzz::write_file(name, reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

void reset_scratch() {
  const std::string& dir = fdp::fuzz::scratch_dir();
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") std::remove((dir + "/" + n).c_str());
    }
    closedir(d);
  }
  put("curve.csv", "alpha,beta\n0,0.9\n0.1,0.5\n0.5,0.1\n1,0\n");
  put("s0.txt", "0.1\n-0.5\n1.25\n0.3\n2\n-1\n0.7\n0.05\n");
  put("s1.txt", "1.1\n0.5\n2.25\n1.3\n3\n0\n1.7\n1.05\n");
  put("led.json", g_ledger);
}

bool too_big(const std::string& a) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char c = a[i];
    if (!((c >= '0' && c <= '9') || c == '.')) continue;
    if (i && ((a[i - 1] >= '0' && a[i - 1] <= '9') || a[i - 1] == '.'))
      continue;  // inside a number
    const double v = std::strtod(a.c_str() + i, nullptr);
    if (!(std::fabs(v) <= 1e4)) return true;  // also NaN / inf
  }
  return a.find("inf") != std::string::npos || a.find("INF") != std::string::npos ||
         a.find("Inf") != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) ::dup2(null, 1);
  static null_buf sink;
  std::cerr.rdbuf(&sink);
  std::cout.rdbuf(&sink);
  fdp::accountant a(5.0, 1e-5);
  a.add("gdp:mu=0.3");
  a.add("laplace:b=20,times=2");
  g_ledger = a.to_json();
  if (::chdir(fdp::fuzz::scratch_dir().c_str()) != 0) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"fdp"};
  std::string cur;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty()) args.push_back(cur);
  if (args.size() > 25) return 0;
  for (const auto& a : args) {
    if (a.find('/') != std::string::npos || a.find('\0') != std::string::npos || too_big(a))
      return 0;
  }
  reset_scratch();
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = fdp::cli::run(static_cast<int>(args.size()), argv.data());
  FUZZ_CHECK(rc >= 0 && rc <= 3);
  return 0;
}
