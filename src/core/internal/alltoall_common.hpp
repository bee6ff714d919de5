// Helpers shared by the alltoall and alltoallv algorithm files: the cluster layout
// of the cluster-aware ones and block addressing. Dispatch has checked the arguments,
// resolved in_place and copied each rank's own block before an algorithm runs.
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "internal/common.hpp"
#include "ragged/context.hpp"
#include "ragged/topology.hpp"

namespace ragged::internal {

/// The context's cluster layout hint, checked against its communicator; throws
/// InvalidArgument ("options.hints") naming `algorithm` when it is missing or does not
/// split the communicator in two or more clusters. (Dispatch falls back before that
/// happens; this is the algorithm's own guard.) Defined in src/core/topology.cpp.
const ClusterLayout& require_clusters(const Context& ctx, const char* algorithm);
/// The same, for an algorithm that needs exactly two clusters.
const ClusterLayout& require_two_clusters(const Context& ctx, const char* algorithm);

/// What every alltoall algorithm starts from: the communicator, its size and this rank, the
/// call's first tag, the block size in bytes and the two buffers (block j of `in` goes to rank j,
/// block i of `out` comes from rank i).
struct AlltoallView {
  Comm& comm;
  int p;
  int me;
  int tag;
  std::size_t b;
  const std::byte* in;
  std::byte* out;
};

inline AlltoallView alltoall_view(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  return {ctx.comm(), ctx.size(), ctx.rank(), ctx.tag(0), count * size_of(type), bytes(sendbuf), bytes(recvbuf)};
}

/// Counts and displacements of an alltoallv turned into bytes (dispatch has checked them:
/// one entry per rank, none negative; for in_place, sendbuf is a private copy of recvbuf
/// with the receive counts and displacements as send counts and displacements).
class AlltoallvSource {
 public:
  AlltoallvSource(const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                  std::span<const int> recvcounts, std::span<const int> rdispls, DataType type)
      : send_bytes_(to_bytes(sendcounts, size_of(type))),
        send_offset_(to_bytes(sdispls, size_of(type))),
        recv_bytes_(to_bytes(recvcounts, size_of(type))),
        recv_offset_(to_bytes(rdispls, size_of(type))),
        data_(bytes(sendbuf)) {}
  /// An alltoallw's: counts in elements of each rank's own type, displacements in bytes.
  static AlltoallvSource of_types(const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                                  std::span<const DataType> sendtypes, std::span<const int> recvcounts,
                                  std::span<const int> rdispls, std::span<const DataType> recvtypes) {
    return AlltoallvSource(sendbuf, times(sendcounts, sendtypes), times(sdispls, {}), times(recvcounts, recvtypes),
                           times(rdispls, {}));
  }
  /// The block for rank `dst`.
  [[nodiscard]] const std::byte* block(int dst) const { return data_ + send_offset_[static_cast<std::size_t>(dst)]; }
  [[nodiscard]] std::size_t send_bytes(int dst) const { return send_bytes_[static_cast<std::size_t>(dst)]; }
  [[nodiscard]] std::size_t recv_bytes(int src) const { return recv_bytes_[static_cast<std::size_t>(src)]; }
  [[nodiscard]] std::size_t recv_offset(int src) const { return recv_offset_[static_cast<std::size_t>(src)]; }
  /// Posts the receive of `src`'s block to its place in `recvbuf`; an inactive request when it is empty.
  [[nodiscard]] Request post_recv(Comm& comm, int src, int tag, std::byte* recvbuf) const {
    if (recv_bytes(src) == 0) return {};
    return comm.irecv(src, tag, recvbuf + recv_offset(src), recv_bytes(src));
  }
  /// Posts the send of the block for `dst`; an inactive request when it is empty.
  [[nodiscard]] Request post_send(Comm& comm, int dst, int tag) const {
    if (send_bytes(dst) == 0) return {};
    return comm.isend(dst, tag, block(dst), send_bytes(dst));
  }

