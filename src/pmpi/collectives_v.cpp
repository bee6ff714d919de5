// libragged_pmpi.so: the collectives whose blocks are per peer: MPI_Allgatherv, MPI_Gatherv,
// MPI_Scatterv, MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw (collectives.cpp says how a call is routed).
#include <algorithm>
#include <climits>
#include <cstddef>
#include <span>
#include <vector>

#include "collectives.hpp"

using ragged::Collective;
using ragged::DataType;
namespace pmpi = ragged::pmpi;
using pmpi::Blocks;
using pmpi::Call;
using pmpi::Route;
using pmpi::TypeInfo;
using namespace ragged::pmpi::routing;

namespace {

/// One side of a v-collective (`counts[i]` elements of `type` at `displs[i]` in `buf`) as Blocks
/// for dispatch, staged in `scratch` when not in place: null, or why ragged cannot move it.
const char* lay_out_side(std::span<const int> counts, const int displs[], MPI_Datatype type, const void* buf,
                         std::vector<std::byte>& scratch, TypeInfo& info, Blocks& blocks) {
  if (!type_of_blocks(counts, type, info)) return "datatype";
  if (!pmpi::lay_out(counts, std::span<const int>(displs, counts.size()), info, buf, scratch, blocks)) return "counts";
  return nullptr;
}

/// One side of an alltoallw (block i: `counts[i]` elements of `types[i]` at byte `displs[i]` of
/// `buf`) as Blocks, staged in `scratch` when a non-empty block's type is not dense: null, or why
/// ragged cannot move it.
const char* lay_out_typed_side(std::span<const int> counts, const int displs[], const MPI_Datatype types[],
                               const void* buf, std::vector<std::byte>& scratch, std::vector<TypeInfo>& infos,
                               Blocks& blocks) {
  if (displs == nullptr || types == nullptr) return "null displacements or types";
  infos.assign(counts.size(), TypeInfo{});
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (!type_of_blocks(counts.subspan(i, 1), types[i], infos[i])) return "datatype";
  }
  if (!pmpi::lay_out_typed(counts, std::span<const int>(displs, counts.size()), infos, buf, scratch, blocks)) {
    return "counts";
  }
  return nullptr;
}

/// The checks gatherv and scatterv share: `count` elements of `type` is the block every rank
/// has (gatherv: what it sends; scatterv: what it receives, `bytes` of it), `counts` and
/// `displs` the root's blocks in `buf` (laid out into `blocks`, staged in scratch buffer
/// `scratch`); `in_place` is the root's own block. Returns false, after noting why, when the MPI
/// library must run the call, or when selection does not choose ragged.
bool rooted_blocks(Call& call, int root, bool in_place, int count, MPI_Datatype type, TypeInfo& info,
                   std::size_t& bytes, const int counts[], const int displs[], MPI_Datatype blocks_type,
                   const void* buf, int scratch, TypeInfo& blocks_info, Blocks& blocks) {
  if (!valid_root(call, root)) return call.fallback("root");
  const bool at_root = call.rank() == root;
  if (in_place && !at_root) return call.fallback("MPI_IN_PLACE at a non-root");
  if (!in_place && !bytes_of(count, type, info, bytes)) return call.fallback("datatype or count");
  if (bytes > static_cast<std::size_t>(INT_MAX)) return call.fallback("more than INT_MAX bytes");
  if (at_root) {
    if (counts == nullptr || displs == nullptr) return call.fallback("null counts");
    const std::span<const int> sizes(counts, static_cast<std::size_t>(call.size()));
    const char* why = lay_out_side(sizes, displs, blocks_type, buf, call.scratch(scratch, 0), blocks_info, blocks);
    if (why != nullptr) return call.fallback(why);
  }
  return call.selects_ragged(0);
}

}  // namespace

