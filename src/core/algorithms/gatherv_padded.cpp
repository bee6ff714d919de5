// Padded gatherv: what an application does without a good MPI_Gatherv, and the
// right-hand side of seed 003's guideline GL2: agree on the largest block with an
// allreduce of one element, then the regular gather of blocks padded to that size.
//
//   allreduce(max m_i)                     recursive doubling, one int64
//   gather(max elements per rank)          binomial tree, padded blocks
//   root: block i from slot i -> recvbuf + displs[i]
//
// Copies: every rank whose block is shorter than the largest copies it into a padded
// buffer (the rest of the slot is zeros); the root copies every block out of the
// padded receive buffer into its place (GL2 itself assumes the application needs
// neither copy).
//
// Cost (α-β): allreduce(1) + ceil(log2 p) α + (p-1) β max_i m_i.
//
// Count checks: the root raises InvalidArgument("recvcounts") when one of its counts
// exceeds the agreed maximum (smaller disagreements go unnoticed).
#include <algorithm>
#include <vector>

#include "internal/irregular.hpp"
#include "ragged/algorithms.hpp"
#include "ragged/irregular.hpp"

namespace ragged {

void gatherv_padded(Comm& comm, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                    std::span<const int> displs, DataType type, int root, const CollectiveOptions& options) {
  namespace irr = internal::irregular;
  check_rank(comm, root, "root");
  const int p = comm.size();
  const int me = comm.rank();
  const std::size_t element = size_of(type);
  const bool inplace = internal::is_in_place(sendbuf);
  if (inplace && me != root) throw InvalidArgument("sendbuf", "in_place is only valid at the root");
  if (me == root) {
    irr::check_root_vectors(comm, recvcounts, "recvcounts", displs, "displs");
    irr::check_root_buffer(recvbuf, recvcounts, displs, element, "recvbuf");
  }
  if (!inplace) {
    irr::check_count(sendcount, "sendcount");
    internal::check_buffer(sendbuf, static_cast<std::size_t>(sendcount) * element, "sendbuf");
  }
  std::byte* out = internal::bytes(recvbuf);
  const std::byte* own_data = inplace ? out + static_cast<std::size_t>(displs[static_cast<std::size_t>(root)]) * element
                                      : internal::bytes(sendbuf);
  const int own = inplace ? recvcounts[static_cast<std::size_t>(root)] : sendcount;

  const std::int64_t mine = own;
  std::int64_t largest = 0;
  allreduce_recursive_doubling(comm, &mine, &largest, 1, DataType::int64, ReduceOp::max(), options);
  if (largest == 0) return;
  const std::size_t slot = static_cast<std::size_t>(largest) * element;

  std::vector<std::byte> padded_send;
  const void* send = own_data;
  if (own != largest || inplace) {
    padded_send.assign(slot, std::byte{0});
    internal::copy_bytes(padded_send.data(), own_data, static_cast<std::size_t>(own) * element);
    send = padded_send.data();
  }
  if (me != root) {
    gather_binomial(comm, send, nullptr, static_cast<std::size_t>(largest), type, root, options);
    return;
  }
  std::vector<std::byte> all(slot * static_cast<std::size_t>(p));
  gather_binomial(comm, send, all.data(), static_cast<std::size_t>(largest), type, root, options);
  irr::Deferred errors;
  for (int i = 0; i < p; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (recvcounts[k] > largest) {
      errors.note("recvcounts", "entry " + std::to_string(i) + " (" + std::to_string(recvcounts[k]) +
                                    ") exceeds every sender's count (at most " + std::to_string(largest) + ")");
      continue;
    }
    if (i == root && inplace) continue;
    if (i == root && sendcount != recvcounts[k]) {
      errors.note("sendcount", "the root sends " + std::to_string(sendcount) + " elements, recvcounts[root] is " +
                                   std::to_string(recvcounts[k]));
    }
    internal::copy_bytes(
        out + static_cast<std::size_t>(displs[k]) * element, all.data() + k * slot,
        static_cast<std::size_t>(i == root ? std::min(sendcount, recvcounts[k]) : recvcounts[k]) * element);
  }
  errors.raise();
}

}  // namespace ragged
