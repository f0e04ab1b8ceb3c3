// Large C++ allocations of the fdp process on transparent huge pages.
//
// Why: on the virtual machines fdp is measured on, a first touch of a 4 KiB
// page costs about 11 us (the page fault exits to the hypervisor), so a
// composition that touches 6 MB of grids spends 15 ms of its 36 ms in page
// faults (S3a: 1429 faults). A 2 MiB huge page costs one fault (~0.15 ms,
// mostly zeroing) instead of 512. The kernel gives huge pages to anonymous
// memory only where the process asks (transparent_hugepage=madvise is the
// common default), and glibc's malloc asks only when GLIBC_TUNABLES says so
// at process start. So the fdp binary replaces the global operator new /
// delete (a replacement the C++ standard provides for): blocks of at least
// kMinBlock bytes (grids, spectra, curves, the per-group work arrays of the
// discretization) come from one reserved region marked MADV_HUGEPAGE;
// smaller ones go to malloc as before. The threshold is 4 KiB: with
// 128 KiB, S2b still paid 110 faults of mid-sized vectors in the worker
// threads' malloc arenas, and with 16 KiB S2a paid 50 faults for its
// 13.5 KB grids; a run that allocates nothing that large (a closed form)
// never touches the pool. Measured in bench/README.md ("Page faults").
//
// This is process policy, like malloc_tuning.cpp: the library never
// replaces its host's allocator. The file is left out of sanitizer and fuzz
// builds (the sanitizers must see every allocation).
//
// The pool: power-of-two size classes from kMinBlock; a block carries a
// 64-byte header with its class; freed blocks go on a per-class free list
// for reuse (no second page fault). Free blocks beyond kMaxRetained bytes
// are given back to the kernel (MADV_DONTNEED) but keep their addresses.
// If the reservation fails or is used up, allocations fall back to malloc.
// FDP_HUGE_PAGES=0 in the environment turns the pool off (for measuring);
// FDP_HUGE_PAGES_RETAIN=BYTES sets how much freed memory it keeps.

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define FDP_NO_BIG_BLOCKS 1
#endif
#endif

#include "cli.hpp"

#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && !defined(FDP_NO_BIG_BLOCKS)

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

