// A privacy ledger: an accountant that records mechanisms as they run,
// answers "spent so far" and "can I afford this next one?" with certified
// brackets, refuses what would exceed its budget, and persists its state.
//
// Two modes, fixed when the ledger is made and written in its file:
//
//   plan      the analyst fixes the whole list of mechanisms before seeing
//             any output (each mechanism's INPUT may still depend on earlier
//             outputs). The recorded specs are composed tightly (tensor
//             product, DRS Thm 3.2) with incremental_pld.hpp: identical
//             guarantees are grouped (canonical keys: gaussian:sigma=2 and
//             gdp:mu=0.5 are one group; ...), each group is discretized
//             once, and each new mechanism costs one pointwise product of
//             transforms. When every guarantee is Gaussian the answer is exact
//             (G_sqrt(sum mu_i^2)). add() refuses a mechanism that would make
//             the CERTIFIED UPPER bound on epsilon at the budget's delta
//             exceed the budget epsilon.
//   adaptive  (the default) each mechanism and its parameters may be chosen
//             after seeing earlier outputs. Composing the realized curves is
//             then not a valid stopping rule (Honkela, Koskela, Tran & Raisa
//             2026, arXiv 2602.06756); add() admits an entry only while a
//             privacy filter (privacy_filter.hpp: pure-DP sum, GDP, RDP and
//             basic (eps, delta) filters with fixed delta shares) stays within
//             the budget. The plan composition is still computed and shown,
//             so the price of adaptivity is visible.
//
// A budget delta of 0 makes a pure-DP ledger: both modes admit while the sum
// of the entries' pure epsilons fits (for pure-DP mechanisms that sum is the
// exact composed epsilon at delta 0, and a valid filter).
//
// Persistence. JSON (format "fdp-ledger", version 2): mode, budget, the
// engine's grid, entries in order (spec, label, UTC time; curve specs carry
// their points, so a later change of the CSV file does not change the
// ledger), and a tag over the canonical serialization of everything else:
// "hmac-sha256:<hex>" when saved with a key (tamper-evident: an edit without
// the key no longer matches), else "sha256:<hex>" (detects accidents only:
// anyone can recompute it). Version 1 files (no mode, no labels) are read as
// plan-mode ledgers (the rule that admitted their entries) and rewritten as
// version 2 by the next save. save() is atomic (temporary file in the same
// directory, fsync, rename, directory fsync): a crash leaves the old or the
// new file.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "fdp/budget/incremental_pld.hpp"
#include "fdp/budget/privacy_filter.hpp"
#include "fdp/ops/compose.hpp"

namespace fdp {

/// Largest ledger file load() reads and save() writes: 64 MiB. An entry is
/// ~50 bytes, a stored curve point ~45 (a 10^6-point curve, the curve CSV's
/// limit, fits); the parsed JSON takes several times the file's size.
inline constexpr std::uint64_t kMaxLedgerBytes = std::uint64_t{64} << 20;

/// Thrown by accountant::add when the mechanism does not fit the budget. Its
/// message gives the spent and the requested budgets.
class budget_exceeded : public std::invalid_argument {
 public:
  budget_exceeded(const std::string& what, interval spent, double requested_upper)
      : std::invalid_argument(what), spent_(spent), requested_(requested_upper) {}
  interval spent() const { return spent_; }
  /// Certified upper bound on epsilon had the mechanism been added.
  double requested_upper() const { return requested_; }

 private:
  interval spent_;
  double requested_;
};

/// An exclusive lock on a ledger file, held from construction to
/// destruction: a read-modify-write of the file (load, add, save) made under
/// it cannot interleave with another one, in this process or any other, so
/// concurrent adds serialize and none is lost (each sees the entries of those
/// before it and its budget check counts them). The lock is flock(2) on a
/// sibling file PATH.lock, created when missing and left in place (removing
/// it would race with a process about to lock it); the kernel releases it
/// when its holder exits or is killed, so no stale lock survives a crash.
/// Local file systems; waits as long as another holder keeps it. Throws
/// std::invalid_argument naming the file when the lock file cannot be
/// created or locked.
class ledger_lock {
 public:
  /// Also removes the temporary files (PATH.tmp.*) that a writer killed
  /// before its rename left: while the lock is held no fdp is writing one.
  /// (A program that saves without the lock must not share the directory.)
  explicit ledger_lock(const std::string& ledger_path);
  ~ledger_lock();
  /// How many such files the constructor removed.
  int removed_temporaries() const { return removed_; }
  ledger_lock(const ledger_lock&) = delete;
  ledger_lock& operator=(const ledger_lock&) = delete;

