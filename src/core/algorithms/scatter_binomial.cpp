// Binomial-tree scatter.
//
// Ranks are renumbered relative to the root (v = rank - root mod P). The subtree
// of v is the run of relative ranks [v, v + size). Each rank receives its
// subtree's blocks, packed in relative order, from its parent, keeps the first
// block (its own) and sends each child its child's run, the largest subtree
// first. P = 8, root 0, [a..b] the blocks of relative ranks a..b:
//
//   round 0:  0 ─[4..7]─> 4
//   round 1:  0 ─[2..3]─> 2   4 ─[6..7]─> 6
//   round 2:  0 ─[1]────> 1   2 ─[3]────> 3   4 ─[5]────> 5   6 ─[7]────> 7
//
// Rotation at the root: relative rank a is absolute rank (a + root) mod P, so a
// child's run [a, a + s) is a contiguous run of sendbuf unless it wraps past rank
// P-1. The root sends every non-wrapping run straight from sendbuf; at most one
// child's run wraps, and that one is first packed into a temporary buffer from
// two pieces (the extra copy: at most P/2 blocks, none for root 0).
//
// Dispatch has copied the root's own block into its recvbuf (in place, recvbuf
// points at that block inside sendbuf). sendbuf matters only at the root.
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's binomial scatter).
// Limitation: a block for a far subtree is received and sent again at every level: for small blocks.
// Memory: inner ranks a buffer of their subtree's blocks; the root a temporary buffer for the one run that wraps (at
//   most P/2 blocks).
//
// Cost (α-β model, n bytes per block): ⌈log2 P⌉ α + (P-1) nβ at the root, which
// sends runs of ..., 4, 2, 1 blocks. Inner ranks receive size(subtree) * n bytes
// into a buffer and copy their own block out of it; leaves receive into recvbuf.
#include <memory>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/binomial_tree.hpp"

namespace ragged {

void scatter_binomial(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root) {
  namespace tree = plans::binomial;
  Comm& comm = ctx.comm();
  const int procs = ctx.procs();
  const int tag = ctx.tag();
  const std::size_t block = ctx.bytes(count, type);
  const tree::Node node = tree::node(ctx.rank(), root, procs);
  std::vector<Request> sends;
  sends.reserve(node.children.size());

  if (node.parent >= 0) {
    if (node.children.empty()) {
      comm.recv(node.parent, tag, recvbuf, block, ctx.timeout());
      return;
    }
    const auto run =
        std::make_unique_for_overwrite<std::byte[]>(static_cast<std::size_t>(node.size) * block);  // no zero fill
    const auto blocks = ctx.blocks(run.get(), block);
    comm.recv(node.parent, tag, run.get(), blocks.bytes(node.size), ctx.timeout());
    for (auto c = node.children.rbegin(); c != node.children.rend(); ++c) {
      sends.push_back(comm.isend(c->rank, tag, blocks.at(c->offset), blocks.bytes(c->size)));
    }
    internal::copy_bytes(recvbuf, run.get(), block);
    comm.wait_all(sends, ctx.timeout());
    return;
  }

  // The root: children's runs go straight from sendbuf unless they wrap past rank P-1.
  const auto in = ctx.blocks(sendbuf, block);
  std::unique_ptr<std::byte[]> wrapped;  // at most one child's run wraps
  for (auto c = node.children.rbegin(); c != node.children.rend(); ++c) {
    const void* src = in.at(c->rank);
    if (const int head = tree::head(c->rank, c->size, procs); head != c->size) {  // blocks of ranks start..P-1
      wrapped = std::make_unique_for_overwrite<std::byte[]>(in.bytes(c->size));
      internal::copy_bytes(wrapped.get(), in.at(c->rank), in.bytes(head));
      internal::copy_bytes(wrapped.get() + in.bytes(head), in.data(), in.bytes(c->size - head));
      src = wrapped.get();
    }
    sends.push_back(comm.isend(c->rank, tag, src, in.bytes(c->size)));
  }
  comm.wait_all(sends, ctx.timeout());
}

}  // namespace ragged
