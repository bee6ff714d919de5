// libragged_pmpi.so: the MPI collectives an unmodified program calls (docs/pmpi.md).
//
//   MPI_Xxx(args)
//     RAGGED_XXX unset (and no RAGGED_TUNING_FILE), or =native  -> PMPI_Xxx(args)
//     otherwise: the communicator's state (made at its first such call), then per call
//       intercommunicator, a zero-byte message, a reduction ragged cannot split, selection
//       choosing "native", an argument dispatch rejects              -> PMPI_Xxx(args)
//       else: datatypes as raw bytes (packed when not dense), ragged's dispatch entry point
//     RAGGED_REPORT set: the call is timed and recorded around all this (report.hpp)
//     `auto` allgathers and allreduces: the call's arrival snapshot first, and every return
//     seen by the arrival runtime (site_prediction.hpp)
//
// Every decision to give a call to the MPI library rests on what all ranks of the call share
// (the environment, the communicator, counts and datatypes of reductions, the size of one block,
// which the type signatures fix), so no rank runs ragged while another runs the MPI library.
// Each rank's own datatypes only decide whether it packs: that stays local.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "pmpi.hpp"
#include "site_prediction.hpp"

using ragged::Collective;
using ragged::DataType;
namespace pmpi = ragged::pmpi;
using pmpi::Blocks;
using pmpi::Call;
using pmpi::Route;
using pmpi::TypeInfo;

namespace {

/// Bytes of `count` elements of `type`; the datatype is looked at only for a non-zero count (a
/// rank may pass anything with a zero count). False for a negative count or a datatype ragged
/// cannot move.
bool bytes_of(int count, MPI_Datatype type, TypeInfo& info, std::size_t& bytes) {
  if (count < 0) return false;
  if (count == 0) {
    info = TypeInfo{};
    info.dense = true;
    bytes = 0;
    return true;
  }
  if (!pmpi::describe(type, info) || !pmpi::movable(info)) return false;
  bytes = static_cast<std::size_t>(count) * info.size;
  return true;
}

/// The datatype of a v-collective's side whose counts are `counts`: described when one is
/// non-zero (and then it must be movable).
bool type_of_blocks(std::span<const int> counts, MPI_Datatype type, TypeInfo& info) {
  const bool any = std::any_of(counts.begin(), counts.end(), [](int c) { return c != 0; });
  if (!any) {
    info = TypeInfo{};
    info.dense = true;
    return true;
  }
  return pmpi::describe(type, info) && pmpi::movable(info);
}

bool valid_root(const Call& call, int root) { return root >= 0 && root < call.size(); }

/// The block of a gather or scatter, checked the same way on both: `local` is the side every
/// rank has (gather: what it sends; scatter: what it receives), `at_root` the side only the root
/// has; `in_place` (the root's local side) leaves only the root's. Returns false, after noting
/// why, when the MPI library must run the call, or when selection does not choose ragged.
bool rooted_block(Call& call, int root, bool in_place, int local_count, MPI_Datatype local_type, TypeInfo& local,
                  int root_count, MPI_Datatype root_type, TypeInfo& root_side, std::size_t& block) {
  if (!valid_root(call, root)) return call.fallback("root");
  const bool is_root = call.rank() == root;
  if (in_place && !is_root) return call.fallback("MPI_IN_PLACE at a non-root");
  std::size_t mine = 0;
  if (!in_place && !bytes_of(local_count, local_type, local, mine)) return call.fallback("datatype or count");
  if (is_root) {
    if (!bytes_of(root_count, root_type, root_side, block)) return call.fallback("datatype or count");
    if (!in_place && mine != block) return call.fallback("send and receive sizes differ");
  } else {
    block = mine;
  }
  if (block == 0) return call.fallback("zero bytes");
  return call.selects_ragged(block);
}

int native_outcome(int code) {
  pmpi::note_last("native");
  return code;
}

std::byte* bytes(void* p) { return static_cast<std::byte*>(p); }
const void* in_place_or(const void* buf) { return buf == MPI_IN_PLACE ? ragged::in_place : buf; }

// The routing of each collective; the MPI_ entry points at the end add the report's recording.

int route_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  const auto native = [&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); };
  if (pmpi::route(Collective::allgather) == Route::native) return native_outcome(native());
  return pmpi::run(
      Collective::allgather, comm,
      [&](Call& call) {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        TypeInfo rt;
        TypeInfo st;
        std::size_t block = 0;
        std::size_t sent = 0;
        if (!bytes_of(recvcount, recvtype, rt, block)) return call.fallback("datatype or count");
        if (block == 0) return call.fallback("zero bytes");
        if (!in_place && (!bytes_of(sendcount, sendtype, st, sent) || sent != block)) {
          return call.fallback("send and receive sizes differ");
        }
        if (!call.selects_ragged(block)) return false;
        const auto p = static_cast<std::size_t>(call.size());
        const auto r = static_cast<MPI_Aint>(call.rank());
        std::byte* recv = rt.dense ? bytes(recvbuf) : call.scratch(0, p * block).data();
        const void* send = ragged::in_place;
        if (in_place) {
          if (!rt.dense) {
            pmpi::pack(pmpi::offset(recvbuf, r * recvcount * rt.extent), static_cast<std::size_t>(recvcount), rt,
                       recv + static_cast<std::size_t>(r) * block, call.handle());
          }
        } else if (st.dense) {
          send = sendbuf;
        } else {
          std::byte* staged = call.scratch(1, block).data();
          pmpi::pack(sendbuf, static_cast<std::size_t>(sendcount), st, staged, call.handle());
          send = staged;
        }
        call.ran(ragged::allgather(call.comm(), send, recv, block, DataType::byte, call.options()));
        if (!rt.dense) pmpi::unpack(recv, p * static_cast<std::size_t>(recvcount), rt, recvbuf, call.handle());
        return true;
      },
      native);
}

