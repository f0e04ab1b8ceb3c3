// Helpers shared by the libFuzzer targets (fuzz/README.md).
//
// Every target feeds its input through the same library entry point the CLI
// uses and accepts exactly the documented failures (std::invalid_argument,
// std::domain_error, fdp::evaluation_error where documented); any other
// exception, a crash, a sanitizer report or a violated invariant (FUZZ_CHECK)
// is a finding.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

namespace fdp::fuzz {

/// A private scratch directory for this process (created once, removed with
/// its files at exit).
inline const std::string& scratch_dir() {
  struct dir_t {
    std::string path;
    dir_t() {
      char tmpl[] = "/tmp/fdp-fuzz-XXXXXX";
      const char* d = mkdtemp(tmpl);
      if (!d) std::abort();
      path = d;
    }
    ~dir_t() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const dir_t dir;
  return dir.path;
}

/// Writes the bytes to `name` in the scratch directory; returns the path.
inline std::string write_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_dir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

}  // namespace fdp::fuzz

/// An invariant the parsed result must satisfy; aborts (a libFuzzer crash)
/// with the condition and location otherwise.
#define FUZZ_CHECK(cond)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s at %s:%d\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)
