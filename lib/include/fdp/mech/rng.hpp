// Counter-based random numbers for mechanisms: Philox4x32-10 and the
// variates fdp's samplers need.
//
// Philox4x32-10 (Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as
// easy as 1, 2, 3", SC'11) is a keyed bijection on 128-bit counters: ten
// rounds of two 32x32->64-bit multiplies in a Feistel-like network, with a
// Weyl-sequence key schedule. The rounds are Random123's own (the paper's
// reference implementation, Debian's librandom123-dev, header-only); the
// known-answer vectors of its kat_vectors file are checked in
// tests/mech/rng_test.cpp.
//
// Streams. rng_stream(seed, shard) draws block b of its stream as
//   philox(counter = {lo32(b), hi32(b), lo32(shard), hi32(shard)},
//          key     = {lo32(seed), hi32(seed)}).
// Distinct (seed, shard, b) never share a Philox input, so shard i of a run
// is reproducible on any machine from (seed, i) alone and its numbers are as
// independent of shard j's as Philox outputs are of each other. A stream has
// 2^64 blocks of 128 bits.
//
// Reproducibility: the raw 64-bit words are bit-identical on every platform.
// Variates that call std::log / std::sin / std::cos are identical wherever the
// C library's functions are (glibc's are correctly rounded in practice, not
// by contract).
//
// Variates (all from 64 raw bits unless stated; no allocation anywhere):
//   uniform()        [0, 1) on the grid k 2^-53 (53 bits).
//   exponential()    Exp(1) as -log(u), u = (x + 1/2) 2^-64 from 64 bits x:
//                    exact to double rounding for values up to 44.3; the
//                    tail beyond (probability 2^-64) is cut.
//   laplace(b)       sign from bit 63, magnitude -log(u) from the other 63
//                    bits, u = (m + 1/2) 2^-63: Lap(0, b) with tails cut at
//                    43.7 b (probability 2^-63).
//   normal()         Box-Muller on two 64-bit words (one Exp(1) radius, one
//                    53-bit angle); produces pairs, the second is kept for
//                    the next call. Tails cut beyond 9.4 sigma (prob ~3e-20).
//   uniform_int(n)   exactly uniform on {0, ..., n-1} (Lemire's rejection).
//   bernoulli(p, q)  exactly Bernoulli(p / q) for integers 0 <= p <= q.
// Batch fills (fill_*) produce exactly the values that the same number of
// scalar calls would, and run the Philox rounds over many counters at once
// (a loop the compiler vectorises).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include <Random123/philox.h>

namespace fdp::mech {

/// The Philox4x32-10 bijection, computed by Random123 (r123::Philox4x32,
/// the authors' reference implementation, Debian's librandom123-dev). This
/// adaptor only converts between std::array and Random123's r123array types.
struct philox4x32_10 {
  using counter_type = std::array<std::uint32_t, 4>;
  using key_type = std::array<std::uint32_t, 2>;
  using engine = r123::Philox4x32_R<10>;

  static counter_type block(const counter_type& ctr, const key_type& key) noexcept {
    const engine::ctr_type c = {{ctr[0], ctr[1], ctr[2], ctr[3]}};
    const engine::key_type k = {{key[0], key[1]}};
    const engine::ctr_type r = engine{}(c, k);
    return {r.v[0], r.v[1], r.v[2], r.v[3]};
  }
};

namespace detail {
/// Writes 2 * nblocks words: blocks first_block, first_block + 1, ... of the
/// stream (key, shard), block b giving words {c0 | c1 << 32, c2 | c3 << 32}.
void philox_words(philox4x32_10::key_type key, std::uint64_t shard, std::uint64_t first_block,
                  std::size_t nblocks, std::uint64_t* out) noexcept;

constexpr double kTwoM53 = 1.0 / 9007199254740992.0;      // 2^-53
constexpr double kTwoM63 = 1.0 / 9223372036854775808.0;   // 2^-63
constexpr double kTwoM64 = 1.0 / 18446744073709551616.0;  // 2^-64
constexpr double kTwoPi = 6.283185307179586476925286766559;

inline double uniform_from_bits(std::uint64_t x) noexcept {
  return static_cast<double>(x >> 11) * kTwoM53;
}
inline double exponential_from_bits(std::uint64_t x) noexcept {
  return 0.0 - std::log(static_cast<double>(x) * kTwoM64 + 0.5 * kTwoM64);
}
/// Lap(0, 1): sign bit 63, magnitude from bits 0..62.
inline double laplace_from_bits(std::uint64_t x) noexcept {
  const std::uint64_t m = x & 0x7FFFFFFFFFFFFFFFull;
  const double e = 0.0 - std::log(static_cast<double>(m) * kTwoM63 + 0.5 * kTwoM63);
  return (x >> 63) ? -e : e;
}
}  // namespace detail

class rng_stream {
 public:
  /// Stream `shard` of the run seeded with `seed`, positioned at block 0.
  rng_stream(std::uint64_t seed, std::uint64_t shard) noexcept
      : key_{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)},
        seed_(seed),
        shard_(shard) {}

