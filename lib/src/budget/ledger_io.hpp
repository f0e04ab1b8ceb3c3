// Internal to the ledger: a small JSON value with a strict parser and a
// deterministic writer, an atomic file replace and the file lock (the digests
// are in budget/digest.hpp). (The library does
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

/// Writes `content` to `path` atomically: a temporary file in the same
/// directory, fsync, rename over `path`, fsync of the directory. A crash at
/// any point leaves either the old file or the new one.
void atomic_write(const std::string& path, const std::string& content);

/// A test seam for the crash tests: the two moments of atomic_write where a
/// crash matters (half the content written and synced; the temporary file
/// complete, not yet renamed). A hook set here is called at each; the tests
/// kill the process from it. Only code linked into the process can set it
/// (no environment variable reaches it). nullptr: none (the default).
enum class write_point { mid_write, before_rename };
using write_hook = void (*)(write_point);
void set_atomic_write_hook(write_hook hook);

/// Takes the exclusive lock of a ledger file (fdp::ledger_lock): returns the
/// lock file's descriptor; unlock_ledger releases it.
int lock_ledger(const std::string& path);
/// With the lock held: removes PATH.tmp.* files (left by a writer killed
/// before its rename) and returns how many.
int remove_stale_temporaries(const std::string& path);
void unlock_ledger(int fd);

/// Reads a whole ledger file of at most kMaxLedgerBytes; throws
/// std::invalid_argument naming the file.
std::string read_file(const std::string& path);

}  // namespace fdp::detail
