// Fuzzes the PMPI library's datatype mapping (src/pmpi/types.cpp, compiled in) on derived
// datatypes built from the fuzz bytes: contiguous, vector, hvector, indexed, struct, resized and
// dup over predefined types (MPI_DOUBLE_INT and MPI_SHORT_INT bring holes), nested 3 deep, at most
// 4 elements a level. MPI runs as a singleton (no mpiexec). An independent model of the type map
// (offset and size of every basic element, in type-map order) is the reference:
//   * describe(): size and extent are MPI's; solid exactly when the data spans [0, size) with
//     lb 0 and extent size; dense only for a solid predefined type; types on which Open MPI 4.1
//     itself goes wrong (bounds_agree, empty struct blocks) are skipped;
//   * pack() of 0..5 elements gives the mapped bytes in type-map order (what ragged sends), also
//     through MPI_BOTTOM and an absolute-address datatype; unpack() of them writes exactly the
//     mapped bytes back, nothing else (when elements do not overlap);
//   * lay_out() of up to 4 blocks: byte counts, in-place offsets only for a dense type, a staging
//     buffer packed in rank order otherwise, and pack_blocks()/unpack_blocks() round trips;
//   * reduction_of() for predefined operators: a ragged unit of the element's size, and
//     ragged's reduce_local() computes what MPI_Reduce_local computes.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fuzz_check.hpp"
#include "pmpi.hpp"

namespace ragged::pmpi {
// state.cpp is not compiled in; every homogeneous Open MPI and MPICH packs raw bytes.
bool pack_is_raw() { return true; }
}  // namespace ragged::pmpi

extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }  // MPI's own allocations

namespace {

using ragged::pmpi::TypeInfo;

/// One basic element of a type map.
struct Entry {
  MPI_Aint offset;
  MPI_Aint size;
};

struct Built {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  std::vector<Entry> map;
  bool named = false;
  /// MPI's true bounds of this type or a part of it are not the type map's (see bounds_agree).
  bool confused = false;
};

/// Whether MPI's true lower bound and extent are the type map's (or the map is empty). Open MPI
/// 4.1 gets them wrong when a vector's negative stride overlaps its blocks (MPI_Type_vector(2, 3,
/// -1, MPI_BYTE): true lb 0 and extent 6 where the standard and MPICH say -1 and 4), and its
/// MPI_Pack then reads outside the type map: such types are MPI's problem, not ragged's, and the
/// fuzzer skips them (docs/fuzzing.md).
bool bounds_agree(const Built& b) {
  if (b.map.empty()) return true;
  MPI_Aint low = b.map.front().offset;
  MPI_Aint high = low;
  for (const Entry& e : b.map) {
    low = std::min(low, e.offset);
    high = std::max(high, e.offset + e.size);
  }
  MPI_Aint true_lb = 0;
  MPI_Aint true_extent = 0;
  MPI_Type_get_true_extent(b.type, &true_lb, &true_extent);
  return true_lb == low && true_extent == high - low;
}

struct Leaf {
  MPI_Datatype type;
  std::vector<Entry> map;
};

std::vector<Leaf> leaves() {
  struct DI {
    double d;
    int i;
  };
  struct SI {
    short s;
    int i;
  };
  return {
      {MPI_BYTE, {{0, 1}}},
      {MPI_CHAR, {{0, 1}}},
      {MPI_SHORT, {{0, 2}}},
      {MPI_INT, {{0, 4}}},
      {MPI_LONG, {{0, static_cast<MPI_Aint>(sizeof(long))}}},
      {MPI_FLOAT, {{0, 4}}},
      {MPI_DOUBLE, {{0, 8}}},
      {MPI_INT64_T, {{0, 8}}},
      {MPI_2INT, {{0, 4}, {4, 4}}},
      {MPI_DOUBLE_INT, {{0, 8}, {static_cast<MPI_Aint>(offsetof(DI, i)), 4}}},
      {MPI_SHORT_INT, {{0, 2}, {static_cast<MPI_Aint>(offsetof(SI, i)), 4}}},
  };
}

MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  MPI_Type_get_extent(t, &lb, &extent);
  return extent;
}

