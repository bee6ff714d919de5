#include "internal/common.hpp"

namespace ragged {

// Dissemination barrier: in round k every rank signals rank+2^k and waits for rank-2^k;
// ceil(log2 P) rounds of zero-byte messages.
void barrier(Comm& comm, Timeout timeout) {
  const int p = comm.size();
  const int r = comm.rank();
  for (int dist = 1; dist < p; dist *= 2) {
    comm.sendrecv((r + dist) % p, internal::tag_barrier, nullptr, 0, (r - dist + p) % p, internal::tag_barrier, nullptr,
                  0, timeout);
  }
}

}  // namespace ragged
