// Träff's irregular scatter (Träff 2018): the gather tree of gatherv_traff.cpp, built
// the same way (lemma 3, every rank knowing only its own recvcount), with the data
// flowing down: the time-reversed gather schedule. p = 8, root 3, equal blocks:
//
//   level 2:  3 ─[4..7]─> 7
//   level 1:  3 ─[0..1]─> 1                     7 ─[4..5]─> 5
//   level 0:  1 ─[0]────> 0    3 ─[2]────> 2    5 ─[4]────> 4    7 ─[6]────> 6
//
// A rank receives its subtree's blocks in rank order from its parent (into recvbuf
// directly when it has no non-empty child), then starts a non-blocking send of each
// child's run, highest level (largest subtree) first, copies its own block out and
// waits for the sends: a late child delays nobody else (as in scatter_binomial.cpp).
// Ranks post the receive from their parent as soon as they learn their parent,
// during the construction.
//
// Unlike gather, the root cannot start before the construction is complete: the
// construction's L + 1 rounds come before the data (Träff 2018, §3). (Sending a small
// run as soon as the root learns its child was tried: on the 560-rank platform it
// delayed the root's own exchanges more than it gained.)
//
// The root: a child's run is sent straight from sendbuf when its blocks lie back to
// back in rank order; otherwise it is packed into a temporary buffer first (the extra
// copy). The root's own block is already in recvbuf (dispatch copied it, or it stays
// in sendbuf: in_place) unless recvcount disagrees.
//
// Degradation: subtrees above the threshold get their run straight from the root,
// which finds them with the oracle from sendcounts.
//
// Reference: J. L. Träff, "Practical, distributed, low overhead algorithms for irregular gather and scatter
//   collectives", Parallel Computing 75, 2018, §3 (lemmas 1-4, theorem 1).
// Limitation: the root cannot send before the construction's L + 1 rounds are over: for large or uneven blocks.
// Memory: inner ranks a buffer of their subtree's blocks; the root packs a run that is not contiguous in sendbuf.
//
// Cost (α-β): L + 1 constant-size rounds, then ceil(log2 p) α + β Σ_{i != r} m_i
// (+ lemma 2's penalty). Inner ranks copy their own block out of their buffer.
//
// Count checks: the construction tells the root what each child's ranks expect; the
// root compares it with sendcounts, sends each child what it expects (zeros where the
// counts disagree, so nobody hangs) and raises InvalidArgument("sendcounts") at the end;
// likewise recvcounts[root] against its recvcount ("recvcount"). A receiver that gets
// a different amount than it expects raises InvalidArgument("recvcount").
#include <algorithm>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/irregular.hpp"
#include "internal/traff_driver.hpp"

