#include "fdp/core/cancel.hpp"

#include <string>

namespace fdp {
namespace {
thread_local const std::atomic<bool>* tl_flag = nullptr;
}  // namespace

cancel_scope::cancel_scope(const std::atomic<bool>* flag) : previous_(tl_flag) { tl_flag = flag; }

cancel_scope::~cancel_scope() { tl_flag = previous_; }

const std::atomic<bool>* current_cancel_flag() { return tl_flag; }

void throw_if_cancelled(const char* where) {
  if (tl_flag && tl_flag->load(std::memory_order_relaxed))
    throw cancelled(std::string(where) + ": cancelled");
}

}  // namespace fdp
