// Conversions between ragged's element types and operators and MPI's.
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "internal.hpp"
#include "ragged/mpi.hpp"

namespace ragged::mpi {

namespace {

// MPI_Op is a pointer in Open MPI and an int in MPICH: copy its bits into the opaque handle.
static_assert(sizeof(MPI_Op) <= sizeof(std::uintptr_t), "MPI_Op does not fit in ReduceOp::native_handle");
static_assert(std::is_trivially_copyable_v<MPI_Op>);

constexpr std::size_t op_bytes = sizeof(MPI_Op);  // NOLINT(bugprone-sizeof-expression): a pointer or an int

std::uintptr_t handle_of(MPI_Op op) {
  std::uintptr_t handle = 0;
  std::memcpy(&handle, &op, op_bytes);
  return handle;
}

MPI_Op op_of(std::uintptr_t handle) {
  MPI_Op op = MPI_OP_NULL;
  std::memcpy(&op, &handle, op_bytes);
  return op;
}

/// "MPI_SUM" for a predefined operator, "MPI_Op" for a user-defined one.
std::string label_of(MPI_Op op) {
  const std::pair<MPI_Op, const char*> predefined[] = {
      {MPI_SUM, "MPI_SUM"},   {MPI_PROD, "MPI_PROD"}, {MPI_MIN, "MPI_MIN"},   {MPI_MAX, "MPI_MAX"},
      {MPI_BAND, "MPI_BAND"}, {MPI_BOR, "MPI_BOR"},   {MPI_BXOR, "MPI_BXOR"}, {MPI_LAND, "MPI_LAND"},
      {MPI_LOR, "MPI_LOR"},   {MPI_LXOR, "MPI_LXOR"}};
  for (const auto& [candidate, name] : predefined) {
    if (candidate == op) return name;
  }
  return "MPI_Op";
}

}  // namespace

MPI_Datatype to_mpi(DataType type) {
  switch (type) {
    case DataType::byte:
      return MPI_BYTE;
    case DataType::int32:
      return MPI_INT32_T;
    case DataType::int64:
      return MPI_INT64_T;
    case DataType::float32:
      return MPI_FLOAT;
    case DataType::float64:
      return MPI_DOUBLE;
  }
  throw InvalidArgument("type", "unknown DataType");
}

MPI_Op to_mpi(const ReduceOp& op) {
  switch (op.kind) {
    case OpKind::sum:
      return MPI_SUM;
    case OpKind::prod:
      return MPI_PROD;
    case OpKind::min:
      return MPI_MIN;
    case OpKind::max:
      return MPI_MAX;
    case OpKind::custom:
      if (op.native_handle != 0) return op_of(op.native_handle);
      throw InvalidArgument("op", "custom operator '" + op.label +
                                      "' wraps no MPI_Op (make it with ragged::mpi::from_mpi to use it with MPI)");
  }
  throw InvalidArgument("op", "unknown operator kind");
}

ReduceOp from_mpi(MPI_Op op) {
  if (op == MPI_OP_NULL) throw InvalidArgument("op", "MPI_OP_NULL");
  int commutative = 0;
  check(MPI_Op_commutative(op, &commutative), "MPI_Op_commutative");
  ReduceOp::Function fn = [op](const void* in, void* inout, std::size_t count, DataType type) {
    const MPI_Datatype datatype = to_mpi(type);
    const std::size_t element = size_of(type);
    // MPI counts are int: apply the operator in chunks of at most INT_MAX elements.
    std::size_t done = 0;
    while (done < count) {
      const std::size_t n = count - done < max_count ? count - done : max_count;
      const void* chunk_in = static_cast<const std::byte*>(in) + done * element;
      void* chunk_inout = static_cast<std::byte*>(inout) + done * element;
      check(MPI_Reduce_local(chunk_in, chunk_inout, static_cast<int>(n), datatype, op), "MPI_Reduce_local");
      done += n;
    }
  };
  ReduceOp result = ReduceOp::make_custom(label_of(op), std::move(fn), commutative != 0);
  result.native_handle = handle_of(op);
  return result;
}

}  // namespace ragged::mpi
