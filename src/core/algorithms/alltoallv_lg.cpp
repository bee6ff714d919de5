// alltoallv "lg": the LG algorithm of Jeannot & Steffenel 2007 extended to blocks of different
// sizes, the first item of the paper's future work. The mapping is the same
// pure plan as alltoall "lg" (plans/lg_plan.hpp); what changes is that a
// carrier does not know the sizes of the blocks it carries across.
//
//   local phase:   i -> j: [sizes of the blocks of the message]  (only when the message
//                  carries blocks for the other cluster; 8 bytes per block)
//                  i -> j: the blocks, packed
//   backbone phase, steps s = 1..ceil(n2/n1):  p in C1 <==> s*n1 + p in C2
//                  no sizes needed: the receiver knows the size of every block
//                  addressed to it (its recvcounts), the carrier learnt them above
//   k clusters:    as alltoall "lg": the local messages carry what crosses to every
//                  other cluster, then every pair of clusters runs its backbone phase
//
// A message whose blocks are all empty is not sent (both ends know its size), so
// the backbone carries at most 2·max(n1,n2) messages, instead of up to 2·n1·n2 (k
// clusters: at most 2·max(n_a,n_b) for each pair a < b).
// Reference: E. Jeannot, L. A. Steffenel, "Fast and Efficient Total Exchange on Two Clusters", Euro-Par 2007 (LNCS
//   4641), §4.1, extended to blocks of any size (the paper's future work) by ragged, docs/algorithms/lg.md.
// Limitation: a ClusterLayout hint of two or more clusters (pairwise otherwise); one more local message per carrying
//   pair, 8 bytes per carried block.
// Memory: the packed messages and their sizes, in two slots of the workspace, kept from call to call.
//
// Cost against alltoall "lg": one more local message per pair of processes that
// carries crossing blocks (a latency αl, hidden behind the payloads that follow it)
// and 8 bytes per carried block; the backbone phase is unchanged, with each
// message as long as the sum of the blocks it packs.
#include <cstdint>
#include <numeric>
#include <unordered_map>
#include <utility>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"
#include "plans/lg_plan.hpp"

