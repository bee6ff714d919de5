// What the MPI_ entry points of collectives.cpp and collectives_v.cpp share (docs/pmpi.md):
// checks of counts, datatypes and roots before a call goes to ragged, and the entry point's
// frame (routed, recorded for the report, seen by the arrival prediction's exit hook).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>

#include "pmpi.hpp"
#include "ragged/collectives.hpp"
#include "site_prediction.hpp"

namespace ragged::pmpi::routing {

/// Bytes of `count` elements of `type`; the datatype is looked at only for a non-zero count (a
/// rank may pass anything with a zero count). False for a negative count or a datatype ragged
/// cannot move.
inline bool bytes_of(int count, MPI_Datatype type, TypeInfo& info, std::size_t& bytes) {
  if (count < 0) return false;
  if (count == 0) {
    info = TypeInfo{};
    info.dense = true;
    bytes = 0;
    return true;
  }
  if (!describe(type, info) || !movable(info)) return false;
  bytes = static_cast<std::size_t>(count) * info.size;
  return true;
}

/// The datatype of a v-collective's side whose counts are `counts`: described when one is
/// non-zero (and then it must be movable).
inline bool type_of_blocks(std::span<const int> counts, MPI_Datatype type, TypeInfo& info) {
  const bool any = std::any_of(counts.begin(), counts.end(), [](int c) { return c != 0; });
  if (!any) {
    info = TypeInfo{};
    info.dense = true;
    return true;
  }
  return describe(type, info) && movable(info);
}

inline bool valid_root(const Call& call, int root) { return root >= 0 && root < call.size(); }

/// The equal blocks of an allgather or alltoall: `block` bytes per rank, received as
/// `recvcount` of `recvtype` and, unless `in_place`, sent as `sendcount` of `sendtype`. Returns
/// false, after noting why, when the MPI library must run the call, or when selection does not
/// choose ragged.
inline bool equal_blocks(Call& call, bool in_place, int sendcount, MPI_Datatype sendtype, TypeInfo& st, int recvcount,
                         MPI_Datatype recvtype, TypeInfo& rt, std::size_t& block) {
  std::size_t sent = 0;
  if (!bytes_of(recvcount, recvtype, rt, block)) return call.fallback("datatype or count");
  if (block == 0) return call.fallback("zero bytes");
  if (!in_place && (!bytes_of(sendcount, sendtype, st, sent) || sent != block)) {
    return call.fallback("send and receive sizes differ");
  }
  return call.selects_ragged(block);
}

/// `count` elements of `type` at `buf` packed into the call's send staging buffer (scratch 1).
inline const std::byte* staged_send(Call& call, const void* buf, std::size_t count, const TypeInfo& type) {
  std::byte* staged = call.scratch(1, count * type.size).data();
  pack(buf, count, type, staged, call.handle());
  return staged;
}

inline int native_outcome(int code) {
  note_last("native");
  return code;
}

/// The frame of an MPI_ entry point's routing: `native()` when route() says so, else
/// run(collective, comm, body, native) (pmpi.hpp).
template <class Body, class Native>
int routed(Collective collective, MPI_Comm comm, Body&& body, Native&& native) {
  if (route(collective) == Route::native) return native_outcome(native());
  return run(collective, comm, body, native);
}

/// Whether the environment routes `collective` to ragged (a nonblocking or persistent form then
/// goes to a worker; selection may still choose the MPI library there).
inline bool routed_to_ragged(Collective collective) { return route(collective) == Route::ragged; }
/// The same for barriers: RAGGED_BARRIER, which route_barrier reads.
inline bool barrier_routed() {
  const std::string* set = ragged::environment().find("RAGGED_BARRIER");
  return set != nullptr && !set->empty() && *set != "native" && !settings_differ();
}

inline std::byte* bytes(void* p) { return static_cast<std::byte*>(p); }
inline const void* in_place_or(const void* buf) { return buf == MPI_IN_PLACE ? in_place : buf; }

// ------------------------------------------------------------------ the MPI_ entry points
//
// Each routes the call and, when RAGGED_REPORT is set, records it (report.hpp): its site (the
// block, message or vector size that every rank shares, the root) and the bytes this rank hands
// in. With the report off, the entry point is one branch and the routing.

using report::bytes_of;
using report::CallRecord;
using report::Kind;

/// Sum of `counts[0..n)` elements of `type` (a v-collective's side).
inline long long bytes_of_blocks(const int* counts, int n, MPI_Datatype type) {
  if (counts == nullptr) return 0;
  long long elements = 0;
  for (int i = 0; i < n; ++i) elements += counts[i] > 0 ? counts[i] : 0;
  return bytes_of(elements, type);
}

/// Whether this rank is the root of a rooted collective (MPI_ROOT on an intercommunicator).
inline bool is_root(const CallRecord& c, int root) { return c.inter ? root == MPI_ROOT : c.rank == root; }

/// The entry point's work: routed, recorded for the report, and seen by the arrival runtime's
/// exit hook (site_prediction.hpp: one load and one branch while no communicator tracks arrivals).
template <class Body, class Describe>
inline int entry(Kind kind, MPI_Comm comm, Body&& body, Describe&& describe) {
  return prediction::after(comm, report::recorded(kind, comm, body, describe));
}

// ------------------------------------------------------------------ the routing of each call
//
// route_xxx(args, comm): the blocking MPI_Xxx's routing (collectives.cpp, collectives_v.cpp):
// ragged's algorithm or the MPI library's function. The MPI_ entry points add the report's
// recording; the nonblocking ones (collectives_nonblocking.cpp) run them on a worker.

int route_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm);
int route_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
/// MPI_Scan (`exclusive` false) and MPI_Exscan (true).
int route_prefix(bool exclusive, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm);
int route_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm);
int route_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm);
int route_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm);
int route_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int route_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm);
int route_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm);
int route_barrier(MPI_Comm comm);
int route_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int route_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int route_scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int route_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm);
int route_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int route_alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                    void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm);

