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
  const int procs = comm.size();
  const int me = comm.rank();
  const std::size_t bytes = count * size_of(type);
  const int tag = ctx.tag(0);

  const int v = tree::relative(me, root, procs);
  const std::vector<int> children = tree::children(v, procs);
  const auto blocks = [&](int n) { return static_cast<std::size_t>(n) * bytes; };
  std::vector<Request> recvs;
  recvs.reserve(children.size());

  if (v != 0) {
    const int parent = tree::absolute(tree::parent(v), root, procs);
    if (children.empty()) {
      comm.send(parent, tag, sendbuf, bytes, ctx.timeout());
      return;
    }
    const int size = tree::subtree_size(v, procs);
    const auto run = std::make_unique_for_overwrite<std::byte[]>(blocks(size));  // no zero fill
    for (int c : children) {
      recvs.push_back(comm.irecv(tree::absolute(c, root, procs), tag, run.get() + blocks(c - v),
                                 blocks(tree::subtree_size(c, procs))));
    }
    internal::copy_bytes(run.get(), sendbuf, bytes);
    comm.wait_all(recvs, ctx.timeout());
    comm.send(parent, tag, run.get(), blocks(size), ctx.timeout());
    return;
  }

  // The root: children's runs go straight to recvbuf unless they wrap past rank P-1.
  std::byte* out = internal::bytes(recvbuf);
  std::unique_ptr<std::byte[]> wrapped;  // at most one child's run wraps
  int wrapped_start = 0;                 // absolute rank of the wrapped run's first block
  int wrapped_size = 0;
  for (int c : children) {
    const int start = tree::absolute(c, root, procs);
    const int size = tree::subtree_size(c, procs);
    void* dest = out + blocks(start);
    if (start + size > procs) {
      wrapped = std::make_unique_for_overwrite<std::byte[]>(blocks(size));
      wrapped_start = start;
      wrapped_size = size;
      dest = wrapped.get();
    }
    recvs.push_back(comm.irecv(start, tag, dest, blocks(size)));
  }
  comm.wait_all(recvs, ctx.timeout());
  if (wrapped_size != 0) {
    const int head = procs - wrapped_start;  // blocks of ranks wrapped_start..P-1
    internal::copy_bytes(out + blocks(wrapped_start), wrapped.get(), blocks(head));
    internal::copy_bytes(out, wrapped.get() + blocks(head), blocks(wrapped_size - head));
  }
}

}  // namespace ragged
