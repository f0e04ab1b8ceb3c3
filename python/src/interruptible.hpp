// Long computations that Ctrl-C stops. The computation runs on a worker
// thread under a cancel flag (fdp/core/cancel.hpp) while the calling thread,
// without the GIL, waits for it; every 50 ms it takes the GIL back to let
// Python run its signal handlers (PyErr_CheckSignals: in the main thread, a
// pending SIGINT raises KeyboardInterrupt there). On an exception the flag is
// set, the worker stops at its next poll (well under a second), and the
// exception is raised: nothing of the stopped computation is kept.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <future>
#include <type_traits>

#include "fdp/core/cancel.hpp"

namespace fdp::python {

template <class F>
std::invoke_result_t<F&> interruptible(F&& f) {
  namespace py = pybind11;
  std::atomic<bool> stop{false};
  py::gil_scoped_release release;
  auto result = std::async(std::launch::async, [&f, &stop] {
    cancel_scope scope(&stop);
    return f();
  });
  while (result.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    py::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) {
      stop = true;
      {
        py::gil_scoped_release wait_without_gil;
        result.wait();  // (its outcome, most likely fdp::cancelled, is dropped)
      }
      throw py::error_already_set();
    }
  }
  return result.get();
}

}  // namespace fdp::python