int route_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  // ragged has no allgatherv algorithm yet: always the MPI library's.
  const char* name = std::getenv("RAGGED_ALLGATHERV");
  if (pmpi::report::enabled()) [[unlikely]] {
    pmpi::report::note_route(name == nullptr ? pmpi::report::Mode::unset : pmpi::report::Mode::named, name);
  }
  pmpi::note_last(name != nullptr ? "native (ragged has no allgatherv)" : "native");
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int route_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const auto native = [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); };
  if (pmpi::route(Collective::allreduce) == Route::native) return native_outcome(native());
  return pmpi::run(
      Collective::allreduce, comm,
      [&](Call& call) {
        if (count <= 0) return call.fallback(count == 0 ? "zero count" : "negative count");
        if (op == MPI_OP_NULL) return call.fallback("MPI_OP_NULL");
        pmpi::Reduction reduction;
        const char* why = nullptr;
        if (!pmpi::reduction_of(datatype, op, reduction, why)) return call.fallback(why);
        const auto n = static_cast<std::size_t>(count);
        if (!call.selects_ragged(n * ragged::size_of(reduction.unit), reduction.op.commutative)) return false;
        call.ran(ragged::allreduce(call.comm(), in_place_or(sendbuf), recvbuf, n, reduction.unit, reduction.op,
                                   call.options()));
        return true;
      },
      native);
}

int route_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm) {
  const auto native = [&] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); };
  if (pmpi::route(Collective::reduce) == Route::native) return native_outcome(native());
  return pmpi::run(
      Collective::reduce, comm,
      [&](Call& call) {
        if (!valid_root(call, root)) return call.fallback("root");
        if (count <= 0) return call.fallback(count == 0 ? "zero count" : "negative count");
        if (op == MPI_OP_NULL) return call.fallback("MPI_OP_NULL");
        pmpi::Reduction reduction;
        const char* why = nullptr;
        if (!pmpi::reduction_of(datatype, op, reduction, why)) return call.fallback(why);
        const auto n = static_cast<std::size_t>(count);
        if (!call.selects_ragged(n * ragged::size_of(reduction.unit), reduction.op.commutative)) return false;
        call.ran(ragged::reduce(call.comm(), in_place_or(sendbuf), recvbuf, n, reduction.unit, reduction.op, root,
                                call.options()));
        return true;
      },
      native);
}

