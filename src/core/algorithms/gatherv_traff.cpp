// Träff's irregular gather (Träff 2018, theorem 1): a binomial tree shaped by the block
// sizes, built in ceil(log2 p) rounds of 24-byte messages by ranks that know only their
// own block (lemma 3, in traff_construct.cpp), then the data flow up the tree. p = 8,
// root 3, equal blocks, [a..b] the blocks of ranks a..b in rank order:
//
//   level 0:  0 ─[0]────> 1    2 ─[2]────> 3    4 ─[4]────> 5    6 ─[6]────> 7
//   level 1:  1 ─[0..1]─> 3                     5 ─[4..5]─> 7
//   level 2:  7 ─[4..7]─> 3
//
// Every message is a run of consecutive blocks (an ordered cube), so a rank's buffer
// holds its subtree in rank order: blocks from below, its own, blocks from above.
// Nothing is ever reordered.
//
// Overlap: a rank posts the receives of its children and (a leaf) starts its send as
// soon as it learns its parent, while its fixed-root duties may go on; the root posts
// each child's receive as soon as it learns of the child. All receives are
// non-blocking, so children arrive in any order (late ranks are absorbed).
//
// The root: a child's run goes straight into recvbuf when the displacements of its
// blocks are back to back in rank order; otherwise (displacements not contiguous or
// not in rank order) it lands in a temporary buffer and is copied block by block —
// the one extra copy, of that run only. The root's own block is already in place
// (dispatch copied it, or it was there: in_place) unless sendcount disagrees.
//
// Degradation (TraffOptions::direct_threshold_bytes): subtrees above the threshold
// send straight to the root; the root computes which ones from recvcounts with the
// oracle (the senders still need no global knowledge).
//
// Reference: J. L. Träff, "Practical, distributed, low overhead algorithms for irregular gather and scatter
//   collectives", Parallel Computing 75, 2018, §3 (lemmas 1-4, theorem 1; traff_copy lemma 4, traff_degrade the
//   degradation §3 leaves undone).
// Limitation: the tree is built in up to 2 ceil(log2 p) rounds first: for large or uneven blocks; under degradation
//   direct senders the root does not expect wait (use a timeout).
// Memory: inner ranks a buffer of their subtree's blocks; the root a staging buffer for a run that is not contiguous
//   in recvbuf.
//
// Cost (α-β model): ceil(log2 p) α + β Σ_{i != r} m_i (+ lemma 2's penalty), after
// the construction's L + 1 <= 2 ceil(log2 p) rounds of constant-size messages, which
// overlap with the data flow. Inner ranks copy their own block into their buffer once.
//
// Count checks: the construction tells the root what each child's ranks really send;
// the root compares that with recvcounts, and its own sendcount with recvcounts[root],
// receives what is sent anyway, and raises InvalidArgument("recvcounts"/"sendcount")
// at the end. Under degradation a disagreement that changes the tree is reported the
// same way, but direct senders the root does not expect then wait (use a timeout).
#include <algorithm>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/irregular.hpp"
#include "internal/traff_driver.hpp"