 private:
  int fd_ = -1;
  int removed_ = 0;
};

struct ledger_entry {
  std::string spec;   ///< as given (includes times=N if any)
  std::string label;  ///< the user's note (no control characters); may be empty
  std::string time;   ///< when it was recorded, UTC, "YYYY-MM-DDTHH:MM:SSZ" (empty in version 1)
  /// curve specs: the curve's vertices at the time of recording
  std::vector<std::pair<double, double>> points;
};

/// See the top of this file.
enum class ledger_mode { plan, adaptive };
std::string ledger_mode_name(ledger_mode m);

/// How far a loaded ledger file could be trusted.
enum class ledger_integrity {
  checksum,         ///< a SHA-256 checksum matched: no accident, but anyone could have edited it
  hmac_verified,    ///< its HMAC-SHA256 tag matched under the given key
  hmac_unverified,  ///< it carries an HMAC tag, but no key was given to check it
  none              ///< made in memory, not loaded
};
std::string ledger_integrity_name(ledger_integrity i);

struct accountant_options {
  ledger_mode mode = ledger_mode::adaptive;
  /// Loss-grid step of the incremental engine; 0 picks one from the budget
  /// and refines it (halving or better) whenever the spent bracket at the
  /// budget's delta is wider than `tolerance` (relative).
  double grid_step = 0.0;
  double tolerance = 5e-3;
};

/// Not thread-safe: an accountant and its copies share cached transforms
/// (incremental_pld.hpp), so they belong to one thread at a time.
class accountant {
 public:
  /// budget_eps finite > 0, budget_delta in [0, 1) (0: pure DP).
  accountant(double budget_eps, double budget_delta, const accountant_options& opt = {});

  ledger_mode mode() const { return mode_; }
  /// The adaptive filter's level (privacy_filter.hpp); computed in both modes.
  filter_level filter() const { return filter_.level(); }
  /// The integrity of the file this ledger was loaded from.
  ledger_integrity integrity() const { return integrity_; }
  /// The format version of that file (1: legacy, no mode or labels).
  int loaded_version() const { return loaded_version_; }

  double budget_epsilon() const { return eps_; }
  double budget_delta() const { return delta_; }
  double grid_step() const { return pld_.h(); }
  /// The relative bracket width the ledger aims at (accountant_options).
  double tolerance() const { return tolerance_; }

  /// Records `spec` (any spec of spec.hpp, with times=N), with `label` and the
  /// current UTC time, if the mode's rule admits it (plan: the certified
  /// epsilon at the budget's delta stays within the budget; adaptive: the
  /// filter does); otherwise throws budget_exceeded and records nothing. Bad
  /// specs and labels (control characters, over 200 bytes) throw
  /// std::invalid_argument.
  void add(const std::string& spec, const std::string& label = "");
  /// Records without the budget check.
  void add_unchecked(const std::string& spec);

  /// Would the certified epsilon at `delta` stay <= `eps` with `spec` added?
  /// (The plan rule; in an adaptive ledger can_afford(spec) asks the filter.)
  /// Does not change the ledger.
  bool can_afford(const std::string& spec, double eps, double delta) const;
  bool can_afford(const std::string& spec) const;
  /// The filter's level with `spec` added (nothing recorded).
  filter_level filter_with(const std::string& spec) const;

  /// What the mode's rule compares with the budget: plan (with delta > 0),
  /// the certified bracket `plan` of the plan composition; adaptive or pure
  /// DP, the filter's epsilon (a point).
  interval rule_epsilon(const interval& plan) const;
  /// The rule's epsilon with `specs` added, nothing recorded (fdp ledger
  /// check): every spec is validated first (a bad one is named even after
  /// one with no finite epsilon); +inf when their mass at infinite loss is
  /// above the budget's delta (certified without composing).
  interval rule_epsilon_with(const std::vector<std::string>& specs) const;

  /// Certified epsilon bracket of the plan composition at `delta` (default:
  /// the budget's; at delta 0, the sum of pure epsilons, +inf if an entry has
  /// none).
  interval spent(double delta) const;
  interval spent() const { return spent(delta_); }
  /// The plan composition's bracket at the budget's delta, for reading: the
  /// entries composed once by the one-shot path (compose_for_queries, what
  /// fdp compose runs, at the tighter of its tolerance and the ledger's).
  /// A ledger just loaded has not built its incremental engine (adds build
  /// it when the plan rule needs it), and on many distinct entries the
  /// one-shot path is faster, its bracket within compose's tolerance (it
  /// may differ from the engine's; both contain the true epsilon). Entries
  /// with stored curve points
  /// (and compositions beyond its limits) are answered by the engine.
  interval plan_spent() const;
  /// Certified delta(eps) bracket spent so far.
  interval spent_delta(double eps) const;
  /// Probability of infinite privacy loss (the worse orientation) of the
  /// recorded guarantees, with `spec` added when not empty: 1 - prod
  /// (1 - m_i)^{n_i} (f_{eps,delta}: m = delta). delta(eps) >= it for every
  /// eps, so above a delta no finite epsilon holds there. Needs no composition.
  double infinite_loss_mass(const std::string& spec = "") const;
  /// That mass (with `spec`) is above `delta` beyond its rounding: no finite
  /// epsilon holds there.
  bool no_finite_epsilon(const std::string& spec, double delta) const;
  /// Reads `spec` as add() would (every parameter checked, a curve file
  /// read) without recording it: throws std::invalid_argument naming the
  /// parameter when it is not a valid guarantee.
  void validate(const std::string& spec) const;
  /// True when every recorded guarantee is Gaussian (answers are exact).
  bool exact() const { return all_gaussian_; }

