// Deterministic integer-valued test data whose collective results are exact in
// every DataType: values stay small enough that float sums of up to a few
// hundred ranks are exact, so results can be compared with ==.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ragged/datatype.hpp"

namespace ragged::test {

/// The value rank `rank` contributes at element `index` (small, non-zero, varies with both).
inline std::int64_t pattern(int rank, std::size_t index) {
  return static_cast<std::int64_t>((static_cast<std::size_t>(rank) * 7 + index * 13) % 17) + 1;
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

/// The process counts and counts of the sim sweeps (P in {1,2,3,4,5,7,8,13,16,33}).
inline const std::vector<int>& sweep_procs() {
  static const std::vector<int> p{1, 2, 3, 4, 5, 7, 8, 13, 16, 33};
  return p;
}
inline std::vector<std::size_t> sweep_counts(int procs) {
  std::vector<std::size_t> c{0, 1, static_cast<std::size_t>(procs > 1 ? procs - 1 : 2),
                             static_cast<std::size_t>(procs + 1), 100003};
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

}  // namespace ragged::test
