#include "fdp/mech/rng.hpp"

#include <algorithm>

namespace fdp::mech {
namespace detail {

// Structure-of-arrays Philox over kLanes counters at a time: each lane is one
// call of Random123's Philox4x32-10, fully inlined (R123_FORCE_INLINE), so
// the lane loop is a plain loop of 32x32->64-bit multiplies that GCC/Clang
// turn into SIMD multiplies (pmuludq) at -O2/-O3 without any intrinsics.
void philox_words(philox4x32_10::key_type key, std::uint64_t shard, std::uint64_t first_block,
                  std::size_t nblocks, std::uint64_t* out) noexcept {
  constexpr std::size_t kLanes = 64;
  alignas(64) std::uint32_t c0[kLanes], c1[kLanes], c2[kLanes], c3[kLanes];
  const std::uint32_t s_lo = static_cast<std::uint32_t>(shard);
  const std::uint32_t s_hi = static_cast<std::uint32_t>(shard >> 32);
  const philox4x32_10::engine philox;
  const philox4x32_10::engine::key_type k = {{key[0], key[1]}};
  while (nblocks > 0) {
    const std::size_t n = std::min(nblocks, kLanes);
    for (std::size_t i = 0; i < kLanes; ++i) {
      const std::uint64_t b = first_block + i;
      const philox4x32_10::engine::ctr_type c = {
          {static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32), s_lo, s_hi}};
      const philox4x32_10::engine::ctr_type r = philox(c, k);
      c0[i] = r.v[0];
      c1[i] = r.v[1];
      c2[i] = r.v[2];
      c3[i] = r.v[3];
    }
    for (std::size_t i = 0; i < n; ++i) {
      out[2 * i] = c0[i] | (std::uint64_t{c1[i]} << 32);
      out[2 * i + 1] = c2[i] | (std::uint64_t{c3[i]} << 32);
    }
    out += 2 * n;
    first_block += n;
    nblocks -= n;
  }
}

}  // namespace detail

void rng_stream::fill_u64(std::uint64_t* out, std::size_t n) noexcept {
  if (n == 0) return;
  if (have_word_) {
    *out++ = word_;
    have_word_ = false;
    --n;
  }
  const std::size_t full = n / 2;
  if (full > 0) {
    detail::philox_words(key_, shard_, block_, full, out);
    block_ += full;
    out += 2 * full;
  }
  if (n % 2) *out = next_u64();
}

namespace {
constexpr std::size_t kChunk = 512;
}

void rng_stream::fill_uniform(double* out, std::size_t n) noexcept {
  std::uint64_t w[kChunk];
  while (n > 0) {
    const std::size_t m = std::min(n, kChunk);
    fill_u64(w, m);
    for (std::size_t i = 0; i < m; ++i) out[i] = detail::uniform_from_bits(w[i]);
    out += m;
    n -= m;
  }
}

void rng_stream::fill_exponential(double* out, std::size_t n, double scale) noexcept {
  std::uint64_t w[kChunk];
  while (n > 0) {
    const std::size_t m = std::min(n, kChunk);
    fill_u64(w, m);
    for (std::size_t i = 0; i < m; ++i) out[i] = scale * detail::exponential_from_bits(w[i]);
    out += m;
    n -= m;
  }
}

void rng_stream::fill_laplace(double* out, std::size_t n, double scale) noexcept {
  std::uint64_t w[kChunk];
  while (n > 0) {
    const std::size_t m = std::min(n, kChunk);
    fill_u64(w, m);
    for (std::size_t i = 0; i < m; ++i) out[i] = scale * detail::laplace_from_bits(w[i]);
    out += m;
    n -= m;
  }
}

void rng_stream::fill_normal(double* out, std::size_t n, double sigma) noexcept {
  if (n == 0) return;
  if (have_normal_) {
    *out++ = sigma * spare_normal_;
    have_normal_ = false;
    --n;
  }
  std::uint64_t w[kChunk];
  while (n >= 2) {
    const std::size_t pairs = std::min(n / 2, kChunk / 2);
    fill_u64(w, 2 * pairs);
    for (std::size_t i = 0; i < pairs; ++i) {
      double z0, z1;
      box_muller(w[2 * i], w[2 * i + 1], z0, z1);
      out[2 * i] = sigma * z0;
      out[2 * i + 1] = sigma * z1;
    }
    out += 2 * pairs;
    n -= 2 * pairs;
  }
  if (n == 1) *out = sigma * normal();
}

}  // namespace fdp::mech
