// alltoall "coordinator": the approach of PACX-MPI and MagPIe that Jeannot & Steffenel 2007, §3
// argues against: one coordinator (the lowest rank) per cluster relays
// everything that crosses the backbone.
//
//   1. inside each cluster, all at once: i sends M(i,j) to every j of its cluster;
//      to its coordinator it also sends every M(i,k), k in the other cluster
//   2. the coordinators exchange one message each way: all n1·n2 crossing blocks
//   3. each coordinator sends every member j of its cluster the blocks M(k,j),
//      k in the other cluster
//
//      C1: [c1] 1 2      gather -> c1 ==== c2 <- gather       C2: [c2] 4 5 6
//                        scatter <- c1 ==== c2 -> scatter
//
// Backbone: 2 messages, but each carries n1·n2 blocks through one network card.
// Reference: E. Jeannot, L. A. Steffenel, "Fast and Efficient Total Exchange on Two Clusters", Euro-Par 2007 (LNCS
//   4641), §3 (the PACX-MPI and MagPIe approach it argues against).
// Limitation: a ClusterLayout hint of exactly two clusters (pairwise otherwise); the coordinators' cards carry
//   everything that crosses while the other ranks idle.
// Memory: from the workspace, at a coordinator n_l (1 + n_r) + 3 n1 n2 blocks, at the others 2 n_r + 1 blocks.
//
// Cost (α-β): the coordinator of C1 receives (n1-1)·(n2+1)·m bytes, sends and
// receives n1·n2·m across, then sends (n1-1)·n2·m: its card carries about
// 4·n1·n2·m bytes while the others idle, which §3 calls the bottleneck.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"

namespace ragged {

void alltoall_coordinator(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const ClusterLayout& layout = internal::require_two_clusters(ctx, "coordinator");
  Comm& comm = ctx.comm();
  const int p = comm.size();
  const int me = comm.rank();
  const std::size_t b = count * size_of(type);
  const std::byte* in = internal::bytes(sendbuf);
  std::byte* out = internal::bytes(recvbuf);
  const auto at = [b](int rank) { return b * static_cast<std::size_t>(rank); };

  const int mine = layout.cluster[static_cast<std::size_t>(me)];
  const std::vector<int> local = layout.members(mine);
  const std::vector<int> remote = layout.members(1 - mine);
  const int leader = local.front();
  const int remote_leader = remote.front();
  const std::size_t nl = local.size();
  const std::size_t nr = remote.size();
  const int tag = ctx.tag(0);

  // Temporary buffers, slices of the context's workspace. The coordinator: what it
  // gathers ([member][1 + nr blocks]), what crosses each way and what it scatters;
  // a member: its message to the coordinator and what comes back.
  const std::size_t crossing = nl * nr * b;
  std::byte* space =
      ctx.workspace().get(me == leader ? nl * (1 + nr) * b + 3 * crossing : (1 + nr) * b + nr * b).data();
  std::byte* gathered = me == leader ? space : nullptr;
  std::byte* across = me == leader ? gathered + nl * (1 + nr) * b : nullptr;
  std::byte* back = me == leader ? across + crossing : nullptr;
  std::byte* scatter = me == leader ? back + crossing : nullptr;
  std::byte* to_leader = me == leader ? nullptr : space;
  std::byte* mine_from_remote = me == leader ? nullptr : to_leader + (1 + nr) * b;

  // 1. Local exchange, with the crossing blocks riding along to the coordinator.
  std::vector<Request> requests;
  std::vector<std::size_t> member_slot(static_cast<std::size_t>(p), 0);
  for (std::size_t k = 0; k < nl; ++k) member_slot[static_cast<std::size_t>(local[k])] = k;
  for (const int j : local) {
    if (j == me) continue;
    if (me == leader) {
      requests.push_back(
          comm.irecv(j, tag, gathered + member_slot[static_cast<std::size_t>(j)] * (1 + nr) * b, (1 + nr) * b));
    } else {
      requests.push_back(comm.irecv(j, tag, out + at(j), b));
    }
  }
  for (const int j : local) {
    if (j == me) continue;
    if (j == leader) {
      internal::copy_bytes(to_leader, in + at(j), b);
      for (std::size_t k = 0; k < nr; ++k) internal::copy_bytes(to_leader + (1 + k) * b, in + at(remote[k]), b);
      requests.push_back(comm.isend(j, tag, to_leader, (1 + nr) * b));
    } else {
      requests.push_back(comm.isend(j, tag, in + at(j), b));
    }
  }
  comm.wait_all(requests, ctx.timeout());
  requests.clear();

  if (me == leader) {
    // The coordinator's own crossing blocks and its members' blocks for it.
    for (std::size_t k = 0; k < nr; ++k) {
      internal::copy_bytes(gathered + member_slot[static_cast<std::size_t>(me)] * (1 + nr) * b + (1 + k) * b,
                           in + at(remote[k]), b);
    }
    for (const int j : local) {
      if (j != me)
        internal::copy_bytes(out + at(j), gathered + member_slot[static_cast<std::size_t>(j)] * (1 + nr) * b, b);
    }
    // 2. Backbone: M(i,k) for i local, k remote (i-major), against M(k,i) likewise.
    for (std::size_t i = 0; i < nl; ++i) {
      internal::copy_bytes(across + i * nr * b, gathered + i * (1 + nr) * b + b, nr * b);
    }
    comm.sendrecv(remote_leader, tag, across, crossing, remote_leader, tag, back, crossing, ctx.timeout());
    // 3. Scatter: member i gets M(k,i) for every remote k.
    for (std::size_t i = 0; i < nl; ++i) {
      for (std::size_t k = 0; k < nr; ++k) {
        internal::copy_bytes(scatter + (i * nr + k) * b, back + (k * nl + i) * b, b);
      }
    }
    for (std::size_t i = 0; i < nl; ++i) {
      if (local[i] == me) {
        for (std::size_t k = 0; k < nr; ++k) internal::copy_bytes(out + at(remote[k]), scatter + (i * nr + k) * b, b);
      } else {
        requests.push_back(comm.isend(local[i], tag, scatter + i * nr * b, nr * b));
      }
    }
    comm.wait_all(requests, ctx.timeout());
  } else {
    comm.recv(leader, tag, mine_from_remote, nr * b, ctx.timeout());
    for (std::size_t k = 0; k < nr; ++k) internal::copy_bytes(out + at(remote[k]), mine_from_remote + k * b, b);
  }
}

}  // namespace ragged
