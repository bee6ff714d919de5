// Binomial scatterv: the fixed, block-size-oblivious tree of scatter_binomial.cpp with
// blocks of any size (a baseline of Träff 2018). Ranks are relative to the root; the
// subtree of v is the run [v, v + size). Only the root knows the counts, so first
// every rank tells its parent how many elements its subtree expects (8-byte size
// messages, upwards), then the data flows down, non-blocking sends started farthest
// child (largest subtree) first. p = 8, root 0, data:
//
//   round 0:  0 ─[4..7]─> 4
//   round 1:  0 ─[2..3]─> 2   4 ─[6..7]─> 6
//   round 2:  0 ─[1]────> 1   2 ─[3]────> 3   4 ─[5]────> 5   6 ─[7]────> 7
//
// A rank receives its subtree in relative order (own block first) into a buffer, or
// straight into recvbuf when it has no non-empty child, sends each child its run and
// copies its own block out. The root sends a run straight from sendbuf when its
// blocks lie back to back there, else packs it first. The root's own block is already
// in recvbuf (dispatch).
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (the binomial scatter), the fixed-tree baseline of J. L. Träff, "Practical, distributed, low
//   overhead algorithms for irregular gather and scatter collectives", Parallel Computing 75, 2018.
// Limitation: block-size oblivious: a large block far from the root crosses every level.
// Memory: inner ranks a buffer of their subtree's blocks; the root packs a run that is not contiguous in sendbuf.
//
// Cost (α-β): 2 ceil(log2 p) α + up to ceil(log2 p) β Σ m_i (a large block far from the
// root crosses every level).
//
// Count checks: the root compares each child's announced size with sendcounts, sends
// what the child expects (zeros where they disagree) and raises InvalidArgument
// ("sendcounts") at the end.
#include <algorithm>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/irregular.hpp"
#include "plans/binomial_tree.hpp"

namespace ragged {

void scatterv_binomial(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                       void* recvbuf, int recvcount, DataType type, int root) {
  namespace irr = internal::irregular;
  namespace tree = plans::binomial;
  Comm& comm = ctx.comm();
  const int p = comm.size();
  const int me = comm.rank();
  const int tag_data = ctx.tag(0);
  const int tag_size = ctx.tag(1);  // subtree sizes, upwards
  const std::size_t element = size_of(type);
  const int own = recvcount;

  const int v = tree::relative(me, root, p);
  const std::vector<int> children = tree::children(v, p);
  std::vector<std::int64_t> sizes(children.size(), 0);
  {
    std::vector<Request> headers;
    for (std::size_t k = 0; k < children.size(); ++k) {
      headers.push_back(comm.irecv(tree::absolute(children[k], root, p), tag_size, &sizes[k], sizeof(std::int64_t)));
    }
    comm.wait_all(headers, ctx.timeout());
  }
  std::int64_t total = own;
  for (std::int64_t s : sizes) total += s;
  irr::Deferred errors;

  if (v != 0) {
    const int parent = tree::absolute(tree::parent(v), root, p);
    comm.send(parent, tag_size, &total, sizeof total, ctx.timeout());
    if (total == 0) return;
    const std::size_t bytes = static_cast<std::size_t>(total) * element;
    if (total == own) {
      Request r = comm.irecv(parent, tag_data, recvbuf, bytes);
      irr::wait_checked(r, bytes, ctx.timeout(), errors, "recvcount", parent);
      errors.raise();
      return;
    }
    std::vector<std::byte> buffer(bytes);
    Request r = comm.irecv(parent, tag_data, buffer.data(), bytes);
    irr::wait_checked(r, bytes, ctx.timeout(), errors, "recvcount", parent);
    std::vector<std::size_t> offsets(children.size());
    std::size_t at = static_cast<std::size_t>(own) * element;
    for (std::size_t k = 0; k < children.size(); ++k) {
      offsets[k] = at;
      at += static_cast<std::size_t>(sizes[k]) * element;
    }
    irr::OrderedSends started;
    for (std::size_t k = children.size(); k-- > 0;) {
      const std::size_t n = static_cast<std::size_t>(sizes[k]) * element;
      if (n != 0) {
        started.start(comm, tree::absolute(children[k], root, p), tag_data, buffer.data() + offsets[k], n,
                      ctx.timeout());
      }
    }
    internal::copy_bytes(recvbuf, buffer.data(), static_cast<std::size_t>(own) * element);
    started.finish(comm, ctx.timeout());
    errors.raise();
    return;
  }

  // The root: farthest child first.
  const std::byte* in = internal::bytes(sendbuf);
  std::vector<std::vector<std::byte>> packed;  // alive until every send completed
  packed.reserve(children.size());
  irr::OrderedSends started;
  for (std::size_t k = children.size(); k-- > 0;) {
    const int c = children[k];
    std::vector<int> ranks;
    for (int u = c; u < c + tree::subtree_size(c, p); ++u) ranks.push_back(tree::absolute(u, root, p));
    const std::int64_t expected = irr::total(sendcounts, ranks);
    const std::size_t bytes = static_cast<std::size_t>(sizes[k]) * element;
    const int dest = ranks.front();
    if (expected != sizes[k]) {
      errors.note("sendcounts", "the subtree of rank " + std::to_string(dest) + " expects " + std::to_string(sizes[k]) +
                                    " elements, sendcounts say " + std::to_string(expected));
      if (bytes == 0) continue;
      packed.emplace_back(bytes, std::byte{0});
      started.start(comm, dest, tag_data, packed.back().data(), bytes, ctx.timeout());
      continue;
    }
    if (bytes == 0) continue;
    if (const auto at = irr::contiguous(sendcounts, displs, ranks)) {
      started.start(comm, dest, tag_data, in + static_cast<std::size_t>(*at) * element, bytes, ctx.timeout());
    } else {
      packed.emplace_back(bytes);
      irr::pack(packed.back().data(), in, sendcounts, displs, ranks, element);
      started.start(comm, dest, tag_data, packed.back().data(), bytes, ctx.timeout());
    }
  }
  // Dispatch put the root's own block in recvbuf when recvcount agrees with sendcounts[root].
  if (const int have = sendcounts[static_cast<std::size_t>(root)]; recvcount != have) {
    errors.note("recvcount", "the root receives " + std::to_string(recvcount) + " elements, sendcounts[root] is " +
                                 std::to_string(have));
    internal::copy_bytes(recvbuf, in + static_cast<std::size_t>(displs[static_cast<std::size_t>(root)]) * element,
                         static_cast<std::size_t>(std::min(recvcount, have)) * element);
  }
  started.finish(comm, ctx.timeout());
  errors.raise();
}

}  // namespace ragged
