// libragged_pmpi.so: what ragged needs of MPI datatypes and operators. Data-moving collectives
// see bytes: a predefined datatype without holes is used in place, any other is packed to raw
// bytes before the call and unpacked after it, so that every rank takes the same path whatever
// datatypes the ranks use for one type signature. Reductions see whole elements: ragged's own
// loops for the common predefined cases, MPI_Reduce_local on the program's datatype otherwise.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "pmpi.hpp"
#include "ragged/mpi.hpp"

namespace ragged::pmpi {

namespace {

using mpi::check;

/// Elements of `type` that one MPI_Pack or MPI_Unpack takes (its byte counts are int).
std::size_t chunk_of(const TypeInfo& type) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(INT_MAX) / std::max<std::size_t>(1, type.size));
}

/// Calls `step(done, n)` for `count` elements of `type` in consecutive chunks of n <= chunk_of(type)
/// elements, `done` elements before each.
template <class Step>
void by_chunks(std::size_t count, const TypeInfo& type, Step&& step) {
  const std::size_t chunk = chunk_of(type);
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(chunk, count - done);
    step(done, n);
    done += n;
  }
}

enum class Family { c_integer, floating, logical, byte, pair, other };

struct Predefined {
  MPI_Datatype type;
  Family family;
};

/// MPI's classes of predefined datatypes (MPI-3.1 §5.9.2) that the predefined operators accept.
Family family_of(MPI_Datatype type) {
  static const std::vector<Predefined> table = {
      {MPI_INT, Family::c_integer},
      {MPI_LONG, Family::c_integer},
      {MPI_SHORT, Family::c_integer},
      {MPI_UNSIGNED_SHORT, Family::c_integer},
      {MPI_UNSIGNED, Family::c_integer},
      {MPI_UNSIGNED_LONG, Family::c_integer},
      {MPI_LONG_LONG_INT, Family::c_integer},
      {MPI_LONG_LONG, Family::c_integer},
      {MPI_UNSIGNED_LONG_LONG, Family::c_integer},
      {MPI_SIGNED_CHAR, Family::c_integer},
      {MPI_UNSIGNED_CHAR, Family::c_integer},
      {MPI_INT8_T, Family::c_integer},
      {MPI_INT16_T, Family::c_integer},
      {MPI_INT32_T, Family::c_integer},
      {MPI_INT64_T, Family::c_integer},
      {MPI_UINT8_T, Family::c_integer},
      {MPI_UINT16_T, Family::c_integer},
      {MPI_UINT32_T, Family::c_integer},
      {MPI_UINT64_T, Family::c_integer},
      {MPI_AINT, Family::c_integer},
      {MPI_OFFSET, Family::c_integer},
      {MPI_COUNT, Family::c_integer},
      {MPI_FLOAT, Family::floating},
      {MPI_DOUBLE, Family::floating},
      {MPI_LONG_DOUBLE, Family::floating},
      // Fortran's (what a Fortran program reduces through src/pmpi/fortran.cpp)
      {MPI_INTEGER, Family::c_integer},
      {MPI_INTEGER1, Family::c_integer},
      {MPI_INTEGER2, Family::c_integer},
      {MPI_INTEGER4, Family::c_integer},
      {MPI_INTEGER8, Family::c_integer},
      {MPI_REAL, Family::floating},
      {MPI_DOUBLE_PRECISION, Family::floating},
      {MPI_REAL4, Family::floating},
      {MPI_REAL8, Family::floating},
      {MPI_LOGICAL, Family::logical},
      {MPI_2INTEGER, Family::pair},
      {MPI_2REAL, Family::pair},
      {MPI_2DOUBLE_PRECISION, Family::pair},
      {MPI_C_BOOL, Family::logical},
      {MPI_BYTE, Family::byte},
      {MPI_FLOAT_INT, Family::pair},
      {MPI_DOUBLE_INT, Family::pair},
      {MPI_LONG_INT, Family::pair},
      {MPI_2INT, Family::pair},
      {MPI_SHORT_INT, Family::pair},
      {MPI_LONG_DOUBLE_INT, Family::pair},
  };
  for (const Predefined& p : table) {
    if (p.type == type) return p.family;
  }
  return Family::other;
}