  const std::vector<ledger_entry>& entries() const { return entries_; }
  /// Mechanism applications recorded (times counted).
  std::int64_t applications() const { return applications_; }
  /// Distinct guarantees (groups) recorded.
  std::size_t groups() const { return pending_.size(); }
  std::int64_t fft_size() const {
    ensure_engine();
    return pld_.fft_size();
  }

  /// The JSON document, tagged with HMAC-SHA256 under `key` when it is not
  /// empty, else with a SHA-256 checksum.
  std::string to_json(const std::string& key = "") const;
  /// Parses and verifies a ledger document; `source` names it in errors.
  /// With a key, the document must carry an HMAC tag that matches (a plain
  /// checksum is refused: it is what a forger without the key would write).
  /// Without one, a checksum must match and an HMAC tag is left unverified.
  static accountant from_json(const std::string& text, const std::string& source = "ledger",
                              const std::string& key = "");
  /// Atomic save; load verifies the tag and replays the entries.
  void save(const std::string& path, const std::string& key = "") const;
  static accountant load(const std::string& path, const std::string& key = "");

 private:
  struct prepared;
  prepared prepare(const std::string& spec_text, const ledger_entry* stored) const;
  void record(const prepared& p, ledger_entry e);
  void record_engine(const prepared& p);
  accountant engine_copy() const;
  double infinite_loss_mass(const prepared* extra) const;
  /// A relative bound on the rounding of infinite_loss_mass(extra).
  double infinite_loss_mass_rel(const prepared* extra) const;
  bool no_finite_epsilon(const prepared& p, double delta) const;
  std::string canonical_body(int version) const;
  [[noreturn]] void refuse(const std::string& spec, const std::string& why, double requested) const;
  bool by_filter() const { return mode_ == ledger_mode::adaptive || delta_ == 0; }
  void commit(const prepared& p, ledger_entry e, bool check_plan);
  // from_json's last step: every stored entry validated again and recorded,
  // the groups added to the engine in one batch. `entry_error` makes the
  // exception for entry i (1-based) and a message.
  void replay(
      const std::vector<ledger_entry>& list,
      const std::function<std::invalid_argument(std::size_t, const std::string&)>& entry_error);

  double eps_, delta_;
  ledger_mode mode_ = ledger_mode::adaptive;
  privacy_filter filter_;
  ledger_integrity integrity_ = ledger_integrity::none;
  // one application's filter cost per guarantee key (prepare)
  mutable std::map<std::string, filter_cost> cost_cache_;
  int loaded_version_ = 0;
  // Built lazily after a load (ensure_engine): a status needs no engine.
  mutable incremental_pld pld_;
  mutable bool engine_pending_ = false;  // pending_ not yet in pld_
  void ensure_engine() const;
  mutable std::vector<ledger_entry> entries_;  // mutable only for engine_copy()
  bool all_gaussian_ = true;
  double mu2_ = 0.0;  // sum of n mu^2 over Gaussian entries
  std::int64_t id_applications_ = 0;
  std::int64_t applications_ = 0;
  // every group with its count (the engine holds them unless all are Gaussian)
  std::vector<incremental_pld::batch_item> pending_;
  std::vector<double> spans_;  // per group: atom span of Laplace / f_{eps,delta} laws, else 0
  bool auto_grid_ = true;
  double tolerance_ = 5e-3;
  double window_ = 8.0;
  void refine_if_needed();
  double resolution_step(double h) const;

  // Re-gridding without a latency spike: when the grid must become finer (a
  // law with a smaller loss scale arrived, or the bracket is growing wider
  // than the tolerance) or the FFT must grow (the composed window nears its
  // size), a new engine is built in the background of the next adds, one
  // step per add (a group's discretization, or its transforms and product), while
  // pld_ keeps answering: its brackets stay certified, only wider. When the
  // new engine holds every group with its count it replaces pld_. A budget
  // check that fails on the old engine finishes the rebuild first.
  struct rebuild {
    incremental_pld eng;
    std::size_t done = 0;              ///< pending_[0, done) are in eng
    std::vector<std::int64_t> counts;  ///< their applications in eng
  };
  std::shared_ptr<rebuild> next_;  // copied on write when shared
  void start_rebuild(double h, double window);
  void advance_rebuild(std::size_t steps);
  void finish_rebuild() { advance_rebuild(static_cast<std::size_t>(-1)); }

 public:
  /// The background rebuild (see above): true while one is in progress.
  bool rebuilding() const { return next_ != nullptr; }
  /// Re-grids completed so far (each replaced the engine once).
  int regrids() const { return regrids_; }

 private:
  int regrids_ = 0;
};

}  // namespace fdp
