// Binomial-tree gather.
//
// Ranks are renumbered relative to the root (v = rank - root mod P). The subtree
// of v is the run of relative ranks [v, v + size). Each rank receives the packed
// blocks of its children's subtrees (all receives posted at once), places them
// after its own block, and sends its whole run to its parent. P = 8, root 0,
// [a..b] the blocks of relative ranks a..b, packed in that order:
//
//   round 0:  1 ─[1]────> 0   3 ─[3]────> 2   5 ─[5]────> 4   7 ─[7]────> 6
//   round 1:  2 ─[2..3]─> 0   6 ─[6..7]─> 4
//   round 2:  4 ─[4..7]─> 0
//
// Unrotation at the root: relative rank a is absolute rank (a + root) mod P, so a
// child's run [a, a + s) is a contiguous run of recvbuf unless it wraps past rank
// P-1. The root receives every non-wrapping run straight into its place in
// recvbuf; at most one child's run wraps, and that one goes through a temporary
// buffer and is copied out in two pieces (the extra copy: at most P/2 blocks, none
// for root 0).
//
// Dispatch has put the root's own block at recvbuf + root * count (in place it
// is already there). recvbuf matters only at the root.
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's binomial gather).
// Limitation: a block far from the root is copied and sent again at every level: for small blocks.
// Memory: inner ranks a buffer of their subtree's blocks; the root a temporary buffer for the one run that wraps (at
//   most P/2 blocks).
//
// Cost (α-β model, n bytes per block): ⌈log2 P⌉ α + (P-1) nβ at the root, which
// receives runs of 1, 2, 4, ... blocks. Inner ranks copy their own block into a
// buffer of size(subtree) * n and send it; leaves send sendbuf directly.
#include <memory>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/binomial_tree.hpp"

namespace ragged {

void gather_binomial(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root) {
  namespace tree = plans::binomial;
  Comm& comm = ctx.comm();
  const int procs = ctx.procs();
  const int tag = ctx.tag();
  const std::size_t block = ctx.bytes(count, type);
  const tree::Node node = tree::node(ctx.rank(), root, procs);
  std::vector<Request> recvs;
  recvs.reserve(node.children.size());

  if (node.parent >= 0) {
    if (node.children.empty()) {
      comm.send(node.parent, tag, sendbuf, block, ctx.timeout());
      return;
    }
    const auto run =
        std::make_unique_for_overwrite<std::byte[]>(static_cast<std::size_t>(node.size) * block);  // no zero fill
    const auto blocks = ctx.blocks(run.get(), block);
    for (const tree::Edge& c : node.children)
      recvs.push_back(comm.irecv(c.rank, tag, blocks.at(c.offset), blocks.bytes(c.size)));
    internal::copy_bytes(run.get(), sendbuf, block);
    comm.wait_all(recvs, ctx.timeout());
    comm.send(node.parent, tag, run.get(), blocks.bytes(node.size), ctx.timeout());
    return;
  }

  // The root: children's runs go straight to recvbuf unless they wrap past rank P-1.
  const auto out = ctx.blocks(recvbuf, block);
  std::unique_ptr<std::byte[]> wrapped;  // at most one child's run wraps
  const tree::Edge* wrapping = nullptr;
  for (const tree::Edge& c : node.children) {
    void* dest = out.at(c.rank);
    if (tree::head(c.rank, c.size, procs) != c.size) {
      wrapped = std::make_unique_for_overwrite<std::byte[]>(out.bytes(c.size));
      wrapping = &c;
      dest = wrapped.get();
    }
    recvs.push_back(comm.irecv(c.rank, tag, dest, out.bytes(c.size)));
  }
  comm.wait_all(recvs, ctx.timeout());
  if (wrapping != nullptr) {
    const int head = tree::head(wrapping->rank, wrapping->size, procs);  // blocks of ranks start..P-1
    internal::copy_bytes(out.at(wrapping->rank), wrapped.get(), out.bytes(head));
    internal::copy_bytes(out.data(), wrapped.get() + out.bytes(head), out.bytes(wrapping->size - head));
  }
}

}  // namespace ragged