/// Whether MPI defines predefined operator `op` on `family`; false for an operator that is not
/// predefined (a user's) or that reductions do not take (MPI_REPLACE, MPI_NO_OP).
bool defined_on(MPI_Op op, Family family) {
  const bool integer = family == Family::c_integer;
  if (op == MPI_MAX || op == MPI_MIN) return integer || family == Family::floating;
  if (op == MPI_SUM || op == MPI_PROD) return integer || family == Family::floating;
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return integer || family == Family::logical;
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return integer || family == Family::byte;
  if (op == MPI_MAXLOC || op == MPI_MINLOC) return family == Family::pair;
  return false;
}

bool is_predefined(MPI_Op op) {
  for (MPI_Op p : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR,
                   MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP}) {
    if (p == op) return true;
  }
  return false;
}

/// ragged's own element type for `type`, when its loops compute what MPI does on it.
bool builtin_unit(MPI_Datatype type, std::size_t size, DataType& unit) {
  const bool signed_integer = type == MPI_INT || type == MPI_LONG || type == MPI_LONG_LONG_INT ||
                              type == MPI_LONG_LONG || type == MPI_INT32_T || type == MPI_INT64_T ||
                              type == MPI_INTEGER || type == MPI_INTEGER4 || type == MPI_INTEGER8;
  if (signed_integer && size == 4) {
    unit = DataType::int32;
    return true;
  }
  if (signed_integer && size == 8) {
    unit = DataType::int64;
    return true;
  }
  if ((type == MPI_FLOAT || type == MPI_REAL || type == MPI_REAL4) && size == 4) {
    unit = DataType::float32;
    return true;
  }
  if ((type == MPI_DOUBLE || type == MPI_DOUBLE_PRECISION || type == MPI_REAL8) && size == 8) {
    unit = DataType::float64;
    return true;
  }
  return false;
}

/// MPI_Pack's input or MPI_Unpack's output at address 0 (MPI_BOTTOM with an absolute-address
/// datatype). MPICH 4.0 rejects a null buffer there ("Null pointer in parameter outbuf") although
/// MPI allows MPI_BOTTOM; so the same bytes are addressed from a non-null anchor with the datatype
/// moved back by the anchor's address (docs/portability.md). Other addresses pass unchanged.
class Addressed {
 public:
  Addressed(const void* address, int count, MPI_Datatype type, const void* anchor)
      : address_(const_cast<void*>(address)), count_(count), type_(type) {
    if (address != nullptr) return;
    MPI_Aint at = 0;
    check(PMPI_Get_address(anchor, &at), "MPI_Get_address");
    const MPI_Aint back = -at;
    check(PMPI_Type_create_hindexed_block(1, count, &back, type, &shifted_), "MPI_Type_create_hindexed_block");
    check(PMPI_Type_commit(&shifted_), "MPI_Type_commit");
    address_ = const_cast<void*>(anchor);
    count_ = 1;
    type_ = shifted_;
  }
  ~Addressed() {
    if (shifted_ != MPI_DATATYPE_NULL) PMPI_Type_free(&shifted_);
  }
  Addressed(const Addressed&) = delete;
  Addressed& operator=(const Addressed&) = delete;

  [[nodiscard]] void* address() const { return address_; }
  [[nodiscard]] int count() const { return count_; }
  [[nodiscard]] MPI_Datatype type() const { return type_; }

 private:
  void* address_;
  int count_;
  MPI_Datatype type_;
  MPI_Datatype shifted_ = MPI_DATATYPE_NULL;
};

}  // namespace

bool describe(MPI_Datatype type, TypeInfo& info) {
  if (type == MPI_DATATYPE_NULL) return false;
  int size = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED || size < 0) return false;
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  MPI_Aint true_lb = 0;
  MPI_Aint true_extent = 0;
  if (PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS) return false;
  if (PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS) return false;
  int integers = 0;
  int addresses = 0;
  int types = 0;
  int combiner = MPI_UNDEFINED;
  if (PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) != MPI_SUCCESS) return false;
  info.type = type;
  info.size = static_cast<std::size_t>(size);
  info.extent = extent;
  info.solid = lb == 0 && extent == size && true_lb == 0 && true_extent == size;
  info.dense = info.solid && combiner == MPI_COMBINER_NAMED;
  return true;
}

bool movable(const TypeInfo& type) { return type.dense || pack_is_raw(); }