namespace ragged::pmpi::routing {

int route_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const auto native = [&] {
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  };
  return routed(
      Collective::allgatherv, comm,
      [&](Call& call) {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        const auto p = static_cast<std::size_t>(call.size());
        const auto r = static_cast<std::size_t>(call.rank());
        if (recvcounts == nullptr || displs == nullptr) return call.fallback("null counts");
        const std::span<const int> counts(recvcounts, p);
        const std::span<const int> places(displs, p);
        TypeInfo rt;
        Blocks recv;
        const char* why = lay_out_side(counts, displs, recvtype, recvbuf, call.scratch(0, 0), rt, recv);
        if (why != nullptr) return call.fallback(why);
        TypeInfo st;
        std::size_t sent = 0;
        if (!in_place) {
          if (!bytes_of(sendcount, sendtype, st, sent)) return call.fallback("datatype or count");
          if (sent != static_cast<std::size_t>(recv.counts[r])) return call.fallback("send and receive sizes differ");
        }
        // Selection sees all the blocks' bytes and the largest block's, as dispatch will.
        const int largest = *std::max_element(recv.counts.begin(), recv.counts.end());
        if (!call.selects_ragged(recv.total, true, static_cast<std::size_t>(largest))) return false;
        const void* send = sendbuf;
        if (in_place) {
          send = ragged::in_place;
          if (recv.staged && recv.counts[r] > 0) {  // the own block, from the program's buffer to its staged place
            pmpi::pack(pmpi::offset(recvbuf, static_cast<MPI_Aint>(displs[r]) * rt.extent),
                       static_cast<std::size_t>(recvcounts[r]), rt, recv.base + recv.displs[r], call.handle());
          }
        } else if (!st.dense) {
          send = staged_send(call, sendbuf, static_cast<std::size_t>(sendcount), st);
        }
        call.ran(ragged::allgatherv(call.comm(), send, recv.counts[r], recv.base, recv.counts, recv.displs,
                                    DataType::byte, call.options()));
        if (recv.staged) pmpi::unpack_blocks(recv, counts, places, rt, recvbuf, call.handle());
        return true;
      },
      native);
}

