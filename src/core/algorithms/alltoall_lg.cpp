// alltoall "lg": the Local Group algorithm of Jeannot & Steffenel 2007 (§4.1) for two clusters
// C1 (n1 ranks) and C2 (n2 ranks) joined by a slow backbone, and beyond the paper
// for k >= 2 clusters (the two-cluster algorithm on every pair of clusters, its
// local phases merged). The mapping of which process holds which block is the
// pure plan of plans/lg_plan.hpp; this file moves the bytes.
//
//   local phase (each cluster on its own network, all messages at once):
//     C1:  i sends j its block M(i,j) together with every M(i,k), k in C2,
//          k = j mod n1: j will carry them across
//     C2:  i sends j its block M(i,j) together with every M(i,k), k in C1, that j
//          carries across (j is k's partner in i's group of n1 processes)
//   backbone phase, steps s = 1..ceil(n2/n1):
//     p in C1  <==>  s*n1 + p in C2: one packed message each way; the steps are
//     posted in order and overlap (no step waits for the previous one to end)
//
//       C1: 0 1 2                  step 1: 0<=>3 1<=>4 2<=>5
//       C2: 3 4 5 | 6 7 8 | 9      step 2: 0<=>6 1<=>7 2<=>8     step 3: 0<=>9
//
//   k clusters: i -> j (same cluster) carries M(i,j) and what j carries across for i to
//   every other cluster; then every pair of clusters runs its backbone phase, all at once:
//
//       A: 0 1 2   B: 3 4 5 6 7   C: 8 9      A-B: 0<=>3 1<=>4 2<=>5 0<=>6 1<=>7
//                                             A-C: 8<=>0 9<=>1 8<=>2
//                                             B-C: 8<=>3 9<=>4 8<=>5 9<=>6 8<=>7
//
// Reference: E. Jeannot, L. A. Steffenel, "Fast and Efficient Total Exchange on Two Clusters", Euro-Par 2007 (LNCS
//   4641), §4.1 (algorithm 1); k >= 2 clusters is ragged's extension, docs/algorithms/lg.md.
// Limitation: a ClusterLayout hint of two or more clusters (pairwise otherwise); every crossing block is copied
//   twice, packed and unpacked.
// Memory: the packed local and backbone messages, in the workspace, kept from call to call.
//
// Backbone: 2·max(n1,n2) messages instead of 2·n1·n2; with k clusters 2·max(n_a,n_b)
// for each pair a < b (26 for 3+5+2 instead of 62). When n1 > n2 the smaller cluster
// plays C1's part. Cost (α-β with local αl, βl and backbone αb, βb, n1 <= n2, m bytes
// per block): local phase about αl + (n1+n2)·m·βl per C1 rank (n2·m·βl + ... per C2
// rank); backbone αb + ceil(n2/n1)·n1·m·βb for a C1 rank (its steps overlap). With k
// clusters and N ranks, a rank of cluster a: local αl + about N·m·βl, backbone
// αb + about (N - n_a)·m·βb (docs/algorithms/lg.md, "k clusters"). Packing copies each
// crossing block twice (pack, unpack) in memory, in the context's workspace, kept from
// call to call (Workspace::get).
#include <unordered_map>
#include <utility>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"
#include "plans/lg_plan.hpp"