void pack(const void* buf, std::size_t count, const TypeInfo& type, std::byte* out, MPI_Comm comm) {
  if (count == 0 || type.size == 0) return;
  if (type.dense) {
    std::memcpy(out, buf, count * type.size);
    return;
  }
  by_chunks(count, type, [&](std::size_t done, std::size_t n) {
    int position = 0;
    std::byte* const to = out + done * type.size;
    const Addressed from(offset(buf, static_cast<MPI_Aint>(done) * type.extent), static_cast<int>(n), type.type, to);
    check(PMPI_Pack(from.address(), from.count(), from.type(), to, static_cast<int>(n * type.size), &position, comm),
          "MPI_Pack");
  });
}

void unpack(const std::byte* in, std::size_t count, const TypeInfo& type, void* buf, MPI_Comm comm) {
  if (count == 0 || type.size == 0) return;
  if (type.dense) {
    std::memcpy(buf, in, count * type.size);
    return;
  }
  by_chunks(count, type, [&](std::size_t done, std::size_t n) {
    int position = 0;
    const std::byte* const from = in + done * type.size;
    const Addressed to(offset(buf, static_cast<MPI_Aint>(done) * type.extent), static_cast<int>(n), type.type, from);
    check(PMPI_Unpack(from, static_cast<int>(n * type.size), &position, to.address(), to.count(), to.type(), comm),
          "MPI_Unpack");
  });
}

bool reduction_of(MPI_Datatype type, MPI_Op op, Reduction& out, const char*& why) {
  TypeInfo info;
  if (!describe(type, info)) {
    why = "datatype";
    return false;
  }
  const bool predefined = is_predefined(op);
  if (predefined && !defined_on(op, family_of(type))) {
    why = "operator not defined on the datatype";
    return false;
  }
  if (predefined && (op == MPI_SUM || op == MPI_PROD || op == MPI_MIN || op == MPI_MAX) &&
      builtin_unit(type, info.size, out.unit)) {
    out.op = op == MPI_SUM    ? ReduceOp::sum()
             : op == MPI_PROD ? ReduceOp::prod()
             : op == MPI_MIN  ? ReduceOp::min()
                              : ReduceOp::max();
    return true;
  }
  // MPI_Reduce_local on the program's datatype: dispatch splits vectors only between elements,
  // so an element must be one ragged unit of 1, 4 or 8 bytes with no hole.
  if (!info.solid || (info.size != 1 && info.size != 4 && info.size != 8)) {
    why = "element is not 1, 4 or 8 contiguous bytes";
    return false;
  }
  out.unit = info.size == 1 ? DataType::byte : info.size == 4 ? DataType::int32 : DataType::int64;
  int commutative = 1;
  check(PMPI_Op_commutative(op, &commutative), "MPI_Op_commutative");
  // The operator sees the program's own datatype, as under the MPI library's collectives.
  ReduceOp::Function fn = [op, type, extent = info.extent](const void* in, void* inout, std::size_t count, DataType) {
    for (std::size_t done = 0; done < count;) {
      const std::size_t n = std::min(count - done, mpi::max_count);
      const auto at = static_cast<MPI_Aint>(done) * extent;
      check(PMPI_Reduce_local(offset(in, at), offset(inout, at), static_cast<int>(n), type, op), "MPI_Reduce_local");
      done += n;
    }
  };
  out.op = ReduceOp::make_custom("MPI_Op", std::move(fn), commutative != 0);
  return true;
}

bool lay_out(std::span<const int> counts, std::span<const int> displs, const TypeInfo& type, const void* buf,
             std::vector<std::byte>& scratch, Blocks& out) {
  const std::size_t p = counts.size();
  out.counts.assign(p, 0);
  out.displs.assign(p, 0);
  out.staged = false;
  out.total = 0;
  bool any = false;
  MPI_Aint lowest = 0;
  MPI_Aint highest = 0;
  for (std::size_t i = 0; i < p; ++i) {
    if (counts[i] < 0) return false;
    const auto bytes = static_cast<MPI_Aint>(counts[i]) * static_cast<MPI_Aint>(type.size);
    if (bytes > INT_MAX) return false;
    out.counts[i] = static_cast<int>(bytes);
    out.total += static_cast<std::size_t>(bytes);
    if (bytes == 0) continue;
    const MPI_Aint at = static_cast<MPI_Aint>(displs[i]) * type.extent;
    lowest = any ? std::min(lowest, at) : at;
    highest = any ? std::max(highest, at + bytes) : at + bytes;
    any = true;
  }
  if (!any) {
    out.base = static_cast<std::byte*>(const_cast<void*>(buf));
    return true;
  }
  if (type.dense && highest - lowest <= INT_MAX) {
    out.base = static_cast<std::byte*>(const_cast<void*>(offset(buf, lowest)));
    for (std::size_t i = 0; i < p; ++i) {
      if (out.counts[i] > 0) {
        out.displs[i] = static_cast<int>(static_cast<MPI_Aint>(displs[i]) * type.extent - lowest);
      }
    }
    return true;
  }
  if (out.total > static_cast<std::size_t>(INT_MAX)) return false;
  if (scratch.size() < out.total) scratch.resize(out.total);
  out.base = scratch.data();
  out.staged = true;
  int at = 0;
  for (std::size_t i = 0; i < p; ++i) {
    out.displs[i] = at;
    at += out.counts[i];
  }
  return true;
}

