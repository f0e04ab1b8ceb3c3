// libFuzzer target: ledger JSON (fdp::accountant::from_json, what
// accountant::load and `fdp ledger` read; fdp/budget/ledger.hpp).
// Input: the document. It is loaded twice: as given (mostly exercises the
// JSON parser and the field checks, since a random edit breaks the
// checksum), and, when it parses as a JSON object with the ledger's fields,
// once more with its "checksum" recomputed the way accountant::to_json
// computes it (a re-implementation of the canonical body below; if it ever
// drifts from ledger.cpp the second load only loses coverage), so that the
// replay of the entries is fuzzed too.
// Accepted failures: std::invalid_argument (the documented "ledger: ..."
// errors), fdp::evaluation_error (a grid beyond the memory limit).
// Inputs naming files under /dev, /proc or /sys are skipped: a curve entry
// without points reads its file, and some of those block (/dev/stdin) or
// cost a 4 MiB read each (/dev/zero, refused at its first line since the
// readers are bounded): the user's choice of file, not a parser bug.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "budget/digest.hpp"     // internal: sha256_hex
#include "budget/ledger_io.hpp"  // internal: parse_json, json_number
#include "fdp/budget/ledger.hpp"
#include "fdp/core/error.hpp"
#include "fuzz_util.hpp"

namespace {

using fdp::detail::jvalue;
using K = jvalue::kind;

const jvalue* get(const jvalue& o, const char* key, K k) {
  const jvalue* v = o.find(key);
  return v && v->k == k ? v : nullptr;
}

/// The document with the checksum accountant::to_json would write, or "" if
/// the fields needed for it are missing.
std::string with_checksum(const jvalue& doc) {
  using fdp::detail::json_number;
  const jvalue *budget = get(doc, "budget", K::object), *grid = get(doc, "grid", K::object),
               *entries = get(doc, "entries", K::array);
  if (!budget || !grid || !entries) return "";
  const jvalue *eps = get(*budget, "epsilon", K::number), *delta = get(*budget, "delta", K::number),
               *step = get(*grid, "step", K::number), *aut = get(*grid, "auto", K::boolean),
               *tol = get(*grid, "tolerance", K::number);
  if (!eps || !delta || !step || !aut || !tol) return "";
  // as accountant::canonical_body (lib/src/budget/ledger.cpp)
  std::string o = "{\n  \"format\": \"fdp-ledger\",\n  \"version\": 1";
  o += ",\n  \"budget\": {\"epsilon\": " + json_number(eps->num) +
       ", \"delta\": " + json_number(delta->num) + "}";
  o += ",\n  \"grid\": {\"step\": " + json_number(step->num) +
       ", \"auto\": " + (aut->b ? "true" : "false") + ", \"tolerance\": " + json_number(tol->num) +
       "}";
  o += ",\n  \"entries\": [";
  for (std::size_t i = 0; i < entries->arr.size(); ++i) {
    const jvalue& e = entries->arr[i];
    const jvalue* spec = get(e, "spec", K::string);
    if (e.k != K::object || !spec) return "";
    o += i ? ",\n    {\"spec\": " : "\n    {\"spec\": ";
    fdp::detail::write_json_string(o, spec->str);
    if (const jvalue* pts = get(e, "points", K::array); pts && !pts->arr.empty()) {
      o += ", \"points\": [";
      for (std::size_t k = 0; k < pts->arr.size(); ++k) {
        const jvalue& xy = pts->arr[k];
        if (xy.k != K::array || xy.arr.size() != 2 || xy.arr[0].k != K::number ||
            xy.arr[1].k != K::number)
          return "";
        if (k) o += ", ";
        o += "[" + json_number(xy.arr[0].num) + ", " + json_number(xy.arr[1].num) + "]";
      }
      o += "]";
    }
    o += "}";
  }
  o += entries->arr.empty() ? "]" : "\n  ]";
  return o + ",\n  \"checksum\": \"sha256:" + fdp::detail::sha256_hex(o) + "\"\n}\n";
}

void load(const std::string& text) {
  try {
    const fdp::accountant a = fdp::accountant::from_json(text, "fuzz");
    const fdp::interval s = a.spent();
    FUZZ_CHECK(!std::isnan(s.lower) && !std::isnan(s.upper) && s.lower <= s.upper);
    FUZZ_CHECK(s.lower >= 0.0);
    // a loaded ledger saves to a document that loads again
    (void)fdp::accountant::from_json(a.to_json(), "fuzz-resaved");
  } catch (const std::invalid_argument&) {
  } catch (const fdp::evaluation_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* bad : {"/dev", "/proc", "/sys"}) {
    if (text.find(bad) != std::string::npos) return 0;
  }
  load(text);
  jvalue doc;
  try {
    doc = fdp::detail::parse_json(text);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (doc.k != K::object) return 0;
  const std::string fixed = with_checksum(doc);
  if (!fixed.empty()) load(fixed);
  return 0;
}