void shift_into(std::vector<Entry>& out, const std::vector<Entry>& map, MPI_Aint by) {
  for (const Entry& e : map) out.push_back({e.offset + by, e.size});
}

/// Builds a (committed by the caller) datatype and its map; `owned` collects what to free.
Built build(FuzzedDataProvider& in, int depth, std::vector<MPI_Datatype>& owned) {
  static const std::vector<Leaf> basic = leaves();
  const int kind = depth >= 3 ? 0 : in.ConsumeIntegralInRange<int>(0, 7);
  if (kind == 0 || kind == 7) {
    const Leaf& l = basic[in.ConsumeIntegralInRange<std::size_t>(0, basic.size() - 1)];
    return {l.type, l.map, true};
  }
  const Built child = build(in, depth + 1, owned);
  const MPI_Aint ext = extent_of(child.type);
  Built b;
  switch (kind) {
    case 1: {
      const int count = in.ConsumeIntegralInRange<int>(0, 4);
      MPI_Type_contiguous(count, child.type, &b.type);
      for (int i = 0; i < count; ++i) shift_into(b.map, child.map, i * ext);
      break;
    }
    case 2:
    case 3: {
      const int count = in.ConsumeIntegralInRange<int>(0, 3);
      const int blocklength = in.ConsumeIntegralInRange<int>(0, 3);
      const int stride = in.ConsumeIntegralInRange<int>(-4, 4);
      const MPI_Aint hstride = in.ConsumeIntegralInRange<MPI_Aint>(-64, 64);
      if (kind == 2) {
        MPI_Type_vector(count, blocklength, stride, child.type, &b.type);
      } else {
        MPI_Type_create_hvector(count, blocklength, hstride, child.type, &b.type);
      }
      for (int j = 0; j < count; ++j) {
        const MPI_Aint start = kind == 2 ? j * stride * ext : j * hstride;
        for (int k = 0; k < blocklength; ++k) shift_into(b.map, child.map, start + k * ext);
      }
      break;
    }
    case 4: {
      const int n = in.ConsumeIntegralInRange<int>(0, 3);
      std::vector<int> lengths(static_cast<std::size_t>(n));
      std::vector<int> displs(static_cast<std::size_t>(n));
      for (int j = 0; j < n; ++j) {
        lengths[static_cast<std::size_t>(j)] = in.ConsumeIntegralInRange<int>(0, 3);
        displs[static_cast<std::size_t>(j)] = in.ConsumeIntegralInRange<int>(-4, 8);
      }
      MPI_Type_indexed(n, lengths.data(), displs.data(), child.type, &b.type);
      for (std::size_t j = 0; j < lengths.size(); ++j) {
        for (int k = 0; k < lengths[j]; ++k) shift_into(b.map, child.map, (displs[j] + k) * ext);
      }
      break;
    }
    case 5: {
      const int n = in.ConsumeIntegralInRange<int>(1, 3);
      std::vector<int> lengths;
      std::vector<MPI_Aint> displs;
      std::vector<MPI_Datatype> types;
      std::vector<Built> parts{child};
      for (int j = 1; j < n; ++j) parts.push_back(build(in, depth + 1, owned));
      for (const Built& part : parts) {
        lengths.push_back(in.ConsumeIntegralInRange<int>(0, 2));
        displs.push_back(in.ConsumeIntegralInRange<MPI_Aint>(-16, 48));
        types.push_back(part.type);
      }
      MPI_Type_create_struct(n, lengths.data(), displs.data(), types.data(), &b.type);
      // Open MPI 4.1 packs two or more elements of a struct with an empty block (a part with no
      // data but a displacement that sets the bounds) as if they were contiguous, ignoring the
      // extent (MPICH does not): also MPI's problem.
      for (std::size_t j = 0; j < parts.size(); ++j) {
        b.confused = b.confused || parts[j].confused || (parts[j].map.empty() && lengths[j] > 0);
      }
      for (std::size_t j = 0; j < parts.size(); ++j) {
        const MPI_Aint e = extent_of(parts[j].type);
        for (int k = 0; k < lengths[j]; ++k) shift_into(b.map, parts[j].map, displs[j] + k * e);
      }
      break;
    }
    default: {
      if (in.ConsumeBool()) {
        MPI_Type_dup(child.type, &b.type);
      } else {
        const MPI_Aint lb = in.ConsumeIntegralInRange<MPI_Aint>(-16, 16);
        const MPI_Aint extent = in.ConsumeIntegralInRange<MPI_Aint>(1, 64);
        MPI_Type_create_resized(child.type, lb, extent, &b.type);
      }
      b.map = child.map;
      break;
    }
  }
  owned.push_back(b.type);
  MPI_Type_commit(&b.type);
  if (std::getenv("RAGGED_FUZZ_DUMP") != nullptr) {
    int ni = 0, na = 0, nt = 0, combiner = 0;
    MPI_Type_get_envelope(b.type, &ni, &na, &nt, &combiner);
    std::vector<int> ints(static_cast<std::size_t>(ni) + 1);
    std::vector<MPI_Aint> addrs(static_cast<std::size_t>(na) + 1);
    std::vector<MPI_Datatype> types(static_cast<std::size_t>(nt) + 1);
    MPI_Type_get_contents(b.type, ni, na, nt, ints.data(), addrs.data(), types.data());
    std::fprintf(stderr, "depth %d kind %d combiner %d ints", depth, kind, combiner);
    for (int k = 0; k < ni; ++k) std::fprintf(stderr, " %d", ints[static_cast<std::size_t>(k)]);
    std::fprintf(stderr, " addrs");
    for (int k = 0; k < na; ++k) std::fprintf(stderr, " %ld", addrs[static_cast<std::size_t>(k)]);
    std::fprintf(stderr, " child extent %ld\n", ext);
  }
  b.confused = b.confused || child.confused || !bounds_agree(b);
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // Open MPI's own SIGABRT/SIGSEGV handler would end the process before libFuzzer saves the input.
  setenv("OMPI_MCA_opal_signal", "", 0);
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  std::vector<MPI_Datatype> owned;
  const Built built = build(in, 0, owned);
  MPI_Datatype type = built.type;

  // The model: size and bounds.
  MPI_Aint bytes = 0;
  for (const Entry& e : built.map) bytes += e.size;
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  // The map's own bounds: every element's data within [0, size) makes it solid (with lb 0 and
  // extent size). With overlapping entries (legal in a send buffer only) that need not tile it,
  // and ragged moves whole elements anyway, holes included.
  MPI_Aint map_lb = 0;
  MPI_Aint map_ub = 0;
  for (std::size_t k = 0; k < built.map.size(); ++k) {
    const Entry& e = built.map[k];
    map_lb = k == 0 ? e.offset : std::min(map_lb, e.offset);
    map_ub = k == 0 ? e.offset + e.size : std::max(map_ub, e.offset + e.size);
  }
  if (std::getenv("RAGGED_FUZZ_DUMP") != nullptr) {
    for (const Entry& e : built.map) std::fprintf(stderr, "(%ld,%ld) ", e.offset, e.size);
    std::fprintf(stderr, "lb %ld extent %ld%s\n", lb, extent,
                 built.confused ? " (skipped: Open MPI gets this type wrong)" : "");
  }
  if (built.confused) {
    for (MPI_Datatype& t : owned) MPI_Type_free(&t);
    return 0;
  }
  TypeInfo info;
  FUZZ_REQUIRE(ragged::pmpi::describe(type, info), "describe() takes every small committed type");
  FUZZ_REQUIRE(info.type == type, "the type");
  FUZZ_REQUIRE(static_cast<MPI_Aint>(info.size) == bytes, "size: the bytes of the type map");
  FUZZ_REQUIRE(info.extent == extent, "extent: MPI's");
  // (An empty type's true bounds are MPI's business: its solidity does not matter.)
  FUZZ_REQUIRE(info.solid == (map_lb == 0 && map_ub == bytes && lb == 0 && extent == bytes) || bytes == 0,
               "solid: the data spans exactly [0, size) = [lb, lb + extent)");
  FUZZ_REQUIRE(!info.dense || (info.solid && built.named), "dense: a solid predefined type");
  FUZZ_REQUIRE(info.dense == (built.named && info.solid), "every solid predefined type is dense");
  FUZZ_REQUIRE(ragged::pmpi::movable(info), "movable (MPI_Pack writes raw bytes)");

  // A buffer holding `count` elements, its bytes numbered, with room around for negative offsets.
  const std::size_t count = in.ConsumeIntegralInRange<std::size_t>(0, 5);
  MPI_Aint low = 0;
  MPI_Aint high = 0;
  for (std::size_t i = 0; i < count; ++i) {
    for (const Entry& e : built.map) {
      low = std::min(low, static_cast<MPI_Aint>(i) * extent + e.offset);
      high = std::max(high, static_cast<MPI_Aint>(i) * extent + e.offset + e.size);
    }
  }
  const auto span = static_cast<std::size_t>(high - low);
  std::vector<std::byte> memory(span + 1);
  for (std::size_t k = 0; k < memory.size(); ++k) memory[k] = static_cast<std::byte>(k * 7 + 3);
  std::byte* const buf = memory.data() - low;  // element 0 starts here
  std::vector<std::byte> want;
  std::vector<char> covered(memory.size(), 0);
  bool overlap = false;
  for (std::size_t i = 0; i < count; ++i) {
    for (const Entry& e : built.map) {
      const MPI_Aint from = static_cast<MPI_Aint>(i) * extent + e.offset;
      for (MPI_Aint k = 0; k < e.size; ++k) {
        want.push_back(buf[from + k]);
        char& c = covered[static_cast<std::size_t>(from + k - low)];
        overlap = overlap || c != 0;
        c = 1;
      }
    }
  }
  FUZZ_REQUIRE(want.size() == count * info.size, "the model's packed size");

  // pack(): the mapped bytes in type-map order.
  std::vector<std::byte> packed(want.size() + 1, std::byte{0});
  ragged::pmpi::pack(buf, count, info, packed.data(), MPI_COMM_SELF);
  if (std::getenv("RAGGED_FUZZ_DUMP") != nullptr) {
    std::fprintf(stderr, "count %zu low %ld\nwant  ", count, low);
    for (std::byte x : want) std::fprintf(stderr, "%02x", static_cast<unsigned>(x));
    std::fprintf(stderr, "\npacked ");
    for (std::byte x : packed) std::fprintf(stderr, "%02x", static_cast<unsigned>(x));
    std::fprintf(stderr, "\n");
  }
  FUZZ_REQUIRE(std::equal(want.begin(), want.end(), packed.begin()), "pack(): the type map's bytes in order");
  if (info.dense && !want.empty())
    FUZZ_REQUIRE(std::memcmp(buf, want.data(), want.size()) == 0, "dense: the buffer itself");

  // The same through MPI_BOTTOM: an absolute-address datatype over the buffer.
  if (count > 0) {
    MPI_Aint address = 0;
    MPI_Get_address(buf, &address);
    const int n = static_cast<int>(count);
    MPI_Datatype absolute = MPI_DATATYPE_NULL;
    MPI_Type_create_hindexed_block(1, n, &address, type, &absolute);
    MPI_Type_commit(&absolute);
    TypeInfo abs_info;
    FUZZ_REQUIRE(ragged::pmpi::describe(absolute, abs_info), "describe() an absolute type");
    std::vector<std::byte> bottom(want.size() + 1, std::byte{0});
    ragged::pmpi::pack(MPI_BOTTOM, 1, abs_info, bottom.data(), MPI_COMM_SELF);
    FUZZ_REQUIRE(std::equal(want.begin(), want.end(), bottom.begin()), "pack() from MPI_BOTTOM");
    std::vector<std::byte> copy(memory.size(), std::byte{0x5a});
    MPI_Aint copy_address = 0;
    MPI_Get_address(copy.data() - low, &copy_address);
    MPI_Datatype copy_type = MPI_DATATYPE_NULL;
    MPI_Type_create_hindexed_block(1, n, &copy_address, type, &copy_type);
    MPI_Type_commit(&copy_type);
    TypeInfo copy_info;
    FUZZ_REQUIRE(ragged::pmpi::describe(copy_type, copy_info), "describe() an absolute type");
    if (!overlap) {
      ragged::pmpi::unpack(packed.data(), 1, copy_info, MPI_BOTTOM, MPI_COMM_SELF);
      for (std::size_t k = 0; k < memory.size(); ++k) {
        FUZZ_REQUIRE(copy[k] == (covered[k] != 0 ? memory[k] : std::byte{0x5a}), "unpack() to MPI_BOTTOM");
      }
    }
    MPI_Type_free(&copy_type);
    MPI_Type_free(&absolute);
  }

  // unpack(): exactly the mapped bytes, nothing else.
  if (!overlap) {
    std::vector<std::byte> target(memory.size(), std::byte{0xa5});
    ragged::pmpi::unpack(packed.data(), count, info, target.data() - low, MPI_COMM_SELF);
    for (std::size_t k = 0; k < memory.size(); ++k) {
      FUZZ_REQUIRE(target[k] == (covered[k] != 0 ? memory[k] : std::byte{0xa5}), "unpack() writes the map only");
    }
  }

  // lay_out() of up to 4 blocks of up to 3 elements at element displacements 0..8.
  const std::size_t ranks = in.ConsumeIntegralInRange<std::size_t>(1, 4);
  std::vector<int> counts(ranks);
  std::vector<int> displs(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    counts[r] = in.ConsumeIntegralInRange<int>(in.ConsumeBool() ? -1 : 0, 3);
    displs[r] = in.ConsumeIntegralInRange<int>(0, 8);
  }
  const bool negative = std::any_of(counts.begin(), counts.end(), [](int c) { return c < 0; });
  MPI_Aint vlow = 0;
  MPI_Aint vhigh = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    for (int i = 0; i < std::max(counts[r], 0); ++i) {
      for (const Entry& e : built.map) {
        const MPI_Aint o = (displs[r] + i) * extent + e.offset;
        vlow = std::min(vlow, o);
        vhigh = std::max(vhigh, o + e.size);
      }
    }
  }
  std::vector<std::byte> vmemory(static_cast<std::size_t>(vhigh - vlow) + 1);
  for (std::size_t k = 0; k < vmemory.size(); ++k) vmemory[k] = static_cast<std::byte>(k * 13 + 1);
  std::byte* const vbuf = vmemory.data() - vlow;
  std::vector<std::byte> scratch;
  ragged::pmpi::Blocks blocks;
  const bool laid = ragged::pmpi::lay_out(counts, displs, info, vbuf, scratch, blocks);
  FUZZ_REQUIRE(laid == !negative, "lay_out() refuses exactly negative counts (small sizes)");
  if (laid) {
    std::size_t total = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      FUZZ_REQUIRE(blocks.counts[r] == counts[r] * static_cast<int>(info.size), "byte counts");
      total += static_cast<std::size_t>(blocks.counts[r]);
    }
    FUZZ_REQUIRE(blocks.total == total, "total bytes");
    if (!blocks.staged) {
      FUZZ_REQUIRE(info.dense || total == 0, "in place only for a dense type");
      for (std::size_t r = 0; r < ranks; ++r) {
        if (blocks.counts[r] == 0) continue;
        FUZZ_REQUIRE(blocks.displs[r] >= 0, "in-place offsets are not negative");
        FUZZ_REQUIRE(blocks.base + blocks.displs[r] == vbuf + displs[r] * extent, "in place: the program's block");
      }
    } else {
      FUZZ_REQUIRE(blocks.base == scratch.data() && scratch.size() >= total, "staged in the scratch buffer");
      int next = 0;
      for (std::size_t r = 0; r < ranks; ++r) {
        FUZZ_REQUIRE(blocks.displs[r] == next, "staged blocks in rank order, back to back");
        next += blocks.counts[r];
      }
      ragged::pmpi::pack_blocks(blocks, counts, displs, info, vbuf, MPI_COMM_SELF);
      for (std::size_t r = 0; r < ranks; ++r) {
        std::vector<std::byte> one(static_cast<std::size_t>(blocks.counts[r]) + 1);
        ragged::pmpi::pack(vbuf + displs[r] * extent, static_cast<std::size_t>(counts[r]), info, one.data(),
                           MPI_COMM_SELF);
        FUZZ_REQUIRE(
            std::memcmp(one.data(), blocks.base + blocks.displs[r], static_cast<std::size_t>(blocks.counts[r])) == 0,
            "pack_blocks(): each block packed at its offset");
      }
      std::vector<std::byte> back(vmemory.size(), std::byte{0});
      ragged::pmpi::unpack_blocks(blocks, counts, displs, info, back.data() - vlow, MPI_COMM_SELF);
      std::vector<std::byte> again;
      again.resize(total + 1);
      ragged::pmpi::Blocks check = blocks;
      check.base = again.data();
      ragged::pmpi::pack_blocks(check, counts, displs, info, back.data() - vlow, MPI_COMM_SELF);
      if (!overlap && total > 0) {
        // Blocks may overlap each other (displacements are free), so compare what is packed back.
        bool disjoint = true;
        std::vector<char> seen(vmemory.size(), 0);
        for (std::size_t r = 0; r < ranks; ++r) {
          for (int i = 0; i < counts[r]; ++i) {
            for (const Entry& e : built.map) {
              for (MPI_Aint k = 0; k < e.size; ++k) {
                char& c = seen[static_cast<std::size_t>((displs[r] + i) * extent + e.offset + k - vlow)];
                disjoint = disjoint && c == 0;
                c = 1;
              }
            }
          }
        }
        if (disjoint) {
          FUZZ_REQUIRE(std::memcmp(again.data(), blocks.base, total) == 0, "unpack_blocks() then pack_blocks()");
        }
      }
    }
  }

  // reduction_of() with the predefined operators MPI defines on the element.
  const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_LAND, MPI_MAXLOC};
  const MPI_Op op = ops[in.ConsumeIntegralInRange<std::size_t>(0, std::size(ops) - 1)];
  ragged::pmpi::Reduction reduction;
  const char* why = nullptr;
  if (ragged::pmpi::reduction_of(type, op, reduction, why)) {
    FUZZ_REQUIRE(ragged::size_of(reduction.unit) == info.size, "a ragged unit of the element's size");
    FUZZ_REQUIRE(info.solid, "reductions take solid elements");
    const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(1, 8);
    std::vector<std::byte> a(n * info.size);
    std::vector<std::byte> b(n * info.size);
    // Small integers in every element type: exact for floating point, no NaN.
    const bool floating = reduction.unit == ragged::DataType::float32 || reduction.unit == ragged::DataType::float64;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::vector<std::byte>* v : {&a, &b}) {
        const int x = in.ConsumeIntegralInRange<int>(-100, 100);
        std::byte* at_i = v->data() + i * info.size;
        if (floating && info.size == 4) {
          const float f = static_cast<float>(x);
          std::memcpy(at_i, &f, 4);
        } else if (floating) {
          const double d = static_cast<double>(x);
          std::memcpy(at_i, &d, 8);
        } else {
          for (std::size_t k = 0; k < info.size; ++k) at_i[k] = static_cast<std::byte>(x >> (k % 4 * 8));
        }
      }
    }
    std::vector<std::byte> mine = b;
    std::vector<std::byte> theirs = b;
    ragged::reduce_local(reduction.op, reduction.unit, a.data(), mine.data(), n);
    MPI_Reduce_local(a.data(), theirs.data(), static_cast<int>(n), type, op);
    FUZZ_REQUIRE(mine == theirs, "ragged's reduction computes MPI_Reduce_local's");
  } else {
    FUZZ_REQUIRE(why != nullptr && *why != '\0', "a refusal says why");
  }

  for (MPI_Datatype& t : owned) MPI_Type_free(&t);
  return 0;
}
