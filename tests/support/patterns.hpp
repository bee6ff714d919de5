// Deterministic integer-valued test data whose collective results are exact in
// every DataType: values stay at most 1021, so float sums of up to 16 000 ranks
// are exact, and results can be compared with ==.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ragged/datatype.hpp"

namespace ragged::test {

/// The period of pattern() in the rank: a prime above every process count the tests run.
inline constexpr std::size_t pattern_period = 1021;
// A sum of one element over 16 000 ranks stays below 2^24, the end of float's exact integers.
static_assert(16000 * pattern_period < (std::size_t{1} << 24));

/// The value rank `rank` contributes at element `index`: in 1..1021, varying with both. At any
/// one index the ranks 0..1020 give 1021 different values (7 is invertible modulo the prime
/// 1021), so a block that lands in another rank's place differs there; the index enters
/// through a hash, so a block shifted by any number of elements differs too (a linear term in
/// the index would repeat every period).
inline std::int64_t pattern(int rank, std::size_t index) {
  std::uint64_t h = (static_cast<std::uint64_t>(index) + 1) * 0x9E3779B97F4A7C15ULL;
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 29;
  const std::uint64_t r = static_cast<std::uint64_t>(rank) % pattern_period;
  return static_cast<std::int64_t>((r * 7 + h % pattern_period) % pattern_period) + 1;
}

/// Expected element `index` of a reduction of pattern() over ranks 0..procs-1.
inline std::int64_t reduced(OpKind kind, int procs, std::size_t index) {
  std::int64_t acc = pattern(0, index);
  for (int r = 1; r < procs; ++r) {
    const std::int64_t v = pattern(r, index);
    switch (kind) {
      case OpKind::sum:
        acc += v;
        break;
      // products are taken modulo nothing: keep them small by using (v % 2) + 1 in prod tests
      case OpKind::prod:
        acc *= v;
        break;
      case OpKind::min:
        acc = std::min(acc, v);
        break;
      case OpKind::max:
        acc = std::max(acc, v);
        break;
      case OpKind::custom:
        break;
    }
  }
  return acc;
}

/// A typed buffer of `count` elements filled with f(i).
template <class F>
std::vector<std::byte> make_buffer(DataType type, std::size_t count, F f) {
  std::vector<std::byte> out(count * size_of(type));
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t v = f(i);
    switch (type) {
      case DataType::byte:
        out[i] = static_cast<std::byte>(v & 0xff);
        break;
      case DataType::int32: {
        const auto x = static_cast<std::int32_t>(v);
        std::memcpy(out.data() + i * 4, &x, 4);
        break;
      }
      case DataType::int64:
        std::memcpy(out.data() + i * 8, &v, 8);
        break;
      case DataType::float32: {
        const auto x = static_cast<float>(v);
        std::memcpy(out.data() + i * 4, &x, 4);
        break;
      }
      case DataType::float64: {
        const auto x = static_cast<double>(v);
        std::memcpy(out.data() + i * 8, &x, 8);
        break;
      }
    }
  }
  return out;
}

/// Element `i` of a typed buffer, as an integer (exact for the values these tests use).
inline std::int64_t element(const std::vector<std::byte>& buf, DataType type, std::size_t i) {
  switch (type) {
    case DataType::byte:
      return static_cast<std::int64_t>(buf[i]);
    case DataType::int32: {
      std::int32_t x;
      std::memcpy(&x, buf.data() + i * 4, 4);
      return x;
    }
    case DataType::int64: {
      std::int64_t x;
      std::memcpy(&x, buf.data() + i * 8, 8);
      return x;
    }
    case DataType::float32: {
      float x;
      std::memcpy(&x, buf.data() + i * 4, 4);
      return static_cast<std::int64_t>(x);
    }
    case DataType::float64: {
      double x;
      std::memcpy(&x, buf.data() + i * 8, 8);
      return static_cast<std::int64_t>(x);
    }
  }
  return 0;
}

inline constexpr DataType all_types[] = {DataType::int32, DataType::int64, DataType::float32, DataType::float64};

/// The process counts and counts of the sim sweeps (P in {1,2,3,4,5,7,8,13,33}: powers of two up
/// to 8, non-powers of two on both sides of 8 and past 32; P = 16 took 66 s of the default tier's
/// test time and no path the others miss).
inline const std::vector<int>& sweep_procs() {
  static const std::vector<int> p{1, 2, 3, 4, 5, 7, 8, 13, 33};
  return p;
}
/// The roots of the rooted sweeps: every root up to P = 13; past it the roots where a tree, chain
/// or padded layout changes shape (0, 1, a third, half, both sides of the largest power of two
/// below P, the last two): at P = 33 every root took most of the rooted sweeps' time and a
/// rotation of the ranks reaches no path these miss.
inline std::vector<int> sweep_roots(int procs) {
  std::vector<int> roots;
  if (procs <= 13) {
    for (int r = 0; r < procs; ++r) roots.push_back(r);
    return roots;
  }
  int pow2 = 1;
  while (pow2 * 2 < procs) pow2 *= 2;
  for (const int r : {0, 1, procs / 3, procs / 2, pow2 - 1, pow2, procs - 2, procs - 1}) {
    if (r >= 0 && r < procs) roots.push_back(r);
  }
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  return roots;
}
/// The large count of the sweeps: 100003 elements up to P = 8, then about 800,000 / P (odd), so
/// that a rank of an allgather or gather holds about as many elements at P = 33 (24,243 each, 194
/// KB of float64 per block: still several 64 KiB segments) as at P = 8; P times 100003 elements
/// per rank was most of the sweeps' time at P = 33 and tested no path the smaller count misses.
inline std::size_t sweep_large_count(int procs) {
  constexpr std::size_t large = 100003;
  const auto p = static_cast<std::size_t>(procs < 1 ? 1 : procs);
  return p <= 8 ? large : ((large * 8 / p) | 1U);
}
inline std::vector<std::size_t> sweep_counts(int procs) {
  std::vector<std::size_t> c{0, 1, static_cast<std::size_t>(procs > 1 ? procs - 1 : 2),
                             static_cast<std::size_t>(procs + 1), sweep_large_count(procs)};
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

}  // namespace ragged::test
