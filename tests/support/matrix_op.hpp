// A non-commutative reduction operator for tests: the product of 2x2 integer matrices
// (wrapping arithmetic), stored as 4 int32 per matrix in row-major order. The reduction over
// ranks in rank order is M_0 x M_1 x ... x M_(P-1); any other order gives another matrix.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ragged/datatype.hpp"

namespace ragged::test {

using Matrix = std::array<std::uint32_t, 4>;

inline Matrix multiply(const Matrix& a, const Matrix& b) {
  return {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
}

/// Matrix k of rank r: entries that make neighbours' products differ in both orders.
inline Matrix matrix_of(int rank, std::size_t k) {
  const auto r = static_cast<std::uint32_t>(rank);
  const auto kk = static_cast<std::uint32_t>(k);
  return {1 + r, 2 + kk, (r * 3 + kk) % 5, 1 + ((r + 2 * kk) % 3)};
}

/// inout = in x inout for every matrix (in is the left operand, ReduceOp's convention).
inline ReduceOp matrix_product() {
  return ReduceOp::make_custom(
      "matrix_product",
      [](const void* in, void* inout, std::size_t count, DataType) {
        for (std::size_t m = 0; m + 4 <= count; m += 4) {
          Matrix a;
          Matrix b;
          std::memcpy(a.data(), static_cast<const std::int32_t*>(in) + m, sizeof a);
          std::memcpy(b.data(), static_cast<std::int32_t*>(inout) + m, sizeof b);
          const Matrix c = multiply(a, b);
          std::memcpy(static_cast<std::int32_t*>(inout) + m, c.data(), sizeof c);
        }
      },
      false);
}

/// `matrices` matrices of `rank`, as the int32 vector a rank contributes.
inline std::vector<std::int32_t> matrices_of(int rank, std::size_t matrices) {
  std::vector<std::int32_t> out(matrices * 4);
  for (std::size_t k = 0; k < matrices; ++k) {
    const Matrix m = matrix_of(rank, k);
    std::memcpy(out.data() + 4 * k, m.data(), sizeof m);
  }
  return out;
}

/// The rank-order product over `procs` ranks.
inline std::vector<std::int32_t> rank_order_product(int procs, std::size_t matrices) {
  std::vector<std::int32_t> out(matrices * 4);
  for (std::size_t k = 0; k < matrices; ++k) {
    Matrix p = matrix_of(0, k);
    for (int r = 1; r < procs; ++r) p = multiply(p, matrix_of(r, k));
    std::memcpy(out.data() + 4 * k, p.data(), sizeof p);
  }
  return out;
}

}  // namespace ragged::test