namespace ragged {

namespace {

using plans::lg::Block;

struct Piece {
  const std::byte* data = nullptr;
  std::size_t bytes = 0;
};

}  // namespace

void alltoallv_lg(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                  void* recvbuf, std::span<const int> recvcounts, std::span<const int> rdispls, DataType type) {
  const ClusterLayout& layout = internal::require_clusters(ctx, "lg");
  const internal::LgIds ids(layout);
  Comm& comm = ctx.comm();
  const int p = comm.size();
  const int me = comm.rank();
  const int tag = ctx.tag(0);        // the blocks
  const int tag_sizes = ctx.tag(1);  // block sizes ahead of the blocks
  const internal::AlltoallvSource source(sendbuf, sendcounts, sdispls, recvcounts, rdispls, type);
  std::byte* out = internal::bytes(recvbuf);
  // Dispatch checked that this rank's two counts for itself agree and copied its block.
  const int my_id = ids.id(me);
  const plans::lg::ProcessPlan plan = plans::lg::plan(ids.sizes, my_id);
  const auto key = [p](const Block& x) { return static_cast<long long>(x.src) * p + x.dst; };
  const auto own = [&](const Block& x) {
    const int dst = ids.rank(x.dst);
    return Piece{source.block(dst), source.send_bytes(dst)};
  };
  // What the receiver of a block expects (it knows only the blocks addressed to it).
  const auto expected = [&](const Block& x) { return source.recv_bytes(ids.rank(x.src)); };
  std::unordered_map<long long, Piece> held;
  const auto land = [&](const Block& x, Piece piece) {
    if (x.dst == my_id) {
      if (piece.bytes != expected(x)) {
        throw TransportError(0, "size mismatch",
                             "alltoallv lg: rank " + std::to_string(ids.rank(x.src)) + " sent " +
                                 std::to_string(piece.bytes) + " bytes to rank " + std::to_string(me) +
                                 ", which expects " + std::to_string(expected(x)));
      }
      internal::copy_bytes(out + source.recv_offset(ids.rank(x.src)), piece.data, piece.bytes);
    } else {
      held[key(x)] = piece;
    }
  };
  const auto packed_size = [](const std::vector<Block>& blocks, const auto& where) {
    std::size_t total = 0;
    for (const Block& x : blocks) total += where(x).bytes;
    return total;
  };
  const auto pack = [](std::byte* buffer, const std::vector<Block>& blocks, const auto& where) {
    for (const Block& x : blocks) {
      const Piece piece = where(x);
      internal::copy_bytes(buffer, piece.data, piece.bytes);
      buffer += piece.bytes;
    }
  };
  // Temporary buffers are slices of the context's workspace, kept from call to call:
  // slot 0 holds the local outboxes, then (once they are sent) the backbone messages;
  // slot 1 the local inboxes, sized when the size messages are in.
  std::size_t outbox_bytes = 0;
  for (const plans::lg::Transfer& t : plan.local_sends) outbox_bytes += packed_size(t.blocks, own);
  std::byte* free_space = ctx.workspace().get(outbox_bytes, 0).data();
  const auto take = [&free_space](std::size_t bytes) { return std::exchange(free_space, free_space + bytes); };
  // Only a message with blocks for someone other than its receiver needs sizes ahead.
  const auto needs_sizes = [](const std::vector<Block>& blocks, int receiver) {
    return blocks.size() > 1 || (blocks.size() == 1 && blocks[0].dst != receiver);
  };

  for (const Block& x : plan.keep) {
    if (x.dst != my_id) held[key(x)] = own(x);
  }

  // Local phase, sends: sizes then blocks, everything at once.
  std::vector<Request> sends;
  std::vector<std::vector<std::uint64_t>> size_out(plan.local_sends.size());
  for (std::size_t k = 0; k < plan.local_sends.size(); ++k) {
    const plans::lg::Transfer& t = plan.local_sends[k];
    const int peer = ids.rank(t.peer);
    if (needs_sizes(t.blocks, t.peer)) {
      for (const Block& x : t.blocks) size_out[k].push_back(own(x).bytes);
      sends.push_back(comm.isend(peer, tag_sizes, size_out[k].data(), size_out[k].size() * sizeof(std::uint64_t)));
    }
    const std::size_t bytes = packed_size(t.blocks, own);
    std::byte* outbox = take(bytes);
    pack(outbox, t.blocks, own);
    if (bytes != 0) sends.push_back(comm.isend(peer, tag, outbox, bytes));
  }
  // Local phase, receives: the sizes first, then the blocks.
  std::vector<std::vector<std::uint64_t>> size_in(plan.local_recvs.size());
  std::vector<Request> receives;
  for (std::size_t k = 0; k < plan.local_recvs.size(); ++k) {
    const plans::lg::Transfer& t = plan.local_recvs[k];
    size_in[k].resize(t.blocks.size());
    if (needs_sizes(t.blocks, my_id)) {
      receives.push_back(
          comm.irecv(ids.rank(t.peer), tag_sizes, size_in[k].data(), size_in[k].size() * sizeof(std::uint64_t)));
    } else {
      for (std::size_t j = 0; j < t.blocks.size(); ++j) size_in[k][j] = expected(t.blocks[j]);
    }
  }
  comm.wait_all(receives, ctx.timeout());
  receives.clear();
  std::vector<std::size_t> inbox_bytes(plan.local_recvs.size(), 0);
  for (std::size_t k = 0; k < plan.local_recvs.size(); ++k) {
    for (const std::uint64_t s : size_in[k]) inbox_bytes[k] += static_cast<std::size_t>(s);
  }
  std::byte* inbox_space =
      ctx.workspace().get(std::accumulate(inbox_bytes.begin(), inbox_bytes.end(), std::size_t{0}), 1).data();
  std::vector<std::byte*> inbox(plan.local_recvs.size(), nullptr);
  for (std::size_t k = 0; k < plan.local_recvs.size(); ++k) {
    inbox[k] = std::exchange(inbox_space, inbox_space + inbox_bytes[k]);
    if (inbox_bytes[k] != 0) {
      receives.push_back(comm.irecv(ids.rank(plan.local_recvs[k].peer), tag, inbox[k], inbox_bytes[k]));
    }
  }
  comm.wait_all(receives, ctx.timeout());
  comm.wait_all(sends, ctx.timeout());
  for (std::size_t k = 0; k < plan.local_recvs.size(); ++k) {
    std::size_t at = 0;
    const std::vector<Block>& blocks = plan.local_recvs[k].blocks;
    for (std::size_t j = 0; j < blocks.size(); ++j) {
      const auto n = static_cast<std::size_t>(size_in[k][j]);
      land(blocks[j], Piece{inbox[k] + at, n});
      at += n;
    }
  }

  // Backbone phase: every step's exchange posted in step order, none waiting for the
  // previous one; empty directions are not sent.
  const auto from_held = [&](const Block& x) { return held.at(key(x)); };
  std::size_t backbone_bytes = 0;
  for (const plans::lg::Exchange& e : plan.backbone) {
    backbone_bytes += packed_size(e.send, from_held);
    for (const Block& x : e.recv) backbone_bytes += expected(x);
  }
  free_space = ctx.workspace().get(backbone_bytes, 0).data();  // the outboxes are sent: slot 0 is free
  std::vector<std::byte*> incoming(plan.backbone.size(), nullptr);
  std::vector<Request> crossing;
  for (std::size_t k = 0; k < plan.backbone.size(); ++k) {
    const plans::lg::Exchange& e = plan.backbone[k];
    std::size_t total = 0;
    for (const Block& x : e.recv) total += expected(x);
    incoming[k] = take(total);
    if (total != 0) crossing.push_back(comm.irecv(ids.rank(e.peer), tag, incoming[k], total));
  }
  for (const plans::lg::Exchange& e : plan.backbone) {
    const std::size_t bytes = packed_size(e.send, from_held);
    std::byte* outgoing = take(bytes);
    pack(outgoing, e.send, from_held);
    if (bytes != 0) crossing.push_back(comm.isend(ids.rank(e.peer), tag, outgoing, bytes));
  }
  comm.wait_all(crossing, ctx.timeout());
  for (std::size_t k = 0; k < plan.backbone.size(); ++k) {
    std::size_t at = 0;
    for (const Block& x : plan.backbone[k].recv) {
      land(x, Piece{incoming[k] + at, expected(x)});
      at += expected(x);
    }
  }
}

}  // namespace ragged