int route_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const auto native = [&] { return PMPI_Bcast(buffer, count, datatype, root, comm); };
  if (pmpi::route(Collective::bcast) == Route::native) return native_outcome(native());
  return pmpi::run(
      Collective::bcast, comm,
      [&](Call& call) {
        if (!valid_root(call, root)) return call.fallback("root");
        TypeInfo type;
        std::size_t n = 0;
        if (!bytes_of(count, datatype, type, n)) return call.fallback("datatype or count");
        if (n == 0) return call.fallback("zero bytes");
        if (!call.selects_ragged(n)) return false;
        if (type.dense) {
          call.ran(ragged::bcast(call.comm(), buffer, n, DataType::byte, root, call.options()));
          return true;
        }
        std::byte* staged = call.scratch(0, n).data();
        const bool at_root = call.rank() == root;
        if (at_root) pmpi::pack(buffer, static_cast<std::size_t>(count), type, staged, call.handle());
        call.ran(ragged::bcast(call.comm(), staged, n, DataType::byte, root, call.options()));
        if (!at_root) pmpi::unpack(staged, static_cast<std::size_t>(count), type, buffer, call.handle());
        return true;
      },
      native);
}

int route_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const auto native = [&] {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  if (pmpi::route(Collective::gather) == Route::native) return native_outcome(native());
  return pmpi::run(
      Collective::gather, comm,
      [&](Call& call) {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        TypeInfo st;
        TypeInfo rt;
        std::size_t block = 0;
        if (!rooted_block(call, root, in_place, sendcount, sendtype, st, recvcount, recvtype, rt, block)) return false;
        const bool at_root = call.rank() == root;
        const void* send = sendbuf;
        if (!in_place && !st.dense) {
          std::byte* staged = call.scratch(1, block).data();
          pmpi::pack(sendbuf, static_cast<std::size_t>(sendcount), st, staged, call.handle());
          send = staged;
        }
        if (!at_root) {
          call.ran(ragged::gather(call.comm(), send, recvbuf, block, DataType::byte, root, call.options()));
          return true;
        }
        const auto p = static_cast<std::size_t>(call.size());
        std::byte* recv = rt.dense ? bytes(recvbuf) : call.scratch(0, p * block).data();
        if (in_place) {
          send = ragged::in_place;
          if (!rt.dense) {
            pmpi::pack(pmpi::offset(recvbuf, static_cast<MPI_Aint>(root) * recvcount * rt.extent),
                       static_cast<std::size_t>(recvcount), rt, recv + static_cast<std::size_t>(root) * block,
                       call.handle());
          }
        }
        call.ran(ragged::gather(call.comm(), send, recv, block, DataType::byte, root, call.options()));
        if (!rt.dense) pmpi::unpack(recv, p * static_cast<std::size_t>(recvcount), rt, recvbuf, call.handle());
        return true;
      },
      native);
}

int route_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const auto native = [&] {
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  if (pmpi::route(Collective::scatter) == Route::native) return native_outcome(native());
  return pmpi::run(
      Collective::scatter, comm,
      [&](Call& call) {
        const bool in_place = recvbuf == MPI_IN_PLACE;
        TypeInfo st;
        TypeInfo rt;
        std::size_t block = 0;
        if (!rooted_block(call, root, in_place, recvcount, recvtype, rt, sendcount, sendtype, st, block)) return false;
        const bool at_root = call.rank() == root;
        const auto p = static_cast<std::size_t>(call.size());
        const void* send = sendbuf;
        if (at_root && !st.dense) {
          std::byte* staged = call.scratch(1, p * block).data();
          pmpi::pack(sendbuf, p * static_cast<std::size_t>(sendcount), st, staged, call.handle());
          send = staged;
        }
        void* recv = in_place ? const_cast<void*>(ragged::in_place) : recvbuf;
        if (!in_place && !rt.dense) recv = call.scratch(0, block).data();
        call.ran(ragged::scatter(call.comm(), send, recv, block, DataType::byte, root, call.options()));
        if (!in_place && !rt.dense) {
          pmpi::unpack(static_cast<const std::byte*>(recv), static_cast<std::size_t>(recvcount), rt, recvbuf,
                       call.handle());
        }
        return true;
      },
      native);
}

