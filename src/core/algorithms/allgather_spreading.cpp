// allgather "spreading": every rank posts the receives of all other blocks and the sends of its
// own block to every other rank at once, then waits for them. Sends go to r+1, r+2, ..., r-1 and
// receives come from r-1, r-2, ..., r+1 (mod P), so that at any moment the ranks start with
// different peers.
//
//   P = 4, block b starts on rank b:
//
//   rank 0:  irecv 3, 2, 1    isend 1, 2, 3    wait all        [0 1 2 3] on every rank
//   rank 1:  irecv 0, 3, 2    isend 2, 3, 0    wait all
//   rank 2:  irecv 1, 0, 3    isend 3, 0, 1    wait all
//   rank 3:  irecv 2, 1, 0    isend 0, 1, 2    wait all
//
// Reference: the "simple spreading" allgather of A. Faraj and X. Yuan's automatically tuned
//   routines (STAR-MPI; SimGrid SMPI's allgather spreading_simple, by A. Faraj).
// Limitation: P(P-1) messages in flight at once: they contend at the ports and cards, and a
//   network that charges each message its latency (or a gap) pays P-1 of them; the simulator
//   carries about 30,000 transfers in flight (docs/backends/sim.md), so not beyond P of about 170.
// Memory: none beyond the receive buffer; 2(P-1) requests.
//
// Cost (m = one rank's block): alpha + (P-1) m beta when the latencies of a rank's messages
// overlap (the simulator's CM02 without a gap); with a gap g at least (P-1) g; with k ranks to a
// node its card carries k (P-k) blocks each way, as the linear alltoall's
// (plans::cost::allgather_spreading).
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"

namespace ragged {

void allgather_spreading(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::size_t count, DataType type) {
  // Dispatch copied this rank's block into recvbuf.
  const auto out = ctx.blocks(recvbuf, ctx.bytes(count, type));
  const int p = ctx.procs();
  const int me = ctx.rank();
  Comm& comm = ctx.comm();
  std::vector<Request> requests;
  requests.reserve(2 * static_cast<std::size_t>(p - 1));
  for (int k = 1; k < p; ++k) {
    const int from = (me - k + p) % p;
    requests.push_back(comm.irecv(from, ctx.tag(), out.at(from), out.block()));
  }
  for (int k = 1; k < p; ++k) {
    const int to = (me + k) % p;
    requests.push_back(comm.isend(to, ctx.tag(), out.at(me), out.block()));
  }
  comm.wait_all(requests, ctx.timeout());
}

}  // namespace ragged
