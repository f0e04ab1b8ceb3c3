#include "audit/parallel_sort.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#include "audit/parallel_chunks.hpp"

namespace fdp::audit::detail {
namespace {

constexpr int kDigits = 8;  // 8 passes of 8 bits (64-bit keys)
constexpr std::size_t kRadix = 256;
constexpr std::size_t kMinChunk = 1 << 16;  // below this a thread costs more than it sorts

using digit_counts = std::array<std::size_t, kRadix>;

unsigned digit(std::uint64_t k, int d) { return static_cast<unsigned>((k >> (8 * d)) & 255); }

}  // namespace

void sort_doubles(raw_vector<double>& v, unsigned threads) {
  const std::size_t n = v.size();
  if (n < kRadix) {
    std::sort(v.begin(), v.end());  // (one thread; as the serial sort always did)
    return;
  }
  const unsigned T =
      static_cast<unsigned>(std::clamp<std::size_t>(n / kMinChunk, 1, std::max(1u, threads)));
  auto lo = [&](unsigned t) { return chunk_start(n, t, T); };
  // Uninitialised: the chunks' threads touch their pages first (a zeroing
  // vector would fault them all in on this thread, a serial ~3% of an audit).
  std::unique_ptr<std::uint64_t[]> a(new std::uint64_t[n]), b(new std::uint64_t[n]);
  // Keys, and the digit counts of every pass per chunk (a pass whose digit is
  // the same for all keys moves nothing and is skipped).
  std::vector<std::array<digit_counts, kDigits>> all(T);
  for_each_chunk(T, [&](unsigned t) {
    auto& h = all[t];
    for (auto& c : h) c.fill(0);
    for (std::size_t i = lo(t); i < lo(t + 1); ++i) {
      a[i] = order_key(v[i]);
      for (int d = 0; d < kDigits; ++d) ++h[d][digit(a[i], d)];
    }
  });
  std::vector<digit_counts> off(T);
  for (int d = 0; d < kDigits; ++d) {
    bool trivial = false;
    for (std::size_t c = 0; c < kRadix && !trivial; ++c) {
      std::size_t total = 0;
      for (unsigned t = 0; t < T; ++t) total += all[t][d][c];
      trivial = total == n;
    }
    if (trivial) continue;
    // Chunk t's keys of this pass: counted anew, as the previous pass moved
    // them (one chunk holds all keys, whose counts are known).
    if (T == 1) {
      off[0] = all[0][d];
    } else {
      for_each_chunk(T, [&](unsigned t) {
        off[t].fill(0);
        for (std::size_t i = lo(t); i < lo(t + 1); ++i) ++off[t][digit(a[i], d)];
      });
    }
    std::size_t sum = 0;
    for (std::size_t c = 0; c < kRadix; ++c) {
      for (unsigned t = 0; t < T; ++t) {
        const std::size_t k = off[t][c];
        off[t][c] = sum;
        sum += k;
      }
    }
    for_each_chunk(T, [&](unsigned t) {
      auto& o = off[t];
      for (std::size_t i = lo(t); i < lo(t + 1); ++i) b[o[digit(a[i], d)]++] = a[i];
    });
    a.swap(b);
  }
  for_each_chunk(T, [&](unsigned t) {
    for (std::size_t i = lo(t); i < lo(t + 1); ++i) v[i] = from_order_key(a[i]);
  });
}

namespace {

/// Merge-path co-rank: the number i of a's elements among the first k
/// outputs of std::merge(a, b), i.e. the i with a[i - 1] <= b[k - i] (an
/// equal element of a comes first) and b[k - i - 1] < a[i].
std::size_t co_rank(const raw_vector<double>& a, const raw_vector<double>& b, std::size_t k) {
  std::size_t lo = k > b.size() ? k - b.size() : 0, hi = std::min(k, a.size());
  while (lo < hi) {
    const std::size_t i = lo + (hi - lo) / 2;  // take i + 1 of a? iff a[i] <= b[k - i - 1]
    if (!(b[k - i - 1] < a[i]))
      lo = i + 1;
    else
      hi = i;
  }
  return lo;
}

}  // namespace

raw_vector<double> merge_doubles(const raw_vector<double>& a, const raw_vector<double>& b,
                                 unsigned threads) {
  const std::size_t n = a.size() + b.size();
  raw_vector<double> out(n);  // (the chunks' threads touch their pages first)
  const unsigned T =
      static_cast<unsigned>(std::clamp<std::size_t>(n / kMinChunk, 1, std::max(1u, threads)));
  for_each_chunk(T, [&](unsigned t) {
    const std::size_t k0 = chunk_start(n, t, T), k1 = chunk_start(n, t + 1, T);
    const std::size_t i0 = co_rank(a, b, k0), i1 = co_rank(a, b, k1);
    std::merge(a.begin() + static_cast<std::ptrdiff_t>(i0),
               a.begin() + static_cast<std::ptrdiff_t>(i1),
               b.begin() + static_cast<std::ptrdiff_t>(k0 - i0),
               b.begin() + static_cast<std::ptrdiff_t>(k1 - i1),
               out.begin() + static_cast<std::ptrdiff_t>(k0));
  });
  return out;
}

}  // namespace fdp::audit::detail