  std::uint64_t seed() const noexcept { return seed_; }
  std::uint64_t shard() const noexcept { return shard_; }
  /// Index of the next block to be generated (each block gives two words).
  std::uint64_t next_block() const noexcept { return block_; }
  /// Jumps to block b; drops any buffered word or spare normal.
  void seek(std::uint64_t b) noexcept {
    block_ = b;
    have_word_ = false;
    have_normal_ = false;
  }

  std::uint64_t next_u64() noexcept {
    if (have_word_) {
      have_word_ = false;
      return word_;
    }
    const auto c = philox4x32_10::block(
        {static_cast<std::uint32_t>(block_), static_cast<std::uint32_t>(block_ >> 32),
         static_cast<std::uint32_t>(shard_), static_cast<std::uint32_t>(shard_ >> 32)},
        key_);
    ++block_;
    word_ = c[2] | (std::uint64_t{c[3]} << 32);
    have_word_ = true;
    return c[0] | (std::uint64_t{c[1]} << 32);
  }

  double uniform() noexcept { return detail::uniform_from_bits(next_u64()); }
  double exponential() noexcept { return detail::exponential_from_bits(next_u64()); }
  double laplace(double b) noexcept { return b * detail::laplace_from_bits(next_u64()); }
  double normal() noexcept {
    if (have_normal_) {
      have_normal_ = false;
      return spare_normal_;
    }
    double z0, z1;
    const std::uint64_t x = next_u64();  // sequenced: argument order is unspecified
    const std::uint64_t y = next_u64();
    box_muller(x, y, z0, z1);
    spare_normal_ = z1;
    have_normal_ = true;
    return z0;
  }
  /// Exactly uniform on {0, ..., n - 1}; n >= 1.
  std::uint64_t uniform_int(std::uint64_t n) noexcept {
    std::uint64_t x = next_u64();
    __uint128_t m = static_cast<__uint128_t>(x) * n;
    std::uint64_t l = static_cast<std::uint64_t>(m);
    if (l < n) {
      const std::uint64_t t = (0 - n) % n;
      while (l < t) {
        x = next_u64();
        m = static_cast<__uint128_t>(x) * n;
        l = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }
  /// Exactly Bernoulli(p / q), 0 <= p <= q, q >= 1.
  bool bernoulli(std::uint64_t p, std::uint64_t q) noexcept { return uniform_int(q) < p; }

  /// n raw words, identical to n calls of next_u64().
  void fill_u64(std::uint64_t* out, std::size_t n) noexcept;
  /// n values identical to n calls of the scalar variate.
  void fill_uniform(double* out, std::size_t n) noexcept;
  void fill_exponential(double* out, std::size_t n, double scale = 1.0) noexcept;
  void fill_laplace(double* out, std::size_t n, double scale) noexcept;
  void fill_normal(double* out, std::size_t n, double sigma = 1.0) noexcept;

  static void box_muller(std::uint64_t x, std::uint64_t y, double& z0, double& z1) noexcept {
    const double r = std::sqrt(2.0 * detail::exponential_from_bits(x));
    const double th = detail::kTwoPi * detail::uniform_from_bits(y);
    z0 = r * std::cos(th);
    z1 = r * std::sin(th);
  }

 private:
  philox4x32_10::key_type key_;
  std::uint64_t seed_, shard_;
  std::uint64_t block_ = 0;
  std::uint64_t word_ = 0;
  bool have_word_ = false;
  double spare_normal_ = 0.0;
  bool have_normal_ = false;
};

}  // namespace fdp::mech