namespace ragged {

namespace {

namespace traff = plans::traff;
namespace irr = internal::irregular;

struct RootReceive {
  Request request;
  int source = -1;
  std::size_t bytes = 0;
  std::vector<int> ranks;          // the blocks it holds, in order
  std::vector<std::byte> staging;  // non-empty: unpack (or drop) after the receive
  bool unpack = false;
};

// The tags of the call's block: the construction's messages, then the data.
constexpr int tree_tag = 0;
constexpr int data_tag = 1;

void gather_at_root(Context& ctx, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                    std::span<const int> displs, DataType type, int root, const traff::Params& params) {
  Comm& comm = ctx.comm();
  const std::size_t element = size_of(type);
  std::byte* out = internal::bytes(recvbuf);
  const int own = sendcount;

  irr::Deferred errors;
  std::vector<RootReceive> receives;
  const auto post = [&](int source, std::vector<int> ranks, std::int64_t claimed) {
    const std::int64_t expected = irr::total(recvcounts, ranks);
    RootReceive rr;
    rr.source = source;
    rr.bytes = static_cast<std::size_t>(claimed) * element;
    void* dest = nullptr;
    if (expected != claimed) {
      errors.note("recvcounts", "ranks " + std::to_string(ranks.front()) + ".." + std::to_string(ranks.back()) +
                                    " send " + std::to_string(claimed) + " elements, recvcounts say " +
                                    std::to_string(expected));
      if (claimed == 0) return;
      rr.staging.resize(rr.bytes);  // drained, then dropped
      dest = rr.staging.data();
    } else if (claimed == 0) {
      return;
    } else if (const auto at = irr::contiguous(recvcounts, displs, ranks)) {
      dest = out + static_cast<std::size_t>(*at) * element;
    } else {
      rr.staging.resize(rr.bytes);
      rr.unpack = true;
      dest = rr.staging.data();
    }
    rr.request = comm.irecv(source, ctx.tag(data_tag), dest, rr.bytes);
    rr.ranks = std::move(ranks);
    receives.push_back(std::move(rr));
  };

  const bool degrade = params.direct_threshold >= 0;
  internal::traff_driver::Hooks hooks;
  if (!degrade) {
    hooks.child_found = [&](const traff::Child& c) { post(c.rank, irr::run(c.cube.first, c.cube.last), c.elements); };
  }
  const traff::Node node = internal::traff_driver::construct(ctx, own, params, ctx.tag(tree_tag), hooks);
  if (degrade) {
    std::vector<std::int64_t> sizes(recvcounts.begin(), recvcounts.end());
    sizes[static_cast<std::size_t>(root)] = own;
    const std::vector<traff::Node> tree = traff::oracle(sizes, params);
    if (tree[static_cast<std::size_t>(root)] == node) {
      for (const traff::Child& c : node.children) post(c.rank, traff::subtree_ranks(tree, c.rank), c.elements);
      for (int i = 0; i < comm.size(); ++i) {
        const traff::Node& n = tree[static_cast<std::size_t>(i)];
        if (n.direct) post(i, traff::subtree_ranks(tree, i), n.carried);
      }
    } else {
      // The senders' counts built another tree: drain what comes through the merges.
      errors.note("recvcounts", "disagree with the senders' counts (the tree they built differs)");
      for (const traff::Child& c : node.children) post(c.rank, irr::run(c.cube.first, c.cube.last), c.elements);
    }
  }

  // Dispatch put the root's own block in place when sendcount agrees with recvcounts[root].
  if (sendcount != recvcounts[static_cast<std::size_t>(root)]) {
    errors.note("sendcount", "the root sends " + std::to_string(sendcount) + " elements, recvcounts[root] is " +
                                 std::to_string(recvcounts[static_cast<std::size_t>(root)]));
    const int n = std::min(sendcount, recvcounts[static_cast<std::size_t>(root)]);
    internal::copy_bytes(out + static_cast<std::size_t>(displs[static_cast<std::size_t>(root)]) * element, sendbuf,
                         static_cast<std::size_t>(n) * element);
  }
  for (RootReceive& rr : receives) {
    irr::wait_checked(rr.request, rr.bytes, ctx.timeout(), errors, "recvcounts", rr.source);
    if (rr.unpack) irr::unpack(out, rr.staging.data(), recvcounts, displs, rr.ranks, element);
  }
  errors.raise();
}

void gather_below_root(Context& ctx, const void* sendbuf, int sendcount, DataType type, const traff::Params& params) {
  Comm& comm = ctx.comm();
  const std::size_t element = size_of(type);
  std::vector<std::byte> buffer;
  std::vector<Request> receives;
  std::vector<std::pair<int, std::size_t>> expected;  // (source, bytes) per receive
  Request leaf_send;

  internal::traff_driver::Hooks hooks;
  hooks.placed = [&](const traff::Node& n) {
    if (n.carried == 0) return;
    const bool inner =
        std::any_of(n.children.begin(), n.children.end(), [](const traff::Child& c) { return c.elements > 0; });
    if (!inner) {
      leaf_send = comm.isend(n.parent, ctx.tag(data_tag), sendbuf, static_cast<std::size_t>(sendcount) * element);
      return;
    }
    buffer.resize(static_cast<std::size_t>(n.carried) * element);
    const traff::Layout l = traff::layout(n, sendcount);
    for (std::size_t i = 0; i < n.children.size(); ++i) {
      const traff::Child& c = n.children[i];
      if (c.elements == 0) continue;
      const std::size_t bytes = static_cast<std::size_t>(c.elements) * element;
      receives.push_back(
          comm.irecv(c.rank, ctx.tag(data_tag), buffer.data() + static_cast<std::size_t>(l.child[i]) * element, bytes));
      expected.emplace_back(c.rank, bytes);
    }
    internal::copy_bytes(buffer.data() + static_cast<std::size_t>(l.own) * element, sendbuf,
                         static_cast<std::size_t>(sendcount) * element);
  };
  const traff::Node node = internal::traff_driver::construct(ctx, sendcount, params, ctx.tag(tree_tag), hooks);

  irr::Deferred errors;
  for (std::size_t i = 0; i < receives.size(); ++i) {
    irr::wait_checked(receives[i], expected[i].second, ctx.timeout(), errors, "sendcount", expected[i].first);
  }
  if (!buffer.empty()) comm.send(node.parent, ctx.tag(data_tag), buffer.data(), buffer.size(), ctx.timeout());
  leaf_send.wait(ctx.timeout());
  errors.raise();
}

}  // namespace

/// The paper's algorithm, or what a TraffOptions hint asks for (a caller tuning the degradation
/// threshold or the cost estimates of "traff").
static TraffOptions options_of(const Context& ctx) {
  const TraffOptions* hint = ctx.hints().get<TraffOptions>();
  return hint != nullptr ? *hint : TraffOptions{};
}

void gatherv_traff_with(Context& ctx, const void* sendbuf, int sendcount, void* recvbuf,
                        std::span<const int> recvcounts, std::span<const int> displs, DataType type, int root,
                        const TraffOptions& traff_options) {
  const traff::Params params = internal::traff_driver::params_of(ctx.size(), root, traff_options, size_of(type));
  if (ctx.rank() == root) {
    gather_at_root(ctx, sendbuf, sendcount, recvbuf, recvcounts, displs, type, root, params);
  } else {
    gather_below_root(ctx, sendbuf, sendcount, type, params);
  }
}

void gatherv_traff(Context& ctx, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                   std::span<const int> displs, DataType type, int root) {
  gatherv_traff_with(ctx, sendbuf, sendcount, recvbuf, recvcounts, displs, type, root, options_of(ctx));
}

void gatherv_traff_copy(Context& ctx, const void* sendbuf, int sendcount, void* recvbuf,
                        std::span<const int> recvcounts, std::span<const int> displs, DataType type, int root) {
  TraffOptions o;
  o.cost = TraffCost::lemma4;
  gatherv_traff_with(ctx, sendbuf, sendcount, recvbuf, recvcounts, displs, type, root, o);
}

void gatherv_traff_degrade(Context& ctx, const void* sendbuf, int sendcount, void* recvbuf,
                           std::span<const int> recvcounts, std::span<const int> displs, DataType type, int root) {
  TraffOptions o;
  o.direct_threshold_bytes = traff_degrade_threshold_bytes;
  gatherv_traff_with(ctx, sendbuf, sendcount, recvbuf, recvcounts, displs, type, root, o);
}

}  // namespace ragged