int route_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const auto native = [&] {
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  };
  return routed(
      Collective::gatherv, comm,
      [&](Call& call) {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        TypeInfo st;
        std::size_t sent = 0;
        TypeInfo rt;
        Blocks blocks;
        if (!rooted_blocks(call, root, in_place, sendcount, sendtype, st, sent, recvcounts, displs, recvtype, recvbuf,
                           0, rt, blocks)) {
          return false;
        }
        const bool at_root = call.rank() == root;
        const auto p = static_cast<std::size_t>(call.size());
        const void* send = sendbuf;
        if (in_place) {
          send = ragged::in_place;
          const auto r = static_cast<std::size_t>(root);
          if (blocks.staged && blocks.counts[r] > 0) {
            pmpi::pack(pmpi::offset(recvbuf, static_cast<MPI_Aint>(displs[r]) * rt.extent),
                       static_cast<std::size_t>(recvcounts[r]), rt, blocks.base + blocks.displs[r], call.handle());
          }
        } else if (!st.dense) {
          send = staged_send(call, sendbuf, static_cast<std::size_t>(sendcount), st);
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
  return routed(
      Collective::scatterv, comm,
      [&](Call& call) {
        const bool in_place = recvbuf == MPI_IN_PLACE;
        TypeInfo rt;
        std::size_t received = 0;
        TypeInfo st;
        Blocks blocks;
        if (!rooted_blocks(call, root, in_place, recvcount, recvtype, rt, received, sendcounts, displs, sendtype,
                           sendbuf, 1, st, blocks)) {
          return false;
        }
        const bool at_root = call.rank() == root;
        const auto p = static_cast<std::size_t>(call.size());
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
  return routed(
      Collective::alltoall, comm,
      [&](Call& call) {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        TypeInfo rt;
        TypeInfo st;
        std::size_t block = 0;
        if (!equal_blocks(call, in_place, sendcount, sendtype, st, recvcount, recvtype, rt, block)) return false;
        const auto p = static_cast<std::size_t>(call.size());
        std::byte* recv = rt.dense ? bytes(recvbuf) : call.scratch(0, p * block).data();
        const void* send = sendbuf;
        if (in_place) {
          send = ragged::in_place;
          if (!rt.dense) {
            send = staged_send(call, recvbuf, p * static_cast<std::size_t>(recvcount), rt);
          }
        } else if (!st.dense) {
          send = staged_send(call, sendbuf, p * static_cast<std::size_t>(sendcount), st);
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
  return routed(
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
        const char* why = lay_out_side(rcounts, rdispls, recvtype, recvbuf, call.scratch(0, 0), rt, recv);
        if (why != nullptr) return call.fallback(why);
        TypeInfo st;
        Blocks send;
        if (!in_place) {
          why = lay_out_side(std::span<const int>(sendcounts, p), sdispls, sendtype, sendbuf, call.scratch(1, 0), st,
                             send);
          if (why != nullptr) return call.fallback(why);
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
int route_alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                    void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm) {
  const auto native = [&] {
    return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
  };
  return routed(
      Collective::alltoallw, comm,
      [&](Call& call) {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        const auto p = static_cast<std::size_t>(call.size());
        if (recvcounts == nullptr) return call.fallback("null counts");
        if (!in_place && sendcounts == nullptr) return call.fallback("null counts");
        const std::span<const int> rcounts(recvcounts, p);
        std::vector<TypeInfo> rt;
        Blocks recv;
        const char* why = lay_out_typed_side(rcounts, rdispls, recvtypes, recvbuf, call.scratch(0, 0), rt, recv);
        if (why != nullptr) return call.fallback(why);
        std::vector<TypeInfo> st;
        Blocks send;
        const std::span<const int> scounts(in_place ? recvcounts : sendcounts, p);
        if (!in_place) {
          why = lay_out_typed_side(scounts, sdispls, sendtypes, sendbuf, call.scratch(1, 0), st, send);
          if (why != nullptr) return call.fallback(why);
        }
        if (!call.selects_ragged(0)) return false;
        const void* send_base = ragged::in_place;
        if (in_place) {
          // MPI takes the data from the receive buffer: stage it where the results will land.
          if (recv.staged)
            pmpi::pack_typed(recv, rcounts, std::span<const int>(rdispls, p), rt, recvbuf, call.handle());
          send = recv;
        } else {
          if (send.staged)
            pmpi::pack_typed(send, scounts, std::span<const int>(sdispls, p), st, sendbuf, call.handle());
          send_base = send.base;
        }
        // Every block as bytes: the datatypes have done their part in the layout.
        const std::vector<DataType> bytes(p, DataType::byte);
        call.ran(ragged::alltoallw(call.comm(), send_base, send.counts, send.displs, bytes, recv.base, recv.counts,
                                   recv.displs, bytes, call.options()));
        if (recv.staged)
          pmpi::unpack_typed(recv, rcounts, std::span<const int>(rdispls, p), rt, recvbuf, call.handle());
        return true;
      },
      native);
}
}  // namespace ragged::pmpi::routing

extern "C" {

RAGGED_PMPI_EXPORT int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  return entry(
      Kind::allgatherv, comm,
      [&] { return route_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm); },
      describe_allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype));
}

RAGGED_PMPI_EXPORT int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                   MPI_Comm comm) {
  return entry(
      Kind::gatherv, comm,
      [&] { return route_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm); },
      describe_gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root));
}

RAGGED_PMPI_EXPORT int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                    int root, MPI_Comm comm) {
  return entry(
      Kind::scatterv, comm,
      [&] { return route_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      describe_scatterv(sendcounts, sendtype, root));
}

RAGGED_PMPI_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return entry(
      Kind::alltoall, comm,
      [&] { return route_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      describe_alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype));
}

RAGGED_PMPI_EXPORT int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                     MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                     MPI_Datatype recvtype, MPI_Comm comm) {
  return entry(
      Kind::alltoallv, comm,
      [&] {
        return route_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
      },
      describe_alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype));
}

RAGGED_PMPI_EXPORT int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                     const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                     const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return entry(
      Kind::alltoallw, comm,
      [&] {
        return route_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
      },
      describe_alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes));
}

}  // extern "C"