namespace ragged {

namespace {

namespace traff = plans::traff;
namespace irr = internal::irregular;

struct RootSend {
  int rank = -1;
  int level = -1;
  std::int64_t claimed = 0;  // what the child's ranks expect
  std::vector<int> ranks;
};

// The tags of the call's block: the construction's messages, then the data.
constexpr int tree_tag = 0;
constexpr int data_tag = 1;

void scatter_from_root(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                       void* recvbuf, int recvcount, DataType type, int root, const traff::Params& params) {
  Comm& comm = ctx.comm();
  const std::size_t element = size_of(type);
  const int own = recvcount;
  const std::byte* in = internal::bytes(sendbuf);

  irr::Deferred errors;
  std::vector<std::vector<std::byte>> packed;  // alive until every send completed (moves keep the bytes)
  irr::OrderedSends started;
  const auto send = [&](const RootSend& s) {
    const std::int64_t expected = irr::total(sendcounts, s.ranks);
    const std::size_t bytes = static_cast<std::size_t>(s.claimed) * element;
    if (expected != s.claimed) {
      errors.note("sendcounts", "ranks " + std::to_string(s.ranks.front()) + ".." + std::to_string(s.ranks.back()) +
                                    " expect " + std::to_string(s.claimed) + " elements, sendcounts say " +
                                    std::to_string(expected));
      if (bytes == 0) return;
      packed.emplace_back(bytes, std::byte{0});
      started.start(comm, s.rank, ctx.tag(data_tag), packed.back().data(), bytes, ctx.timeout());
      return;
    }
    if (bytes == 0) return;
    if (const auto at = irr::contiguous(sendcounts, displs, s.ranks)) {
      started.start(comm, s.rank, ctx.tag(data_tag), in + static_cast<std::size_t>(*at) * element, bytes,
                    ctx.timeout());
    } else {
      packed.emplace_back(bytes);
      irr::pack(packed.back().data(), in, sendcounts, displs, s.ranks, element);
      started.start(comm, s.rank, ctx.tag(data_tag), packed.back().data(), bytes, ctx.timeout());
    }
  };

  std::vector<RootSend> later;
  const traff::Node node = internal::traff_driver::construct(ctx, own, params, ctx.tag(tree_tag), {});
  if (params.direct_threshold < 0) {
    for (const traff::Child& c : node.children)
      later.push_back({c.rank, c.level, c.elements, irr::run(c.cube.first, c.cube.last)});
  }
  if (params.direct_threshold >= 0) {
    std::vector<std::int64_t> sizes(sendcounts.begin(), sendcounts.end());
    sizes[static_cast<std::size_t>(root)] = own;
    const std::vector<traff::Node> tree = traff::oracle(sizes, params);
    if (tree[static_cast<std::size_t>(root)] == node) {
      for (const traff::Child& c : node.children)
        later.push_back({c.rank, c.level, c.elements, traff::subtree_ranks(tree, c.rank)});
      for (int i = 0; i < comm.size(); ++i) {
        const traff::Node& n = tree[static_cast<std::size_t>(i)];
        if (n.direct) later.push_back({i, n.level, n.carried, traff::subtree_ranks(tree, i)});
      }
    } else {
      errors.note("sendcounts", "disagree with the receivers' counts (the tree they built differs)");
      for (const traff::Child& c : node.children)
        later.push_back({c.rank, c.level, c.elements, irr::run(c.cube.first, c.cube.last)});
    }
  }
  // Largest subtrees first: the time-reversed gather order.
  std::stable_sort(later.begin(), later.end(), [](const RootSend& a, const RootSend& b) { return a.level > b.level; });
  for (const RootSend& s : later) send(s);
  // Dispatch put the root's own block in recvbuf when recvcount agrees with sendcounts[root].
  if (recvcount != sendcounts[static_cast<std::size_t>(root)]) {
    errors.note("recvcount", "the root receives " + std::to_string(recvcount) + " elements, sendcounts[root] is " +
                                 std::to_string(sendcounts[static_cast<std::size_t>(root)]));
    const int n = std::min(recvcount, sendcounts[static_cast<std::size_t>(root)]);
    internal::copy_bytes(recvbuf, in + static_cast<std::size_t>(displs[static_cast<std::size_t>(root)]) * element,
                         static_cast<std::size_t>(n) * element);
  }
  started.finish(comm, ctx.timeout());
  errors.raise();
}

void scatter_below_root(Context& ctx, void* recvbuf, int recvcount, DataType type, const traff::Params& params) {
  Comm& comm = ctx.comm();
  const std::size_t element = size_of(type);
  const std::size_t own_bytes = static_cast<std::size_t>(recvcount) * element;
  std::vector<std::byte> buffer;
  Request from_parent;
  std::size_t expected = 0;

  internal::traff_driver::Hooks hooks;
  hooks.placed = [&](const traff::Node& n) {
    if (n.carried == 0) return;
    expected = static_cast<std::size_t>(n.carried) * element;
    const bool inner =
        std::any_of(n.children.begin(), n.children.end(), [](const traff::Child& c) { return c.elements > 0; });
    void* dest = recvbuf;
    if (inner) {
      buffer.resize(expected);
      dest = buffer.data();
    }
    from_parent = comm.irecv(n.parent, ctx.tag(data_tag), dest, expected);
  };
  const traff::Node node = internal::traff_driver::construct(ctx, recvcount, params, ctx.tag(tree_tag), hooks);

  irr::Deferred errors;
  if (from_parent.active()) {
    irr::wait_checked(from_parent, expected, ctx.timeout(), errors, "recvcount", node.parent);
  }
  if (!buffer.empty()) {
    const traff::Layout l = traff::layout(node, recvcount);
    irr::OrderedSends started;
    for (std::size_t i = node.children.size(); i-- > 0;) {  // highest level first
      const traff::Child& c = node.children[i];
      if (c.elements == 0) continue;
      started.start(comm, c.rank, ctx.tag(data_tag), buffer.data() + static_cast<std::size_t>(l.child[i]) * element,
                    static_cast<std::size_t>(c.elements) * element, ctx.timeout());
    }
    internal::copy_bytes(recvbuf, buffer.data() + static_cast<std::size_t>(l.own) * element, own_bytes);
    started.finish(comm, ctx.timeout());
  }
  errors.raise();
}

}  // namespace

/// The paper's algorithm, or what a TraffOptions hint asks for (a caller tuning the degradation
/// threshold or the cost estimates of "traff").
static TraffOptions options_of(const Context& ctx) {
  const TraffOptions* hint = ctx.hints().get<TraffOptions>();
  return hint != nullptr ? *hint : TraffOptions{};
}

void scatterv_traff_with(Context& ctx, const void* sendbuf, std::span<const int> sendcounts,
                         std::span<const int> displs, void* recvbuf, int recvcount, DataType type, int root,
                         const TraffOptions& traff_options) {
  const traff::Params params = internal::traff_driver::params_of(ctx.size(), root, traff_options, size_of(type));
  if (ctx.rank() == root) {
    scatter_from_root(ctx, sendbuf, sendcounts, displs, recvbuf, recvcount, type, root, params);
  } else {
    scatter_below_root(ctx, recvbuf, recvcount, type, params);
  }
}

void scatterv_traff(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                    void* recvbuf, int recvcount, DataType type, int root) {
  scatterv_traff_with(ctx, sendbuf, sendcounts, displs, recvbuf, recvcount, type, root, options_of(ctx));
}

void scatterv_traff_copy(Context& ctx, const void* sendbuf, std::span<const int> sendcounts,
                         std::span<const int> displs, void* recvbuf, int recvcount, DataType type, int root) {
  TraffOptions o;
  o.cost = TraffCost::lemma4;
  scatterv_traff_with(ctx, sendbuf, sendcounts, displs, recvbuf, recvcount, type, root, o);
}

void scatterv_traff_degrade(Context& ctx, const void* sendbuf, std::span<const int> sendcounts,
                            std::span<const int> displs, void* recvbuf, int recvcount, DataType type, int root) {
  TraffOptions o;
  o.direct_threshold_bytes = traff_degrade_threshold_bytes;
  scatterv_traff_with(ctx, sendbuf, sendcounts, displs, recvbuf, recvcount, type, root, o);
}

}  // namespace ragged