int route_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const auto native = [&] {
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  };
  if (pmpi::route(Collective::gatherv) == Route::native) return native_outcome(native());
  return pmpi::run(
      Collective::gatherv, comm,
      [&](Call& call) {
        if (!valid_root(call, root)) return call.fallback("root");
        const bool at_root = call.rank() == root;
        const bool in_place = sendbuf == MPI_IN_PLACE;
        if (in_place && !at_root) return call.fallback("MPI_IN_PLACE at a non-root");
        TypeInfo st;
        std::size_t sent = 0;
        if (!in_place && !bytes_of(sendcount, sendtype, st, sent)) return call.fallback("datatype or count");
        if (sent > static_cast<std::size_t>(INT_MAX)) return call.fallback("more than INT_MAX bytes");
        const auto p = static_cast<std::size_t>(call.size());
        TypeInfo rt;
        Blocks blocks;
        if (at_root) {
          if (recvcounts == nullptr || displs == nullptr) return call.fallback("null counts");
          const std::span<const int> counts(recvcounts, p);
          if (!type_of_blocks(counts, recvtype, rt)) return call.fallback("datatype");
          if (!pmpi::lay_out(counts, std::span<const int>(displs, p), rt, recvbuf, call.scratch(0, 0), blocks)) {
            return call.fallback("counts");
          }
        }
        if (!call.selects_ragged(0)) return false;
        const void* send = sendbuf;
        if (in_place) {
          send = ragged::in_place;
          const auto r = static_cast<std::size_t>(root);
          if (blocks.staged && blocks.counts[r] > 0) {
            pmpi::pack(pmpi::offset(recvbuf, static_cast<MPI_Aint>(displs[r]) * rt.extent),
                       static_cast<std::size_t>(recvcounts[r]), rt, blocks.base + blocks.displs[r], call.handle());
          }
        } else if (!st.dense) {
          std::byte* staged = call.scratch(1, sent).data();
          pmpi::pack(sendbuf, static_cast<std::size_t>(sendcount), st, staged, call.handle());
          send = staged;
        }
        const int sent_bytes = static_cast<int>(sent);
        if (!at_root) {
          call.ran(
              ragged::gatherv(call.comm(), send, sent_bytes, nullptr, {}, {}, DataType::byte, root, call.options()));
          return true;
        }
        call.ran(ragged::gatherv(call.comm(), send, sent_bytes, blocks.base, blocks.counts, blocks.displs,
                                 DataType::byte, root, call.options()));
        if (blocks.staged) {
          pmpi::unpack_blocks(blocks, std::span<const int>(recvcounts, p), std::span<const int>(displs, p), rt, recvbuf,
                              call.handle());
        }
        return true;
      },
      native);
}

int route_scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const auto native = [&] {
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  if (pmpi::route(Collective::scatterv) == Route::native) return native_outcome(native());
  return pmpi::run(
      Collective::scatterv, comm,
      [&](Call& call) {
        if (!valid_root(call, root)) return call.fallback("root");
        const bool at_root = call.rank() == root;
        const bool in_place = recvbuf == MPI_IN_PLACE;
        if (in_place && !at_root) return call.fallback("MPI_IN_PLACE at a non-root");
        TypeInfo rt;
        std::size_t received = 0;
        if (!in_place && !bytes_of(recvcount, recvtype, rt, received)) return call.fallback("datatype or count");
        if (received > static_cast<std::size_t>(INT_MAX)) return call.fallback("more than INT_MAX bytes");
        const auto p = static_cast<std::size_t>(call.size());
        TypeInfo st;
        Blocks blocks;
        if (at_root) {
          if (sendcounts == nullptr || displs == nullptr) return call.fallback("null counts");
          const std::span<const int> counts(sendcounts, p);
          if (!type_of_blocks(counts, sendtype, st)) return call.fallback("datatype");
          if (!pmpi::lay_out(counts, std::span<const int>(displs, p), st, sendbuf, call.scratch(1, 0), blocks)) {
            return call.fallback("counts");
          }
        }
        if (!call.selects_ragged(0)) return false;
        if (blocks.staged) {
          pmpi::pack_blocks(blocks, std::span<const int>(sendcounts, p), std::span<const int>(displs, p), st, sendbuf,
                            call.handle());
        }
        void* recv = in_place ? const_cast<void*>(ragged::in_place) : recvbuf;
        if (!in_place && !rt.dense) recv = call.scratch(0, received).data();
        const int received_bytes = static_cast<int>(received);
        if (at_root) {
          call.ran(ragged::scatterv(call.comm(), blocks.base, blocks.counts, blocks.displs, recv, received_bytes,
                                    DataType::byte, root, call.options()));
        } else {
          call.ran(ragged::scatterv(call.comm(), nullptr, {}, {}, recv, received_bytes, DataType::byte, root,
                                    call.options()));
        }
        if (!in_place && !rt.dense) {
          pmpi::unpack(static_cast<const std::byte*>(recv), static_cast<std::size_t>(recvcount), rt, recvbuf,
                       call.handle());
        }
        return true;
      },
      native);
}

