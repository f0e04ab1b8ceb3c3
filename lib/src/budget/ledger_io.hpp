// Internal to the ledger: a small JSON value with a strict parser and a
// deterministic writer, SHA-256, and an atomic file replace. (The library does
// not link a JSON library; the ledger format is small and fixed.)
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fdp::detail {

struct jvalue {
  enum class kind { null, boolean, number, string, array, object };
  kind k = kind::null;
  bool b = false;
  double num = 0.0;
  std::string str;
  std::vector<jvalue> arr;
  std::vector<std::pair<std::string, jvalue>> obj;  // in file order

  const jvalue* find(const std::string& key) const;
};

/// Parses one JSON document (RFC 8259; numbers must be finite). Throws
/// std::invalid_argument("... at byte N: what") on any error, including
/// trailing garbage and duplicate object keys.
jvalue parse_json(const std::string& text);

/// Appends a JSON string literal (escaped).
void write_json_string(std::string& out, const std::string& s);
/// A double as the shortest of %.15g, %.16g, %.17g that reads back exactly.
std::string json_number(double x);

/// SHA-256 of the bytes, lowercase hex (FIPS 180-4).
std::string sha256_hex(const std::string& bytes);

/// Writes `content` to `path` atomically: a temporary file in the same
/// directory, fsync, rename over `path`, fsync of the directory. A crash at
/// any point leaves either the old file or the new one. The environment
/// variable FDP_LEDGER_TEST_CRASH=mid-write|before-rename makes the process
/// kill itself (SIGKILL) at that point: a test hook for the crash tests.
void atomic_write(const std::string& path, const std::string& content);

/// Reads a whole ledger file of at most kMaxLedgerBytes; throws
/// std::invalid_argument naming the file.
std::string read_file(const std::string& path);

}  // namespace fdp::detail
