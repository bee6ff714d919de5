// Padded scatterv: the right-hand side of seed 003's guideline GL2 for scatter: agree
// on the largest block with an allreduce of one element (the root contributes its
// largest sendcount, every other rank its recvcount), then the regular scatter of
// blocks padded to that size.
//
//   allreduce(max m_i)                     recursive doubling, one int64
//   root: block i -> slot i of a padded buffer
//   scatter(max elements per rank)         binomial tree, padded blocks
//
// Copies: the root packs every block into the padded buffer; a rank whose block is
// shorter than the largest receives its slot into a buffer and copies its block out
// (GL2 itself assumes the application needs neither copy).
//
// Cost (α-β): allreduce(1) + ceil(log2 p) α + (p-1) β max_i m_i.
#include <algorithm>
#include <vector>

#include "internal/irregular.hpp"
#include "ragged/algorithms.hpp"
#include "ragged/irregular.hpp"

namespace ragged {

void scatterv_padded(Comm& comm, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                     void* recvbuf, int recvcount, DataType type, int root, const CollectiveOptions& options) {
  namespace irr = internal::irregular;
  check_rank(comm, root, "root");
  const int p = comm.size();
  const int me = comm.rank();
  const std::size_t element = size_of(type);
  const bool inplace = internal::is_in_place(recvbuf);
  if (inplace && me != root) throw InvalidArgument("recvbuf", "in_place is only valid at the root");
  std::int64_t mine = 0;
  if (me == root) {
    irr::check_root_vectors(comm, sendcounts, "sendcounts", displs, "displs");
    irr::check_root_buffer(sendbuf, sendcounts, displs, element, "sendbuf");
    mine = *std::max_element(sendcounts.begin(), sendcounts.end());
  }
  if (!inplace) {
    irr::check_count(recvcount, "recvcount");
    internal::check_buffer(recvbuf, static_cast<std::size_t>(recvcount) * element, "recvbuf");
    mine = std::max<std::int64_t>(mine, recvcount);
  }
  std::int64_t largest = 0;
  allreduce_recursive_doubling(comm, &mine, &largest, 1, DataType::int64, ReduceOp::max(), options);
  if (largest == 0) return;
  const std::size_t slot = static_cast<std::size_t>(largest) * element;
  const std::size_t own_bytes = inplace ? 0 : static_cast<std::size_t>(recvcount) * element;

  std::vector<std::byte> all;
  const void* send = nullptr;
  irr::Deferred errors;
  if (me == root) {
    all.assign(slot * static_cast<std::size_t>(p), std::byte{0});
    for (int i = 0; i < p; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (i == root && inplace) continue;
      internal::copy_bytes(all.data() + k * slot,
                           internal::bytes(sendbuf) + static_cast<std::size_t>(displs[k]) * element,
                           static_cast<std::size_t>(sendcounts[k]) * element);
    }
    send = all.data();
    if (!inplace && recvcount != sendcounts[static_cast<std::size_t>(root)]) {
      errors.note("recvcount", "the root receives " + std::to_string(recvcount) + " elements, sendcounts[root] is " +
                                   std::to_string(sendcounts[static_cast<std::size_t>(root)]));
    }
  }
  if (me == root && inplace) {
    scatter_binomial(comm, send, const_cast<void*>(in_place), static_cast<std::size_t>(largest), type, root, options);
  } else if (own_bytes == slot) {
    scatter_binomial(comm, send, recvbuf, static_cast<std::size_t>(largest), type, root, options);
  } else {
    std::vector<std::byte> mine_padded(slot);
    scatter_binomial(comm, send, mine_padded.data(), static_cast<std::size_t>(largest), type, root, options);
    internal::copy_bytes(recvbuf, mine_padded.data(), own_bytes);
  }
  errors.raise();
}

}  // namespace ragged