namespace ragged {

namespace {

using plans::lg::Block;

}  // namespace

void alltoall_lg(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const ClusterLayout& layout = internal::require_clusters(ctx, "lg");
  const internal::LgIds ids(layout);
  // Named locals rather than a structured binding: the lambdas below capture them, which clang
  // before 16 does not allow for structured bindings (the fuzz preset builds with clang 14).
  const internal::AlltoallView view = internal::alltoall_view(ctx, sendbuf, recvbuf, count, type);
  Comm& comm = view.comm;
  const int p = view.p;
  const int me = view.me;
  const int tag = view.tag;
  const std::size_t b = view.b;
  const std::byte* const in = view.in;
  std::byte* const out = view.out;
  const auto at = [b](int rank) { return b * static_cast<std::size_t>(rank); };

  const int my_id = ids.id(me);
  const plans::lg::ProcessPlan plan = plans::lg::plan(ids.sizes, my_id);
  // The blocks this rank carries across, by (src, dst) id.
  std::unordered_map<long long, const std::byte*> held;
  const auto key = [p](const Block& x) { return static_cast<long long>(x.src) * p + x.dst; };
  const auto own = [&](const Block& x) { return in + at(ids.rank(x.dst)); };
  // A block that arrived: ours goes to recvbuf, the others wait for the backbone.
  const auto land = [&](const Block& x, const std::byte* data) {
    if (x.dst == my_id) {
      internal::copy_bytes(out + at(ids.rank(x.src)), data, b);
    } else {
      held[key(x)] = data;
    }
  };
  const auto pack = [&](std::byte* buffer, const std::vector<Block>& blocks, const auto& where) {
    for (std::size_t k = 0; k < blocks.size(); ++k) internal::copy_bytes(buffer + b * k, where(blocks[k]), b);
  };

  for (const Block& x : plan.keep) {
    if (x.dst != my_id) held[key(x)] = own(x);
  }

  // Every temporary buffer of the call is a slice of the context's workspace, reused from
  // call to call: the local phase's packed messages (in and out), then the backbone's.
  // A message that is just M(i,j) goes straight between the user buffers instead.
  const auto direct_in = [&](const plans::lg::Transfer& t) { return t.blocks.size() == 1 && t.blocks[0].dst == my_id; };
  const auto direct_out = [](const plans::lg::Transfer& t) { return t.blocks.size() == 1; };
  std::size_t workspace_bytes = 0;
  for (const auto& t : plan.local_recvs) workspace_bytes += direct_in(t) ? 0 : b * t.blocks.size();
  for (const auto& t : plan.local_sends) workspace_bytes += direct_out(t) ? 0 : b * t.blocks.size();
  for (const auto& e : plan.backbone) workspace_bytes += b * (e.send.size() + e.recv.size());
  std::byte* free_space = ctx.workspace().get(workspace_bytes).data();
  const auto take = [&free_space](std::size_t bytes) { return std::exchange(free_space, free_space + bytes); };

  // Local phase.
  std::vector<std::byte*> inbox(plan.local_recvs.size(), nullptr);
  std::vector<Request> requests;
  requests.reserve(plan.local_recvs.size() + plan.local_sends.size());
  for (std::size_t k = 0; k < plan.local_recvs.size(); ++k) {
    const plans::lg::Transfer& t = plan.local_recvs[k];
    std::byte* target = nullptr;
    if (direct_in(t)) {
      target = out + at(ids.rank(t.blocks[0].src));
    } else {
      inbox[k] = take(b * t.blocks.size());
      target = inbox[k];
    }
    requests.push_back(comm.irecv(ids.rank(t.peer), tag, target, b * t.blocks.size()));
  }
  for (const plans::lg::Transfer& t : plan.local_sends) {
    const std::byte* data = nullptr;
    if (direct_out(t)) {
      data = own(t.blocks[0]);
    } else {
      std::byte* packed = take(b * t.blocks.size());
      pack(packed, t.blocks, own);
      data = packed;
    }
    requests.push_back(comm.isend(ids.rank(t.peer), tag, data, b * t.blocks.size()));
  }
  comm.wait_all(requests, ctx.timeout());
  for (std::size_t k = 0; k < plan.local_recvs.size(); ++k) {
    if (inbox[k] == nullptr) continue;
    const std::vector<Block>& blocks = plan.local_recvs[k].blocks;
    for (std::size_t j = 0; j < blocks.size(); ++j) land(blocks[j], inbox[k] + b * j);
  }

  // Backbone phase: the steps' exchanges are posted in step order and left to run
  // together; no step waits for the previous one (see docs/algorithms/lg.md).
  const auto from_held = [&](const Block& x) { return held.at(key(x)); };
  std::vector<std::byte*> incoming(plan.backbone.size(), nullptr);
  requests.clear();
  for (std::size_t k = 0; k < plan.backbone.size(); ++k) {
    const plans::lg::Exchange& e = plan.backbone[k];
    incoming[k] = take(b * e.recv.size());
    if (!e.recv.empty()) {
      requests.push_back(comm.irecv(ids.rank(e.peer), tag, incoming[k], b * e.recv.size()));
    }
  }
  for (const plans::lg::Exchange& e : plan.backbone) {
    std::byte* outgoing = take(b * e.send.size());
    pack(outgoing, e.send, from_held);
    if (!e.send.empty()) {
      requests.push_back(comm.isend(ids.rank(e.peer), tag, outgoing, b * e.send.size()));
    }
  }
  comm.wait_all(requests, ctx.timeout());
  for (std::size_t k = 0; k < plan.backbone.size(); ++k) {
    const std::vector<Block>& blocks = plan.backbone[k].recv;
    for (std::size_t j = 0; j < blocks.size(); ++j) land(blocks[j], incoming[k] + b * j);
  }
}

}  // namespace ragged