// ------------------------------------------------------------------ what the report says of each call
//
// describe_xxx(args): the describe function of MPI_Xxx's and MPI_Ixxx's record (report.hpp), a
// copy of the arguments it reads (a nonblocking call's runs on the worker, after the post).

inline auto describe_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                               MPI_Datatype recvtype) {
  return [=](CallRecord& c) {
    c.bytes = bytes_of(recvcount, recvtype);
    c.contributed = static_cast<unsigned long long>(sendbuf == MPI_IN_PLACE ? c.bytes : bytes_of(sendcount, sendtype));
  };
}
/// allreduce, scan, exscan: the vector.
inline auto describe_vector(int count, MPI_Datatype datatype) {
  return [=](CallRecord& c) {
    c.bytes = bytes_of(count, datatype);
    c.contributed = static_cast<unsigned long long>(c.bytes);
  };
}
inline auto describe_reduce(int count, MPI_Datatype datatype, int root) {
  return [=](CallRecord& c) {
    c.bytes = bytes_of(count, datatype);
    c.root = root;
    const bool sends = !c.inter || (root != MPI_ROOT && root != MPI_PROC_NULL);
    c.contributed = static_cast<unsigned long long>(sends ? c.bytes : 0);
  };
}
inline auto describe_bcast(int count, MPI_Datatype datatype, int root) {
  return [=](CallRecord& c) {
    c.bytes = bytes_of(count, datatype);
    c.root = root;
    c.contributed = static_cast<unsigned long long>(is_root(c, root) ? c.bytes : 0);
  };
}
inline auto describe_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                            MPI_Datatype recvtype, int root) {
  return [=](CallRecord& c) {
    const bool at_root = is_root(c, root);
    c.bytes = at_root ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
    c.root = root;
    const bool sends = !c.inter || (root != MPI_ROOT && root != MPI_PROC_NULL);
    c.contributed = static_cast<unsigned long long>(
        !sends ? 0 : (sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype)));
  };
}
inline auto describe_scatter(int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype, int root) {
  return [=](CallRecord& c) {
    const bool at_root = is_root(c, root);
    c.bytes = at_root ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype);
    c.root = root;
    c.contributed = static_cast<unsigned long long>(at_root ? c.size * bytes_of(sendcount, sendtype) : 0);
  };
}
inline auto describe_reduce_scatter_block(int recvcount, MPI_Datatype datatype) {
  return [=](CallRecord& c) {
    c.bytes = bytes_of(recvcount, datatype);
    c.contributed = static_cast<unsigned long long>(c.size) * static_cast<unsigned long long>(c.bytes);
  };
}
inline auto describe_reduce_scatter(const int* recvcounts, MPI_Datatype datatype) {
  return [=](CallRecord& c) {
    c.bytes = recvcounts != nullptr ? bytes_of(recvcounts[c.rank], datatype) : 0;
    c.contributed = static_cast<unsigned long long>(bytes_of_blocks(recvcounts, c.size, datatype));
  };
}
inline auto describe_barrier() {
  return [](CallRecord& c) { c.bytes = 0; };
}
inline auto describe_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, const int* recvcounts,
                                MPI_Datatype recvtype) {
  return [=](CallRecord& c) {
    const bool in_place = sendbuf == MPI_IN_PLACE && recvcounts != nullptr;
    c.contributed = static_cast<unsigned long long>(in_place ? bytes_of(recvcounts[c.rank], recvtype)
                                                             : bytes_of(sendcount, sendtype));
  };
}
inline auto describe_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, const int* recvcounts,
                             MPI_Datatype recvtype, int root) {
  return [=](CallRecord& c) {
    c.root = root;
    const bool sends = !c.inter || (root != MPI_ROOT && root != MPI_PROC_NULL);
    long long sent = bytes_of(sendcount, sendtype);
    if (sendbuf == MPI_IN_PLACE) sent = recvcounts != nullptr ? bytes_of(recvcounts[c.rank], recvtype) : 0;
    c.contributed = static_cast<unsigned long long>(sends ? sent : 0);
  };
}
inline auto describe_scatterv(const int* sendcounts, MPI_Datatype sendtype, int root) {
  return [=](CallRecord& c) {
    c.root = root;
    c.contributed =
        static_cast<unsigned long long>(is_root(c, root) ? bytes_of_blocks(sendcounts, c.size, sendtype) : 0);
  };
}
inline auto describe_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                              MPI_Datatype recvtype) {
  return [=](CallRecord& c) {
    c.bytes = bytes_of(recvcount, recvtype);
    const long long block = sendbuf == MPI_IN_PLACE ? c.bytes : bytes_of(sendcount, sendtype);
    c.contributed = static_cast<unsigned long long>(c.size * block);
  };
}
inline auto describe_alltoallv(const void* sendbuf, const int* sendcounts, MPI_Datatype sendtype, const int* recvcounts,
                               MPI_Datatype recvtype) {
  return [=](CallRecord& c) {
    c.contributed =
        static_cast<unsigned long long>(sendbuf == MPI_IN_PLACE ? bytes_of_blocks(recvcounts, c.size, recvtype)
                                                                : bytes_of_blocks(sendcounts, c.size, sendtype));
  };
}

inline auto describe_alltoallw(const void* sendbuf, const int* sendcounts, const MPI_Datatype* sendtypes,
                               const int* recvcounts, const MPI_Datatype* recvtypes) {
  return [=](CallRecord& c) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const int* counts = in_place ? recvcounts : sendcounts;
    const MPI_Datatype* types = in_place ? recvtypes : sendtypes;
    unsigned long long total = 0;
    for (int i = 0; counts != nullptr && types != nullptr && i < c.size; ++i) {
      total += static_cast<unsigned long long>(bytes_of_blocks(counts + i, 1, types[i]));
    }
    c.contributed = total;
  };
}

}  // namespace ragged::pmpi::routing
