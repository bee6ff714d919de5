// Helpers shared by the alltoall and alltoallv algorithm files: their tags,
// argument checks, in-place handling and block addressing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "internal/common.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/topology.hpp"

namespace ragged::internal {

/// Tags of the two-cluster family (kept apart from common.hpp's list).
inline constexpr int tag_alltoall = 200;
inline constexpr int tag_alltoallv = 210;
inline constexpr int tag_alltoallv_sizes = 211;  ///< LG alltoallv: block sizes ahead of the blocks
inline constexpr int tag_topology = 220;

/// The send buffer of an alltoall: `sendbuf`, or a copy of `recvbuf` for in_place.
class AlltoallSource {
 public:
  AlltoallSource(const void* sendbuf, const void* recvbuf, std::size_t total_bytes) {
    if (is_in_place(sendbuf)) {
      check_buffer(recvbuf, total_bytes, "recvbuf");
      copy_.resize(total_bytes);
      copy_bytes(copy_.data(), recvbuf, total_bytes);
      data_ = copy_.data();
    } else {
      check_buffer(sendbuf, total_bytes, "sendbuf");
      data_ = bytes(sendbuf);
    }
    check_buffer(recvbuf, total_bytes, "recvbuf");
  }
  [[nodiscard]] const std::byte* data() const { return data_; }

 private:
  std::vector<std::byte> copy_;
  const std::byte* data_ = nullptr;
};

/// Counts and displacements of an alltoallv, checked and turned into bytes.
struct VLayout {
  std::vector<std::size_t> send_bytes, send_offset, recv_bytes, recv_offset;
};

inline std::vector<std::size_t> checked_bytes(std::span<const int> values, int procs, std::size_t unit,
                                              const char* argument) {
  if (values.size() != static_cast<std::size_t>(procs)) {
    throw InvalidArgument(argument, "has " + std::to_string(values.size()) + " entries, the communicator has " +
                                        std::to_string(procs) + " ranks");
  }
  std::vector<std::size_t> out;
  out.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0) {
      throw InvalidArgument(argument,
                            "entry " + std::to_string(i) + " is negative (" + std::to_string(values[i]) + ")");
    }
    out.push_back(static_cast<std::size_t>(values[i]) * unit);
  }
  return out;
}

/// Checks an alltoallv's arguments; for in_place, `send` becomes a copy of the receive
/// buffer with the receive counts (MPI's rule).
class AlltoallvSource {
 public:
  AlltoallvSource(const Comm& comm, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                  const void* recvbuf, std::span<const int> recvcounts, std::span<const int> rdispls, DataType type) {
    const int p = comm.size();
    const std::size_t unit = size_of(type);
    layout_.recv_bytes = checked_bytes(recvcounts, p, unit, "recvcounts");
    layout_.recv_offset = checked_bytes(rdispls, p, unit, "rdispls");
    std::size_t recv_extent = 0;
    for (int i = 0; i < p; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (layout_.recv_bytes[k] != 0)
        recv_extent = std::max(recv_extent, layout_.recv_offset[k] + layout_.recv_bytes[k]);
    }
    check_buffer(recvbuf, recv_extent, "recvbuf");
    if (is_in_place(sendbuf)) {
      layout_.send_bytes = layout_.recv_bytes;
      layout_.send_offset = layout_.recv_offset;
      copy_.resize(recv_extent);
      copy_bytes(copy_.data(), recvbuf, recv_extent);
      data_ = copy_.data();
    } else {
      layout_.send_bytes = checked_bytes(sendcounts, p, unit, "sendcounts");
      layout_.send_offset = checked_bytes(sdispls, p, unit, "sdispls");
      std::size_t send_extent = 0;
      for (int i = 0; i < p; ++i) {
        const auto k = static_cast<std::size_t>(i);
        if (layout_.send_bytes[k] != 0) {
          send_extent = std::max(send_extent, layout_.send_offset[k] + layout_.send_bytes[k]);
        }
      }
      check_buffer(sendbuf, send_extent, "sendbuf");
      data_ = bytes(sendbuf);
    }
  }
  [[nodiscard]] const VLayout& layout() const { return layout_; }
  /// The block for rank `dst`.
  [[nodiscard]] const std::byte* block(int dst) const {
    return data_ + layout_.send_offset[static_cast<std::size_t>(dst)];
  }
  [[nodiscard]] std::size_t send_bytes(int dst) const { return layout_.send_bytes[static_cast<std::size_t>(dst)]; }
  [[nodiscard]] std::size_t recv_bytes(int src) const { return layout_.recv_bytes[static_cast<std::size_t>(src)]; }
  [[nodiscard]] std::size_t recv_offset(int src) const { return layout_.recv_offset[static_cast<std::size_t>(src)]; }

 private:
  VLayout layout_;
  std::vector<std::byte> copy_;
  const std::byte* data_ = nullptr;
};

/// The two-cluster numbering of the LG plan: cluster 0's ranks (ascending) are ids
/// 0..n1-1, cluster 1's are n1..n1+n2-1.
struct LgIds {
  int n1 = 0;
  int n2 = 0;
  std::vector<int> rank_of;  ///< id -> rank
  std::vector<int> id_of;    ///< rank -> id

  explicit LgIds(const ClusterLayout& layout) {
    const std::vector<int> c0 = layout.members(0);
    const std::vector<int> c1 = layout.members(1);
    n1 = static_cast<int>(c0.size());
    n2 = static_cast<int>(c1.size());
    rank_of = c0;
    rank_of.insert(rank_of.end(), c1.begin(), c1.end());
    id_of.assign(rank_of.size(), -1);
    for (std::size_t id = 0; id < rank_of.size(); ++id)
      id_of[static_cast<std::size_t>(rank_of[id])] = static_cast<int>(id);
  }
  [[nodiscard]] int rank(int id) const { return rank_of[static_cast<std::size_t>(id)]; }
  [[nodiscard]] int id(int rank) const { return id_of[static_cast<std::size_t>(rank)]; }
};

}  // namespace ragged::internal