int route_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  const auto native = [&] { return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); };
  if (pmpi::route(Collective::alltoall) == Route::native) return native_outcome(native());
  return pmpi::run(
      Collective::alltoall, comm,
      [&](Call& call) {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        TypeInfo rt;
        TypeInfo st;
        std::size_t block = 0;
        std::size_t sent = 0;
        if (!bytes_of(recvcount, recvtype, rt, block)) return call.fallback("datatype or count");
        if (block == 0) return call.fallback("zero bytes");
        if (!in_place && (!bytes_of(sendcount, sendtype, st, sent) || sent != block)) {
          return call.fallback("send and receive sizes differ");
        }
        if (!call.selects_ragged(block)) return false;
        const auto p = static_cast<std::size_t>(call.size());
        std::byte* recv = rt.dense ? bytes(recvbuf) : call.scratch(0, p * block).data();
        const void* send = sendbuf;
        if (in_place) {
          send = ragged::in_place;
          if (!rt.dense) {
            std::byte* staged = call.scratch(1, p * block).data();
            pmpi::pack(recvbuf, p * static_cast<std::size_t>(recvcount), rt, staged, call.handle());
            send = staged;
          }
        } else if (!st.dense) {
          std::byte* staged = call.scratch(1, p * block).data();
          pmpi::pack(sendbuf, p * static_cast<std::size_t>(sendcount), st, staged, call.handle());
          send = staged;
        }
        call.ran(ragged::alltoall(call.comm(), send, recv, block, DataType::byte, call.options()));
        if (!rt.dense) pmpi::unpack(recv, p * static_cast<std::size_t>(recvcount), rt, recvbuf, call.handle());
        return true;
      },
      native);
}

int route_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const auto native = [&] {
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  };
  if (pmpi::route(Collective::alltoallv) == Route::native) return native_outcome(native());
  return pmpi::run(
      Collective::alltoallv, comm,
      [&](Call& call) {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        const auto p = static_cast<std::size_t>(call.size());
        if (recvcounts == nullptr || rdispls == nullptr) return call.fallback("null counts");
        if (!in_place && (sendcounts == nullptr || sdispls == nullptr)) return call.fallback("null counts");
        const std::span<const int> rcounts(recvcounts, p);
        const std::span<const int> rdisp(rdispls, p);
        TypeInfo rt;
        Blocks recv;
        if (!type_of_blocks(rcounts, recvtype, rt)) return call.fallback("datatype");
        if (!pmpi::lay_out(rcounts, rdisp, rt, recvbuf, call.scratch(0, 0), recv)) return call.fallback("counts");
        TypeInfo st;
        Blocks send;
        if (!in_place) {
          const std::span<const int> scounts(sendcounts, p);
          if (!type_of_blocks(scounts, sendtype, st)) return call.fallback("datatype");
          if (!pmpi::lay_out(scounts, std::span<const int>(sdispls, p), st, sendbuf, call.scratch(1, 0), send)) {
            return call.fallback("counts");
          }
        }
        if (!call.selects_ragged(0)) return false;
        const void* send_base = ragged::in_place;
        if (in_place) {
          // MPI takes the data from the receive buffer: stage it where the results will land.
          if (recv.staged) pmpi::pack_blocks(recv, rcounts, rdisp, rt, recvbuf, call.handle());
          send = recv;
        } else {
          if (send.staged) {
            pmpi::pack_blocks(send, std::span<const int>(sendcounts, p), std::span<const int>(sdispls, p), st, sendbuf,
                              call.handle());
          }
          send_base = send.base;
        }
        call.ran(ragged::alltoallv(call.comm(), send_base, send.counts, send.displs, recv.base, recv.counts,
                                   recv.displs, DataType::byte, call.options()));
        if (recv.staged) pmpi::unpack_blocks(recv, rcounts, rdisp, rt, recvbuf, call.handle());
        return true;
      },
      native);
}

