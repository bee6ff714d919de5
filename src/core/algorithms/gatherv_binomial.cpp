// Binomial gatherv: the fixed, block-size-oblivious tree of gather_binomial.cpp with
// blocks of any size (a baseline of Träff 2018). Ranks are relative to the root
// (v = rank - root mod p); the subtree of v is the run [v, v + size). Since only the
// root knows the counts, every rank first tells its parent how many elements its
// subtree holds (an 8-byte size message), then sends the data. p = 8, root 0:
//
//   sizes, then data:
//   round 0:  1 ─[1]────> 0   3 ─[3]────> 2   5 ─[5]────> 4   7 ─[7]────> 6
//   round 1:  2 ─[2..3]─> 0   6 ─[6..7]─> 4
//   round 2:  4 ─[4..7]─> 0
//
// A rank's buffer holds its subtree in relative order: its own block, then its
// children's runs (nearest child first). At the root a run goes straight into recvbuf
// when its blocks lie back to back there (not the case for a run that wraps past rank
// p-1, or for displacements out of rank order): otherwise through a temporary buffer.
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (the binomial gather), the fixed-tree baseline of J. L. Träff, "Practical, distributed, low
//   overhead algorithms for irregular gather and scatter collectives", Parallel Computing 75, 2018.
// Limitation: block-size oblivious: a large block far from the root crosses every level, up to ceil(log2 p) beta sum
//   m_i.
// Memory: inner ranks a buffer of their subtree's blocks; the root a staging buffer for a run that is not contiguous
//   in recvbuf.
//
// Cost (α-β): 2 ceil(log2 p) α (sizes, then data) + up to ceil(log2 p) β Σ m_i: a large
// block far from the root travels through every level (Träff 2018's worst case).
//
// Count checks: the root compares each child's announced size with recvcounts over
// the child's run, receives what comes anyway, and raises InvalidArgument
// ("recvcounts") at the end.
#include <algorithm>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/irregular.hpp"
#include "plans/binomial_tree.hpp"

namespace ragged {

void gatherv_binomial(Context& ctx, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                      std::span<const int> displs, DataType type, int root) {
  namespace irr = internal::irregular;
  namespace tree = plans::binomial;
  Comm& comm = ctx.comm();
  const int p = comm.size();
  const int me = comm.rank();
  const int tag_data = ctx.tag(0);
  const int tag_size = ctx.tag(1);  // subtree sizes ahead of the data
  const std::size_t element = size_of(type);
  const int own = sendcount;

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
    if (total == own) {
      comm.send(parent, tag_data, sendbuf, static_cast<std::size_t>(own) * element, ctx.timeout());
      return;
    }
    std::vector<std::byte> buffer(static_cast<std::size_t>(total) * element);
    std::vector<Request> receives;
    std::size_t at = static_cast<std::size_t>(own) * element;
    for (std::size_t k = 0; k < children.size(); ++k) {
      const std::size_t bytes = static_cast<std::size_t>(sizes[k]) * element;
      if (bytes != 0) {
        receives.push_back(comm.irecv(tree::absolute(children[k], root, p), tag_data, buffer.data() + at, bytes));
      }
      at += bytes;
    }
    internal::copy_bytes(buffer.data(), sendbuf, static_cast<std::size_t>(own) * element);
    comm.wait_all(receives, ctx.timeout());
    comm.send(parent, tag_data, buffer.data(), buffer.size(), ctx.timeout());
    return;
  }

  // The root.
  std::byte* out = internal::bytes(recvbuf);
  struct Pending {
    Request request;
    int source;
    std::size_t bytes;
    std::vector<int> ranks;
    std::vector<std::byte> staging;
    bool unpack;
  };
  std::vector<Pending> pending;
  for (std::size_t k = 0; k < children.size(); ++k) {
    const int c = children[k];
    std::vector<int> ranks;
    for (int u = c; u < c + tree::subtree_size(c, p); ++u) ranks.push_back(tree::absolute(u, root, p));
    const std::int64_t expected = irr::total(recvcounts, ranks);
    Pending pd{Request{}, ranks.front(), static_cast<std::size_t>(sizes[k]) * element, std::move(ranks), {}, false};
    if (expected != sizes[k]) {
      errors.note("recvcounts", "the subtree of rank " + std::to_string(pd.source) + " sends " +
                                    std::to_string(sizes[k]) + " elements, recvcounts say " + std::to_string(expected));
    }
    if (pd.bytes == 0) continue;
    void* dest = nullptr;
    const auto at = irr::contiguous(recvcounts, displs, pd.ranks);
    if (expected == sizes[k] && at) {
      dest = out + static_cast<std::size_t>(*at) * element;
    } else {
      pd.staging.resize(pd.bytes);
      pd.unpack = expected == sizes[k];
      dest = pd.staging.data();
    }
    pd.request = comm.irecv(pd.source, tag_data, dest, pd.bytes);
    pending.push_back(std::move(pd));
  }
  // Dispatch put the root's own block in place when sendcount agrees with recvcounts[root].
  if (const int want = recvcounts[static_cast<std::size_t>(root)]; sendcount != want) {
    errors.note("sendcount", "the root sends " + std::to_string(sendcount) + " elements, recvcounts[root] is " +
                                 std::to_string(want));
    internal::copy_bytes(out + static_cast<std::size_t>(displs[static_cast<std::size_t>(root)]) * element, sendbuf,
                         static_cast<std::size_t>(std::min(sendcount, want)) * element);
  }
  for (Pending& pd : pending) {
    irr::wait_checked(pd.request, pd.bytes, ctx.timeout(), errors, "recvcounts", pd.source);
    if (pd.unpack) irr::unpack(out, pd.staging.data(), recvcounts, displs, pd.ranks, element);
  }
  errors.raise();
}

}  // namespace ragged
