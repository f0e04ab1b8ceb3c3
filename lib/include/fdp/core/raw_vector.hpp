// raw_vector<T>: a std::vector whose resize leaves new elements of a
// trivial type uninitialised (default-initialised) instead of zeroing them.
//
// Why: a zeroing resize of a large buffer touches every page on the calling
// thread, and on first touch the kernel zeroes each page again. When worker
// threads then fill the buffer, that first touch is serial work ahead of
// the parallel part: in an audit of 10^8 samples per side it was a tenth
// of a one-thread run's time (bench/results/audit_scaling.md). With a
// raw_vector the workers that write the elements touch the pages first.
//
// Use it only for buffers whose every element is written before it is read.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace fdp {

/// std::allocator, except that value-initialisation without arguments
/// (what resize(n) asks for) becomes default-initialisation.
template <class T>
class default_init_allocator : public std::allocator<T> {
 public:
  using std::allocator<T>::allocator;
  template <class U>
  struct rebind {
    using other = default_init_allocator<U>;
  };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using raw_vector = std::vector<T, default_init_allocator<T>>;

}  // namespace fdp