int route_barrier(MPI_Comm comm) {
  const char* name = std::getenv("RAGGED_BARRIER");
  if (pmpi::report::enabled()) [[unlikely]] {
    using pmpi::report::Mode;
    const bool unset = name == nullptr || *name == '\0';
    pmpi::report::note_route(unset                              ? Mode::unset
                             : std::strcmp(name, "native") == 0 ? Mode::native
                             : std::strcmp(name, "auto") == 0   ? Mode::automatic
                                                                : Mode::named,
                             name);
  }
  if (name == nullptr || *name == '\0' || std::strcmp(name, "native") == 0) return native_outcome(PMPI_Barrier(comm));
  if (std::strcmp(name, "auto") != 0 && std::strcmp(name, "dissemination") != 0) {
    pmpi::say_once(std::string("RAGGED_BARRIER=") + name,
                   std::string("ragged pmpi: no barrier algorithm named '") + name +
                       "' (known: native, dissemination, auto); MPI_Barrier runs natively");
    pmpi::note_last("native (unknown algorithm)");
    return PMPI_Barrier(comm);
  }
  if (comm == MPI_COMM_NULL) {
    pmpi::note_last("native (MPI_COMM_NULL)");
    return PMPI_Barrier(comm);
  }
  try {
    pmpi::ensure_initialized();
    pmpi::CommAttribute& state = pmpi::state_of(comm);
    if (state.inter) {
      pmpi::note_last("native (intercommunicator)");
      return PMPI_Barrier(comm);
    }
    ragged::barrier(*state.comm);
    pmpi::note_last("dissemination");
    return MPI_SUCCESS;
  } catch (const ragged::TransportError& e) {
    return pmpi::raise_error(comm, e.what(), "MPI_Barrier", pmpi::class_of(e.code()));
  } catch (const std::bad_alloc& e) {
    return pmpi::raise_error(comm, e.what(), "MPI_Barrier", MPI_ERR_NO_MEM);
  } catch (const std::exception& e) {
    return pmpi::raise_error(comm, e.what(), "MPI_Barrier", MPI_ERR_INTERN);
  } catch (...) {
    return pmpi::raise_error(comm, "unknown exception", "MPI_Barrier", MPI_ERR_INTERN);
  }
}

}  // namespace

// ------------------------------------------------------------------ the MPI_ entry points
//
// Each routes the call (above) and, when RAGGED_REPORT is set, records it (report.hpp): its
// site (the block, message or vector size that every rank shares, the root) and the bytes this
// rank hands in. With the report off, the entry point is one branch and the routing.

namespace {

using pmpi::report::bytes_of;
using pmpi::report::CallRecord;
using pmpi::report::Kind;

/// Sum of `counts[0..n)` elements of `type` (a v-collective's side).
long long bytes_of_blocks(const int* counts, int n, MPI_Datatype type) {
  if (counts == nullptr) return 0;
  long long elements = 0;
  for (int i = 0; i < n; ++i) elements += counts[i] > 0 ? counts[i] : 0;
  return bytes_of(elements, type);
}

/// Whether this rank is the root of a rooted collective (MPI_ROOT on an intercommunicator).
bool is_root(const CallRecord& c, int root) { return c.inter ? root == MPI_ROOT : c.rank == root; }

/// The entry point's work: routed, recorded for the report, and seen by the arrival runtime's
/// exit hook (site_prediction.hpp: one load and one branch while no communicator tracks arrivals).
template <class Body, class Describe>
int entry(Kind kind, MPI_Comm comm, Body&& body, Describe&& describe) {
  return pmpi::prediction::after(comm, pmpi::report::recorded(kind, comm, body, describe));
}

}  // namespace

extern "C" {

RAGGED_PMPI_EXPORT int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return entry(
      Kind::allgather, comm,
      [&] { return route_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      [&](CallRecord& c) {
        c.bytes = bytes_of(recvcount, recvtype);
        c.contributed =
            static_cast<unsigned long long>(sendbuf == MPI_IN_PLACE ? c.bytes : bytes_of(sendcount, sendtype));
      });
}

RAGGED_PMPI_EXPORT int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  return entry(
      Kind::allgatherv, comm,
      [&] { return route_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm); },
      [&](CallRecord& c) {
        const bool in_place = sendbuf == MPI_IN_PLACE && recvcounts != nullptr;
        c.contributed = static_cast<unsigned long long>(in_place ? bytes_of(recvcounts[c.rank], recvtype)
                                                                 : bytes_of(sendcount, sendtype));
      });
}

