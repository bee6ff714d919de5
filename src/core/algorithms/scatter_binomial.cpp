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
  const int procs = comm.size();
  const int me = comm.rank();
  const std::size_t bytes = count * size_of(type);
  const int tag = ctx.tag(0);

  const int v = tree::relative(me, root, procs);
  const std::vector<int> children = tree::children(v, procs);
  const auto blocks = [&](int n) { return static_cast<std::size_t>(n) * bytes; };
  std::vector<Request> sends;
  sends.reserve(children.size());

  if (v != 0) {
    const int parent = tree::absolute(tree::parent(v), root, procs);
    if (children.empty()) {
      comm.recv(parent, tag, recvbuf, bytes, ctx.timeout());
      return;
    }
    const std::size_t run_bytes = blocks(tree::subtree_size(v, procs));
    const auto run = std::make_unique_for_overwrite<std::byte[]>(run_bytes);  // no zero fill
    comm.recv(parent, tag, run.get(), run_bytes, ctx.timeout());
    for (auto c = children.rbegin(); c != children.rend(); ++c) {
      sends.push_back(comm.isend(tree::absolute(*c, root, procs), tag, run.get() + blocks(*c - v),
                                 blocks(tree::subtree_size(*c, procs))));
    }
    internal::copy_bytes(recvbuf, run.get(), bytes);
    comm.wait_all(sends, ctx.timeout());
    return;
  }

  // The root: children's runs go straight from sendbuf unless they wrap past rank P-1.
  const std::byte* in = internal::bytes(sendbuf);
  std::unique_ptr<std::byte[]> wrapped;  // at most one child's run wraps
  for (auto c = children.rbegin(); c != children.rend(); ++c) {
    const int start = tree::absolute(*c, root, procs);
    const int size = tree::subtree_size(*c, procs);
    const void* src = in + blocks(start);
    if (start + size > procs) {
      const int head = procs - start;  // blocks of ranks start..P-1
      wrapped = std::make_unique_for_overwrite<std::byte[]>(blocks(size));
      internal::copy_bytes(wrapped.get(), in + blocks(start), blocks(head));
      internal::copy_bytes(wrapped.get() + blocks(head), in, blocks(size - head));
      src = wrapped.get();
    }
    sends.push_back(comm.isend(start, tag, src, blocks(size)));
  }
  comm.wait_all(sends, ctx.timeout());
}

}  // namespace ragged
