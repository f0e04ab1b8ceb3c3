// Cooperative cancellation of long computations.
//
// A caller that runs a composition (or anything built on it: calibration,
// DP-SGD accounting) on a worker thread can stop it from another thread: the
// worker opens a cancel_scope over a flag, the caller sets the flag, and the
// computation throws fdp::cancelled at its next poll (between grid passes,
// per FFT, per discretized term: well under a second apart). The Python
// module uses this to honour Ctrl-C; the CLI does not need it (SIGINT ends the
// process). Nothing is left half-written: a cancelled call returns nothing.
#pragma once

#include <atomic>
#include <stdexcept>

namespace fdp {

/// Thrown by a computation whose cancel flag was set.
class cancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// While alive, computations on this thread, and the helper threads they
/// start, poll `flag` and throw fdp::cancelled once it is true. Scopes nest
/// (the innermost flag is polled); `flag` must outlive the scope.
class cancel_scope {
 public:
  explicit cancel_scope(const std::atomic<bool>* flag);
  ~cancel_scope();
  cancel_scope(const cancel_scope&) = delete;
  cancel_scope& operator=(const cancel_scope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

/// The flag in force on this thread (nullptr: none), for a computation to
/// hand on to the helper threads it starts.
const std::atomic<bool>* current_cancel_flag();

/// Throws fdp::cancelled ("<where>: cancelled") if the flag in force is set.
/// One relaxed load when no scope is open.
void throw_if_cancelled(const char* where);

}  // namespace fdp