RAGGED_PMPI_EXPORT int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                     MPI_Comm comm) {
  return entry(
      Kind::allreduce, comm, [&] { return route_allreduce(sendbuf, recvbuf, count, datatype, op, comm); },
      [&](CallRecord& c) {
        c.bytes = bytes_of(count, datatype);
        c.contributed = static_cast<unsigned long long>(c.bytes);
      });
}

RAGGED_PMPI_EXPORT int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                  int root, MPI_Comm comm) {
  return entry(
      Kind::reduce, comm, [&] { return route_reduce(sendbuf, recvbuf, count, datatype, op, root, comm); },
      [&](CallRecord& c) {
        c.bytes = bytes_of(count, datatype);
        c.root = root;
        const bool sends = !c.inter || (root != MPI_ROOT && root != MPI_PROC_NULL);
        c.contributed = static_cast<unsigned long long>(sends ? c.bytes : 0);
      });
}

RAGGED_PMPI_EXPORT int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return entry(
      Kind::bcast, comm, [&] { return route_bcast(buffer, count, datatype, root, comm); },
      [&](CallRecord& c) {
        c.bytes = bytes_of(count, datatype);
        c.root = root;
        c.contributed = static_cast<unsigned long long>(is_root(c, root) ? c.bytes : 0);
      });
}

RAGGED_PMPI_EXPORT int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return entry(
      Kind::gather, comm,
      [&] { return route_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      [&](CallRecord& c) {
        const bool at_root = is_root(c, root);
        c.bytes = at_root ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
        c.root = root;
        const bool sends = !c.inter || (root != MPI_ROOT && root != MPI_PROC_NULL);
        c.contributed = static_cast<unsigned long long>(
            !sends ? 0 : (sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype)));
      });
}

RAGGED_PMPI_EXPORT int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return entry(
      Kind::scatter, comm,
      [&] { return route_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      [&](CallRecord& c) {
        const bool at_root = is_root(c, root);
        c.bytes = at_root ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype);
        c.root = root;
        c.contributed = static_cast<unsigned long long>(at_root ? c.size * bytes_of(sendcount, sendtype) : 0);
      });
}

RAGGED_PMPI_EXPORT int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                   MPI_Comm comm) {
  return entry(
      Kind::gatherv, comm,
      [&] { return route_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm); },
      [&](CallRecord& c) {
        c.root = root;
        const bool sends = !c.inter || (root != MPI_ROOT && root != MPI_PROC_NULL);
        long long sent = bytes_of(sendcount, sendtype);
        if (sendbuf == MPI_IN_PLACE) sent = recvcounts != nullptr ? bytes_of(recvcounts[c.rank], recvtype) : 0;
        c.contributed = static_cast<unsigned long long>(sends ? sent : 0);
      });
}

RAGGED_PMPI_EXPORT int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                    int root, MPI_Comm comm) {
  return entry(
      Kind::scatterv, comm,
      [&] { return route_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      [&](CallRecord& c) {
        c.root = root;
        c.contributed =
            static_cast<unsigned long long>(is_root(c, root) ? bytes_of_blocks(sendcounts, c.size, sendtype) : 0);
      });
}

RAGGED_PMPI_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return entry(
      Kind::alltoall, comm,
      [&] { return route_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      [&](CallRecord& c) {
        c.bytes = bytes_of(recvcount, recvtype);
        const long long block = sendbuf == MPI_IN_PLACE ? c.bytes : bytes_of(sendcount, sendtype);
        c.contributed = static_cast<unsigned long long>(c.size * block);
      });
}

RAGGED_PMPI_EXPORT int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                     MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                     MPI_Datatype recvtype, MPI_Comm comm) {
  return entry(
      Kind::alltoallv, comm,
      [&] {
        return route_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
      },
      [&](CallRecord& c) {
        c.contributed =
            static_cast<unsigned long long>(sendbuf == MPI_IN_PLACE ? bytes_of_blocks(recvcounts, c.size, recvtype)
                                                                    : bytes_of_blocks(sendcounts, c.size, sendtype));
      });
}

RAGGED_PMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  return entry(
      Kind::barrier, comm, [&] { return route_barrier(comm); }, [](CallRecord& c) { c.bytes = 0; });
}

}  // extern "C"