 private:
  AlltoallvSource(const void* sendbuf, std::vector<std::size_t> send_bytes, std::vector<std::size_t> send_offset,
                  std::vector<std::size_t> recv_bytes, std::vector<std::size_t> recv_offset)
      : send_bytes_(std::move(send_bytes)),
        send_offset_(std::move(send_offset)),
        recv_bytes_(std::move(recv_bytes)),
        recv_offset_(std::move(recv_offset)),
        data_(bytes(sendbuf)) {}
  /// values[i] times the size of types[i] (times 1 without types).
  static std::vector<std::size_t> times(std::span<const int> values, std::span<const DataType> types) {
    std::vector<std::size_t> out;
    out.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      out.push_back(static_cast<std::size_t>(values[i]) * (types.empty() ? 1 : size_of(types[i])));
    return out;
  }
  static std::vector<std::size_t> to_bytes(std::span<const int> values, std::size_t unit) {
    std::vector<std::size_t> out;
    out.reserve(values.size());
    for (const int v : values) out.push_back(static_cast<std::size_t>(v) * unit);
    return out;
  }
  std::vector<std::size_t> send_bytes_, send_offset_, recv_bytes_, recv_offset_;
  const std::byte* data_ = nullptr;
};

/// The pairwise exchange of alltoallv and alltoallw "pairwise": P-1 steps, in step k this rank
/// sends to rank+k and receives from rank-k (an empty block posts nothing).
inline void exchange_pairwise(Context& ctx, const AlltoallvSource& source, void* recvbuf) {
  const int p = ctx.procs();
  for (int k = 1; k < p; ++k) {
    Request r[2] = {source.post_recv(ctx.comm(), (ctx.rank() - k + p) % p, ctx.tag(), bytes(recvbuf)),
                    source.post_send(ctx.comm(), (ctx.rank() + k) % p, ctx.tag())};
    ctx.comm().wait_all(r, ctx.timeout());
  }
}

/// The linear exchange of alltoallv and alltoallw "linear": every non-empty receive (from
/// rank+1, rank+2, ...) and send (to rank-1, rank-2, ...) posted at once, then one wait.
inline void exchange_linear(Context& ctx, const AlltoallvSource& source, void* recvbuf) {
  const int p = ctx.procs();
  std::vector<Request> requests;
  for (int k = 1; k < p; ++k) {
    Request r = source.post_recv(ctx.comm(), (ctx.rank() + k) % p, ctx.tag(), bytes(recvbuf));
    if (r.active()) requests.push_back(std::move(r));
  }
  for (int k = 1; k < p; ++k) {
    Request r = source.post_send(ctx.comm(), (ctx.rank() - k + p) % p, ctx.tag());
    if (r.active()) requests.push_back(std::move(r));
  }
  ctx.comm().wait_all(requests, ctx.timeout());
}

/// The numbering of the LG plan: cluster 0's ranks (ascending) are ids 0..n_0-1,
/// cluster 1's the next n_1 ids, and so on (for two clusters: n1 then n2).
struct LgIds {
  std::vector<int> sizes;    ///< ranks of each cluster
  std::vector<int> rank_of;  ///< id -> rank
  std::vector<int> id_of;    ///< rank -> id

  explicit LgIds(const ClusterLayout& layout) {
    for (int c = 0; c < layout.clusters(); ++c) {
      const std::vector<int> members = layout.members(c);
      sizes.push_back(static_cast<int>(members.size()));
      rank_of.insert(rank_of.end(), members.begin(), members.end());
    }
    id_of.assign(rank_of.size(), -1);
    for (std::size_t id = 0; id < rank_of.size(); ++id)
      id_of[static_cast<std::size_t>(rank_of[id])] = static_cast<int>(id);
  }
  [[nodiscard]] int rank(int id) const { return rank_of[static_cast<std::size_t>(id)]; }
  [[nodiscard]] int id(int rank) const { return id_of[static_cast<std::size_t>(rank)]; }
};

}  // namespace ragged::internal