void pack_blocks(const Blocks& blocks, std::span<const int> counts, std::span<const int> displs, const TypeInfo& type,
                 const void* buf, MPI_Comm comm) {
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (blocks.counts[i] == 0) continue;
    pack(offset(buf, static_cast<MPI_Aint>(displs[i]) * type.extent), static_cast<std::size_t>(counts[i]), type,
         blocks.base + blocks.displs[i], comm);
  }
}

void unpack_blocks(const Blocks& blocks, std::span<const int> counts, std::span<const int> displs, const TypeInfo& type,
                   void* buf, MPI_Comm comm) {
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (blocks.counts[i] == 0) continue;
    unpack(blocks.base + blocks.displs[i], static_cast<std::size_t>(counts[i]), type,
           offset(buf, static_cast<MPI_Aint>(displs[i]) * type.extent), comm);
  }
}

bool lay_out_typed(std::span<const int> counts, std::span<const int> displs, std::span<const TypeInfo> types,
                   const void* buf, std::vector<std::byte>& scratch, Blocks& out) {
  const std::size_t p = counts.size();
  out.counts.assign(p, 0);
  out.displs.assign(p, 0);
  out.staged = false;
  out.total = 0;
  bool any = false;
  bool dense = true;
  MPI_Aint lowest = 0;
  MPI_Aint highest = 0;
  for (std::size_t i = 0; i < p; ++i) {
    if (counts[i] < 0) return false;
    const auto bytes = static_cast<MPI_Aint>(counts[i]) * static_cast<MPI_Aint>(types[i].size);
    if (bytes > INT_MAX) return false;
    out.counts[i] = static_cast<int>(bytes);
    out.total += static_cast<std::size_t>(bytes);
    if (bytes == 0) continue;
    dense = dense && types[i].dense;
    const auto at = static_cast<MPI_Aint>(displs[i]);
    lowest = any ? std::min(lowest, at) : at;
    highest = any ? std::max(highest, at + bytes) : at + bytes;
    any = true;
  }
  if (!any) {
    out.base = static_cast<std::byte*>(const_cast<void*>(buf));
    return true;
  }
  if (dense && highest - lowest <= INT_MAX) {
    out.base = static_cast<std::byte*>(const_cast<void*>(offset(buf, lowest)));
    for (std::size_t i = 0; i < p; ++i) {
      if (out.counts[i] > 0) out.displs[i] = static_cast<int>(static_cast<MPI_Aint>(displs[i]) - lowest);
    }
    return true;
  }
  if (out.total > static_cast<std::size_t>(INT_MAX)) return false;
  if (scratch.size() < out.total) scratch.resize(out.total);
  out.base = scratch.data();
  out.staged = true;
  int at = 0;
  for (std::size_t i = 0; i < p; ++i) {
    out.displs[i] = at;
    at += out.counts[i];
  }
  return true;
}

void pack_typed(const Blocks& blocks, std::span<const int> counts, std::span<const int> displs,
                std::span<const TypeInfo> types, const void* buf, MPI_Comm comm) {
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (blocks.counts[i] == 0) continue;
    pack(offset(buf, static_cast<MPI_Aint>(displs[i])), static_cast<std::size_t>(counts[i]), types[i],
         blocks.base + blocks.displs[i], comm);
  }
}

void unpack_typed(const Blocks& blocks, std::span<const int> counts, std::span<const int> displs,
                  std::span<const TypeInfo> types, void* buf, MPI_Comm comm) {
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (blocks.counts[i] == 0) continue;
    unpack(blocks.base + blocks.displs[i], static_cast<std::size_t>(counts[i]), types[i],
           offset(buf, static_cast<MPI_Aint>(displs[i])), comm);
  }
}

}  // namespace ragged::pmpi