namespace {

constexpr int kMinShift = 12;
constexpr std::size_t kMinBlock = std::size_t{1} << kMinShift;  // 4 KiB, header included
constexpr int kClasses = 36 - kMinShift;                        // up to 2^35 = 32 GiB
constexpr std::size_t kReserve = std::size_t{1} << 36;          // 64 GiB of address space
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kMaxRetained = std::size_t{512} << 20;
constexpr std::size_t kHeader = 64;                        // keeps the payload 64-byte aligned
constexpr std::size_t kKeepFirst = std::size_t{64} << 10;  // a page on any Linux, header inside

// The first bytes of every block (the payload starts kHeader bytes in).
struct block_header {
  int size_class;
  int resident;        // 1 while on a free list with its memory kept
  block_header* next;  // free-list link
};
static_assert(sizeof(block_header) <= kHeader, "header must fit before the payload");

// Constant-initialized (no constructor runs): operator new can be called
// from any static initializer, before or after this file's.
std::mutex pool_mutex;
char* pool_base = nullptr;
std::size_t pool_used = 0;
std::size_t pool_retained = 0;
int pool_state = 0;         // 0 untried, 1 ready, -1 unavailable
bool pool_enabled = false;  // set by main(): static initializers stay on malloc
std::size_t pool_max_retained = kMaxRetained;
block_header* free_lists[kClasses] = {};

int size_class(std::size_t bytes) {
  int k = kMinShift;
  while (k < kMinShift + kClasses && (std::size_t{1} << k) < bytes) ++k;
  return k - kMinShift;  // == kClasses when too large for the pool
}

bool pool_ready_locked() {
  if (pool_state != 0) return pool_state > 0;
  pool_state = -1;
  const char* env = std::getenv("FDP_HUGE_PAGES");
  if (env != nullptr && std::strcmp(env, "0") == 0) return false;
  // FDP_HUGE_PAGES_RETAIN=BYTES: how much freed memory the pool keeps
  // (default 512 MiB; the CLI tests set 0 to exercise the give-back path)
  if (const char* r = std::getenv("FDP_HUGE_PAGES_RETAIN")) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(r, &end, 10);
    if (end != r && *end == '\0') pool_max_retained = static_cast<std::size_t>(v);
  }
  void* p = mmap(nullptr, kReserve, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  // Start at a huge-page boundary so that each 2 MiB of the pool can be one
  // huge page; a kernel without THP ignores the advice (EINVAL): the pool
  // then still saves the re-faults of reused blocks.
  auto addr = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t aligned = (addr + kHugePage - 1) & ~(kHugePage - 1);
  pool_base = reinterpret_cast<char*>(aligned);
  const std::size_t usable = kReserve - (aligned - addr);
  (void)madvise(pool_base, usable - usable % kHugePage, MADV_HUGEPAGE);
  pool_state = 1;
  return true;
}

// Returns a block of class c (payload after the header), or nullptr.
void* pool_take(int c) {
  std::lock_guard<std::mutex> lock(pool_mutex);
  if (!pool_ready_locked()) return nullptr;
  if (block_header* b = free_lists[c]) {
    free_lists[c] = b->next;
    if (b->resident != 0) pool_retained -= std::size_t{1} << (c + kMinShift);
    return reinterpret_cast<char*>(b) + kHeader;
  }
  const std::size_t bytes = std::size_t{1} << (c + kMinShift);
  const std::size_t align = bytes < kHugePage ? bytes : kHugePage;
  const std::size_t start = (pool_used + align - 1) & ~(align - 1);
  if (start + bytes > kReserve - kHugePage) return nullptr;
  pool_used = start + bytes;
  char* block = pool_base + start;
  auto* h = reinterpret_cast<block_header*>(block);
  h->size_class = c;
  return block + kHeader;
}

bool in_pool(const void* p) {
  const char* q = static_cast<const char*>(p);
  return pool_base != nullptr && q >= pool_base && q < pool_base + kReserve;
}

void pool_give_back(void* payload) {
  auto* h = reinterpret_cast<block_header*>(static_cast<char*>(payload) - kHeader);
  const int c = h->size_class;
  const std::size_t bytes = std::size_t{1} << (c + kMinShift);
  std::lock_guard<std::mutex> lock(pool_mutex);
  if (bytes > kKeepFirst && pool_retained + bytes > pool_max_retained) {
    // keep the address and the first page (the header), give the rest of
    // the memory back to the kernel (smaller blocks are always kept)
    (void)madvise(reinterpret_cast<char*>(h) + kKeepFirst, bytes - kKeepFirst, MADV_DONTNEED);
    h->resident = 0;
  } else {
    h->resident = 1;
    pool_retained += bytes;
  }
  h->next = free_lists[c];
  free_lists[c] = h;
}

void* allocate(std::size_t n) {
  if (!pool_enabled || n <= kMinBlock - kHeader) {
    // below the pool: malloc, with the standard new-handler loop
  } else if (const int c = size_class(n + kHeader); c < kClasses) {
    if (void* p = pool_take(c)) return p;
  }
  for (;;) {
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    std::new_handler h = std::get_new_handler();
    if (h == nullptr) throw std::bad_alloc();
    h();
  }
}

void release(void* p) noexcept {
  if (p == nullptr) return;
  if (in_pool(p)) {
    pool_give_back(p);
  } else {
    std::free(p);
  }
}

}  // namespace

namespace fdp::cli {
void enable_big_blocks() {
  std::lock_guard<std::mutex> lock(pool_mutex);
  pool_enabled = true;
}
}  // namespace fdp::cli

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }

#else

namespace fdp::cli {
void enable_big_blocks() {}
}  // namespace fdp::cli

#endif
