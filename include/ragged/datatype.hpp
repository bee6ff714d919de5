// ragged: element types and reduction operators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace ragged {

enum class DataType { byte, int32, int64, float32, float64 };

[[nodiscard]] std::size_t size_of(DataType type);
[[nodiscard]] const char* name_of(DataType type);

template <class T>
constexpr DataType datatype_of();
template <>
constexpr DataType datatype_of<std::byte>() {
  return DataType::byte;
}
template <>
constexpr DataType datatype_of<std::int32_t>() {
  return DataType::int32;
}
template <>
constexpr DataType datatype_of<std::int64_t>() {
  return DataType::int64;
}
template <>
constexpr DataType datatype_of<float>() {
  return DataType::float32;
}
template <>
constexpr DataType datatype_of<double>() {
  return DataType::float64;
}

enum class OpKind { sum, prod, min, max, custom };

/// A reduction operator: one of the built-ins, or a custom function (the mpi
/// backend wraps any MPI_Op this way through MPI_Reduce_local).
struct ReduceOp {
  /// inout[i] = in[i] op inout[i] for i < count.
  using Function = std::function<void(const void* in, void* inout, std::size_t count, DataType type)>;

  OpKind kind = OpKind::sum;
  bool commutative = true;
  Function custom;
  std::string label = "sum";
  /// Opaque handle of a backend operator (the mpi backend keeps the MPI_Op here); 0 if none.
  std::uintptr_t native_handle = 0;

  static ReduceOp sum() { return {OpKind::sum, true, {}, "sum"}; }
  static ReduceOp prod() { return {OpKind::prod, true, {}, "prod"}; }
  static ReduceOp min() { return {OpKind::min, true, {}, "min"}; }
  static ReduceOp max() { return {OpKind::max, true, {}, "max"}; }
  static ReduceOp make_custom(std::string label, Function fn, bool commutative) {
    return {OpKind::custom, commutative, std::move(fn), std::move(label)};
  }
};

/// inout[i] = in[i] op inout[i]. Built-in operators on DataType::byte are rejected.
/// The order matters for non-commutative custom operators: `in` is the left operand.
void reduce_local(const ReduceOp& op, DataType type, const void* in, void* inout, std::size_t count);

}  // namespace ragged
